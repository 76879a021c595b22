/**
 * A Worker open on purpose (`WEFT_AUTH = "none"`) says so once at start, as a deployment and
 * `wrangler dev` run it; inside the author's test runner (`WEFT_TEST_RUNNER=on`, set by
 * vitest.agents.config.ts), which alone reaches the Worker, that line is left out. A token setting
 * that verifies nothing is said at start too.
 */
import { expect, it, vi } from "vitest";
import { announceAuth } from "../../src/http/auth.js";

const LINE = 'weft: WEFT_AUTH = "none": every request is accepted as "anonymous", on purpose.';

const warned = (vars: Record<string, unknown>): unknown[][] => {
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  announceAuth({ THREAD: {} as DurableObjectNamespace, ...vars });
  const calls = [...warn.mock.calls];
  warn.mockRestore();
  return calls;
};

it("warns at start when a Worker runs with WEFT_AUTH none, whatever else is set", () => {
  expect(warned({ WEFT_AUTH: "none" })).toEqual([[LINE]]);
  expect(warned({ WEFT_AUTH: "none", WEFT_EXAMPLE_GREETING: "hello from weft", WEFT_TEST_RUNNER: "" })).toEqual([[LINE]]);
  expect(warned({ WEFT_AUTH: "none", WEFT_TEST_RUNNER: "yes" })).toEqual([[LINE]]);
});

it("leaves the line out in the author's test runner, and says nothing with credentials", () => {
  expect(warned({ WEFT_AUTH: "none", WEFT_TEST_RUNNER: "on" })).toEqual([]);
  expect(warned({ WEFT_AUTH: "none", WEFT_JWT_SECRET: "s".repeat(32) })).toEqual([]);
});

it("still shows the development-mode banner under npm start, its lines as lines (npm start's filter finds each)", () => {
  const banner = warned({ WEFT_DEV_MODE: "on" });
  expect(banner).toHaveLength(1);
  const lines = String(banner[0]?.[0]).split("\n");
  expect(lines[1]).toMatch(/^\*\*\* weft: DEVELOPMENT MODE: no authentication is configured/);
  expect(lines.filter((l) => l.startsWith("*** "))).toHaveLength(4);
  expect(String(banner[0]?.[0])).not.toContain("\\n");
});

it("warns at start of a token setting that verifies nothing, before any request is refused for it", () => {
  const short = warned({ WEFT_JWT_SECRET: "changeme", WEFT_JWT_AUDIENCE: "" });
  expect(short).toEqual([[expect.stringMatching(/^weft: WEFT_JWT_SECRET: shorter than 32 bytes; .* every token it would verify is refused \(500 invalid_config\) until it is fixed$/)]]);
  const keySet = warned({ WEFT_JWKS_URL: "https://issuer.example/jwks.json", WEFT_JWT_AUDIENCE: "" });
  expect(keySet).toEqual([[expect.stringMatching(/^weft: WEFT_JWT_AUDIENCE: unset; tokens verified with WEFT_JWKS_URL must name this deployment/)]]);
  // Sound settings, and API keys alone, say nothing.
  expect(warned({ WEFT_JWT_SECRET: "x".repeat(32), WEFT_JWKS_URL: "https://issuer.example/jwks.json", WEFT_JWT_AUDIENCE: "weft" })).toEqual([]);
  expect(warned({ WEFT_API_KEYS: "{}" })).toEqual([]);
  expect(warned({ WEFT_API_KEYS: JSON.stringify({ ["ab".repeat(32)]: { userId: "eve", roles: "sysadmin-readonly" } }) })).toEqual([
    ['weft: WEFT_API_KEYS: entry 1: roles: expected an array of strings (["admin"]): every API key is refused (500 invalid_config) until it is fixed'],
  ]);
});
