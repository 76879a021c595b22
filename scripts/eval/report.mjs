// @ts-check
/**
 * What a run prints and writes: the count line, what the suite left out, a summary table per
 * candidate, the per-case diffs, and the HTML page comparing two candidates side by side.
 * @module
 */

/** @typedef {import("./runner.mjs").EvalResult} EvalResult @typedef {import("./runner.mjs").CandidateResult} CandidateResult */

/** `eval: <N> cases, candidate <name>: <k>/<m> exact tool calls, ...` @param {EvalResult} r */
export function countLine(r) {
  return `eval: ${r.cases} cases, ${r.candidates.map((c) => `candidate ${c.name}: ${c.exact[0]}/${c.exact[1]} exact tool calls`).join(", ")}`;
}

/** Every count the suite left out, and why; says so when none. @param {EvalResult} r */
export function leftOutLines(r) {
  if (r.leftOut.length === 0) return ["eval: left out: none"];
  return r.leftOut.map((l) => `eval: left out ${l.count} case(s): ${l.reason}`);
}

const ms = (/** @type {number | null} */ v) => (v === null ? "-" : `${v} ms`);
const money = (/** @type {number | null} */ v) => (v === null ? "unknown" : `$${v.toFixed(4)}`);
const pct = (/** @type {number} */ a, /** @type {number} */ b) => (b === 0 ? "-" : `${((100 * a) / b).toFixed(1)}%`);

/** The summary table, one row per candidate. @param {EvalResult} r @returns {string[]} */
export function summaryTable(r) {
  const rows = summaryRows(r);
  const widths = HEAD.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]?.length ?? 0)));
  const line = (/** @type {string[]} */ cells) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ").trimEnd();
  return [line(HEAD), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)];
}

/** The summary's columns. */
const HEAD = ["candidate", "model", "passed", "pass rate", "exact calls", "tokens in/out", "cost", "p50 turn", "p95 turn"];

/** The summary's cells, one row per candidate. @param {EvalResult} r @returns {string[][]} */
function summaryRows(r) {
  return r.candidates.map((c) => [c.name, c.model, `${c.passed}/${c.total}`, pct(c.passed, c.total), `${c.exact[0]}/${c.exact[1]}`, `${c.tokens.estimated > 0 ? "~" : ""}${c.tokens.input}/${c.tokens.output}`, money(c.cost), ms(c.p50Ms), ms(c.p95Ms)]);
}

/** One line per failed score, as `FAIL <candidate> <case> <scorer>: <detail>`. @param {EvalResult} r */
export function diffLines(r) {
  return r.candidates.flatMap((c) => c.results.flatMap((res) => res.scores.filter((s) => !s.pass).map((s) => `FAIL ${c.name} ${res.caseId} ${s.scorer}: ${s.detail ?? ""}`)));
}

/** Candidates whose pass rate is under the threshold. @param {EvalResult} r @param {number} threshold */
export function underThreshold(r, threshold) {
  return r.candidates.filter((c) => c.total > 0 && c.passed / c.total < threshold);
}

const esc = (/** @type {unknown} */ s) => String(s).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * The HTML report: the summary table and, for the two candidates compared (`pair`, default the
 * first two), a row per case with each candidate's verdict, calls and answer side by side; rows
 * where they disagree are marked. With one candidate, its column alone. Self-contained, no script.
 * @param {EvalResult} r @param {[string, string] | null} [pair]
 */
export function htmlReport(r, pair = null) {
  const [a, b] = pair ? pair.map((n) => r.candidates.find((c) => c.name === n)) : [r.candidates[0], r.candidates[1]];
  const summary = `<table id="summary"><thead><tr>${HEAD.map((h) => `<th>${esc(h)}</th>`).join("")}</tr></thead><tbody>${summaryRows(r)
    .map((row) => `<tr>${row.map((cell) => `<td>${esc(cell)}</td>`).join("")}</tr>`)
    .join("")}</tbody></table>`;
  let comparison = "<p>No results.</p>";
  if (a) {
    const other = new Map((b?.results ?? []).map((x) => [x.caseId, x]));
    const cell = (/** @type {import("./runner.mjs").CaseResult | undefined} */ x) =>
      x
        ? `<td class="${x.pass ? "pass" : "fail"}"><b>${x.pass ? "pass" : "FAIL"}</b><div class="calls">${esc(x.requested.map((c) => `${c.name}(${c.raw})`).join(", ") || "no calls")}</div><div class="text">${esc(x.text)}</div>${x.scores
            .filter((s) => !s.pass)
            .map((s) => `<div class="diff">${esc(s.scorer)}: ${esc(s.detail ?? "")}</div>`)
            .join("")}</td>`
        : "<td>-</td>";
    const rows = a.results.map((x) => {
      const y = other.get(x.caseId);
      const differ = b !== undefined && (!y || y.pass !== x.pass);
      return `<tr class="${differ ? "differ" : ""}" data-case="${esc(x.caseId)}"><th scope="row">${esc(x.caseId)}</th>${cell(x)}${b ? cell(y) : ""}</tr>`;
    });
    comparison = `<table id="comparison"><thead><tr><th>case</th><th>${esc(a.name)}</th>${b ? `<th>${esc(b.name)}</th>` : ""}</tr></thead><tbody>${rows.join("")}</tbody></table>`;
  }
  const style = "body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top;text-align:left}.pass b{color:#070}.fail b{color:#b00}tr.differ th{background:#ffe7a0}.calls{font-family:monospace;font-size:12px}.diff{color:#b00;font-size:12px}";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>weft eval: ${esc(r.suite)}</title><style>${style}</style></head><body><h1>weft eval: ${esc(r.suite)}</h1><p>${esc(countLine(r))}</p><p>${leftOutLines(r).map(esc).join("<br>")}</p><h2>Summary</h2>${summary}<h2>Side by side</h2>${comparison}</body></html>\n`;
}
