/**
 * Call records' stacks in source terms under `npm start`. A stack is recorded as the runtime gives
 * it, pointing into wrangler's bundle (`.wrangler/tmp/dev-*\/worker.js:LINE:COL`); the Worker has
 * no file system and its bundle's source map is on the developer's disk, so when a record is read
 * over HTTP its stack is sent to `npm start`'s mapper (`WEFT_DEV_STACK_MAPPER`, a loopback URL;
 * scripts/lib/stack-map.mjs), which maps every frame through that map to `agents/...` or `src/...`.
 *
 * Only reads pay: only error results carry a stack, records are mapped as they leave, and nothing
 * is added to the bundle or to a call's path. Without the setting (a deployment, the tests) or when
 * the mapper does not answer in time, stacks are sent as recorded (a later read maps them).
 * Deployed, Cloudflare maps exception stacks in Workers Logs and `wrangler tail` with the source
 * map `wrangler deploy` uploads (docs/deploying.md).
 * @module
 */
import type { CallRecord } from "../protocol.js";

/**
 * How long a read waits for the mapper before sending stacks as recorded: the first read after a
 * rebuild waits while the mapper parses the new bundle's map (11 MB: 1 to 2.2 s measured, more on
 * a loaded machine); later reads take well under a millisecond a stack there.
 */
const MAPPER_TIMEOUT_MS = 10_000;

/** Mapped stacks by recorded stack, per isolate: a rebuild starts a new isolate, so none goes stale. */
const mapped = new Map<string, string>();
const MAX_REMEMBERED = 500;

/** The mapper's URL when it is a loopback address (a deployed Worker reaches none), else undefined. */
function mapperOf(env: Readonly<Record<string, unknown>>): string | undefined {
  const raw = env.WEFT_DEV_STACK_MAPPER;
  if (typeof raw !== "string" || raw === "") return undefined;
  try {
    const url = new URL(raw);
    return url.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** `stacks` mapped by the mapper (in order), or undefined when it did not answer well in time. */
async function askMapper(url: string, stacks: string[]): Promise<string[] | undefined> {
  try {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ stacks }), signal: AbortSignal.timeout(MAPPER_TIMEOUT_MS) });
    if (!res.ok) return undefined;
    const body = (await res.json()) as { stacks?: unknown };
    const out = body.stacks;
    return Array.isArray(out) && out.length === stacks.length && out.every((s) => typeof s === "string") ? (out as string[]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The records with each result's `stack` mapped to source when `npm start`'s mapper is set and
 * answers; the records unchanged otherwise. Never throws. The records are already the caller's to
 * read (redacted), so nothing leaves that the caller could not see.
 */
export async function withSourceStacks<T extends Pick<CallRecord, "result">>(env: Readonly<Record<string, unknown>>, records: T[]): Promise<T[]> {
  const url = mapperOf(env);
  if (!url) return records;
  const unknown = [...new Set(records.map((r) => r.result?.stack).filter((s): s is string => s !== undefined && !mapped.has(s)))];
  if (unknown.length > 0) {
    const answer = await askMapper(url, unknown);
    if (!answer) return records;
    if (mapped.size + unknown.length > MAX_REMEMBERED) mapped.clear();
    unknown.forEach((stack, i) => mapped.set(stack, answer[i]!));
  }
  return records.map((r) => {
    const stack = r.result?.stack;
    const source = stack === undefined ? undefined : mapped.get(stack);
    return source === undefined || source === stack ? r : { ...r, result: { ...r.result!, stack: source } };
  });
}
