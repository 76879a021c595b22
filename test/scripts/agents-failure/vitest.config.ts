// The author's test config (vitest.agents.config.ts) over one file that fails on purpose, for
// test/scripts/agents-run-output.node.test.ts.
import { fileURLToPath } from "node:url";
import agents from "../../../vitest.agents.config.ts";

export default {
  ...agents,
  root: fileURLToPath(new URL("../../..", import.meta.url)),
  test: { ...agents.test, include: ["test/scripts/agents-failure/lines.fixture.ts"] },
};
