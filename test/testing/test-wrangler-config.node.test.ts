/**
 * `npm run test:agents` runs your tests "without credentials" (docs/testing.md: WEFT_AUTH = "none"
 * in the test config; "`npm run test:agents` needs none"). But testWranglerConfig passes
 * `.dev.vars` on minus WEFT_MODEL only, and any credential beats WEFT_AUTH = "none" (authConfigured
 * in src/http/auth.ts). A new user (h30i) who put WEFT_API_KEYS in .dev.vars to try README
 * "Authentication" under npm start saw every weft/testing test fail with 401 "missing bearer token".
 */
import { mkdtempSync, rmSync, writeFileSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { AUTH_SETTINGS as DROPPED, testWranglerConfig } from "../../scripts/lib/recorder.mjs";
import { AUTH_SETTINGS } from "../../src/config.js";

const root = mkdtempSync(join(tmpdir(), "weft-test-config-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

it("leaves the credentials of .dev.vars out of the test Worker's vars, as it leaves WEFT_MODEL out", () => {
  copyFileSync(join(import.meta.dirname, "../../wrangler.toml"), join(root, "wrangler.toml"));
  writeFileSync(
    join(root, ".dev.vars"),
    ['WEFT_MODEL=openai:gpt-4.1-mini', 'OPENAI_API_KEY=sk-x', 'WEFT_API_KEYS={"00":{"userId":"alice"}}', "WEFT_JWT_SECRET=0123456789abcdef0123456789abcdef", "WEFT_JWKS_URL=https://idp.example/jwks", 'WEFT_JWKS={"keys":[]}'].join("\n") + "\n",
  );
  const { vars } = testWranglerConfig(root);
  expect(vars).toMatchObject({ OPENAI_API_KEY: "sk-x" });
  for (const name of ["WEFT_MODEL", "WEFT_API_KEYS", "WEFT_JWT_SECRET", "WEFT_JWKS_URL", "WEFT_JWKS"]) expect(vars, name).not.toHaveProperty(name);
});

it("leaves out exactly the settings that configure credentials in the Worker", () => {
  expect(DROPPED).toEqual([...AUTH_SETTINGS]);
});
