// @ts-check
/**
 * The LLM judge: a rubric, the conversation and the candidate's answer go to the suite's judge
 * model on a dry-run thread of the same weft, so the judge uses whichever provider the weft is
 * configured for (its keys stay in the Worker's env, or the judge's `env`), never one the runner
 * holds. The judge answers JSON `{"pass": true|false, "reason": "..."}`.
 * @module
 */
import { withThread } from "./run-case.mjs";

/**
 * The message the judge reads.
 * @param {string} rubric @param {import("./suite.mjs").Case} kase @param {import("./run-case.mjs").Transcript} t
 */
export function judgePrompt(rubric, kase, t) {
  return [
    "You grade one conversation of an AI agent against a rubric. Reply with JSON only:",
    '{"pass": true or false, "reason": "one sentence"}',
    "",
    "## Rubric",
    rubric,
    "",
    "## The user wrote",
    ...kase.messages.map((m) => `- ${m}`),
    "",
    "## The agent called",
    ...(t.requested.length ? t.requested.map((c) => `- ${c.name} ${c.raw}`) : ["- no tools"]),
    "",
    "## The agent's final answer",
    t.text || "(no text)",
  ].join("\n");
}

/**
 * Asks the judge; a judge that fails or answers anything but the JSON above fails the case, saying why.
 * @param {ReturnType<typeof import("./client.mjs").evalClient>} client
 * @param {import("./suite.mjs").Candidate} judge
 * @param {string} rubric @param {import("./suite.mjs").Case} kase @param {import("./run-case.mjs").Transcript} t
 * @param {{ timeoutMs: number, cleanup?: boolean }} opts
 * @returns {Promise<import("./scorers.mjs").Score>}
 */
export async function scoreJudge(client, judge, rubric, kase, t, opts) {
  const judged = { id: `${kase.id}#judge`, messages: [judgePrompt(rubric, kase, t)], ...(kase.agent ? { agent: kase.agent } : {}), expect: {} };
  return (await withThread(client, judged, judge, opts, async (asked) => verdictOf(asked))).value;
}

/** @param {import("./run-case.mjs").Transcript} asked @returns {import("./scorers.mjs").Score} */
function verdictOf(asked) {
  if (asked.status !== "completed") return { scorer: "judge", pass: false, detail: `the judge did not answer: ${asked.error}` };
  const verdict = parseVerdict(asked.text);
  if (!verdict) return { scorer: "judge", pass: false, detail: `the judge's answer is not {"pass": boolean, "reason": string}: ${asked.text.slice(0, 300)}` };
  return { scorer: "judge", pass: verdict.pass, ...(verdict.pass ? {} : { detail: `judge: ${verdict.reason}` }) };
}

/** The verdict in a judge's text (alone, or the first `{...}` in it), or null. @param {string} text */
export function parseVerdict(text) {
  const candidates = [text.trim(), /\{[\s\S]*\}/.exec(text)?.[0] ?? ""];
  for (const c of candidates) {
    try {
      const v = JSON.parse(c);
      if (v && typeof v.pass === "boolean") return { pass: v.pass, reason: typeof v.reason === "string" ? v.reason : "" };
    } catch {}
  }
  return null;
}
