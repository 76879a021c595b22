/**
 * scripts/build-registry.mjs as a process: good folders generate a deterministic registry; each
 * broken rule exits 1 with a `file: rule` line and writes nothing.
 */
import { execFile } from "node:child_process";
import { cp, mkdtemp, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuildRun, CASES, ROOT, build } from "./build-registry.node.js";

/** A good folder of weft's own (two tools and a hook) the failing cases are built beside: never the author's agents/. */
const BASE = `${CASES}/base`;

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "weft-build-test-"));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const exists = (file: string) => stat(file).then(() => true, () => false);

describe("a broken authoring folder fails the build", () => {
  const nameRule = "a tool file name must match ^[a-z][a-z0-9_]{0,63}$ (it becomes the tool name)";
  const cases: Array<{ rule: string; dirs: string[]; line: string }> = [
    { rule: "bad file name", dirs: ["bad-name"], line: `${CASES}/bad-name/tools/Bad-Name.ts: ${nameRule}` },
    {
      rule: "nested folder",
      dirs: ["nested"],
      line: `${CASES}/nested/tools/billing/: tools/ must not contain folders; put each tool directly in tools/ as <name>.ts`,
    },
    {
      rule: "missing default export",
      dirs: ["no-default"],
      line: `${CASES}/no-default/tools/no_default.ts: a tool file needs a default export: export default defineTool({...})`,
    },
    {
      rule: "default export not from defineTool",
      dirs: ["not-define-tool"],
      line: `${CASES}/not-define-tool/tools/plain_object.ts: tool "plain_object": the default export must be the value returned by defineTool({...})`,
    },
    {
      rule: "Zod 3 schema",
      dirs: ["zod3"],
      line: `${CASES}/zod3/tools/zod3_args.ts: tool "zod3_args": args is a Zod 3 schema; weft needs Zod 4 (import { z } from "zod" with zod@^4)`,
    },
    {
      rule: "idempotent without dedupWindowMs",
      dirs: ["idempotent-no-window"],
      line: `${CASES}/idempotent-no-window/tools/charge_card.ts: tool "charge_card": effect idempotent requires dedupWindowMs, a positive integer of milliseconds`,
    },
    {
      rule: "a client tool with execute",
      dirs: ["client-execute"],
      line: `${CASES}/client-execute/tools/pick_color.ts: tool "pick_color": executionMode "client" takes no execute: the client answers each call (POST /threads/:id/calls/:callId/result); remove execute, or executionMode to run it in weft`,
    },
    {
      rule: "JSON Schema args that are not an object",
      dirs: ["json-non-object"],
      line: `${CASES}/json-non-object/tools/list_args.ts: tool "list_args": a JSON Schema args must have "type": "object"`,
    },
    {
      rule: "a JSON Schema pattern that is not a u-flag regular expression",
      dirs: ["bad-pattern"],
      line: `${CASES}/bad-pattern/tools/order_code.ts: tool "order_code": args at #/properties/code/pattern: pattern "^A\\\\-[0-9]+$" is not a JavaScript regular expression with the u flag (Invalid regular expression: /^A\\-[0-9]+$/u: Invalid escape); every call would fail`,
    },
    {
      rule: "a second tool in one file",
      dirs: ["second-tool"],
      line: `${CASES}/second-tool/tools/two_tools.ts: one tool per file: export "hidden" is a second tool; move it to a file of its own in tools/`,
    },
    {
      rule: "agent default export not from defineAgent",
      dirs: ["bad-agent"],
      line: `${CASES}/bad-agent/agents/not_agent.ts: agent "not_agent": the default export must be the value returned by defineAgent({...})`,
    },
    {
      rule: "prompt without toolDescription",
      dirs: ["bad-prompt"],
      line: `${CASES}/bad-prompt/prompts/no_description.ts: prompt "no_description": toolDescription is required: a non-empty string that tells a model when to call this prompt`,
    },
    {
      rule: "agent naming a model id its provider does not declare",
      dirs: ["bad-model"],
      line: `${CASES}/bad-model/agents/bad_model.ts: agent "bad_model": unknown openai model "gpt-4.1-mimi"; did you mean gpt-4.1-mini, gpt-5.4-mini, gpt-4o-mini?`,
    },
    {
      rule: "hook file not named after a hook",
      dirs: ["bad-hook"],
      line: `${CASES}/bad-hook/hooks/on_tool_start.ts: hook "on_tool_start": a hook file must be named after a hook: before_create_message, after_create_message, filter_messages, tool_call_started, tool_call_finished`,
    },
  ];

  for (const c of cases) {
    it(c.rule, async () => {
      const out = path.join(tmp, `${c.dirs.join("+")}.ts`);
      const run = await build(...c.dirs.flatMap((d) => ["--agents", `${CASES}/${d}`]), "--out", out);
      expect(run.code).toBe(1);
      expect(run.stderr.trimEnd().split("\n")).toEqual([c.line, "registry: 1 problem; nothing written"]);
      expect(run.stdout).toBe("");
      expect(await exists(out)).toBe(false);
    });
  }

  it("duplicate names across folders: a fixture shadowing an example tool", async () => {
    const out = path.join(tmp, "duplicate.ts");
    const run = await build("--agents", BASE, "--agents", `${CASES}/duplicate`, "--out", out);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `${CASES}/duplicate/tools/get_current_time.ts: duplicate tool name "get_current_time" (already defined by ${BASE}/tools/get_current_time.ts)\n`,
    );
    expect(await exists(out)).toBe(false);
  });

  it("an agent naming a tool that does not exist", async () => {
    const run = await build("--agents", BASE, "--agents", `${CASES}/unknown-agent-tool`, "--out", path.join(tmp, "typo.ts"));
    expect(run.code).toBe(1);
    expect(run.stderr.trimEnd().split("\n")).toEqual([
      `${CASES}/unknown-agent-tool/agents/typo.ts: agent "typo": tools lists "get_curent_time", which is not a tool in ${BASE}/tools/ or ${CASES}/unknown-agent-tool/tools/, a prompt, or an agent exposed as a tool; did you mean "get_current_time"?`,
      "registry: 1 problem; nothing written",
    ]);
  });

  it("an agent side naming a missing prompt, and a stop tool its prompt does not offer", async () => {
    const run = await build("--agents", BASE, "--agents", `${CASES}/bad-side`, "--out", path.join(tmp, "sides.ts"));
    expect(run.code).toBe(1);
    expect(run.stderr.trimEnd().split("\n")).toEqual([
      `${CASES}/bad-side/agents/two_sides.ts: agent "two_sides": sideA.stopTool "roll_dice" is not offered by prompt "helper"`,
      `${CASES}/bad-side/agents/two_sides.ts: agent "two_sides": sideB names prompt "customr", which is not in prompts/`,
      "registry: 2 problems; nothing written",
    ]);
  });

  it("every problem of every folder at once, sorted", async () => {
    const run = await build("--agents", `${CASES}/zod3`, "--agents", `${CASES}/bad-name`, "--out", path.join(tmp, "all.ts"));
    expect(run.code).toBe(1);
    const lines = run.stderr.trimEnd().split("\n");
    expect(lines.map((l) => l.slice(0, l.indexOf(":")))).toEqual([
      `${CASES}/bad-name/tools/Bad-Name.ts`,
      `${CASES}/zod3/tools/zod3_args.ts`,
      "registry",
    ]);
  });

  it("a syntax error and a module that throws on import, located by file", async () => {
    const dir = path.join(tmp, "broken");
    await mkdir(path.join(dir, "tools"), { recursive: true });
    await writeFile(path.join(dir, "tools", "broken.ts"), 'export default {\n  description: "x",;\n};\n');
    const syntax = await build("--agents", dir, "--out", path.join(tmp, "broken.ts"));
    expect(syntax.code).toBe(1);
    expect(syntax.stderr).toMatch(new RegExp(`^${escape(dir)}/tools/broken\\.ts:2:\\d+: `, "m"));

    await writeFile(path.join(dir, "tools", "broken.ts"), 'throw new Error("boom at import");\n');
    const thrown = await build("--agents", dir, "--out", path.join(tmp, "broken.ts"));
    expect(thrown.code).toBe(1);
    expect(thrown.stderr).toContain(`${dir}/tools/broken.ts: importing the module threw: boom at import\n`);
  });

  it("usage errors exit 2", async () => {
    expect((await build("--agents", "agents")).code).toBe(2);
    expect((await build("--agents", `${CASES}/missing`, "--out", path.join(tmp, "x.ts"))).code).toBe(2);
    expect((await build("--bogus", "x")).code).toBe(2);
  });
});

