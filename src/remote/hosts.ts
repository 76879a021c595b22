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

/** The IPv4 address an IPv6 one embeds (`::ffff:a.b.c.d` mapped, `::a.b.c.d` compatible), or null. */
function embedded(groups: number[]): number[] | null {
  const zero = groups.slice(0, 5).every((g) => g === 0);
  if (!zero || (groups[5] !== 0xffff && groups[5] !== 0)) return null;
  if (groups[5] === 0 && groups[6] === 0) return null; // `::` and `::1` are IPv6's own
  return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255];
}

const loopbackV4 = (b: number[]) => b[0] === 127;
const privateV4 = (b: number[]) => b[0] === 0 || b[0] === 10 || b[0] === 127 || (b[0] === 172 && b[1]! >= 16 && b[1]! <= 31) || (b[0] === 192 && b[1] === 168) || (b[0] === 169 && b[1] === 254);

/** A name without its trailing dot (`localhost.` is `localhost`). */
const bare = (hostname: string) => hostname.toLowerCase().replace(/\.$/, "");

/**
 * Whether `hostname` names this machine: `localhost`, `*.localhost` (a trailing dot or not),
 * 127.0.0.0/8, `[::1]`, and 127/8 mapped into IPv6. Nothing sent there crosses a network.
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
 * ({@link isLoopback}), an unspecified address (`0.0.0.0`, `0/8`, `[::]`), 10/8, 172.16/12,
 * 192.168/16, link-local 169.254/16, fc00::/7, fe80::/10, and those mapped into IPv6.
 */
export function isPrivateHost(hostname: string): boolean {
  const host = bare(hostname);
  if (isLoopback(host)) return true;
  const v4 = ipv4(host);
  if (v4) return privateV4(v4);
  const v6 = ipv6(host);
  if (!v6) return false;
  const inner = embedded(v6);
  if (inner) return privateV4(inner);
  return v6.every((g) => g === 0) || (v6[0]! & 0xfe00) === 0xfc00 || (v6[0]! & 0xffc0) === 0xfe80;
}
