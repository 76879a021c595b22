#!/usr/bin/env node
// @ts-check
/**
 * Generates weft's registries from the authoring folders; Workers have no file system at run
 * time, so the registry is generated before every bundle: wrangler's `[build]` runs this (on
 * `wrangler dev` start, on every change under agents/, and on `wrangler deploy`), and so does
 * `npm run build`.
 *
 *   node scripts/build-registry.mjs
 *     src/generated/registry.ts  from agents/ (the user's project)
 *   node scripts/build-registry.mjs --tests
 *     test/generated/registry.ts from test/fixtures/ (weft's own suites); prints only problems
 *   node scripts/build-registry.mjs --agents <dir> [--agents <dir> ...] --out <file>
 *     one registry from the given folders (later folders may not redefine earlier names)
 *
 * Exit 0 prints a one-line summary. Exit 1 prints one `file: rule` line per problem and writes
 * nothing (the last good registry stays). Exit 2 is a usage error.
 * @module
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { evaluateEntries } from "./registry/evaluate.mjs";
import { renderRegistry, writeIfChanged } from "./registry/render.mjs";
import { inCopy, mirror } from "./registry/snapshot.mjs";
import { byCodeUnit, displayPath, mergeScans, scanAuthoringDir } from "./registry/scan.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * @typedef {{ dirs: string[], out: string, label: string | null, copy?: string }} Job
 *   `dirs` and `out` are absolute; `label` names the job in the summary (null: print the folders
 *   and the output; "quiet": print nothing on success). With `copy`, the registry imports a copy
 *   of its one folder made there (see registry/snapshot.mjs) instead of the folder itself.
 */

const USAGE = "usage: node scripts/build-registry.mjs [--tests | --agents <dir> ... --out <file>]";

/**
 * @param {string[]} argv
 * @returns {Job[]}
 */
function parseArgs(argv) {
  if (argv.length === 0) {
    const out = path.join(ROOT, "src/generated/registry.ts");
    return [{ dirs: [path.join(ROOT, "agents")], out, label: "", copy: path.join(path.dirname(out), "agents") }];
  }
  if (argv.length === 1 && argv[0] === "--tests") {
    return [{ dirs: [path.join(ROOT, "test/fixtures")], out: path.join(ROOT, "test/generated/registry.ts"), label: "quiet" }];
  }
  /** @type {string[]} */
  const dirs = [];
  let out = "";
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined || value.startsWith("--")) usageError(`${flag} needs a value`);
    else if (flag === "--agents") dirs.push(path.resolve(value));
    else if (flag === "--out") out = path.resolve(value);
    else usageError(`unknown option ${flag}`);
  }
  if (dirs.length === 0 || out === "") usageError("--agents and --out go together");
  return [{ dirs, out, label: null }];
}

/** @param {string} why @returns {never} */
function usageError(why) {
  console.error(`registry: ${why}\n${USAGE}`);
  process.exit(2);
}

/** @param {string | undefined} file */
const exists = async (file) => file !== undefined && (await stat(file).catch(() => null)) !== null;

/** @param {number} n @param {string} noun */
const count = (n, noun) => `${n} ${noun}${n === 1 ? "" : "s"}`;

