/**
 * Which host names (as `URL` gives them: lower case, IPv4 in dotted decimal, IPv6 compressed in
 * brackets) name the Worker's own machine or a private network. Only spellings are checked: a DNS
 * name that resolves to such an address (`127.0.0.1.nip.io`) is not (a Worker in production cannot
 * reach private addresses; docs/remote-mcp.md).
 * @module
 */

/** The four bytes of a dotted IPv4 address, or null. */
function ipv4(host: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  const bytes = m ? m.slice(1).map(Number) : null;
  return bytes && bytes.every((b) => b <= 255) ? bytes : null;
}

/** The eight 16-bit groups of a bracketed IPv6 address (`[::1]`), or null. */
function ipv6(host: string): number[] | null {
  if (!host.startsWith("[") || !host.endsWith("]")) return null;
  let body = host.slice(1, -1);
  // A trailing dotted IPv4 (`::ffff:1.2.3.4`), in case it was not rewritten as hex.
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (tail) {
    const v4 = ipv4(tail[1]!);
    if (!v4) return null;
    body = body.slice(0, -tail[1]!.length) + `${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = body.split("::");
  if (halves.length > 2) return null;
  const part = (s: string) => (s === "" ? [] : s.split(":").map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN)));
  const head = part(halves[0]!);
  const rest = halves.length === 2 ? part(halves[1]!) : [];
  const fill = halves.length === 2 ? 8 - head.length - rest.length : 0;
  const groups = [...head, ...Array<number>(Math.max(fill, 0)).fill(0), ...rest];
  return groups.length === 8 && groups.every((g) => !Number.isNaN(g)) ? groups : null;
}

/** The IPv4 address in two 16-bit groups. */
const v4Of = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255];

/**
 * The IPv4 address an IPv6 one stands for on this host, or null: mapped `::ffff:a.b.c.d` and
 * compatible `::a.b.c.d` (RFC 4291 2.5.5), translated `::ffff:0:a.b.c.d` (RFC 2765).
 */
function embedded(g: number[]): number[] | null {
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return v4Of(g[6]!, g[7]!);
  if (zeros(0, 6) && g[6] !== 0) return v4Of(g[6]!, g[7]!); // `::` and `::1` are IPv6's own
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return v4Of(g[6]!, g[7]!);
  return null;
}

/**
 * The IPv4 address an IPv6 one reaches through a gateway, or null: NAT64 `64:ff9b::a.b.c.d` and
 * `64:ff9b:1::/48` (RFC 6052, RFC 8215), 6to4 `2002:aabb:ccdd::/48` (RFC 3056), Teredo `2001:0::/32`
 * (the client's address is the last 32 bits inverted, RFC 4380). Such a request crosses a network
 * to the gateway, so these are private when the address is, never loopback.
 */
function tunnelled(g: number[]): number[] | null {
  if (g[0] === 0x64 && g[1] === 0xff9b && (g.slice(2, 6).every((x) => x === 0) || g[2] === 1)) return v4Of(g[6]!, g[7]!);
  if (g[0] === 0x2002) return v4Of(g[1]!, g[2]!);
  if (g[0] === 0x2001 && g[1] === 0) return v4Of(g[6]! ^ 0xffff, g[7]! ^ 0xffff);
  return null;
}

const loopbackV4 = (b: number[]) => b[0] === 127;

/** 0/8, 10/8, 100.64/10 (carrier-grade NAT, RFC 6598), 127/8, 169.254/16, 172.16/12, 192.168/16. */
const privateV4 = (b: number[]) =>
  b[0] === 0 || b[0] === 10 || (b[0] === 100 && (b[1]! & 0xc0) === 64) || b[0] === 127 || (b[0] === 169 && b[1] === 254) || (b[0] === 172 && (b[1]! & 0xf0) === 16) || (b[0] === 192 && b[1] === 168);

/** A name without its trailing dot (`localhost.` is `localhost`). */
const bare = (hostname: string) => hostname.toLowerCase().replace(/\.$/, "");

/**
 * Whether `hostname` names this machine: `localhost`, `*.localhost` (a trailing dot or not),
 * 127.0.0.0/8, `[::1]`, and 127/8 mapped, compatible or translated into IPv6. Nothing sent there
 * crosses a network.
 */
export function isLoopback(hostname: string): boolean {
  const host = bare(hostname);
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  const v4 = ipv4(host);
  if (v4) return loopbackV4(v4);
  const v6 = ipv6(host);
  if (!v6) return false;
  const inner = embedded(v6);
  return inner ? loopbackV4(inner) : v6.slice(0, 7).every((g) => g === 0) && v6[7] === 1;
}

/**
 * Whether `hostname` is this machine or a private network, by its spelling: a loopback host
 * ({@link isLoopback}), an unspecified address (`0.0.0.0`, `0/8`, `[::]`), 10/8, 100.64/10,
 * 172.16/12, 192.168/16, link-local 169.254/16, fc00::/7, fe80::/10, and those carried in IPv6
 * (mapped, translated, NAT64, 6to4, Teredo).
 */
export function isPrivateHost(hostname: string): boolean {
  const host = bare(hostname);
  if (isLoopback(host)) return true;
  const v4 = ipv4(host);
  if (v4) return privateV4(v4);
  const v6 = ipv6(host);
  if (!v6) return false;
  const inner = embedded(v6) ?? tunnelled(v6);
  if (inner) return privateV4(inner);
  return v6.every((g) => g === 0) || (v6[0]! & 0xfe00) === 0xfc00 || (v6[0]! & 0xffc0) === 0xfe80;
}
