/**
 * The author's test run drops Vite's warning about a dependency's source map that leaves its
 * sources out, and passes every other message (scripts/lib/vite-logger.mjs).
 */
import { expect, it } from "vitest";
import { quietDependencySourcemaps } from "../../scripts/lib/vite-logger.mjs";

it("wraps the logger Vitest set, dropping only a dependency's missing-sources warning", () => {
  const seen: string[] = [];
  const config: { customLogger?: { warnOnce: (m: string) => void; info: (m: string) => void } } = {
    customLogger: { warnOnce: (m) => seen.push(m), info: (m) => seen.push(`info ${m}`) },
  };
  const hook = quietDependencySourcemaps().config as { handler: (c: typeof config) => void };
  hook.handler(config);
  const logger = config.customLogger!;
  logger.warnOnce('Sourcemap for "/p/node_modules/@modelcontextprotocol/sdk/dist/esm/types.js" points to missing source files');
  logger.warnOnce('Sourcemap for "/p/agents/tools/mine.ts" points to missing source files');
  logger.warnOnce("something else");
  logger.info("kept");
  expect(seen).toEqual(['Sourcemap for "/p/agents/tools/mine.ts" points to missing source files', "something else", "info kept"]);
});
