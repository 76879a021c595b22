/**
 * The README tour can't rot: every ```bash tour block of README.md runs, in order, in one bash
 * process against a fresh `wrangler dev` of the main config (WEFT_URL points at it), and each
 * step's output is checked. The route table (docs/http.md) and the event table (docs/events.md) are
 * checked against the code.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../scripts/lib/dev-server.mjs";
import { startExampleMcp } from "../../scripts/example-mcp-server.mjs";
import { startExampleOAuthMcp } from "../../scripts/example-oauth-mcp-server.mjs";
import { ERROR_CODES } from "../../src/errors.js";
import { BUILTIN_EVENT_TYPES } from "../../src/protocol.js";
import { machineLock } from "./machine-lock.js";
import { EXAMPLE_TOOLS, call, range1, runBash, startWeft, type DevServer, type Frame } from "./support.js";
import { ONE_TOOL_TURN_TYPES } from "../frames.js";

const README = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
/** The pages the README sends readers to for the reference: every route, every event. */
const HTTP_DOC = readFileSync(join(REPO_ROOT, "docs/http.md"), "utf8");
const EVENTS_DOC = readFileSync(join(REPO_ROOT, "docs/events.md"), "utf8");
/** The README and every docs page, where error codes are cited as `<status> \`code\``. */
const PAGES = ["README.md", ...readdirSync(join(REPO_ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

/** The fenced blocks of a Markdown text whose info string is exactly `info`. */
function fencedBlocks(markdown: string, info: string): string[] {
  const blocks: string[] = [];
  const fence = /^```([^\n`]*)\n([\s\S]*?)^```[ \t]*$/gm;
  for (let m = fence.exec(markdown); m; m = fence.exec(markdown)) {
    if (m[1]!.trim() === info) blocks.push(m[2]!);
  }
  return blocks;
}

/** Rows of the first Markdown table under the heading line `heading` (`## Routes`, or a page's `# Title`), as trimmed cells. */
function tableRows(markdown: string, heading: string): string[][] {
  const start = `\n${markdown}`.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no "${heading}" section`);
  const section = markdown.slice(start + heading.length + 1).split(/\n## /)[0]!;
  return section
    .split("\n")
    .filter((line) => line.startsWith("|"))
    .slice(2) // header and separator
    .map((line) => line.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim()));
}

const unquote = (cell: string) => cell.replace(/^`|`$/g, "");

interface StepOutput {
  stdout: string;
}

/** Runs every block in one bash process, marking where each block's output starts. */
async function runTour(blocks: string[], env: Record<string, string>): Promise<{ steps: StepOutput[]; stderr: string; code: number | null }> {
  const marker = (i: number) => `@@weft-tour-step-${i}@@`;
  const script = blocks.flatMap((block, i) => [`printf '\\n${marker(i)}\\n'`, block]).join("\n");
  // Every block in one bash, dozens of npx starts: 60 s was outlasted on a loaded machine.
  const { stdout, stderr, code } = await runBash(script, REPO_ROOT, env, 540_000);
  const steps = blocks.map((_, i) => {
    const from = stdout.indexOf(`${marker(i)}\n`);
    if (from < 0) return { stdout: "" };
    const to = i + 1 < blocks.length ? stdout.indexOf(`\n${marker(i + 1)}`) : stdout.length;
    return { stdout: stdout.slice(from + marker(i).length + 1, to < 0 ? stdout.length : to).trim() };
  });
  return { steps, stderr, code };
}

const json = (text: string) => JSON.parse(text) as any;
const frames = (text: string) => text.split("\n").filter(Boolean).map((line) => JSON.parse(line) as Frame);

/**
 * One check per tour block, in order. `ctx` carries values between steps. A block added to or
 * removed from the README without a check here fails the count test below.
 */
const CHECKS: Array<{ name: string; check: (out: string, ctx: Record<string, any>) => void | Promise<void> }> = [
  {
    name: "list the tools",
    check: (out) => {
      const body = json(out);
      // Every tool in agents/tools/: the example's four, and any you add.
      const files = readdirSync(join(REPO_ROOT, "agents/tools")).filter((f) => f.endsWith(".ts")).map((f) => f.slice(0, -3));
      expect(body.tools.map((t: any) => t.name)).toEqual(files.sort());
      expect(files).toEqual(expect.arrayContaining(EXAMPLE_TOOLS));
      expect(body.configHash).toMatch(/^[0-9a-f]{64}$/);
    },
  },
  {
    name: "call roll_dice directly",
    check: (out) => {
      const body = json(out);
      expect(body).toMatchObject({ ok: true, toolName: "roll_dice", isError: false, status: "succeeded", scratchWorkspace: true });
      const { rolls, total } = JSON.parse(body.result);
      expect(rolls).toHaveLength(2);
      expect(total).toBe(rolls[0] + rolls[1]);
    },
  },
  {
    name: "a refused direct call",
    check: (out) => {
      const [body, status] = out.split("\n");
      expect(status).toBe("HTTP 400");
      expect(json(body!).error).toMatchObject({ code: "invalid_tool_input", message: "sides: expected number, received string", details: { path: ["sides"] } });
    },
  },
  {
    name: "create a thread",
    check: (out, ctx) => {
      expect(out).toMatch(/^[0-9a-f]{64}$/);
      ctx.thread = out;
    },
  },
  {
    name: "open the WebSocket in the background",
    check: (out) => expect(out).toBe(""),
  },
  {
    name: "post a message with a script",
    check: (out) => {
      expect(json(out)).toMatchObject({ queued: false, message: { id: 1, role: "user", content: "Roll two dice for me." } });
    },
  },
  {
    name: "watch the events",
    check: (out, ctx) => {
      const fs = frames(out);
      expect(fs.map((f) => f.seq)).toEqual(range1(11));
      expect(fs.map((f) => f.type)).toEqual([...ONE_TOOL_TURN_TYPES]);
      for (const f of fs) expect(Object.keys(f).sort()).toEqual(["at", "data", "seq", "type"]);
      expect(fs[0]!.data).toEqual({ threadId: ctx.thread, agentId: "example" });
      expect(fs[5]!.data).toEqual({ callId: "call_1", toolName: "roll_dice", source: "model", input: { sides: 6, count: 2 } });
      expect(fs[6]!.data).toMatchObject({ callId: "call_1", status: "succeeded", isError: false, attempts: 1 });
      expect(fs[10]!.data).toMatchObject({ status: "completed", steps: 2 });
      ctx.frames = fs;
    },
  },
  {
    name: "read the messages back",
    check: (out, ctx) => {
      const body = json(out);
      expect(body).toMatchObject({ total: 4, hasMore: false });
      expect(body.messages.map((m: any) => [m.role, m.content])).toEqual([
        ["user", "Roll two dice for me."],
        ["assistant", "Rolling two dice."],
        ["tool", ctx.frames[6].data.result],
        ["assistant", "You rolled them: see the result above."],
      ]);
      expect(body.messages[1].toolCalls).toEqual([{ id: "call_1", name: "roll_dice", arguments: '{"count":2}' }]);
    },
  },
  {
    name: "reconnect from seq 8",
    check: (out, ctx) => {
      expect(frames(out)).toEqual(ctx.frames.slice(8));
    },
  },
  {
    name: "the support desk: two sides, a tool, an agent and a prompt called as tools",
    check: (out) => {
      const reply = "Your blue kettle is on its way with Parcelo and should arrive on 2 December.";
      expect(out.trimEnd().split("\n")).toEqual([
        "- user: (Ada opens the chat)",
        "a assistant: Hello, this is support. How can I help?",
        "b assistant: Hi, my order A-1001 has not arrived yet.",
        "a assistant: lookup_order",
        'a tool: {"orderId":"A-1001","item":"blue kettle","status":"shipped","expectedDelivery":"2026-12-02","carrier":"Parcelo"}',
        "a assistant: shipping_expert",
        "a tool: A-1001 left the Parcelo depot and is due on 2026-12-02.",
        "a assistant: draft_reply",
        `a tool: ${reply}`,
        `a assistant: ${reply}`,
        "b assistant: Great, thank you!",
        "b tool: Chat ended: solved.",
      ]);
    },
  },
  {
    name: "the nested prompt's messages, the sub-agent's events and its child thread",
    check: (out) => {
      const lines = out.trimEnd().split("\n");
      expect(lines.slice(0, 2)).toEqual([
        "depth 1 user: A-1001, a blue kettle, left the Parcelo depot; due 2026-12-02.",
        "depth 1 assistant: Your blue kettle is on its way with Parcelo and should arrive on 2 December.",
      ]);
      const events = lines.slice(2, 5).map((l) => ({ type: l.slice(0, l.indexOf(" ")), data: json(l.slice(l.indexOf(" ") + 1)) }));
      expect(events.map((e) => e.type)).toEqual(["subagent_started", "subagent_finished", "turn_finished"]);
      const child = events[0]!.data.childThreadId;
      expect(child).toMatch(/^[0-9a-f]{64}$/);
      expect(events[0]!.data).toEqual({ callId: "desk_2", agentId: "shipping_expert", childThreadId: child });
      expect(events[1]!.data).toEqual({ callId: "desk_2", agentId: "shipping_expert", childThreadId: child, status: "completed" });
      expect(events[2]!.data).toMatchObject({ status: "stopped", steps: 7, stoppedBy: "b" });
      const thread = json(lines[5]!);
      expect(thread).toMatchObject({ agentId: "shipping_expert", arguments: { input: "Where is order A-1001?" }, parent: { callId: "desk_2" }, lastTurn: "completed" });
      expect(thread.parent.threadId).toMatch(/^[0-9a-f]{64}$/);
    },
  },
  {
    name: "compute with code over the tools",
    check: (out) => {
      const body = json(out);
      expect(body).toMatchObject({ ok: true, toolName: "compute", isError: false, status: "succeeded" });
      const { value, logs } = json(body.result);
      expect(value.totals).toHaveLength(3);
      for (const t of value.totals) expect(t).toBeGreaterThanOrEqual(2);
      expect(value.best).toBe(Math.max(...value.totals));
      expect(logs).toEqual(["rolled 3 times"]);
    },
  },
  {
    name: "call a remote MCP tool",
    check: (out) => {
      const call = json(out);
      expect(call).toMatchObject({ toolName: "almanac__moon_phase", status: "succeeded", attempts: 1 });
      expect(json(call.result)).toEqual({ date: "2026-11-24", phase: "full moon", illuminated: 100, ageDays: 14.6 });
    },
  },
  {
    name: "a call parked for the user's authorization, with the URL",
    check: (out, ctx) => {
      const frame = json(out) as Frame;
      expect(frame).toMatchObject({ type: "tool_call_parked", data: { callId: "diary_connect", toolName: "diary__connect" } });
      const reason: string = frame.data.reason;
      expect(reason).toMatch(/^mcp_auth_required: mcp server "diary" needs your authorization: open http:\/\/127\.0\.0\.1:8789\/authorize\?\S+$/);
      const url = new URL(reason.slice(reason.indexOf("open ") + 5));
      expect(url.searchParams.get("response_type")).toBe("code");
      expect(url.searchParams.get("code_challenge_method")).toBe("S256");
      expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(url.searchParams.get("redirect_uri")).toBe(`${weftUrl}/mcp-oauth/callback`);
      expect(url.searchParams.get("resource")).toBe("http://127.0.0.1:8789/mcp");
      ctx.state = url.searchParams.get("state");
      expect(ctx.state).toBeTruthy();
    },
  },
  {
    name: "authorize: the redirect back and weft's callback page",
    check: (out, ctx) => {
      const [back, page] = out.split("\n");
      const url = new URL(back!);
      expect(url.origin + url.pathname).toBe(`${weftUrl}/mcp-oauth/callback`);
      expect(url.searchParams.get("state")).toBe(ctx.state);
      expect(url.searchParams.get("code")).toBeTruthy();
      expect(page).toBe("<p>This connection was started by a weft user. It links the account you just approved at the server to that user's threads, and completes only in a browser signed in to weft as the same user.</p>");
    },
  },
  {
    name: "POST /mcp-oauth/complete",
    check: (out, ctx) => {
      expect(json(out)).toEqual({ connected: true, server: "diary", threadId: ctx.thread });
    },
  },
  {
    name: "the parked call goes on, and the server's tool is called",
    check: (out) => {
      const [connect, write] = out.split("\n").map((line) => json(line));
      expect(connect).toEqual({ toolName: "diary__connect", status: "succeeded", result: 'mcp server "diary" is connected; its tools are offered from the next step' });
      expect(write).toMatchObject({ toolName: "diary__write_entry", status: "succeeded" });
      expect(json(write.result)).toEqual({ user: "ada", entry: expect.any(Number) });
    },
  },
  {
    name: "a budget admits two turns of the example agent and refuses the third (Usage and budgets)",
    check: (out) => {
      // The README prints these lines as the output: they are what the example agent reserves and uses.
      const shown = README.slice(README.indexOf("Try it on the tour"));
      const printed = shown.slice(shown.indexOf("```text\n") + "```text\n".length, shown.indexOf("\n```", shown.indexOf("```text\n")));
      // What a request sends and reserves counts the tools on offer: the tour's worker may have more
      // than the example ships with (a tool the author added), so these may be a little larger.
      const GROWS = [/needs up to (\d+) tokens/, /exceeded: (\d+) tokens used/, /requests, (\d+) in \+/];
      const numberAt = (text: string, re: RegExp) => Number(re.exec(text)?.[1]);
      const level = (line: string) => GROWS.reduce((l, re) => l.replace(re, (m, n: string) => m.replace(n, "N")), line);
      const [outLines, shownLines] = [out.split("\n"), printed.split("\n")];
      expect(outLines.map(level)).toEqual(shownLines.map(level));
      for (const re of GROWS) {
        expect(numberAt(out, re), String(re)).toBeGreaterThanOrEqual(numberAt(printed, re));
        expect(numberAt(out, re), String(re)).toBeLessThan(numberAt(printed, re) + 2000);
      }
      const needs = (text: string) => numberAt(text, GROWS[0]!);
      const [, used, limit] = /would be exceeded: (\d+) tokens used of (\d+) tokens/.exec(out)!.map(Number);
      expect(used! + needs(out)).toBeGreaterThan(limit!);
      expect(used).toBeLessThan(limit!);
    },
  },
];

/** The address of the weft the tour runs against (its OAuth redirect URI is under it). */
let weftUrl = "";

describe("README.md and its reference pages", () => {
  it("opens with the install-and-start and test commands", () => {
    expect(README).toMatch(/^# weft\n\n```bash\nnpm install && npm start +# [^\n]+\nnpm test +# [^\n]+\n```\n/);
    expect(README).toMatch(/\n## Guarantees\n/);
  });

  it("has one check here per tour block", () => {
    expect(fencedBlocks(README, "bash tour")).toHaveLength(CHECKS.length);
  });

  it("docs/http.md lists exactly the routes the Worker serves", async () => {
    const weft = await startWeftOnce();
    const index = await call(weft.url, "GET", "/");
    const served = (index.body.routes as string[]).flatMap((route) => {
      const [methods, path] = route.split(" ") as [string, string];
      return methods.split("|").map((m) => `${m} ${path.replace(/\?.*$/, "")}`);
    });
    const documented = tableRows(HTTP_DOC, "## HTTP surface").map(([method, path]) => `${unquote(method!)} ${unquote(path!).replace(/\?.*$/, "")}`);
    expect(documented.sort()).toEqual(served.sort());
  });

  it("docs/events.md lists exactly the built-in event types, and the docs cite only error codes that exist", () => {
    const documented = tableRows(EVENTS_DOC, "# Events").map(([type]) => unquote(type!));
    expect([...documented].sort()).toEqual([...BUILTIN_EVENT_TYPES].sort());
    for (const page of PAGES) {
      const text = readFileSync(join(REPO_ROOT, page), "utf8");
      const codes = [...text.matchAll(/\b(?:[1-5]\d\d) `([a-z_]+)`/g)].map((m) => m[1]!);
      if (page === "docs/http.md") expect(codes.length).toBeGreaterThan(10);
      for (const code of codes) expect(Object.keys(ERROR_CODES), `${page}: ${code}`).toContain(code);
    }
  });
});

