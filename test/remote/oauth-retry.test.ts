/**
 * A completion whose code exchange fails leaves the authorization open: the authorization server
 * briefly down (503) answers 502 `mcp_unreachable` and the same completion succeeds after; a code it
 * refuses answers 400 `invalid_request` (path `code`, never 401, which would say weft's own
 * credential is bad) and the right code still completes it. A completed authorization is used
 * up. Users: `retry-*`. Declared server: test/fixtures/mcp/oauthed.ts.
 */
import { describe, expect, it } from "vitest";
import { stubOf } from "../helpers.js";
import { as, callsOf, complete, signIn, threadOf, turn, until } from "./user-flow.js";

describe("a failed code exchange", () => {
  it("leaves the authorization open for the same link, and answers a clear 4xx or 5xx", async () => {
    const u = `retry-${crypto.randomUUID().slice(0, 6)}`;
    const id = await threadOf(u, "remote_oauth");
    const calls = await turn(u, id, [{ toolCalls: [{ id: "c", name: "oauthed__connect", arguments: {} }] }, { text: "waiting" }]);
    const back = await signIn(calls.find((c) => c.callId === "c")!.parkReason, `${u}-there`);

    const refused = await complete(u, back, "not-the-code");
    expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([400, "invalid_request", expect.objectContaining({ path: ["code"], oauthError: "invalid_grant" })]);

    await fetch(`https://as.mcp.test/__oauth/fail-code?code=${encodeURIComponent(back.searchParams.get("code")!)}`);
    const down = await complete(u, back);
    expect([down.status, down.body.error.code]).toEqual([502, "mcp_unreachable"]);

    const done = await complete(u, back);
    expect(done.status).toBe(200);
    await until(async () => (await callsOf(u, id)).find((c) => c.callId === "c")!.status === "succeeded", "the parked connect to go on");
    await stubOf(id).waitIdle();
    // Used up once it succeeded.
    const again = await complete(u, back);
    expect([again.status, again.body.error.details.path]).toEqual([400, ["state"]]);
    await as(u, "POST", `/threads/${id}/stop`, {});
  });
});
