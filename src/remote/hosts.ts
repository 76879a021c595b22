/**
 * Which host names (as `URL` gives them: lower case, IPv4 in dotted decimal, IPv6 compressed in
 * brackets) name the Worker's own machine or a network that is not the public Internet: the
 * addresses IANA's special-purpose registries mark not globally reachable, and the special-use
 * names of this machine and local networks. Only spellings are checked: a DNS name that resolves
 * to such an address (`127.0.0.1.nip.io`) is not (a Worker in production cannot reach private
 * addresses; docs/remote-mcp.md).
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

/** Whether `bits` leading bits of `value` (big-endian units of `width` bits) equal `prefix`'s. */
function inPrefix(value: number[], prefix: number[], bits: number, width: number): boolean {
  for (let i = 0; bits > 0; i++, bits -= width) {
    const mask = bits >= width ? (1 << width) - 1 : ((1 << width) - 1) ^ ((1 << (width - bits)) - 1);
    if ((value[i]! & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

/**
 * IPv4 ranges not globally reachable (IANA IPv4 Special-Purpose Address Registry, RFC 6890 and
 * its updates), as [first bytes, prefix length].
 */
const PRIVATE_V4: ReadonlyArray<readonly [number[], number]> = [
  [[0], 8], // "this network", 0.0.0.0 included
  [[10], 8],
  [[100, 64], 10], // carrier-grade NAT (RFC 6598)
  [[127], 8],
  [[169, 254], 16], // link-local, cloud metadata
  [[172, 16], 12],
  [[192, 0, 0], 24], // IETF protocol assignments
  [[192, 0, 2], 24], // documentation
  [[192, 168], 16],
  [[198, 18], 15], // benchmarking
  [[198, 51, 100], 24], // documentation
  [[203, 0, 113], 24], // documentation
  [[224], 4], // multicast
  [[240], 4], // reserved, 255.255.255.255 included
];

/**
 * IPv6 ranges not globally reachable whatever they carry (IANA IPv6 Special-Purpose Address
 * Registry), as [first groups, prefix length]. The ranges that carry an IPv4 address to a host
 * on this machine or through a gateway are read by {@link carried}.
 */
const PRIVATE_V6: ReadonlyArray<readonly [number[], number]> = [
  [[0x64, 0xff9b, 1], 48], // local-use IPv4/IPv6 translation (RFC 8215)
  [[0x100], 64], // discard-only
  [[0x2001, 0x2], 48], // benchmarking
  [[0x2001, 0x10], 28], // ORCHID (deprecated)
  [[0x2001, 0xdb8], 32], // documentation
  [[0x3fff], 20], // documentation (RFC 9637)
  [[0x5f00], 16], // segment routing SIDs (RFC 9602)
  [[0xfc00], 7], // unique local
  [[0xfe80], 10], // link-local
  [[0xfec0], 10], // site-local (deprecated, still routed)
  [[0xff00], 8], // multicast
];

/**
 * The IPv4 address an IPv6 one carries, and whether the request stays on this host: mapped
 * `::ffff:a.b.c.d` (RFC 4291 2.5.5.2) is the IPv4 host itself; NAT64 `64:ff9b::a.b.c.d` (RFC
 * 6052), 6to4 `2002:aabb:ccdd::/48` (RFC 3056) and Teredo `2001:0::/32` (the client's address is
 * the last 32 bits inverted, RFC 4380) reach it through a gateway, across a network. Null for
 * anything else.
 */
function carried(g: number[]): { v4: number[]; local: boolean } | null {
  if (inPrefix(g, [0, 0, 0, 0, 0, 0xffff], 96, 16)) return { v4: v4Of(g[6]!, g[7]!), local: true };
  if (inPrefix(g, [0x64, 0xff9b], 96, 16)) return { v4: v4Of(g[6]!, g[7]!), local: false };
  if (g[0] === 0x2002) return { v4: v4Of(g[1]!, g[2]!), local: false };
  if (g[0] === 0x2001 && g[1] === 0) return { v4: v4Of(g[6]! ^ 0xffff, g[7]! ^ 0xffff), local: false };
  return null;
}

const privateV4 = (b: number[]) => PRIVATE_V4.some(([prefix, bits]) => inPrefix(b, prefix, bits, 8));

/** Names only this machine answers to: `localhost` and `*.localhost` (RFC 6761). */
const LOOPBACK_NAME = /(^|\.)localhost$/;

/**
 * Names of this machine or a local network, by convention or reservation: the loopback aliases of
 * `/etc/hosts` (`ip6-localhost`, `localhost6`, `*.localdomain`), mDNS `.local` (RFC 6762),
 * `.home.arpa` (RFC 8375) and `.internal` (ICANN, 2024; cloud metadata such as
 * `metadata.google.internal`).
 */
const PRIVATE_NAME = /(^|\.)(ip6-localhost|ip6-loopback|localhost6|localdomain|localdomain6|local|home\.arpa|internal)$/;

/** A name without its trailing dot (`localhost.` is `localhost`). */
const bare = (hostname: string) => hostname.toLowerCase().replace(/\.$/, "");

/**
 * Whether `hostname` names this machine, so that nothing sent there crosses a network:
 * `localhost` and `*.localhost` (a trailing dot or not), 127.0.0.0/8, `[::1]`, and 127/8 mapped
 * into IPv6 (`[::ffff:127.0.0.1]`). Other IPv6 forms of 127/8 (compatible, translated, NAT64,
 * 6to4, Teredo) are routed as IPv6 and leave the machine: private, not loopback.
 */
export function isLoopback(hostname: string): boolean {
  const host = bare(hostname);
  if (LOOPBACK_NAME.test(host)) return true;
  const v4 = ipv4(host);
  if (v4) return v4[0] === 127;
  const v6 = ipv6(host);
  if (!v6) return false;
  const inner = carried(v6);
  if (inner) return inner.local && inner.v4[0] === 127;
  return inPrefix(v6, [0, 0, 0, 0, 0, 0, 0, 1], 128, 16);
}

/**
 * Whether `hostname` is this machine or a network that is not the public Internet, by its
 * spelling: a loopback host ({@link isLoopback}, `localhost` among them); the special-use names
 * of `PRIVATE_NAME`; an IPv4 address in `PRIVATE_V4` (10/8, 100.64/10, 172.16/12, 192.168/16,
 * 169.254/16, 0/8, documentation, benchmarking, multicast, reserved); an IPv6 address in `PRIVATE_V6` (fc00::/7, fe80::/10, ...),
 * anywhere in ::/8 but a mapped public IPv4 address, or carrying a private IPv4 address (mapped,
 * NAT64, 6to4, Teredo).
 */
export function isPrivateHost(hostname: string): boolean {
  const host = bare(hostname);
  if (isLoopback(host) || PRIVATE_NAME.test(host)) return true;
  const v4 = ipv4(host);
  if (v4) return privateV4(v4);
  const v6 = ipv6(host);
  if (!v6) return false;
  const inner = carried(v6);
  if (inner) return privateV4(inner.v4);
  // ::/8 is reserved (unspecified, loopback, compatible, translated forms): none is a public host.
  if (v6[0]! < 0x100) return true;
  return PRIVATE_V6.some(([prefix, bits]) => inPrefix(v6, prefix, bits, 16));
}
