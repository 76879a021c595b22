// @ts-check
/**
 * Layout rules for authoring folders: which files are tools and agents, and what is wrong with
 * the rest. Pure file-system reads; nothing is imported or evaluated here.
 * @module
 */
import { readdir } from "node:fs/promises";
import path from "node:path";

/** Tool and agent names (docs/writing-a-tool.md, "The build and its rules"; same as `TOOL_NAME_PATTERN` in src/tools/define.ts). */
export const NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/** Extensions of authoring modules; anything else in tools/ or agents/ is a mistake. */
export const MODULE_EXTENSIONS = [".ts", ".mts", ".js", ".mjs"];

/**
 * @typedef {"tool" | "agent" | "prompt" | "hook" | "schedule" | "mcp"} EntryKind
 * @typedef {{ kind: EntryKind, name: string, file: string, display: string }} Entry
 *   One authoring module: `file` is absolute, `display` is what messages print.
 * @typedef {{ file: string, message: string }} Problem  A rule broken by `file` (display path).
 * @typedef {{ entries: Entry[], problems: Problem[], warnings: string[] }} ScanResult
 */

/** Folder name -> what lives in it, with the words used in messages. */
const FOLDERS = /** @type {const} */ ([
  { folder: "tools", kind: "tool", noun: "a tool", becomes: "the tool name" },
  { folder: "agents", kind: "agent", noun: "an agent", becomes: "the agent id" },
  { folder: "prompts", kind: "prompt", noun: "a prompt", becomes: "the prompt name" },
  { folder: "hooks", kind: "hook", noun: "a hook", becomes: "the hook name" },
  { folder: "schedules", kind: "schedule", noun: "a schedule", becomes: "the schedule name" },
  { folder: "mcp", kind: "mcp", noun: "an MCP server", becomes: "the server name" },
]);

/**
 * Renders a path for messages: repo-relative with forward slashes when inside `root`.
 * @param {string} root
 * @param {string} abs
 */
export function displayPath(root, abs) {
  const rel = path.relative(root, abs);
  if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) return abs.split(path.sep).join("/");
  return rel.split(path.sep).join("/");
}

/** Code-unit order, so output does not depend on the machine's locale. */
export const byCodeUnit = (/** @type {string} */ a, /** @type {string} */ b) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Lists a directory, sorted; a missing directory lists as empty.
 * @param {string} dir
 */
async function list(dir) {
  try {
    const items = await readdir(dir, { withFileTypes: true });
    return items.sort((a, b) => byCodeUnit(a.name, b.name));
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code === "ENOENT") return [];
    throw error;
  }
}

/** Files that may sit in an authoring folder without being modules (docs, editor files). */
const isIgnored = (/** @type {string} */ name) => name.startsWith(".") || name.endsWith(".md");

/**
 * Scans one authoring folder (`agents/` or `test/fixtures/`) for `tools/<name>.ts`,
 * `agents/<name>.ts`, `prompts/<name>.ts` and `hooks/<hook_name>.ts`. Rules (the Standard Agents tools API, "File Structure"): one module per file, the file
 * name is the name and matches {@link NAME_PATTERN}, no nested folders. Duplicates are checked by
 * the caller, across folders.
 * @param {string} root repository root, for display paths
 * @param {string} dir absolute path of the authoring folder
 * @returns {Promise<ScanResult>}
 */
export async function scanAuthoringDir(root, dir) {
  /** @type {ScanResult} */
  const result = { entries: [], problems: [], warnings: [] };
  for (const spec of FOLDERS) {
    const folder = path.join(dir, spec.folder);
    for (const item of await list(folder)) {
      const abs = path.join(folder, item.name);
      const display = displayPath(root, abs);
      if (item.isDirectory()) {
        result.problems.push({
          file: `${display}/`,
          message: `${spec.folder}/ must not contain folders; put each ${spec.kind} directly in ${spec.folder}/ as <name>.ts`,
        });
        continue;
      }
      if (isIgnored(item.name)) continue;
      const ext = MODULE_EXTENSIONS.find((e) => item.name.endsWith(e));
      if (!ext) {
        result.problems.push({
          file: display,
          message: `${spec.noun} file must end in ${MODULE_EXTENSIONS.join(", ")}`,
        });
        continue;
      }
      const name = item.name.slice(0, -ext.length);
      if (!NAME_PATTERN.test(name)) {
        result.problems.push({
          file: display,
          message: `${spec.noun} file name must match ${NAME_PATTERN.source} (it becomes ${spec.becomes})`,
        });
        continue;
      }
      result.entries.push({ kind: spec.kind, name, file: abs, display });
    }
  }
  return result;
}

/**
 * Merges scans of several folders into one registry's entries. A name defined twice (a fixture
 * shadowing an example tool, or `x.ts` beside `x.js`) is a problem on the later file.
 * @param {ScanResult[]} scans in precedence order
 * @returns {Contents & { problems: Problem[] }}
 */
export function mergeScans(scans) {
  /** @type {Map<string, Entry>} */
  const seen = new Map();
  /** @type {Problem[]} */
  const problems = [];
  for (const scan of scans) {
    for (const entry of scan.entries) {
      const key = `${entry.kind}:${entry.name}`;
      const first = seen.get(key);
      if (first) {
        problems.push({
          file: entry.display,
          message: `duplicate ${entry.kind} name "${entry.name}" (already defined by ${first.display})`,
        });
      } else {
        seen.set(key, entry);
      }
    }
  }
  const all = [...seen.values()].sort((a, b) => byCodeUnit(a.name, b.name));
  const of = (/** @type {EntryKind} */ kind) => all.filter((e) => e.kind === kind);
  return { tools: of("tool"), agents: of("agent"), prompts: of("prompt"), hooks: of("hook"), schedules: of("schedule"), mcp: of("mcp"), problems };
}

/**
 * @typedef {{ tools: Entry[], agents: Entry[], prompts: Entry[], hooks: Entry[], schedules: Entry[], mcp: Entry[] }} Contents
 *   One registry's entries of each kind, sorted by name.
 */

/** The factory each kind's default export must come from, for messages. */
export const FACTORY = { tool: "defineTool", agent: "defineAgent", prompt: "definePrompt", hook: "defineHook", schedule: "defineSchedule", mcp: "defineMcpServer" };
