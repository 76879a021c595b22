import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { createFakeProvider } from "../../scripts/lib/fake-provider.mjs";

// The secrets section chooses provider endpoints and reads what went out: every outbound fetch
// reaches a fake provider that keeps each request (as in the tests' vitest.config.ts).
const fakeProvider = createFakeProvider();

// `npm run authz` runs inside workerd against the test worker, like the tests.
export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: fileURLToPath(new URL("../wrangler.toml", import.meta.url)) },
      miniflare: { outboundService: (request: Request) => fakeProvider.handle(request) },
    }),
  ],
  resolve: { alias: { "@standardagents/spec": fileURLToPath(new URL("../../src/index.ts", import.meta.url)) } },
  test: { root: fileURLToPath(new URL("../..", import.meta.url)), include: ["test/authz/**/*.authz.ts"], testTimeout: 300_000 },
});
