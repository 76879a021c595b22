import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// `npm run author-project`: weft's own checks in an author's project, full (every case of
// test/e2e/author-project.node.test.ts); npm test runs its short version.
export default defineConfig({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  resolve: { alias: { "@standardagents/spec": fileURLToPath(new URL("../../src/index.ts", import.meta.url)) } },
  test: {
    include: ["test/e2e/author-project.node.test.ts"],
    environment: "node",
    provide: { authorProjectScale: "full" },
    testTimeout: 300_000,
    hookTimeout: 120_000,
  },
});