describe("a good build", () => {
  it("writes sorted, deterministic registries and rewrites nothing when unchanged", async () => {
    const one = path.join(tmp, "one", "registry.ts");
    const two = path.join(tmp, "two", "registry.ts");
    const args = ["--agents", BASE, "--agents", `${CASES}/second-folder`];
    const first = await build(...args, "--out", one);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^registry: \d+ tools, \d+ agents(, \d+ prompts?)?(, \d+ hooks?)? from test\/scripts\/build-fixtures\/base\/ and test\/scripts\/build-fixtures\/second-folder\/ -> .+registry\.ts\n$/);
    expect((await build(...args, "--out", two)).code).toBe(0);
    const text = await readFile(one, "utf8");
    expect(await readFile(two, "utf8")).toBe(text);

    expect(text.split("\n")[0]).toBe(
      `// GENERATED by scripts/build-registry.mjs from ${BASE}/ and ${CASES}/second-folder/ — do not edit.`,
    );
    expect(text.split("\n")[1]).toMatch(/^import "(\.\.\/)+.*src\/secrets\/redact-logs\.js";$/);
    const keys = [...text.matchAll(/^ {4}(\w+): tool_\1,$/gm)].map((m) => m[1]);
    expect(keys).toContain("get_current_time");
    expect(keys).toContain("check_stock");
    expect(keys).toEqual([...keys].sort());
    expect(text).toMatch(/import tool_check_stock from "\.\.\/\.\.\/.*second-folder\/tools\/check_stock\.js";/);
    expect(text).toMatch(/^ {4}stock_check: prompt_stock_check,$/m);
    expect(text).toMatch(/^ {4}tool_call_finished: hook_tool_call_finished,$/m);

    const before = (await stat(one)).mtimeMs;
    await new Promise((r) => setTimeout(r, 20));
    expect((await build(...args, "--out", one)).code).toBe(0);
    expect((await stat(one)).mtimeMs).toBe(before);
  });

  it("warns about a default its own schema refuses, naming the tool and path, and still builds", async () => {
    const run = await build("--agents", `${CASES}/bad-default`, "--out", path.join(tmp, "bad-default", "registry.ts"));
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      `registry: warning: ${CASES}/bad-default/tools/loan_quote.ts: tool "loan_quote": args properties/years/default is "5 years", which its own schema refuses (expected integer, received string); it is not applied\n`,
    );
  });

  it("with no flags builds the app registry from a copy of agents/, and --tests the fixtures' quietly", async () => {
    const run = await build();
    expect(run.code).toBe(0);
    const counts = "\\d+ tools?, \\d+ agents?(, \\d+ prompts?)?(, \\d+ hooks?)?(, \\d+ schedules?)?(, \\d+ MCP servers?)?";
    expect(run.stdout).toMatch(new RegExp(`^registry: ${counts} from agents/\n$`));
    const app = await readFile(path.join(ROOT, "src/generated/registry.ts"), "utf8");
    expect(app).toContain('import type { Registry } from "../run/agent.js";');
    // The console patch first: ES modules evaluate in import order, so a tool or library that keeps
    // `console.log` at import time keeps the patched method (test/secrets/early-console.test.ts).
    expect(app.split("\n")[1]).toBe('import "../secrets/redact-logs.js";');
    expect(app).not.toContain("fixtures");
    // Whatever agents/tools/ holds: each tool imported from the copy, the copy equal to the file.
    const tools = (await readdir(path.join(ROOT, "agents/tools"))).filter((f) => f.endsWith(".ts")).map((f) => f.slice(0, -3));
    expect(tools.length).toBeGreaterThan(0);
    for (const tool of tools) {
      expect(app).toContain(`import tool_${tool} from "./agents/tools/${tool}.js";`);
      const copy = await readFile(path.join(ROOT, `src/generated/agents/tools/${tool}.ts`), "utf8");
      expect(copy).toBe(await readFile(path.join(ROOT, `agents/tools/${tool}.ts`), "utf8"));
    }
    const tests = await build("--tests");
    expect(tests).toEqual({ code: 0, stdout: "", stderr: "" });
    const registry = await readFile(path.join(ROOT, "test/generated/registry.ts"), "utf8");
    expect(registry).toContain('import tool_throws_error from "../fixtures/tools/throws_error.js";');
    expect(registry).not.toContain("agents/tools");
  });
});

