/**
 * "Did you mean" suggestions for a name someone mistyped (a model id, a tool an agent lists).
 * @module
 */

/**
 * Up to `max` of `known` within 3 edits (Levenshtein distance) of `name`, nearest first; none when
 * nothing is that close.
 */
export function nearNames(name: string, known: Iterable<string>, max = 5): string[] {
  return [...known]
    .map((k) => ({ k, d: editDistance(k, name) }))
    .filter((c) => c.d <= 3)
    .sort((a, b) => a.d - b.d)
    .slice(0, max)
    .map((c) => c.k);
}

/** Levenshtein distance: single-character insertions, deletions and substitutions. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}
