import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [cloudflareTest({ wrangler: { configPath: "./test/wrangler.toml" } })],
  // The Standard Agents tools API's examples import from @standardagents/spec; weft's public entry answers for it.
  resolve: { alias: { "@standardagents/spec": fileURLToPath(new URL("./src/index.ts", import.meta.url)) } },
  test: { include: ["test/**/*.test.ts", "agents/**/*.test.ts"], exclude: ["test/node/**", "node_modules/**"] },
});
