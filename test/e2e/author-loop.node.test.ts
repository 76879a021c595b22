/**
 * The author's loop on a fresh copy of the project, through `npm start` (scripts/start.mjs) as a
 * user runs it: a tool saved while it runs answers within seconds, a broken save prints its
 * `file: rule` line in the same console while the last good version keeps serving, and a tool
 * that throws prints one line naming the tool, the call id and the message, with its stack
 * mapped to the tool's own file, in the console and in its call record read over HTTP. The `weft` command finds this running server by itself, and
 * `weft calls` and `weft approve` finish an approval-gated call that `weft tool call` started.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, freePort } from "../../scripts/lib/dev-server.mjs";
import { copyProject, runBash, writeIn } from "./support.js";

/**
 * The README's word_count.ts, exactly as the README shows it, saved under a name of the loop's own:
 * an author who followed the README has a word_count.ts already, which an agent may name.
 */
const WORD_COUNT = /```ts file=agents\/tools\/word_count\.ts\n([\s\S]*?)```/.exec(readFileSync(join(REPO_ROOT, "README.md"), "utf8"))![1]!;

const LOOP_TOOL = "loop_word_count";
const LOOP_FILE = `agents/tools/${LOOP_TOOL}.ts`;

const THROWER = [
  'import { defineTool } from "@standardagents/spec";',
  "",
  "export default defineTool({",
  '  description: "Always fails.",',
  '  effect: "read",',
  "  execute: async () => {",
  '    throw new Error("boom");',
  "  },",
  "});",
  "",
].join("\n");

let project: string;
let child: ChildProcess;
let output = "";
let base: string;

// A rebuild takes seconds; the bound is generous for a machine loaded by a second npm test.
async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms\noutput:\n${output.slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function post(tool: string, input: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}/v1/tools/${tool}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ input }) });
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  project = copyProject();
  const [port, inspector] = [await freePort(), await freePort()];
  base = `http://127.0.0.1:${port}`;
  child = spawn(
    process.execPath,
    ["scripts/start.mjs", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspector), "--persist-to", join(project, ".state"), "--show-interactive-dev-session=false"],
    // Its dev registry and logs in the copy: not ~/.config/.wrangler, which a second run shares.
    // The example's MCP servers are left to the README tour, which runs them on the same ports and
    // would otherwise talk to these once this test has ended them.
    { cwd: project, detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1", WEFT_EXAMPLE_SERVERS: "off", WRANGLER_SEND_METRICS: "false", WRANGLER_REGISTRY_PATH: join(project, ".wrangler-home", "registry"), WRANGLER_LOG_PATH: join(project, ".wrangler-home", "logs") } },
  );
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  // Under the hook's own bound, so a start that never serves fails here with the server's output.
  await until("npm start serves", async () => {
    if (output.includes("nothing written")) throw new Error(`npm start refused the project's agents/:\n${output.slice(-4000)}`);
    try {
      return (await fetch(`${base}/v1/tools`)).ok || undefined;
    } catch {
      return undefined;
    }
  }, 240_000);
}, 300_000);

