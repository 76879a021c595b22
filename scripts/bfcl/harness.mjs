/**
 * Runs BFCL cases through a live weft: plans each case (converted tools, the calls the scripted
 * model makes, the reference's verdict on each), plays it on a fresh thread of the `bfcl` fixture
 * agent while watching the thread's WebSocket, and tallies agreement per category.
 * @module
 */
import { convertFunctions } from "./convert.mjs";
import { expectedCall } from "./answers.mjs";
import { invalidVariants } from "./variants.mjs";
import { checkAdvertised, checkStream, locateTurn, checkCall, checkIrrelevance } from "./check.mjs";

/** The fixture agent the test worker registers for this harness. */
export const AGENT = "bfcl";

/**
 * @typedef {import("./check.mjs").CallSpec} CallSpec
 * @typedef {{ tools: any[], toOriginal: Map<string, string>, turns: CallSpec[][], notes: string[] }} CasePlan
 *   `notes` count what the run reads in its own way: unknown type names, defaults not applied
 * @typedef {{ valid: number[], breaking: number[], variants: number[], advertised: number[] }} Tally
 *   each entry is `[agreed, total]`; `advertised` counts offered tools the model was shown as sent
 */

/** A tally with every count at 0/0. @returns {Tally} */
export function emptyTally() {
  return { valid: [0, 0], breaking: [0, 0], variants: [0, 0], advertised: [0, 0] };
}

/** Adds `b` into `a`. */
export function addTally(a, b) {
  for (const k of Object.keys(a)) for (const i of [0, 1]) a[k][i] += b[k][i];
  return a;
}

/** True when every count is complete (agreed === total). */
export function tallyComplete(t) {
  return Object.values(t).every(([ok, total]) => ok === total);
}

/** The summary line: `<label>: A/B valid calls executed exactly, C/D ..., O/P offered tools advertised`. */
export function formatTally(label, t) {
  const f = ([ok, total]) => `${ok}/${total}`;
  return (
    `${label}: ${f(t.valid)} valid calls executed exactly, ${f(t.breaking)} schema-breaking calls refused, ` +
    `${f(t.variants)} invalid variants refused, ${f(t.advertised)} offered tools advertised`
  );
}

/**
 * How the harness's calls reach weft's model: the scripted model, told the exact calls to make.
 * The seam for other transports (a provider API in front of the same turns): each turn's
 * `POST /threads/:id/messages` body comes from here.
 */
export const scriptedTransport = {
  /**
   * @param {{ content: string }} kase @param {number} n turn index
   * @param {CallSpec[] | null} calls the turn's calls; null for an irrelevance case
   */
  turnBody(kase, n, calls) {
    const content = n === 0 ? kase.content : "Please make the same calls again.";
    const script = calls === null
      ? [{ text: "None of the tools offered fits this question, so I answer it in text." }]
      : calls.length === 0
        ? [{ text: "Done." }]
        : [{ toolCalls: calls.map((c) => ({ id: c.id, name: c.toolName, arguments: JSON.stringify(c.args) })) }, { text: "Done." }];
    return { content, script };
  },
};

/** Note of a `null` for an optional key played as a valid call under strict function schemas. */
export const STRICT_NULL_NOTE = "null for an optional key played as a valid call (strict schemas make it nullable; null means absent)";

/**
 * Plans one answerable case. Turn 1 plays the ground truth (all calls in one model step);
 * turn 2 replays every call the reference accepts with one argument made invalid.
 * @param {import("./data.mjs").BfclCase} kase
 * @param {ReturnType<typeof import("./reference.mjs").createReference>} reference
 * @param {{ strictNulls?: boolean, prefix?: string }} [options] `strictNulls`: the model is told strict function
 *   schemas (OpenAI `strict: true`), where every optional key is nullable and weft reads its
 *   `null` as absent; a `null` for an optional key is then a valid call, run without the key.
 *   `prefix`: put before every tool name (`--via mcp`: weft's `<server>__` of a remote tool)
 * @returns {CasePlan}
 * @throws ConversionError or Error when the case cannot be planned (reported as a failure)
 */
