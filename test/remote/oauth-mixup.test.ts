/**
 * The OAuth mix-up attack (RFC 9700 4.4) through a server a user adds: its authorization server
 * forwards the user's browser to an honest one (weft's state, PKCE challenge and redirect URI, its
 * own client there), hoping the honest code and weft's PKCE verifier reach its token endpoint.
 * weft requires of a user-added server's authorization server that it advertise and send `iss`
 * (RFC 9207): one that does not is refused before any authorization starts; one that claims to
 * gets the honest server's `iss` back and the code is never exchanged. Users: `mixup-*`.
 */
import { describe, expect, it } from "vitest";
import { stubOf } from "../helpers.js";
import { as, complete, signIn, threadOf, turn } from "./user-flow.js";

const stolen = async () => (await (await fetch("https://mixup.mcp.test/__stolen")).json()) as unknown[];

describe("OAuth mix-up through a server a user adds", () => {
  it("refuses to start an authorization at a server that does not send iss, and says why", async () => {
    const u = `mixup-a-${crypto.randomUUID().slice(0, 6)}`;
    expect((await as(u, "POST", "/mcp-servers", { name: "evil", url: "https://mixup.mcp.test/mcp", auth: { type: "oauth" } })).status).toBe(200);
    const id = await threadOf(u);
    const calls = await turn(u, id, [{ toolCalls: [{ id: "c", name: "evil__connect", arguments: {} }] }, { text: "waiting" }]);
    const c = calls.find((x) => x.callId === "c")!;
    expect(c.status).not.toBe("parked");
    expect(c.result?.error).toMatch(/^mcp_refused: mcp server "evil": its authorization server https:\/\/mixupas\.mcp\.test does not advertise authorization_response_iss_parameter_supported \(RFC 9207\)/);
    await as(u, "POST", `/threads/${id}/stop`, {});
  });

  it("never sends a code whose iss is another authorization server to the one asked", async () => {
    const u = `mixup-b-${crypto.randomUUID().slice(0, 6)}`;
    const before = (await stolen()).length;
    expect((await as(u, "POST", "/mcp-servers", { name: "evil", url: "https://mixup2.mcp.test/mcp", auth: { type: "oauth" } })).status).toBe(200);
    const id = await threadOf(u);
    const calls = await turn(u, id, [{ toolCalls: [{ id: "c", name: "evil__connect", arguments: {} }] }, { text: "waiting" }]);
    const park = calls.find((x) => x.callId === "c")!.parkReason;
    // The attacker's server forwards the browser to the honest one, which signs the user in and answers its own iss.
    const hop = await fetch(/open (https:\/\/\S+)/.exec(park ?? "")![1]!, { redirect: "manual" });
    const honest = new URL(hop.headers.get("location")!);
    expect(honest.origin).toBe("https://as.mcp.test");
    const back = await signIn(`open ${honest.href}`, `${u}-real`);
    expect(back.searchParams.get("iss")).toBe("https://as.mcp.test");
    const done = await complete(u, back);
    expect(done.status).toBe(400);
    expect(done.body.error).toMatchObject({ code: "invalid_request", details: { path: ["iss"] } });
    // Without iss at all (stripped on the way), refused the same.
    const stripped = new URL(back);
    stripped.searchParams.delete("iss");
    expect((await complete(u, stripped)).status).toBe(400);
    expect((await stolen()).length).toBe(before);
    await as(u, "POST", `/threads/${id}/stop`, {});
    await stubOf(id).waitIdle();
  });
});
