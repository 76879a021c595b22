import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { forwardOutbound } from "./scripts/lib/outbound.mjs";
import { createRecorder, testWranglerConfig } from "./scripts/lib/recorder.mjs";
import { quietDependencySourcemaps } from "./scripts/lib/vite-logger.mjs";

// Your own tests (`npm run test:agents`): agents/**/*.test.ts and the smoke test of agents/, inside
// workerd, against the Worker `npm start` serves (wrangler.toml, the registry built from agents/).
// weft/testing drives it; recorded(...) threads reach the recorder below, outside workerd.
const root = fileURLToPath(new URL(".", import.meta.url));
const recorder = createRecorder({ root });
// wrangler.toml, read from a folder of its own: your .dev.vars (for npm start) is passed on
// without WEFT_MODEL, so a model set there does not take over the scripted threads (a thread
// names its model itself: recorded(...), live(...)).
const { configPath, vars } = testWranglerConfig(root);

export default defineConfig({
  plugins: [
    // Without Vite's warnings about dependencies' source maps (scripts/lib/vite-logger.mjs).
    quietDependencySourcemaps(),
    cloudflareTest({
      wrangler: { configPath },
      miniflare: {
        // Tests reach the Worker without credentials; only they reach it, so it need not say so.
        bindings: { ...vars, WEFT_AUTH: "none", WEFT_TEST_RUNNER: "on" },
        outboundService: (request: Request) => (new URL(request.url).host === "weft-recorder.test" ? recorder.handle(request) : forwardOutbound(request)),
      },
    }),
  ],
  resolve: {
    alias: {
      "@standardagents/spec": fileURLToPath(new URL("./src/index.ts", import.meta.url)),
      "weft/testing": fileURLToPath(new URL("./src/testing/index.ts", import.meta.url)),
    },
  },
  // One worker for every file: the Worker and its modules load once (the first request waits for
  // that: seconds, more on a loaded machine), not once per file. The timeout bounds a test that
  // hangs; it is no claim about speed (a machine loaded by a second npm test outlasted 60 s, and 180 s at load average 40).
  test: {
    include: ["agents/**/*.test.ts", "test/**/*.agents.test.ts"],
    testTimeout: 300_000,
    isolate: false,
    maxWorkers: 1,
    // Off so a failure is reported at its own line and column: the workers pool hands workerd a
    // cached module with its source map still inside the code, where vitest does not look, so the
    // frames stayed unmapped (a file with two imports was a line off). It saved ~1 s a run here.
    fsModuleCache: false,
  },
});
