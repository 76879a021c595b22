/**
 * scripts/build-registry.mjs over `schedules/`: a good schedule file lands in the registry; a bad
 * cron, an unknown zone, an unknown tool or agent, a tool input the tool's schema refuses, a tool only a
 * model can call (a client tool, a provider-executed one), an owner id reserved for weft (no one
 * could read, run or cancel it) each fail the build with a `file: rule` line.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CASES, build } from "../scripts/build-registry.node.js";


let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "weft-schedules-build-"));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe("schedule files are checked at build", () => {
  it("a good schedule is registered under its file name", async () => {
    const out = path.join(tmp, "good.ts");
    const run = await build("--agents", `${CASES}/base`, "--agents", `${CASES}/schedules-good`, "--out", out);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const text = await readFile(out, "utf8");
    expect(text).toContain("schedules: {\n    nightly: schedule_nightly,\n  },");
  });

  it("a bad cron, an unknown zone, a bad tool input, a tool only a model can call, an unknown tool, an unknown agent and a reserved owner: one file: rule line each, nothing written", async () => {
    const out = path.join(tmp, "bad.ts");
    const run = await build("--agents", `${CASES}/base`, "--agents", `${CASES}/schedules-bad`, "--out", out);
    expect(run.code).toBe(1);
    const dir = `${CASES}/schedules-bad/schedules`;
    expect(run.stderr.trimEnd().split("\n")).toEqual([
      expect.stringMatching(new RegExp(`^${dir}/bad_cron.ts: schedule "bad_cron": bad cron "0 25 \\* \\* \\*": .+`)),
      expect.stringMatching(new RegExp(`^${dir}/bad_input.ts: target\\.input: sides: .+`)),
      `${dir}/bad_zone.ts: schedule "bad_zone": unknown time zone "Europe/Berlim": use an IANA name such as "Europe/Berlin"`,
      expect.stringMatching(new RegExp(`^${dir}/client_tool.ts: target\\.tool: tool "pick_color" is a client tool`)),
      expect.stringMatching(new RegExp(`^${dir}/provider_tool.ts: target\\.tool: tool "search_web" is executed by the provider`)),
      `${dir}/reserved_owner.ts: schedule "reserved_owner": owner "weft:other" is reserved for weft (ids starting "weft:"); name a user, or leave owner out for weft:schedules`,
      `${dir}/unknown_agent.ts: target.agent: unknown agent "nobody" (agents: none)`,
      `${dir}/unknown_tool.ts: target.tool: unknown tool "get_curent_time" (looked in ${CASES}/base/tools/ or ${CASES}/schedules-bad/tools/)`,
      "registry: 8 problems; nothing written",
    ]);
  });
});
