import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { hideInjectedCrashes } from "../../scripts/lib/expected-noise.mjs";
import { createFakeProvider } from "../../scripts/lib/fake-provider.mjs";

// `npm run budget-race`: the race of test/usage/race.ts at full size, inside workerd, against the
// fake provider (as the suite's vitest.config.ts wires it). Threads are crashed on purpose.
const fakeProvider = createFakeProvider();
hideInjectedCrashes();

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: fileURLToPath(new URL("../wrangler.toml", import.meta.url)) },
      miniflare: { outboundService: (request: Request) => fakeProvider.handle(request) },
    }),
  ],
  resolve: { alias: { "@standardagents/spec": fileURLToPath(new URL("../../src/index.ts", import.meta.url)) } },
  test: { root: fileURLToPath(new URL("../..", import.meta.url)), include: ["test/usage/budget-race.race.ts"], setupFiles: ["test/setup.ts"], testTimeout: 600_000 },
});