let shared: DevServer | undefined;
let almanac: { close(): Promise<void> } | undefined;
let diary: { close(): Promise<void> } | undefined;
let unlock: (() => void) | undefined;
/** A running npm start may hold an example server's port already. */
const unlessTaken = (e: { code?: string }) => {
  if (e.code !== "EADDRINUSE") throw e;
  return { close: async () => undefined };
};
async function startWeftOnce(): Promise<DevServer> {
  // The example's MCP servers, as `npm start` runs them beside weft, at the ports agents/mcp/ names:
  // a second npm test on this machine waits here rather than use servers this one closes.
  unlock ??= await machineLock("example-mcp-ports", 480_000);
  almanac ??= await startExampleMcp().catch(unlessTaken);
  diary ??= await startExampleOAuthMcp().catch(unlessTaken);
  shared ??= await startWeft(undefined, "wrangler.toml");
  weftUrl = shared.url;
  return shared;
}
afterAll(async () => {
  await shared?.stop();
  await almanac?.close();
  await diary?.close();
  unlock?.();
});

describe("the README tour, run literally", () => {
  const blocks = fencedBlocks(README, "bash tour");
  let result: Awaited<ReturnType<typeof runTour>>;

  beforeAll(async () => {
    const weft = await startWeftOnce();
    result = await runTour(blocks, { WEFT_URL: weft.url });
  }, 600_000);

  it("runs every block to the end with bash", () => {
    expect(result.code, `bash exited ${result.code}\nstderr:\n${result.stderr}`).toBe(0);
  });

  const ctx: Record<string, any> = {};
  CHECKS.forEach(({ name, check }, i) => {
    it(`step ${i + 1}: ${name}`, async () => {
      const out = result.steps[i]?.stdout ?? "";
      try {
        await check(out, ctx);
      } catch (e) {
        throw new Error(`tour block ${i + 1}:\n${blocks[i]}\nprinted:\n${out}\nstderr:\n${result.stderr}\n${(e as Error).message}`);
      }
    });
  });
});
