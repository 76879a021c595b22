// @ts-check
/**
 * Deep checks: bundle every authoring module with esbuild, import the bundles in Node and run
 * weft's own definition checks on what they export, so a bad definition fails the build instead
 * of the first thread that uses it.
 * @module
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import * as esbuild from "esbuild";
import { FACTORY, displayPath } from "./scan.mjs";

/** weft modules the checks run, bundled with the authoring files so they share one zod. */
const CHECK_MODULES = {
  weft_catalog: "src/tools/catalog.ts",
  weft_define: "src/tools/define.ts",
  weft_errors: "src/errors.ts",
  weft_prompt: "src/run/prompt.ts",
  weft_agent: "src/run/agent.ts",
  weft_hooks: "src/run/hooks.ts",
  weft_references: "src/run/references.ts",
  weft_models: "src/models/spec.ts",
  weft_schedules: "src/schedules/define.ts",
  weft_input: "src/calls/input.ts",
  weft_remote: "src/remote/define.ts",
};

/**
 * `cloudflare:workers` only exists inside workerd; tools may import it for use inside `execute`,
 * so the build evaluates them against inert stand-ins. Other `cloudflare:*` modules stay
 * unresolved and fail the import with Node's own message.
 * @type {esbuild.Plugin}
 */
const stubCloudflareWorkers = {
  name: "weft-stub-cloudflare-workers",
  setup(build) {
    build.onResolve({ filter: /^cloudflare:workers$/ }, (args) => ({ path: args.path, namespace: "weft-stub" }));
    build.onLoad({ filter: /.*/, namespace: "weft-stub" }, () => ({
      loader: "js",
      contents: [
        "export const env = {};",
        "export const waitUntil = () => {};",
        "export class DurableObject {}",
        "export class WorkerEntrypoint {}",
        "export class WorkflowEntrypoint {}",
        "export class RpcTarget {}",
      ].join("\n"),
    }));
  },
};

/**
 * @typedef {import("./scan.mjs").Entry} Entry
 * @typedef {import("./scan.mjs").Problem} Problem
 * @typedef {{ problems: Problem[], warnings: string[], defs: Map<string, unknown>, checkReferences: Function | null, checkToolInput: ((name: string, def: unknown, input: unknown) => string | null) | null, modelOnlyReason: ((name: string, def: object) => string | null) | null }} Evaluation
 *   `warnings` are definition problems that do not refuse a tool (a `default` its own schema refuses).
 *   `defs` maps each file that passed its own checks to its default export, for the caller's
 *   cross-reference check (`checkReferences` of src/run/references.ts; null when nothing was built).
 */

/** @param {unknown} error */
const messageOf = (error) => (error instanceof Error ? error.message : String(error));

/**
 * Bundles and evaluates `entries`, returning every rule broken. Never throws for a bad authoring
 * file; throws only when esbuild or the file system fail for reasons unrelated to them.
 * @param {string} root repository root (esbuild's working directory; holds src/)
 * @param {Entry[]} entries files that passed the layout rules
 * @returns {Promise<Evaluation>}
 */