describe("under wrangler dev (WRANGLER_COMMAND=dev)", () => {
  /** A project of its own: the build script, node_modules linked, and an agents/ folder. */
  async function project(): Promise<string> {
    const dir = await mkdtemp(path.join(tmp, "project-"));
    await cp(path.join(ROOT, "scripts"), path.join(dir, "scripts"), { recursive: true });
    await cp(path.join(ROOT, "src"), path.join(dir, "src"), { recursive: true, filter: (f) => !f.includes("generated") });
    await symlink(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
    await cp(path.join(ROOT, BASE, "tools/roll_dice.ts"), path.join(dir, "agents/tools/roll_dice.ts"));
    return dir;
  }
  const buildIn = (dir: string, env: Record<string, string>) =>
    new Promise<BuildRun>((resolve) => {
      execFile(process.execPath, ["scripts/build-registry.mjs"], { cwd: dir, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr });
      });
    });

  it("a broken save prints its file: rule line and keeps serving the last good copy; deploy refuses it", async () => {
    const dir = await project();
    expect((await buildIn(dir, { WRANGLER_COMMAND: "dev" })).code).toBe(0);
    const good = await readFile(path.join(dir, "src/generated/agents/tools/roll_dice.ts"), "utf8");
    const file = path.join(dir, "agents/tools/roll_dice.ts");
    await writeFile(file, good.replace(/description:\s*"[^"]*"/, 'description: ""'));

    const dev = await buildIn(dir, { WRANGLER_COMMAND: "dev" });
    expect(dev.code).toBe(0);
    expect(dev.stderr.trimEnd().split("\n")).toEqual([
      'agents/tools/roll_dice.ts: tool "roll_dice": description must be a non-empty string',
      "registry: 1 problem; nothing written; still serving the last good registry",
    ]);
    expect(await readFile(path.join(dir, "src/generated/agents/tools/roll_dice.ts"), "utf8")).toBe(good);

    const deploy = await buildIn(dir, { WRANGLER_COMMAND: "deploy" });
    expect(deploy.code).toBe(1);
    expect(deploy.stderr).toContain("registry: 1 problem; nothing written\n");
  });

  it("a removed tool leaves the copy and the registry", async () => {
    const dir = await project();
    await cp(path.join(ROOT, BASE, "tools/get_current_time.ts"), path.join(dir, "agents/tools/get_current_time.ts"));
    expect((await buildIn(dir, { WRANGLER_COMMAND: "dev" })).stdout).toBe("registry: 2 tools, 0 agents from agents/\n");
    await rm(path.join(dir, "agents/tools/get_current_time.ts"));
    expect((await buildIn(dir, { WRANGLER_COMMAND: "dev" })).stdout).toBe("registry: 1 tool, 0 agents from agents/\n");
    expect(await exists(path.join(dir, "src/generated/agents/tools/get_current_time.ts"))).toBe(false);
    expect(await readFile(path.join(dir, "src/generated/registry.ts"), "utf8")).not.toContain("get_current_time");
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
