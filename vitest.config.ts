import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { hideInjectedCrashes } from "./scripts/lib/expected-noise.mjs";
import { createFakeProvider } from "./scripts/lib/fake-provider.mjs";

// Every outbound fetch of the test worker reaches a fake model provider (OpenAI Chat
// Completions, Responses, Anthropic Messages); tests script it through POST /__fake/script.
const fakeProvider = createFakeProvider();

// The crash tests abort threads on purpose; workerd's line for each is expected noise.
hideInjectedCrashes();

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./test/wrangler.toml" },
      miniflare: { outboundService: (request: Request) => fakeProvider.handle(request) },
    }),
  ],
  // The Standard Agents tools API's examples import from @standardagents/spec; weft's public entry answers for it.
  resolve: { alias: { "@standardagents/spec": fileURLToPath(new URL("./src/index.ts", import.meta.url)) } },
  // weft's own suites, over test/fixtures/; the author's tests and the smoke test of agents/ run
  // under vitest.agents.config.ts (`npm run test:agents`).
  test: { include: ["test/**/*.test.ts"], exclude: ["test/node/**", "node_modules/**", "test/agents.test.ts"], setupFiles: ["test/setup.ts"] },
});