export function planCase(kase, reference, options = {}) {
  const { tools, toTool, toOriginal, notes } = convertFunctions(kase.functions, options.prefix);
  const checks = new Map();
  for (const tool of tools) {
    const { check, badDefaults } = reference.compile(tool.parameters);
    for (const d of badDefaults) notes.push(`${toOriginal.get(tool.name)}: default kept as published, which its own schema refuses (so not applied): ${d}`);
    checks.set(tool.name, check);
  }
  const first = [];
  const second = [];
  (kase.groundTruth ?? []).forEach((entry, i) => {
    const { name, args } = expectedCall(entry);
    const toolName = toTool.get(name);
    if (!toolName) throw new Error(`ground truth calls ${name}, which the case does not offer`);
    const check = checks.get(toolName);
    const verdict = check(args);
    const base = { id: `call_${i + 1}`, toolName, originalName: name, args };
    if (!verdict.ok) {
      first.push({ ...base, kind: "breaking", referencePaths: verdict.paths });
      return;
    }
    first.push({ ...base, kind: "valid", expected: verdict.value });
    const schema = tools.find((t) => t.name === toolName).parameters;
    const required = Array.isArray(schema.required) ? schema.required : [];
    for (const v of invalidVariants(schema, args, check)) {
      if (options.strictNulls && v.kind === "null_for_non_nullable" && !required.includes(v.argument)) {
        const absent = structuredClone(args);
        delete absent[v.argument];
        const asAbsent = check(absent);
        if (asAbsent.ok) {
          notes.push(`${name}(${v.argument}): ${STRICT_NULL_NOTE}`);
          second.push({ ...base, id: `strict_${i + 1}_null_as_absent`, args: v.args, kind: "valid", expected: asAbsent.value });
          continue;
        }
      }
      second.push({ ...base, id: `bad_${i + 1}_${v.kind}`, args: v.args, kind: "variant", argument: v.argument, path: v.path, variant: v.kind });
    }
  });
  return { tools, toOriginal, turns: second.length > 0 ? [first, second] : [first], notes };
}

/**
 * Plays one case on a fresh thread and judges every call.
 * @param {ReturnType<typeof import("./client.mjs").createClient>} client
 * @param {import("./data.mjs").BfclCase} kase
 * @param {CasePlan | null} plan null for irrelevance cases (tools only)
 * @param {any[]} tools converted tools to offer
 * @param {{ turnTimeoutMs: number, transport?: typeof scriptedTransport }} opts
 * @returns {Promise<Array<{ bucket: keyof Tally | null, reason: string | null, label: string }>>}
 */
export async function playCase(client, kase, plan, tools, opts) {
  const { threadId } = await client.createThread({
    agent: AGENT,
    arguments: { functions: tools.map(({ name, description, parameters }) => ({ name, description, parameters })) },
  });
  if (typeof threadId !== "string") throw new Error(`POST /threads returned no threadId`);
  const events = await client.openEvents(threadId, 0);
  const transport = opts.transport ?? scriptedTransport;
  try {
    const info = await client.getThread(threadId);
    const results = tools.map((tool) => ({ bucket: /** @type {keyof Tally} */ ("advertised"), reason: checkAdvertised(tool, info), label: tool.name }));
    const turns = plan ? plan.turns : [null];
    for (let n = 0; n < turns.length; n++) {
      const started = events.frames.length;
      await client.postMessage(threadId, transport.turnBody(kase, n, turns[n]));
      await events.waitFor((f) => f.type === "turn_finished", opts.turnTimeoutMs, started);
    }
    const { calls: records } = await client.listCalls(threadId);
    const frames = events.frames;
    const streamProblem = events.problems[0] ?? checkStream(frames);
    if (!plan) {
      const turn = locateTurn(frames, 0);
      const reason = streamProblem ?? (typeof turn === "string" ? turn : checkIrrelevance(turn, frames, records ?? []));
      // No bucket of its own: a tool running in an irrelevance case is a failure line.
      return reason ? [...results, { bucket: null, reason, label: "turn" }] : results;
    }
    turns.forEach((calls, n) => {
      const turn = locateTurn(frames, n);
      const turnProblem = typeof turn === "string" ? turn : turn.finish.data?.status !== "completed" ? `turn ${turn.finish.data?.status}: ${turn.finish.data?.error ?? ""}` : null;
      calls.forEach((spec, i) => {
        const reason = streamProblem ?? turnProblem ?? checkCall(spec, i, /** @type {any} */ (turn), frames, records ?? [], plan.toOriginal);
        results.push({ bucket: bucketOf(spec), reason, label: labelOf(spec) });
      });
    });
    return results;
  } finally {
    events.close();
  }
}

