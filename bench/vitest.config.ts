import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { hideInjectedCrashes } from "../scripts/lib/expected-noise.mjs";

// Benchmarks run inside workerd like the tests, but print numbers instead of asserting timings.
// The crash tests abort threads on purpose; workerd's line for each is expected noise.
hideInjectedCrashes();

export default defineConfig({
  plugins: [cloudflareTest({ wrangler: { configPath: fileURLToPath(new URL("../test/wrangler.toml", import.meta.url)) } })],
  resolve: { alias: { "@standardagents/spec": fileURLToPath(new URL("../src/index.ts", import.meta.url)) } },
  test: { root: fileURLToPath(new URL("..", import.meta.url)), include: ["bench/**/*.bench.ts"], testTimeout: 600_000 },
});
