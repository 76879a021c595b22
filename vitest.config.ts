import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [cloudflareTest({ wrangler: { configPath: "./test/wrangler.toml" } })],
  test: { include: ["test/**/*.test.ts"], exclude: ["test/node/**", "node_modules/**"] },
});
