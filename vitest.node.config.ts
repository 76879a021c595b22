import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Node-side suites (build scripts, the bfcl harness, end-to-end runs): plain Node, no workerd;
// every test/**/*.node.test.ts (test/README.md).
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  resolve: { alias: { "@standardagents/spec": fileURLToPath(new URL("./src/index.ts", import.meta.url)) } },
  // These suites spawn processes (the build script, wrangler dev); give them time. The timeouts
  // bound a test that hangs and are no claim about speed: generous for a machine loaded by a second
  // npm test. End-to-end files that need only a running weft over the fixtures share one per
  // configuration (shared-weft.ts).
  test: {
    include: ["test/**/*.node.test.ts"],
    environment: "node",
    testTimeout: 300_000,
    // Two files side by side (vitest's default on 2 cores is one): the end-to-end files mostly wait
    // on wrangler dev starts, child processes and live servers.
    maxWorkers: 2,
    hookTimeout: 300_000,
    // expect.poll's default of 1 s is a claim about speed that a loaded machine breaks (a Chromium
    // page waiting for its thread's events); 30 s only bounds a poll that never succeeds.
    expect: { poll: { timeout: 30_000 } },
    globalSetup: ["test/e2e/shared-weft.ts"],
  },
});
