/**
 * The `weft` command as a process. `tool call` without `--url` on a copy of the project as a
 * fresh clone has it, through `npx` on the PATH's own Node (the CLI moves itself to the project's
 * Node 22 when that one is older); the thread commands against a running `wrangler dev`.
 */
import { rmSync } from "node:fs";
import { delimiter } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { REPO_ROOT } from "../../scripts/lib/dev-server.mjs";
import { copyProject, runBash, sharedWeft, type DevServer } from "./support.js";

let weft: DevServer;
let fresh: string;
// The PATH a shell has outside npm scripts: without this project's node_modules/.bin (and its Node 22).
const PATH = (process.env.PATH ?? "").split(delimiter).filter((p) => !p.includes("node_modules")).join(delimiter);

beforeAll(async () => {
  fresh = copyProject();
  weft = await sharedWeft("dev");
});
afterAll(async () => {
  await weft?.stop();
  if (fresh) rmSync(fresh, { recursive: true, force: true });
});

const quoted = (args: string[]) => args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
// Nothing listens at WEFT_LOCAL_URL here, so a weft someone runs on localhost:8787 is not found.
const NO_LOCAL = "http://127.0.0.1:9";
/** `npx weft <args>` in the fresh copy, as its README says to run it (each starts a runtime: minutes allowed under load). */
const npxWeft = (args: string[], env: Record<string, string> = {}) => runBash(`npx weft ${quoted(args)}`, fresh, { PATH, WEFT_LOCAL_URL: NO_LOCAL, ...env }, 200_000);
/** The same bin, started directly on this Node (quicker than npx for the many calls below). */
const weftCli = (args: string[]) => runBash(`"${process.execPath}" bin/weft.mjs ${quoted(args)}`, REPO_ROOT, { PATH });

it("npx weft tool call, with no --url, runs the call in an ephemeral local runtime and prints the outcome", async () => {
  // Three commands, each with a runtime of its own (own ports, snapshot and state): run at once,
  // they wait for their starts together instead of one after another.
  const [ok, bad, withEnvToken] = await Promise.all([
    npxWeft(["tool", "call", "roll_dice", "--input", '{"count":2}']),
    npxWeft(["tool", "call", "roll_dice", "--input", '{"count":"two"}']),
    // A WEFT_TOKEN exported for a deployed weft is not sent to the development-mode runtime the
    // command started itself (which refuses every token); the command still works, as "dev".
    npxWeft(["tool", "call", "roll_dice", "--input", "{}"], { WEFT_TOKEN: "meant-for-a-deployment" }),
  ]);
  expect(ok.code, ok.stderr).toBe(0);
  const outcome = JSON.parse(ok.stdout);
  expect(outcome).toMatchObject({ ok: true, isError: false, toolName: "roll_dice", status: "succeeded" });
  expect(JSON.parse(outcome.result).rolls).toHaveLength(2);
  expect(ok.stderr).toContain("starting a local runtime");

  expect(bad.code).toBe(1);
  expect(JSON.parse(bad.stdout)).toMatchObject({ error: { code: "invalid_tool_input", details: { path: ["count"] } } });
  expect(bad.stderr).toContain("weft: invalid_tool_input: count: expected number, received string (at count)");

  expect(withEnvToken.code, withEnvToken.stdout + withEnvToken.stderr).toBe(0);
  expect(JSON.parse(withEnvToken.stdout)).toMatchObject({ ok: true, toolName: "roll_dice" });
  expect(withEnvToken.stderr).toContain("WEFT_TOKEN is not sent");
}, 300_000);

it("tool call against --url: a tool's own failure exits 1; usage errors exit 2", async () => {
  const failed = await weftCli(["tool", "call", "throws_error", "--input", '{"kind":"error"}', "--url", weft.url, "--json"]);
  expect(failed.code).toBe(1);
  expect(JSON.parse(failed.stdout)).toMatchObject({ ok: false, isError: true, toolName: "throws_error", error: expect.stringContaining("card declined") });
  const unknown = await weftCli(["tool", "call", "no_such_tool", "--url", weft.url, "--json"]);
  expect(unknown.code).toBe(1);
  expect(JSON.parse(unknown.stdout).error.code).toBe("unknown_tool");
  const usage = await weftCli(["tool", "call", "roll_dice", "--input", "{oops", "--url", weft.url]);
  expect(usage.code).toBe(2);
  expect(usage.stderr).toContain("--input is not valid JSON");
});

