import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Benchmarks run inside workerd like the tests, but print numbers instead of asserting timings.
export default defineConfig({
  plugins: [cloudflareTest({ wrangler: { configPath: fileURLToPath(new URL("../test/wrangler.toml", import.meta.url)) } })],
  resolve: { alias: { "@standardagents/spec": fileURLToPath(new URL("../src/index.ts", import.meta.url)) } },
  test: { root: fileURLToPath(new URL("..", import.meta.url)), include: ["bench/**/*.bench.ts"], testTimeout: 600_000 },
});
