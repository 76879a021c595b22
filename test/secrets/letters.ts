/**
 * Test secrets: `n` pseudo-random lowercase letters from `seed` (the same every run), made as one
 * flat string, as storage hands values out (a rope would be flattened at its first search).
 */
export function letters(n: number, seed: number): string {
  let s = seed >>> 0;
  const units = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    // The high bits: an LCG's low bits repeat in short cycles.
    units[i] = 97 + ((s >>> 16) % 26);
  }
  return new TextDecoder().decode(units);
}
