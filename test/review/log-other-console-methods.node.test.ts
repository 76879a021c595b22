/**
 * Hostile review: the console patch (src/secrets/redact-logs.ts) redacted `console.log`, `info`,
 * `warn`, `error` and `debug` only. A tool that wrote a secret with `console.trace` (which workerd
 * prints as it prints `console.log`: seen in this repository's workerd runs), `console.dir`,
 * `console.table`, `console.assert`, `console.group` or `console.timeLog` had it reach the console
 * as written.
 */
import { afterAll, expect, it, vi } from "vitest";
import { redactLogs } from "../../src/secrets/redact-logs.js";
import { REDACTED } from "../../src/secrets/redact.js";
import { ThreadSecrets } from "../../src/secrets/thread-secrets.js";
import type { UserEnv } from "../../src/secrets/user-env.js";

const SECRET = "acct-secret-4b7e19c2d8";
/**
 * What the runtime's console gets: spies installed before the imports, as the console is patched
 * when src/secrets/redact-logs.ts loads, so the patch wraps them (spies installed after it would
 * replace the patch).
 */
const { METHODS, got } = vi.hoisted(() => {
  const METHODS = ["trace", "dir", "table", "assert", "group", "groupCollapsed", "timeLog"] as const;
  const got: Record<string, unknown[]> = {};
  for (const m of METHODS) vi.spyOn(console, m).mockImplementation((...args: unknown[]) => void (got[m] = args));
  return { METHODS, got };
});
/** Held for the file's life, as a live Durable Object holds its ThreadSecrets. */
const threads: ThreadSecrets[] = [];
afterAll(() => void (threads.length = 0));

it("a secret written with console.trace, dir, table, assert, group, groupCollapsed or timeLog reaches the console redacted", () => {
  const userEnv = { version: 1, secrets: () => [{ name: "KEY", value: SECRET }] } as unknown as UserEnv;
  const t = new ThreadSecrets({ env: { version: 1, all: () => [], received: () => [] } }, {}, userEnv, () => ({ agent: undefined, prompts: {} }), () => true);
  t.redactor();
  redactLogs(t);
  threads.push(t);
  console.trace(`trace ${SECRET}`);
  console.dir({ key: SECRET });
  console.table([{ key: SECRET }]);
  console.assert(false, `assert ${SECRET}`);
  console.group(`group ${SECRET}`);
  console.groupCollapsed(`collapsed ${SECRET}`);
  console.timeLog("t", `timeLog ${SECRET}`);
  for (const m of METHODS) {
    expect(got[m], m).toBeDefined();
    expect(JSON.stringify(got[m]), m).not.toContain(SECRET);
    expect(JSON.stringify(got[m]), m).toContain(REDACTED);
  }
});
