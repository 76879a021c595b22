/**
 * Hostile review: the console was patched for log redaction (src/secrets/redact-logs.ts) when the
 * first thread registered its redactor. A tool module or a library that kept a console method at
 * import time (`const log = console.log.bind(console)` at top level, evaluated when the Worker's
 * bundle loads, before any thread exists) kept the unpatched method, and wrote a thread's secret to
 * the logs as given. The patch is now evaluated before any agent module (the generated registry
 * imports it first), so such a kept method writes through it.
 */
import { expect, it } from "vitest";
import { tapLogs } from "../../src/secrets/redact-logs.js";
import { REDACTED } from "../../src/secrets/redact.js";
import { json, request } from "../helpers.js";

const SECRET = "early-secret-7d41c9e2b5";

it("a secret logged through console methods a tool or its library kept at import time reaches the logs redacted", async () => {
  const created = await json("POST", "/threads", { env: { EARLY_SECRET: { value: SECRET, type: "secret" } } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const mark = `early-${crypto.randomUUID()}`;
  // What passes the patch reaches the logs; a line that bypasses it is never seen here.
  const lines: string[] = [];
  const untap = tapLogs((level, args) => void lines.push(`${level} ${args.map(String).join(" ")}`));
  try {
    const res = await request("/v1/tools/early_console", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ input: { mark }, sessionId: created.body.threadId }) });
    expect(res.status, await res.text()).toBe(200);
  } finally {
    untap();
  }
  const ours = lines.filter((l) => l.includes(mark));
  expect(ours).toEqual([`log ${mark} bound ${REDACTED}`, `error ${mark} kept ${REDACTED}`, `warn ${mark} library ${REDACTED}`]);
  expect(ours.join("\n")).not.toContain(SECRET);
});
