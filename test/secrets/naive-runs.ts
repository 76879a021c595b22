/**
 * The stretches a redactor must find, found the slow and certain way, for tests that check the
 * search against it (src/secrets/runs.ts).
 * @module
 */

/**
 * Every stretch covered by an occurrence of any form, each position tried; overlapping ones merged,
 * touching ones apart. With `cuts`, an occurrence that holds one of those positions does not count.
 */
export function naiveRuns(text: string, forms: readonly string[], cuts: ArrayLike<number> = []): Array<[number, number]> {
  const cut = (at: number, end: number) => Array.prototype.some.call(cuts, (c: number) => c >= at && c < end);
  const spans: Array<[number, number]> = [];
  for (const f of forms) for (let at = 0; at + f.length <= text.length; at++) if (text.startsWith(f, at) && !cut(at, at + f.length)) spans.push([at, at + f.length]);
  spans.sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [s, e] of spans) {
    const last = out.at(-1);
    if (last && s < last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** A form's bytes as `Redactor.bytes` looks for them: UTF-8, UTF-16 in both byte orders, Latin-1 where it can be. */
export function encodings(form: string): string[] {
  const codes = Array.from({ length: form.length }, (_, i) => form.charCodeAt(i));
  const le = codes.map((u) => String.fromCharCode(u & 0xff, u >> 8)).join("");
  const be = codes.map((u) => String.fromCharCode(u >> 8, u & 0xff)).join("");
  const out = [String.fromCharCode(...new TextEncoder().encode(form)), le, be];
  return codes.every((u) => u <= 0xff) ? [...out, form] : out;
}
