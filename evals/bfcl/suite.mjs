/**
 * An eval suite built from BFCL's shared data (`../shared/data/bfcl` beside the repository, read in
 * place, never copied; `WEFT_BFCL_DATA` names another folder). Each case is a BFCL question with
 * its functions, offered as tools by the test worker's `bfcl` agent; the expectation is the
 * ground truth with every acceptable value of every argument, judged the way BFCL judges
 * (scripts/bfcl/answers.mjs); an irrelevance case expects no call. The scripted candidate plays
 * the first acceptable values, as the bfcl harness does. The `scripted` candidate plays that ground truth, so the
 * suite passes at 100%; a candidate that answers wrongly is scored wrong. Cases the data cannot
 * make are counted in `leftOut` with the reason, never dropped silently.
 *
 * Runs on the test worker (test/wrangler.toml, which registers the `bfcl` agent) as its tester.
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadFolder } from "../../scripts/bfcl/data.mjs";
import { convertFunctions } from "../../scripts/bfcl/convert.mjs";
import { expectedCall } from "../../scripts/bfcl/answers.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));

/** The shared BFCL folder. */
export const BFCL_DATA = process.env.WEFT_BFCL_DATA ?? resolve(HERE, "../../../shared/data/bfcl");

/**
 * Builds the suite from a BFCL folder: every case of every category, or of the `categories` named.
 * @param {{ folder?: string, categories?: string[] }} [options]
 */
export async function bfclSuite(options = {}) {
  const all = await loadFolder(options.folder ?? BFCL_DATA);
  const categories = options.categories ? all.filter((c) => options.categories.includes(c.name)) : all;
  if (options.categories && categories.length !== options.categories.length) throw new Error(`no BFCL category ${options.categories.filter((n) => !all.some((c) => c.name === n)).join(", ")}`);
  const cases = [];
  const leftOut = new Map();
  const leave = (reason) => leftOut.set(reason, (leftOut.get(reason) ?? 0) + 1);
  for (const category of categories) {
    // Lines the data cannot use (bad JSON, a question without an answer) are no case at all.
    for (const p of category.problems) leave(`${category.name}: unusable data: ${p}`);
    for (const kase of category.cases) {
      let converted;
      try {
        converted = convertFunctions(kase.functions);
      } catch (err) {
        leave(`${category.name}: functions weft cannot offer as tools (${err instanceof Error ? err.message.split(":")[0] : err})`);
        continue;
      }
      const { tools, toTool } = converted;
      let calls;
      try {
        calls = category.irrelevance
          ? []
          : kase.groundTruth.map((entry) => {
              const { name, args } = expectedCall(entry);
              const tool = toTool.get(name);
              if (!tool) throw new Error("ground truth calls a function the case does not offer");
              // The candidate plays the first acceptable values; the expectation keeps them all.
              return { name: tool, play: args, acceptable: Object.values(entry)[0] };
            });
      } catch (err) {
        leave(`${category.name}: ${err instanceof Error ? err.message.split(":")[0] : err}`);
        continue;
      }
      cases.push({
        id: kase.id,
        messages: [kase.content],
        arguments: { functions: tools },
        script: calls.length === 0
          ? [{ text: "None of the tools offered fits this question, so I answer it in text." }]
          : [{ toolCalls: calls.map((c, i) => ({ id: `call_${i + 1}`, name: c.name, arguments: JSON.stringify(c.play) })) }, { text: "Done." }],
        expect: { toolCalls: calls.map((c) => ({ name: c.name, acceptable: c.acceptable })) },
      });
    }
  }
  return {
    name: "bfcl",
    // One thread per case, all as the tester: the per-user thread limit is lifted for the run.
    runtime: { project: resolve(HERE, "../.."), config: resolve(HERE, "../../test/wrangler.toml"), token: "test-key-tester", vars: { WEFT_MAX_THREADS_PER_USER: "1000000" } },
    candidates: [{ name: "scripted", agent: "bfcl" }],
    concurrency: 6,
    threshold: 1,
    cases,
    leftOut: [...leftOut].map(([reason, count]) => ({ reason, count })),
  };
}

export default () => bfclSuite();
