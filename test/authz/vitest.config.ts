import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { createFakeProvider } from "../../scripts/lib/fake-provider.mjs";
import { MODEL_IDLE_MS, MODEL_STEP_MS } from "../../src/run/step-deadline.js";

// The secrets section chooses provider endpoints and reads what went out: every outbound fetch
// reaches a fake provider that keeps each request (as in the tests' vitest.config.ts).
const fakeProvider = createFakeProvider();

// `npm run authz` runs inside workerd against the test worker, like the tests.
export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: fileURLToPath(new URL("../wrangler.toml", import.meta.url)) },
      // The model step deadlines at their defaults (the tests of those deadlines run with 1 s and
      // 3 s): a step the loaded machine slowed past a short deadline would be retried, and the
      // secrets section would count that retry as a difference between an attack and its control.
      miniflare: {
        outboundService: (request: Request) => fakeProvider.handle(request),
        bindings: { WEFT_MODEL_IDLE_MS: String(MODEL_IDLE_MS), WEFT_MODEL_STEP_MS: String(MODEL_STEP_MS) },
      },
    }),
  ],
  resolve: { alias: { "@standardagents/spec": fileURLToPath(new URL("../../src/index.ts", import.meta.url)) } },
  test: { root: fileURLToPath(new URL("../..", import.meta.url)), include: ["test/authz/**/*.authz.ts"], testTimeout: 300_000 },
});
