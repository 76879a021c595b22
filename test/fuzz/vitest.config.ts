import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// `npm run fuzz`: the fuzz suite at full scale inside workerd (npm test runs its short version).
export default defineConfig({
  plugins: [cloudflareTest({ wrangler: { configPath: fileURLToPath(new URL("../wrangler.toml", import.meta.url)) } })],
  resolve: { alias: { "@standardagents/spec": fileURLToPath(new URL("../../src/index.ts", import.meta.url)) } },
  test: {
    root: fileURLToPath(new URL("../..", import.meta.url)),
    include: ["test/fuzz.test.ts"],
    provide: { fuzzScale: "full" },
    testTimeout: 3_600_000,
  },
});
