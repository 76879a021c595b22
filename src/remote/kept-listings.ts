/**
 * The bound of what one Worker isolate keeps of users' remote tool lists for `GET /v1/tools`
 * (src/remote/tool-listing.ts): at most {@link KEPT_USERS} users and {@link MAX_KEPT_LISTING_BYTES}
 * bytes of lists over all of them; past either, the users listed longest ago are dropped first
 * (their servers are listed again at their next request). A user whose own servers' lists pass
 * {@link MAX_OWN_KEPT_LISTING_BYTES} is not kept: lists just under the whole bound, made again at
 * each of one user's requests, would drop every other user, whose next request lists anew.
 * @module
 */

/** Users whose servers one isolate keeps listed (each keeps its sessions and lists for their TTL). */
export const KEPT_USERS = 256;

/**
 * Bytes of remote tool lists one isolate keeps for `GET /v1/tools`, over all users: each offered
 * tool's names, description, `inputSchema` and `outputSchema` as JSON text (`RemoteServers.keptBytes` in
 * src/remote/servers.ts). A user whose lists alone pass it is answered and not kept.
 */
export const MAX_KEPT_LISTING_BYTES = 16 * 1024 * 1024;

/**
 * Bytes of the lists of the servers one user added (`POST /mcp-servers`) an isolate keeps for them
 * at most: a quarter of {@link MAX_KEPT_LISTING_BYTES}, so one user can take no more than that from
 * the others. The deployment's declared servers are no user's choice and do not count.
 */
export const MAX_OWN_KEPT_LISTING_BYTES = MAX_KEPT_LISTING_BYTES / 4;

/**
 * Marks `key` as listed last, then drops the entries listed longest ago until `kept` holds at most
 * `maxUsers` entries and `bytesOf` of them all is at most `maxBytes`. A `value` alone over
 * `maxBytes`, or whose `ownBytesOf` (the lists of the servers its user added) passes a quarter of
 * it, is not kept, and drops no other. Map order is the order of listing.
 * @returns the values no longer kept (`value` itself when it is not kept), for their holder to let go of.
 */
export function keepWithin<T>(kept: Map<string, T>, key: string, value: T, bytesOf: (value: T) => number, maxBytes = MAX_KEPT_LISTING_BYTES, maxUsers = KEPT_USERS, ownBytesOf: (value: T) => number = () => 0): T[] {
  kept.delete(key);
  if (bytesOf(value) > maxBytes || ownBytesOf(value) > (maxBytes * MAX_OWN_KEPT_LISTING_BYTES) / MAX_KEPT_LISTING_BYTES) return [value];
  kept.set(key, value);
  let total = 0;
  for (const entry of kept.values()) total += bytesOf(entry);
  const dropped: T[] = [];
  for (const [other, entry] of kept) {
    if (total <= maxBytes && kept.size <= maxUsers) break;
    total -= bytesOf(entry);
    kept.delete(other);
    dropped.push(entry);
  }
  return dropped;
}