async function main() {
  const jobs = parseArgs(process.argv.slice(2));
  const defaults = jobs[0]?.label !== null;
  const dirs = [...new Set(jobs.flatMap((j) => j.dirs))];
  if (!defaults) {
    for (const dir of dirs) {
      const info = await stat(dir).catch(() => null);
      if (!info?.isDirectory()) usageError(`${displayPath(ROOT, dir)} is not a folder`);
    }
  }
  const scans = new Map(await Promise.all(dirs.map(async (d) => /** @type {const} */ ([d, await scanAuthoringDir(ROOT, d)]))));
  const problems = [...scans.values()].flatMap((s) => s.problems);
  const merged = jobs.map((job) => mergeScans(job.dirs.map((d) => /** @type {import("./registry/scan.mjs").ScanResult} */ (scans.get(d)))));
  problems.push(...merged.flatMap((m) => m.problems));

  // Each file is evaluated once, even when it belongs to both registries.
  const files = new Map([...scans.values()].flatMap((s) => s.entries).map((e) => [e.file, e]));
  const entries = [...files.values()].sort((a, b) => byCodeUnit(a.file, b.file));
  const evaluation = await evaluateEntries(ROOT, entries);
  problems.push(...evaluation.problems);

  for (const [i, m] of merged.entries()) {
    if (!evaluation.checkReferences) break;
    const where = jobs[i]?.dirs.map((d) => `${displayPath(ROOT, d)}/tools/`).join(" or ") ?? "";
    const defsOf = (/** @type {import("./registry/scan.mjs").Entry[]} */ list) =>
      Object.fromEntries(list.filter((e) => evaluation.defs.has(e.file)).map((e) => [e.name, evaluation.defs.get(e.file)]));
    const display = new Map([...m.prompts, ...m.agents].map((e) => [`${e.kind}:${e.name}`, e.display]));
    const found = evaluation.checkReferences({ tools: m.tools.map((t) => t.name), prompts: defsOf(m.prompts), agents: defsOf(m.agents), mcpServers: defsOf(m.mcp), toolsWhere: where });
    for (const p of /** @type {{ kind: string, name: string, message: string }[]} */ (found)) {
      problems.push({ file: display.get(`${p.kind}:${p.name}`) ?? p.name, message: p.message });
    }
    // A schedule's target names an agent or tool of this registry.
    for (const s of m.schedules) {
      const def = /** @type {{ target?: { agent?: unknown, tool?: unknown } } | undefined} */ (evaluation.defs.get(s.file));
      const target = def?.target;
      if (typeof target?.agent === "string" && !m.agents.some((a) => a.name === target.agent)) problems.push({ file: s.display, message: `target.agent: unknown agent "${target.agent}" (agents: ${m.agents.map((a) => a.name).join(", ") || "none"})` });
      const tool = typeof target?.tool === "string" ? m.tools.find((t) => t.name === target.tool) : undefined;
      if (typeof target?.tool === "string" && !tool) problems.push({ file: s.display, message: `target.tool: unknown tool "${target.tool}" (looked in ${where})` });
      // Its input as the tool's schema takes it: refused here, not found out at the first firing.
      const toolDef = tool && evaluation.defs.get(tool.file);
      // No occurrence could call a client or provider tool: each would fail tool_not_callable.
      const modelOnly = tool && toolDef ? evaluation.modelOnlyReason?.(tool.name, /** @type {object} */ (toolDef)) : null;
      if (modelOnly) problems.push({ file: s.display, message: `target.tool: ${modelOnly}` });
      const refused = tool && toolDef && !modelOnly ? evaluation.checkToolInput?.(tool.name, toolDef, /** @type {{ input?: unknown }} */ (target).input) : null;
      if (refused) problems.push({ file: s.display, message: refused });
    }
  }

  for (const warning of new Set([...[...scans.values()].flatMap((s) => s.warnings), ...evaluation.warnings])) console.error(`registry: warning: ${warning}`);
  if (problems.length > 0) {
    const lines = [...new Set(problems.map((p) => `${p.file}: ${p.message}`))].sort(byCodeUnit);
    for (const line of lines) console.error(line);
    // Under `wrangler dev` a failed build would stop the server; the last good registry keeps
    // serving instead, and the next save builds again.
    const keep = process.env.WRANGLER_COMMAND === "dev" && defaults && (await exists(jobs[0]?.out));
    console.error(`registry: ${count(lines.length, "problem")}; nothing written${keep ? "; still serving the last good registry" : ""}`);
    process.exitCode = keep ? 0 : 1;
    return;
  }

  const summary = [];
  for (const [i, job] of jobs.entries()) {
    const contents = /** @type {(typeof merged)[number]} */ (merged[i]);
    const sources = job.dirs.map((d) => `${displayPath(ROOT, d)}/`);
    let imported = contents;
    if (job.copy !== undefined && job.dirs[0] !== undefined) {
      const [src, dest] = [job.dirs[0], job.copy];
      await mirror(src, dest);
      const moved = (/** @type {import("./registry/scan.mjs").Entry} */ e) => ({ ...e, file: inCopy(src, dest, e.file) });
      imported = { ...contents, tools: contents.tools.map(moved), agents: contents.agents.map(moved), prompts: contents.prompts.map(moved), hooks: contents.hooks.map(moved), schedules: contents.schedules.map(moved), mcp: contents.mcp.map(moved) };
    }
    await writeIfChanged(job.out, renderRegistry(ROOT, job.out, sources, imported));
    const counts = [
      count(contents.tools.length, "tool"),
      count(contents.agents.length, "agent"),
      ...(contents.prompts.length > 0 ? [count(contents.prompts.length, "prompt")] : []),
      ...(contents.hooks.length > 0 ? [count(contents.hooks.length, "hook")] : []),
      ...(contents.schedules.length > 0 ? [count(contents.schedules.length, "schedule")] : []),
      ...(contents.mcp.length > 0 ? [count(contents.mcp.length, "MCP server")] : []),
    ].join(", ");
    if (job.label === null) summary.push(`${counts} from ${sources.join(" and ")} -> ${displayPath(ROOT, job.out)}`);
    else if (job.label === "") summary.push(`${counts} from ${sources.join(" and ")}`);
  }
  if (summary.length > 0) console.log(`registry: ${summary.join("; ")}`);
}

await main();
