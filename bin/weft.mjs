#!/usr/bin/env node
/**
 * The `weft` command. The CLI is TypeScript (bin/cli/), run by Node's own type stripping (Node
 * 22.18+); on an older Node this re-runs itself on the Node 22 the project installs (the `node`
 * dev dependency, which wrangler needs anyway).
 * @module
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

if (!process.features.typescript) {
  const local = fileURLToPath(new URL("../node_modules/node/bin/node", import.meta.url));
  if (!existsSync(local) || process.env.WEFT_CLI_REEXEC) {
    console.error(`weft: needs Node 22.18 or newer (this is ${process.version}); run \`npm install\` in the project to get it`);
    process.exit(1);
  }
  const run = spawnSync(local, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: "inherit", env: { ...process.env, WEFT_CLI_REEXEC: "1" } });
  process.exit(run.status ?? 1);
}
const { main } = await import("./cli/main.ts");
await main(process.argv);
