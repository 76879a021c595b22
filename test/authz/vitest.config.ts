import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// `npm run authz` runs inside workerd against the test worker, like the tests.
export default defineConfig({
  plugins: [cloudflareTest({ wrangler: { configPath: fileURLToPath(new URL("../wrangler.toml", import.meta.url)) } })],
  resolve: { alias: { "@standardagents/spec": fileURLToPath(new URL("../../src/index.ts", import.meta.url)) } },
  test: { root: fileURLToPath(new URL("../..", import.meta.url)), include: ["test/authz/**/*.authz.ts"], testTimeout: 300_000 },
});