export async function evaluateEntries(root, entries) {
  /** @type {Evaluation} */
  const out = { problems: [], warnings: [], defs: new Map(), checkReferences: null, checkToolInput: null, modelOnlyReason: null };
  if (entries.length === 0) return out;
  const tmp = await mkdtemp(path.join(os.tmpdir(), "weft-registry-"));
  try {
    const built = await bundle(root, tmp, entries);
    if (built.length > 0) {
      out.problems.push(...built);
      return out;
    }
    const load = (/** @type {string} */ name) => import(pathToFileURL(path.join(tmp, `${name}.mjs`)).href);
    /** @type {Record<string, any>} */
    const checks = {};
    for (const name of Object.keys(CHECK_MODULES)) Object.assign(checks, await load(name));
    out.checkReferences = checks.checkReferences;
    // A schedule file may not target a tool only a model calls (src/tools/define.ts).
    out.modelOnlyReason = checks.modelOnlyReason;
    // A schedule file's tool input, checked as each occurrence's call will check it (src/calls/input.ts).
    out.checkToolInput = (name, def, input) => {
      const checked = checks.validateInput(checks.compileTool(name, def), input ?? {});
      return checked.ok ? null : `target.input: ${checked.error.message}`;
    };
    for (const [i, entry] of entries.entries()) {
      const problem = (/** @type {string} */ message) => out.problems.push({ file: entry.display, message });
      /** @type {Record<string, unknown>} */
      let mod;
      try {
        mod = await load(`m${i}`);
      } catch (error) {
        problem(`importing the module threw: ${messageOf(error)}`);
        continue;
      }
      if (!("default" in mod)) {
        const call = entry.kind === "hook" ? `("${entry.name}", ...)` : "({...})";
        problem(`a${entry.kind === "agent" ? "n" : ""} ${entry.kind} file needs a default export: export default ${FACTORY[entry.kind]}${call}`);
        continue;
      }
      const warn = (/** @type {string} */ message) => out.warnings.push(`${entry.display}: ${message}`);
      if (entry.kind === "tool" ? checkTool(checks, entry, mod, problem, warn) : checkDefinition(checks, entry, mod, problem)) {
        out.defs.set(entry.file, mod.default);
      }
    }
    return out;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/**
 * One esbuild run over all entries plus the check modules; code splitting keeps zod and weft
 * single instances. Build errors come back as problems located at `file:line:column`.
 * @param {string} root
 * @param {string} outdir
 * @param {Entry[]} entries
 * @returns {Promise<Problem[]>}
 */
async function bundle(root, outdir, entries) {
  const entryPoints = [
    ...entries.map((e, i) => ({ in: e.file, out: `m${i}` })),
    ...Object.entries(CHECK_MODULES).map(([out, file]) => ({ in: path.join(root, file), out })),
  ];
  try {
    await esbuild.build({
      absWorkingDir: root,
      entryPoints,
      outdir,
      outExtension: { ".js": ".mjs" },
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "node",
      target: "node20",
      alias: { "@standardagents/spec": path.join(root, "src/index.ts") },
      plugins: [stubCloudflareWorkers],
      external: ["cloudflare:*"],
      logLevel: "silent",
    });
    return [];
  } catch (error) {
    const errors = /** @type {{ errors?: esbuild.Message[] }} */ (error).errors;
    if (!Array.isArray(errors) || errors.length === 0) throw error;
    return errors.map((m) => ({
      file: m.location ? `${displayPath(root, path.resolve(root, m.location.file))}:${m.location.line}:${m.location.column + 1}` : "esbuild",
      message: m.text,
    }));
  }
}

/**
 * Runs weft's definition checks on a tool module: `compileTool` (src/tools/catalog.ts), the same
 * compilation a thread does (shape, effect pairings, schemas), and one tool per file.
 * @param {Record<string, any>} checks exports of the bundled weft check modules
 * @param {Entry} entry
 * @param {Record<string, unknown>} mod
 * @param {(message: string) => void} problem
 * @param {(message: string) => void} warn
 * @returns {boolean} whether the tool passed
 */
function checkTool(checks, entry, mod, problem, warn) {
  const def = /** @type {Record<string, unknown>} */ (mod.default);
  try {
    for (const warning of checks.compileTool(entry.name, def).warnings) warn(warning);
  } catch (error) {
    problem(checks.isWeftError(error) ? messageOf(error) : `checking the definition threw: ${messageOf(error)}`);
    return false;
  }
  let ok = true;
  for (const [key, value] of Object.entries(mod)) {
    if (key === "default" || value === def) continue;
    if (typeof value === "object" && value !== null && /** @type {{ kind?: unknown }} */ (value).kind === "tool") {
      problem(`one tool per file: export "${key}" is a second tool; move it to a file of its own in tools/`);
      ok = false;
    }
  }
  return ok;
}

/** The definition check of each non-tool kind (src/run/agent.ts, prompt.ts, hooks.ts). */
const DEFINITION_CHECKS = { agent: "checkAgentDefinition", prompt: "checkPromptDefinition", hook: "checkHookDefinition", schedule: "checkScheduleDefinition", mcp: "checkMcpServerDefinition" };

/**
 * Runs weft's own check of an agent, prompt, hook or MCP server module's default export.
 * @param {Record<string, any>} checks exports of the bundled weft check modules
 * @param {Entry} entry
 * @param {Record<string, unknown>} mod
 * @param {(message: string) => void} problem
 * @returns {boolean} whether the definition passed
 */
function checkDefinition(checks, entry, mod, problem) {
  try {
    // A schedule's own rules here; its target's agent or tool is looked up by the caller, which knows the registry.
    const anyName = { agent: () => true, tool: () => true };
    checks[DEFINITION_CHECKS[/** @type {"agent" | "prompt" | "hook" | "schedule" | "mcp"} */ (entry.kind)]](entry.name, mod.default, anyName);
    // A misspelt model id would otherwise surface only when a thread is created for it.
    const model = /** @type {{ model?: unknown }} */ (mod.default).model;
    if (entry.kind !== "hook" && entry.kind !== "schedule" && entry.kind !== "mcp" && model !== undefined) checks.parseModelSpec(model, `${entry.kind} "${entry.name}"`);
    return true;
  } catch (error) {
    problem(checks.isWeftError(error) ? messageOf(error) : `checking the definition threw: ${messageOf(error)}`);
    return false;
  }
}
