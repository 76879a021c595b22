/**
 * The model line `npm start` prints: `WEFT_MODEL` from the env file wrangler dev reads (`.dev.vars`,
 * else `.env`), else wrangler.toml's `[vars]`, else the scripted model; and the OAuth values it
 * sets for development unless the env file does.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { DEV_MCP_OAUTH_KEY, devOAuthArgs, modelLine } from "../../scripts/lib/dev-vars.mjs";

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
