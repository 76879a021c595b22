/**
 * A search for many strings in one pass (Aho-Corasick): a text costs its length, however many
 * strings are looked for. A redactor holding many secrets uses it (src/secrets/runs.ts): looked
 * for one at a time, 1000 secrets a user set would slow every line the isolate logs, the lines
 * of other users' threads too.
 * @module
 */

/**
 * The stretches of a text covered by any of a set of strings, found in one pass over the text.
 * Made from the strings once, in time and memory that grow with their total length (see
 * {@link Automaton.bytes}), then asked any number of times. Strings are compared by UTF-16 code
 * unit, as `indexOf` compares them.
 */
export class Automaton {
  /** The code unit on the edge into each node. */
  private readonly label: Uint16Array;
  /** Where the search goes on from a node without an edge for the next unit: the node of its longest proper suffix in the trie. */
  private readonly fail: Int32Array;
  /** The length of the longest string that ends at each node (its own or its failure node's), 0 for none. */
  private readonly longest: Int32Array;
  /** Per node: bit 1, node + 1 is its child (nodes are made depth first, so most nodes have only that one); bit 2, it has children in the table. */
  private readonly kind: Uint8Array;
  /** The other edges, an open-addressed table: parent node, code unit, child node (0 for an empty slot: the root is no child). */
  private readonly tableFrom: Int32Array;
  private readonly tableUnit: Uint16Array;
  private readonly tableTo: Int32Array;
  private readonly mask: number;
  /**
   * The table's hash: multipliers drawn for each automaton, the slot the high bits of their sum
   * (multiply-shift), so secrets chosen to fill one run of slots make no slower search than others.
   */
  private readonly hashV = randomOdd();
  private readonly hashUnit = randomOdd();
  private readonly shift: number;
  /** The root's children along units below 256 (0 for none): most text is there, most of the time. */
  private readonly root = new Int32Array(256);
  /** Whether a string begins with a unit from 256 up (else text of such units passes the root unlooked-up). */
  private readonly wide: boolean;
  /** Bytes its tables take: 11 a node (a node per unit of the strings at most), at most 40 a branch (a branch per string at most), 1 KiB more. */
  readonly bytes: number;

  constructor(strings: readonly string[]) {
    // Sorted, each string shares with the trie exactly what it shares with the one before it,
    // so the trie is made without looking anything up.
    const sorted = [...strings].sort();
    this.wide = sorted.some((s) => s.charCodeAt(0) >= 256);
    const shared = sorted.map((s, i) => (i === 0 ? 0 : sharedPrefix(s, sorted[i - 1]!)));
    let size = 1;
    sorted.forEach((s, i) => (size += s.length - shared[i]!));
    const label = new Uint16Array(size);
    const kind = new Uint8Array(size);
    const longest = new Int32Array(size);
    const parent = new Int32Array(size);
    const depth = new Int32Array(size);
    const branches: number[] = [];
    const path = [0];
    let nodes = 1;
    sorted.forEach((s, i) => {
      let v = path[shared[i]!]!;
      for (let d = shared[i]!; d < s.length; d++) {
        const n = nodes++;
        label[n] = s.charCodeAt(d);
        parent[n] = v;
        depth[n] = d + 1;
        if (n === v + 1) kind[v]! |= 1;
        else {
          kind[v]! |= 2;
          branches.push(v, n);
        }
        path[d + 1] = v = n;
      }
      if (s.length > 0) longest[v] = s.length;
    });
    // At most half full, so a miss ends soon.
    let slots = 2;
    while (slots < branches.length) slots *= 2;
    this.mask = slots - 1;
    this.shift = 32 - Math.log2(slots);
    this.tableFrom = new Int32Array(slots);
    this.tableUnit = new Uint16Array(slots);
    this.tableTo = new Int32Array(slots);
    for (let b = 0; b < branches.length; b += 2) {
      const v = branches[b]!;
      const n = branches[b + 1]!;
      let at = this.slotOf(v, label[n]!);
      while (this.tableTo[at] !== 0) at = (at + 1) & this.mask;
      this.tableFrom[at] = v;
      this.tableUnit[at] = label[n]!;
      this.tableTo[at] = n;
    }
    this.label = label;
    this.kind = kind;
    this.fail = new Int32Array(nodes);
    // Failure links by depth (a node's failure node is shallower): nodes counted into order by depth.
    let deepest = 0;
    for (let n = 1; n < nodes; n++) deepest = Math.max(deepest, depth[n]!);
    const starts = new Int32Array(deepest + 2);
    for (let n = 1; n < nodes; n++) starts[depth[n]! + 1]!++;
    for (let d = 1; d <= deepest + 1; d++) starts[d]! += starts[d - 1]!;
    const order = new Int32Array(nodes);
    for (let n = 1; n < nodes; n++) order[starts[depth[n]!]!++] = n;
    for (let i = 0; i < nodes - 1; i++) {
      const n = order[i]!;
      const p = parent[n]!;
      let f = 0;
      if (p !== 0) {
        const unit = label[n]!;
        for (let at = this.fail[p]!; ; at = this.fail[at]!) {
          const next = this.next(at, unit);
          if (next >= 0) {
            f = next;
            break;
          }
          if (at === 0) break;
        }
      }
      this.fail[n] = f;
      if (longest[n] === 0) longest[n] = longest[f]!;
    }
    this.longest = longest;
    for (let unit = 0; unit < 256; unit++) this.root[unit] = Math.max(0, this.next(0, unit));
    this.bytes = [label, kind, longest, this.fail, this.tableFrom, this.tableUnit, this.tableTo, this.root].reduce((n, a) => n + a.byteLength, 0);
  }