afterAll(() => {
  if (child?.pid) {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  if (project) rmSync(project, { recursive: true, force: true, maxRetries: 3 });
});

describe("npm start", { timeout: 300_000 }, () => {
  it("builds the registry at start and prints no Request.cf stack trace", () => {
    expect(output).toMatch(/registry: \d+ tools?, \d+ agents?(, \d+ prompts?)?(, \d+ hooks?)?(, \d+ schedules?)?(, \d+ MCP servers?)? from agents\//);
    expect(output).not.toContain("Unable to fetch the `Request.cf` object");
  });

  it("takes every file schedule of agents/schedules/ up with no trigger by hand, as a deploy's cron does, and a schedule's alarm fires on its own", async () => {
    // Whatever schedules the project has (the example's, the author's own, or none): each is in the line.
    const names = existsSync(join(project, "agents/schedules")) ? readdirSync(join(project, "agents/schedules")).filter((f) => f.endsWith(".ts")).map((f) => f.slice(0, -3)) : [];
    if (names.length > 0) {
      await until("the file schedules' sync line", () => {
        const line = /weft: file schedules synced: .*/.exec(output)?.[0];
        return line && names.every((n) => new RegExp(`\\b${n}: sch_file_${n}_[0-9a-f]{8} active\\b`).test(line)) ? true : undefined;
      });
    }
    // A schedule due in two seconds: the thread's real alarm runs it, no request needed.
    const thread = (await (await fetch(`${base}/threads`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json()) as { threadId: string };
    const at = Date.now() + 2000;
    const made = await fetch(`${base}/threads/${thread.threadId}/schedules`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ at, target: { tool: "get_current_time", input: {} } }) });
    expect(made.status).toBe(201);
    const call = await until("the schedule's call", async () => {
      const { calls } = (await (await fetch(`${base}/threads/${thread.threadId}/calls`)).json()) as { calls: { callId: string; status: string }[] };
      return calls.find((c) => c.status === "succeeded");
    });
    expect(call.callId).toMatch(new RegExp(`^sched_sch_\\w+_${at}$`));
  });

  it("serves a tool saved while it runs within a few seconds", async () => {
    const saved = Date.now();
    writeIn(project, LOOP_FILE, WORD_COUNT);
    const res = await until(`${LOOP_TOOL} answers`, async () => {
      const r = await post(LOOP_TOOL, { text: "one two three" });
      return r.status === 200 ? r : undefined;
    });
    expect(res.body).toMatchObject({ ok: true, result: "3" });
    console.log(`author loop: ${LOOP_TOOL} answered ${((Date.now() - saved) / 1000).toFixed(1)} s after it was saved`);
  });

  it("prints a broken save's file: rule line and keeps serving the last good version", async () => {
    writeIn(project, LOOP_FILE, WORD_COUNT.replace('description: "Count the words in a text."', 'description: ""'));
    // Both lines, which may reach this process in separate chunks of wrangler's output.
    const ruleLine = `${LOOP_FILE}: tool "${LOOP_TOOL}": description must be a non-empty string`;
    const summary = "registry: 1 problem; nothing written; still serving the last good registry";
    await until("the file: rule line and the summary", () => (output.includes(ruleLine) && output.includes(summary) ? true : undefined));
    expect((await post(LOOP_TOOL, { text: "still here" })).body).toMatchObject({ ok: true, result: "2" });
    // While one file is broken nothing else is built either; fixing it builds again.
    // The copy's tools, the loop's among them.
    const built = `registry: ${readdirSync(join(project, "agents/tools")).filter((f) => f.endsWith(".ts")).length} tools`;
    const builds = output.split(built).length;
    writeIn(project, LOOP_FILE, WORD_COUNT);
    await until("the rebuild after the fix", () => (output.split(built).length > builds ? true : undefined));
  });

  it("prints one line for a failed call, with its stack mapped to the tool's file", async () => {
    writeIn(project, "agents/tools/thrower.ts", THROWER);
    const res = await until("thrower answers", async () => {
      const r = await post("thrower", {});
      return r.status === 200 ? r : undefined;
    });
    expect(res.body).toMatchObject({ ok: false, isError: true, error: "boom", result: null });
    const line = `weft: tool thrower call ${res.body.callId} of thread `;
    await until("the failure line", () => (output.includes(line) ? true : undefined));
    const plain = output.replace(/\x1b\[[0-9;]*m/g, "");
    const after = plain.slice(plain.indexOf(line)).split("\n").slice(0, 8).join("\n");
    expect(after).toMatch(/^weft: tool thrower call \S+ of thread [0-9a-f]+ failed: boom\n\s+at .*\(?agents\/tools\/thrower\.ts:7:\d+\)?\n/);
    // weft's own frames are left out: the stack ends at the tool.
    expect(after.split("\n").slice(1, 3).join("\n")).not.toMatch(/\bsrc\//);
  });

  it("a thrown call's record, read over HTTP, has its stack in the tool's own file and line", async () => {
    // thrower.ts is saved by the test above.
    const { threadId } = (await (await fetch(`${base}/threads`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json()) as { threadId: string };
    const res = await until("thrower answers in the thread", async () => {
      const r = await fetch(`${base}/v1/tools/thrower`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ input: {}, sessionId: threadId }) });
      return r.status === 200 ? ((await r.json()) as { callId: string }) : undefined;
    });
    // The first read after a rebuild may find the mapper still parsing the bundle's map (seconds
    // on a loaded machine) and get the stack as recorded; a later read maps it.
    const record = await until("the record's stack in source terms", async () => {
      const r = (await (await fetch(`${base}/threads/${threadId}/calls/${res.callId}`)).json()) as { result: { stack: string } };
      return r.result.stack.includes(".wrangler/tmp") ? undefined : r;
    });
    const frames = record.result.stack.split("\n");
    expect(frames[0]).toBe("Error: boom");
    // Line 7 of THROWER is the throw; every frame of the bundle is mapped, weft's own to src/.
    expect(frames[1]).toMatch(/^\s+at .*\(?agents\/tools\/thrower\.ts:7:\d+\)?$/);
    expect(record.result.stack).not.toContain(".wrangler/tmp");
    expect(record.result.stack).toMatch(/\(src\/calls\/\S+\.ts:\d+:\d+\)/);
    const listed = (await (await fetch(`${base}/threads/${threadId}/calls`)).json()) as { calls: Array<{ callId: string; result?: { stack?: string } }> };
    expect(listed.calls.find((c) => c.callId === res.callId)!.result!.stack).toBe(record.result.stack);
  });

  it("weft tool call, weft calls and weft approve finish an approval-gated call in the running server", async () => {
    // Found as `npm start`'s own address would be (WEFT_LOCAL_URL stands in for localhost:8787).
    const weft = (args: string) => runBash(`"${process.execPath}" bin/weft.mjs ${args}`, project, { WEFT_LOCAL_URL: base });
    const started = await weft(`tool call refund_order --input '{"orderId":"A-1001","reason":"arrived broken"}'`);
    expect(started.code, started.stderr).toBe(0);
    expect(started.stderr).toContain(`weft: using the running local weft at ${base}`);
    const waiting = JSON.parse(started.stdout);
    expect(waiting).toMatchObject({ toolName: "refund_order", status: "awaiting_approval" });
    const { sessionId, callId, argsHash } = waiting;
    expect(argsHash).toMatch(/^[0-9a-f]{64}$/);
    expect(started.stderr).toContain(`weft: call ${callId} waits for approval: npx weft approve ${sessionId} ${callId} --args-hash ${argsHash} (or npx weft deny)`);

    const listed = await weft(`calls ${sessionId}`);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`${callId} refund_order awaiting_approval {"orderId":"A-1001","reason":"arrived broken"}  (npx weft approve ${sessionId} ${callId}, or npx weft deny)`);

    const approved = await weft(`approve ${sessionId} ${callId} --args-hash ${argsHash} --json`);
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ callId, status: "succeeded", isError: false });
    expect(approved.stdout).toContain("Refunded order A-1001 (blue kettle).");
    // Decided once: the same approval again answers the call as it stands; a denial now is refused with weft's code, exit 1.
    const again = await weft(`approve ${sessionId} ${callId} --json`);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ callId, status: "succeeded", repeated: true });
    const denied = await weft(`deny ${sessionId} ${callId} --json`);
    expect(denied.code).toBe(1);
    expect(JSON.parse(denied.stdout).error.code).toBe("call_not_waiting");
    const done = await weft(`calls ${sessionId} --status succeeded --json`);
    expect(JSON.parse(done.stdout).calls).toMatchObject([{ callId, toolName: "refund_order", status: "succeeded" }]);

    const usage = await weft(`settle ${sessionId} ${callId} --retry --failed nope`);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("give exactly one of --succeeded <result>, --failed <error>, --retry");
  });
});
