import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// `npm run fuzz`: the full fuzz against a real `wrangler dev` (test/node/e2e/fuzz.test.ts); npm
// test runs its short version, and the in-workerd one (test/fuzz.test.ts).
export default defineConfig({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  resolve: { alias: { "@standardagents/spec": fileURLToPath(new URL("../../src/index.ts", import.meta.url)) } },
  test: {
    include: ["test/node/e2e/fuzz.test.ts"],
    environment: "node",
    provide: { fuzzScale: "full" },
    testTimeout: 3_600_000,
    hookTimeout: 120_000,
  },
});
