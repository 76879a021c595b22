/**
 * The model line `npm start` prints: `WEFT_MODEL` from the env file wrangler dev reads (`.dev.vars`,
 * else `.env`), else wrangler.toml's `[vars]`, else the scripted model; and the OAuth values it
 * sets for development unless the env file does; and where it listens.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEV_MCP_OAUTH_KEY, devOAuthArgs, loopbackArgs, modelLine } from "../../scripts/lib/dev-vars.mjs";
import { ROOT } from "../sources.node.js";

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function project(files: Record<string, string>): string {
  dir = mkdtempSync(join(tmpdir(), "weft-dev-vars-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

it("names the scripted model when nothing sets WEFT_MODEL", () => {
  expect(modelLine(project({ "wrangler.toml": '[vars]\nWEFT_EXAMPLE_GREETING = "hi"\n' }))).toMatch(/^weft: model: scripted \(no WEFT_MODEL in \.dev\.vars\)/);
});

it("takes .dev.vars first, then .env (read only without .dev.vars), then wrangler.toml", () => {
  expect(modelLine(project({ ".dev.vars": 'OPENAI_API_KEY=sk-x\nWEFT_MODEL="openai:gpt-4.1-mini"\n', ".env": "WEFT_MODEL=anthropic:claude-sonnet-4-5\n" }))).toMatch(/^weft: model: openai:gpt-4\.1-mini \(WEFT_MODEL in \.dev\.vars\);/);
  rmSync(dir, { recursive: true, force: true });
  expect(modelLine(project({ ".env": "WEFT_MODEL=anthropic:claude-sonnet-4-5\n" }))).toMatch(/^weft: model: anthropic:claude-sonnet-4-5 \(WEFT_MODEL in \.env\);/);
  rmSync(dir, { recursive: true, force: true });
  expect(modelLine(project({ "wrangler.toml": '[vars]\nWEFT_MODEL = "openai-chat:gpt-4o"\n' }))).toMatch(/^weft: model: openai-chat:gpt-4o \(WEFT_MODEL in wrangler\.toml\);/);
});

it("never prints another value of the env file (a key stays on the laptop's disk only)", () => {
  const line = modelLine(project({ ".dev.vars": "OPENAI_API_KEY=sk-secret-dev-vars-1\nWEFT_MODEL=openai:gpt-4.1-mini\n" }));
  expect(line).not.toContain("sk-secret-dev-vars-1");
});

it("sets WEFT_PUBLIC_URL and a development OAuth key for wrangler dev, each unless the env file sets it", () => {
  expect(devOAuthArgs(project({}), "http://localhost:8787")).toEqual(["--var", "WEFT_PUBLIC_URL:http://localhost:8787", "--var", `WEFT_MCP_OAUTH_KEY:${DEV_MCP_OAUTH_KEY}`]);
  expect(DEV_MCP_OAUTH_KEY.length).toBeGreaterThanOrEqual(32);
  rmSync(dir, { recursive: true, force: true });
  expect(devOAuthArgs(project({ ".dev.vars": "WEFT_MCP_OAUTH_KEY=mine-0123456789-0123456789-0123456789\n" }), "http://localhost:9000")).toEqual(["--var", "WEFT_PUBLIC_URL:http://localhost:9000"]);
  rmSync(dir, { recursive: true, force: true });
  expect(devOAuthArgs(project({ ".dev.vars": "WEFT_PUBLIC_URL=https://weft.example\nWEFT_MCP_OAUTH_KEY=mine-0123456789-0123456789-0123456789\n" }), "http://localhost:8787")).toEqual([]);
});

describe("where npm start listens (review 21d: a peer on the network sending Host: localhost acted as dev)", () => {
  it("this machine only: localhost by default, a loopback --ip kept, any other refused", () => {
    expect(loopbackArgs(["--port", "9000"])).toEqual({ args: ["--port", "9000", "--ip", "localhost"] });
    expect(loopbackArgs(["--ip", "127.0.0.1"])).toEqual({ args: ["--ip", "127.0.0.1"] });
    expect(loopbackArgs(["--ip=::1"])).toEqual({ args: ["--ip=::1"] });
    for (const args of [["--ip", "0.0.0.0"], ["--ip=192.168.1.5"], ["--ip", "::"]]) expect(loopbackArgs(args)).toMatchObject({ refused: expect.stringContaining("listens on this machine only") });
  });

  it("npm start refuses an address others reach before it starts anything", () => {
    const run = spawnSync(process.execPath, ["scripts/start.mjs", "--ip", "0.0.0.0"], { cwd: ROOT, encoding: "utf8", timeout: 20_000 });
    expect([run.status, run.stderr]).toEqual([2, expect.stringContaining("--ip 0.0.0.0 is refused")]);
  });
});