it("thread tail against a URL where nothing listens exits 1 with network_error instead of retrying silently", async () => {
  const down = await weftCli(["thread", "tail", "0".repeat(64), "--url", "http://127.0.0.1:9", "--json"]);
  expect(down.code).toBe(1);
  expect(JSON.parse(down.stdout).error.code).toBe("network_error");
}, 300_000);

it("weft tools lists every tool with its input schema", async () => {
  const listed = await weftCli(["tools", "--url", weft.url, "--json"]);
  expect(listed.code, listed.stderr).toBe(0);
  const { tools } = JSON.parse(listed.stdout);
  const person = tools.find((t: { name: string }) => t.name === "person");
  expect(person.inputSchema).toMatchObject({ type: "object", required: ["name", "age"], properties: { age: { type: "number" } } });
  const human = await weftCli(["tools", "--url", weft.url]);
  expect(human.stdout).toMatch(/^sum_range \(read\): /m);
  expect(human.stdout).toMatch(/^ {2}input: \{"type":"object"/m);
});

it("weft thread new, send --follow, tail, messages and usage", async () => {
  const created = await weftCli(["thread", "new", "--url", weft.url]);
  expect(created.code, created.stderr).toBe(0);
  const id = created.stdout.trim();
  expect(id).toMatch(/^[0-9a-f]{64}$/);

  const script = JSON.stringify([{ text: "summing", toolCalls: [{ id: "c1", name: "sum_range", arguments: { from: 1, to: 3 } }] }, { text: "the sum is 6" }]);
  const sent = await weftCli(["thread", "send", id, "add 1 to 3", "--script", script, "--follow", "--url", weft.url]);
  expect(sent.code, sent.stderr).toBe(0);
  const lines = sent.stdout.trim().split("\n");
  expect(lines[0]).toBe("message #1 stored; turn started");
  expect(lines).toContain(`   6 → sum_range {"from":1,"to":3}`);
  expect(lines.at(-1)).toMatch(/^ *\d+ turn completed after 2 steps$/);

  const tail = await weftCli(["thread", "tail", id, "--until-finished", "--json", "--url", weft.url]);
  expect(tail.code, tail.stderr).toBe(0);
  const frames = tail.stdout.trim().split("\n").map((l) => JSON.parse(l));
  expect(frames.map((f) => f.seq)).toEqual(frames.map((_, i) => i + 1));
  expect(frames.at(-1).type).toBe("turn_finished");

  const messages = await weftCli(["thread", "messages", id, "--limit", "2", "--url", weft.url]);
  expect(messages.stdout.trim().split("\n")).toEqual(["#1 user: add 1 to 3", "#2 assistant: summing", "(4 in all; more with --offset 2)"]);
  const all = await weftCli(["thread", "messages", id, "--all", "--limit", "3", "--json", "--url", weft.url]);
  expect(all.stdout.trim().split("\n").map((l) => JSON.parse(l).id)).toEqual([1, 2, 3, 4]);

  // weft usage: the thread's two scripted requests (no usage reported: estimated) and its one tool call.
  const usage = await weftCli(["usage", id, "--url", weft.url]);
  expect(usage.code, usage.stderr).toBe(0);
  const [whole, turn] = usage.stdout.trim().split("\n");
  expect(whole).toMatch(new RegExp(`^thread ${id} \\(\\w+\\): 2 requests, \\d+ in / \\d+ out tokens \\(2 estimated\\), \\$0\\.000000, [\\d.]+ s; tools: 1 call, 1 attempt`));
  expect(turn).toMatch(/^  turn turn_\w+: 2 requests, .*; tools: 1 call$/);
  const account = await weftCli(["usage", "--group-by", "model", "--json", "--url", weft.url]);
  expect(account.code, account.stderr).toBe(0);
  expect(JSON.parse(account.stdout)).toMatchObject({ groupBy: "model", groups: expect.arrayContaining([expect.objectContaining({ key: "scripted" })]) });
  const bad = await weftCli(["usage", "--from", "yesterday", "--url", weft.url]);
  expect(bad.code).toBe(2);
});

it("weft schedule, schedules and unschedule: made, listed, refused with its field, cancelled", async () => {
  const created = await weftCli(["thread", "new", "--url", weft.url]);
  const id = created.stdout.trim();
  const made = await weftCli(["schedule", id, "--cron", "0 9 * * 1-5", "--timezone", "Europe/Berlin", "--tool", "sum_range", "--input", '{"from":1,"to":2}', "--json", "--url", weft.url]);
  expect(made.code, made.stderr).toBe(0);
  const schedule = JSON.parse(made.stdout);
  expect(schedule).toMatchObject({ status: "active", schedule: { cron: "0 9 * * 1-5", timezone: "Europe/Berlin" } });
  const listed = await weftCli(["schedules", id, "--url", weft.url]);
  expect(listed.stdout.trim()).toMatch(new RegExp(`^${schedule.scheduleId} active cron "0 9 \\* \\* 1-5" Europe/Berlin -> tool sum_range \\(next .+Z\\)$`));
  const bad = await weftCli(["schedule", id, "--cron", "0 9 * * *", "--timezone", "Europe/Atlantis", "--tool", "sum_range", "--url", weft.url]);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain("invalid_schedule");
  const cancelled = await weftCli(["unschedule", id, schedule.scheduleId, "--url", weft.url]);
  expect(cancelled.code, cancelled.stderr).toBe(0);
  expect(cancelled.stdout).toContain(`${schedule.scheduleId} cancelled`);
});

it("weft answer: a client tool's call gets its result and the turn goes on; a second answer is refused; usage errors exit 2", async () => {
  const id = (await weftCli(["thread", "new", "--agent", "browser", "--url", weft.url])).stdout.trim();
  const script = JSON.stringify([{ toolCalls: [{ id: "pick", name: "pick_file", arguments: { prompt: "Your notes" } }] }, { text: "Read it." }]);
  const sent = await weftCli(["thread", "send", id, "read my notes", "--script", script, "--follow", "--url", weft.url]);
  expect(sent.code, sent.stderr).toBe(0);
  expect(sent.stdout).toContain("pick_file parked: waiting for the client's answer (a client tool) (call pick)");
  const listed = await weftCli(["calls", id, "--url", weft.url]);
  expect(listed.stdout).toContain(`pick pick_file parked {"prompt":"Your notes"}  (waiting for the client's answer (a client tool); npx weft answer ${id} pick --result <json>|--error <text>)`);

  for (const args of [[], ["--result", '{"name":"a"}', "--error", "no"], ["--result", "{oops"], ["--error", ""]]) {
    const usage = await weftCli(["answer", id, "pick", ...args, "--url", weft.url]);
    expect(usage.code, `${args.join(" ")}: ${usage.stderr}`).toBe(2);
    expect(usage.stderr).toMatch(/give exactly one of --result <json>, --error <text>|--result is not valid JSON|--error needs a text/);
  }

  const answered = await weftCli(["answer", id, "pick", "--result", '{"name":"notes.txt","bytes":12}', "--json", "--url", weft.url]);
  expect(answered.code, answered.stdout + answered.stderr).toBe(0);
  expect(JSON.parse(answered.stdout)).toMatchObject({ callId: "pick", status: "succeeded", result: { status: "success", result: JSON.stringify({ name: "notes.txt", bytes: 12 }) } });
  const tail = await weftCli(["thread", "tail", id, "--since", sent.stdout.match(/^ *(\d+) turn waits/m)![1]!, "--until-finished", "--json", "--url", weft.url]);
  expect(tail.stdout.trim().split("\n").map((l) => JSON.parse(l)).at(-1)).toMatchObject({ type: "turn_finished", data: { status: "completed" } });

  const again = await weftCli(["answer", id, "pick", "--error", "too late", "--json", "--url", weft.url]);
  expect(again.code).toBe(1);
  expect(JSON.parse(again.stdout).error.code).toBe("call_not_waiting");
});