/** @param {CallSpec} spec @returns {keyof Tally} */
export function bucketOf(spec) {
  return spec.kind === "valid" ? "valid" : spec.kind === "breaking" ? "breaking" : "variants";
}

/** How a call is named in failure lines: `call_2 uber.ride` or `bad_1_wrong_type uber.ride(loc)`. */
function labelOf(spec) {
  return spec.kind === "variant" ? `${spec.id} ${spec.originalName}(${spec.argument})` : `${spec.id} ${spec.originalName}`;
}

/**
 * Runs one case end to end and returns its tally and failure lines; never throws.
 * @param {ReturnType<typeof import("./client.mjs").createClient>} client
 * @param {import("./data.mjs").BfclCase} kase
 * @param {boolean} irrelevance
 * @param {ReturnType<typeof import("./reference.mjs").createReference>} reference
 * @param {{ turnTimeoutMs: number, strictNulls?: boolean, prefix?: string }} opts
 * @returns {Promise<{ tally: Tally, failures: string[], notes: string[] }>}
 */
export async function runCase(client, kase, irrelevance, reference, opts) {
  const tally = emptyTally();
  const failures = [];
  let plan = null;
  let tools;
  let notes;
  try {
    if (irrelevance) ({ tools, notes } = convertFunctions(kase.functions, opts.prefix));
    else ({ tools, notes } = plan = planCase(kase, reference, { strictNulls: opts.strictNulls === true, prefix: opts.prefix ?? "" }));
  } catch (err) {
    // Unplannable: every call it holds counts as a failed valid call, so the run cannot pass.
    const n = irrelevance ? kase.functions.length : Math.max(1, kase.groundTruth?.length ?? 1);
    tally[irrelevance ? "advertised" : "valid"][1] += n;
    return { tally, failures: [`${kase.id}: cannot plan: ${message(err)}`], notes: [] };
  }
  let results;
  try {
    results = await playCase(client, kase, plan, tools, opts);
  } catch (err) {
    const specs = plan ? plan.turns.flat() : null;
    const reason = `thread run failed: ${message(err)}`;
    results = [
      ...tools.map((t) => ({ bucket: /** @type {keyof Tally} */ ("advertised"), reason, label: t.name })),
      ...(specs ?? []).map((s) => ({ bucket: bucketOf(s), reason, label: labelOf(s) })),
    ];
  }
  for (const r of results) {
    if (r.bucket) tally[r.bucket][1] += 1;
    if (r.reason === null && r.bucket) tally[r.bucket][0] += 1;
    else if (r.reason !== null) failures.push(`${kase.id}${r.label ? ` ${r.label}` : ""}: ${r.reason}`);
  }
  return { tally, failures, notes: notes.map((n) => `${kase.id}: ${n}`) };
}

function message(err) {
  return err instanceof Error ? err.message : String(err);
}
