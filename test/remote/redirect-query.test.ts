/**
 * The redirect back of an OAuth mix-up whose attacker registered weft's redirect URI with a query
 * of its own (`?iss=<its issuer>`) at the honest authorization server: `GET /mcp-oauth/callback`
 * refuses it (a repeated `iss`, or an `iss` before `code`) and serves no page that would send the
 * honest code to the attacker's token endpoint. Users: `hdup-*`.
 */
import { describe, expect, it } from "vitest";
import { request, stubOf } from "../helpers.js";
import { as, signIn, threadOf, turn } from "./user-flow.js";

const stolen = async () => (await (await fetch("https://mixup.mcp.test/__stolen")).json()) as unknown[];
const ATTACKER = "https://mixup2as.mcp.test";

describe("a redirect back with an iss the attacker put in the redirect URI", () => {
  it.each([
    ["beside the honest server's own iss", (back: URL) => `?iss=${encodeURIComponent(ATTACKER)}&${back.searchParams}&iss=${encodeURIComponent("https://as.mcp.test")}`, "iss: given more than once"],
    ["as the only iss, before the code", (back: URL) => `?iss=${encodeURIComponent(ATTACKER)}&${back.searchParams}`, "iss: comes before code"],
  ])("%s is refused before any page or exchange", async (_name, shape, message) => {
    const u = `hdup-${crypto.randomUUID().slice(0, 6)}`;
    const before = (await stolen()).length;
    expect((await as(u, "POST", "/mcp-servers", { name: "evil", url: "https://mixup2.mcp.test/mcp", auth: { type: "oauth" } })).status).toBe(200);
    const id = await threadOf(u);
    const calls = await turn(u, id, [{ toolCalls: [{ id: "c", name: "evil__connect", arguments: {} }] }, { text: "waiting" }]);
    const hop = await fetch(/open (https:\/\/\S+)/.exec(calls.find((x) => x.callId === "c")!.parkReason ?? "")![1]!, { redirect: "manual" });
    const back = await signIn(`open ${hop.headers.get("location")!}`, `${u}-real`);
    back.searchParams.delete("iss");
    const page = await request(`${back.pathname}${shape(back)}`, {}, null);
    expect(page.status).toBe(400);
    const body = (await page.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("invalid_request");
    expect(body.error.message).toContain(message);
    expect((await stolen()).length).toBe(before);
    await as(u, "POST", `/threads/${id}/stop`, {});
    await stubOf(id).waitIdle();
  });

  it("an honest redirect, code then state then iss, is served its page", async () => {
    const res = await request(`/mcp-oauth/callback?code=abc&state=not-a-state&iss=${encodeURIComponent("https://as.mcp.test")}`, {}, null);
    // Past the query check: refused only for its state, which this Worker did not issue.
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("state: not a state this Worker issued");
  });
});