  /** The table slot the edge from `v` along `unit` is looked for from. */
  private slotOf(v: number, unit: number): number {
    return (Math.imul(v, this.hashV) + Math.imul(unit, this.hashUnit)) >>> this.shift;
  }

  /** The child of node `v` along `unit`, or -1. */
  private next(v: number, unit: number): number {
    const k = this.kind[v]!;
    if ((k & 1) !== 0 && this.label[v + 1] === unit) return v + 1;
    if ((k & 2) === 0) return -1;
    for (let at = this.slotOf(v, unit); ; at = (at + 1) & this.mask) {
      const to = this.tableTo[at]!;
      if (to === 0) return -1;
      if (this.tableFrom[at] === v && this.tableUnit[at] === unit) return to;
    }
  }

  /**
   * The stretches `[start, end)` of `text` covered by an occurrence of any string, merged where
   * occurrences overlap (not where they only touch), in order: what `runsOf` answers. No
   * occurrence holds a position of `cuts` (ascending), if given.
   */
  runs(text: string, cuts?: Int32Array): Array<[number, number]> {
    // Of the strings that end at a character only the longest counts: the others lie inside it.
    // Stretches end in order, so a new one merges with those on the stack it starts inside.
    const starts: number[] = [];
    const ends: number[] = [];
    let top = 0;
    let v = 0;
    const { root, wide, fail, longest } = this;
    const n = text.length;
    let c = 0;
    let cut = cuts?.[0] ?? Infinity;
    for (let i = 0; i < n; i++) {
      let unit = text.charCodeAt(i);
      // Most text leads nowhere from the root: passed over without a lookup past the root's table.
      if (v === 0) while ((unit < 256 ? root[unit] === 0 : !wide) && ++i < n) unit = text.charCodeAt(i);
      if (i === n) break;
      if (i >= cut) {
        while (cut < i) cut = cuts![++c] ?? Infinity;
        // Nothing found goes through a cut: the search starts again after it.
        if (cut === i) {
          v = 0;
          continue;
        }
      }
      for (;;) {
        if (v === 0) {
          v = unit < 256 ? root[unit]! : wide ? Math.max(0, this.next(0, unit)) : 0;
          break;
        }
        const next = this.next(v, unit);
        if (next >= 0) {
          v = next;
          break;
        }
        v = fail[v]!;
      }
      const length = longest[v]!;
      if (length === 0) continue;
      let start = i + 1 - length;
      while (top > 0 && start < ends[top - 1]!) start = Math.min(start, starts[--top]!);
      starts[top] = start;
      ends[top++] = i + 1;
    }
    const out: Array<[number, number]> = [];
    for (let r = 0; r < top; r++) out.push([starts[r]!, ends[r]!]);
    return out;
  }
}

/** How many code units `a` and `b` begin with alike. */
function sharedPrefix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a.charCodeAt(n) === b.charCodeAt(n)) n++;
  return n;
}

/** An odd 32-bit multiplier drawn at random. */
function randomOdd(): number {
  return (Math.floor(Math.random() * 2 ** 32) | 1) >>> 0;
}
