import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// `npm run fuzz`: the full fuzz against a real `wrangler dev` (test/e2e/fuzz.node.test.ts); npm
// test runs its short version, and the in-workerd one (test/fuzz/workerd-short.test.ts).
export default defineConfig({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  resolve: { alias: { "@standardagents/spec": fileURLToPath(new URL("../../src/index.ts", import.meta.url)) } },
  test: {
    include: ["test/e2e/fuzz.node.test.ts"],
    environment: "node",
    provide: { fuzzScale: "full" },
    testTimeout: 3_600_000,
    hookTimeout: 120_000,
  },
});
