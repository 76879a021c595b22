/**
 * The stretches a redactor must find, found the slow and certain way, for tests that check the
 * search against it (src/secrets/runs.ts).
 * @module
 */

/** Every stretch covered by an occurrence of any form, each position tried; overlapping ones merged, touching ones apart. */
export function naiveRuns(text: string, forms: readonly string[]): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const f of forms) for (let at = 0; at + f.length <= text.length; at++) if (text.startsWith(f, at)) spans.push([at, at + f.length]);
  spans.sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [s, e] of spans) {
    const last = out.at(-1);
    if (last && s < last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}
