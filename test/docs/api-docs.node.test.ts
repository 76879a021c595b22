/**
 * The API reference builds from the TSDoc of weft's public entries (`weft`, `weft/client`,
 * `weft/testing`, `weft/react`; `npm run docs:api`, TypeDoc) without a single warning: no broken `{@link}`,
 * nothing referenced that is not exported. TypeDoc reads src/ alone (tsconfig.typedoc.json) and
 * leaves type errors to the typecheck suite (skipErrorChecking): over the whole project and
 * type-checking it again, this one file cost about 100 s of npm test.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

it("TypeDoc documents the four public entries (weft, weft/client, weft/testing, weft/react) with no warnings", async () => {
  const typedoc = path.join(ROOT, "node_modules", "typedoc", "bin", "typedoc");
  const run = await new Promise<{ code: number; out: string }>((resolve) =>
    execFile(process.execPath, [typedoc, "--emit", "none", "--treatWarningsAsErrors"], { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, out: `${stdout}${stderr}` }),
    ),
  );
  expect(run.code, run.out).toBe(0);
}, 300_000);
