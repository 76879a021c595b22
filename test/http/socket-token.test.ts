/**
 * A browser's token rides the WebSocket upgrade as a subprotocol, not in the URL: the upgrade
 * offers `weft` and `weft.bearer.<base64url>`, the answer selects `weft` and never echoes the token,
 * and nothing past the Worker (the thread's request, its rows, its sockets' attachments) holds it.
 * `?access_token=` stays as the fallback; a header beats it.
 */
import { env } from "cloudflare:workers";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.js";
import { socketProtocols } from "../../src/socket-token.js";
import { CALLER_HEADER } from "../../src/thread/api.js";
import { registry } from "../generated/registry.js";
import { API_KEYS, createThread, inThread, request, runTurn } from "../helpers.js";

const upgrade = (protocols?: string[]) => ({ headers: { Upgrade: "websocket", ...(protocols ? { "Sec-WebSocket-Protocol": protocols.join(", ") } : {}) } });

/** An HS256 token of "tester" expiring at `exp` (epoch seconds). */
function jwtUntil(exp: number): Promise<string> {
  return new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setIssuer("weft-tests").setAudience("weft-test").setSubject("tester").setExpirationTime(exp).sign(new TextEncoder().encode("weft-test-jwt-secret-not-for-production"));
}

/** Every header of `res`, and its status, as one string to search for a token. */
const everything = (res: Response) => `${res.status} ${[...res.headers].map(([k, v]) => `${k}: ${v}`).join("\n")}`;

describe("a WebSocket token in Sec-WebSocket-Protocol", () => {
  it("opens the socket, which gets the thread's events; the answer selects weft and holds no token", async () => {
    const id = await createThread();
    const token = await jwtUntil(Math.floor(Date.now() / 1000) + 300);
    const offered = socketProtocols(token);
    const res = await request(`/threads/${id}/ws`, upgrade(offered), null);
    expect(res.status).toBe(101);
    expect(res.headers.get("sec-websocket-protocol")).toBe("weft");
    for (const secret of [token, offered[1]!]) expect(everything(res)).not.toContain(secret);
    const ws = res.webSocket!;
    ws.accept();
    const seen: string[] = [];
    ws.addEventListener("message", (e) => void seen.push(e.data as string));
    await runTurn(id, "hello", [{ text: "over a socket opened by subprotocol" }]);
    await expect.poll(() => seen.some((m) => m.includes("over a socket opened by subprotocol")), { timeout: 30_000 }).toBe(true);
    for (const secret of [token, offered[1]!]) expect(seen.join("\n")).not.toContain(secret);

    // What the thread keeps: its rows, its stored keys, and each socket's tags and attachment (the token's exp, not the token).
    const kept = await inThread(id, async (i) => {
      const tables = i.ctx.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf%' ESCAPE '\\' AND name NOT LIKE 'sqlite%'").toArray();
      const rows = tables.map((t: { name: string }) => JSON.stringify(i.ctx.storage.sql.exec(`SELECT * FROM "${t.name}"`).toArray()));
      const stored = JSON.stringify([...(await i.ctx.storage.list()).entries()]);
      const sockets = i.ctx.getWebSockets().map((s: WebSocket) => JSON.stringify([i.ctx.getTags(s), s.deserializeAttachment()]));
      return { text: [...rows, stored, ...sockets].join("\n"), attachments: i.ctx.getWebSockets().map((s: WebSocket) => s.deserializeAttachment()) };
    });
    expect(kept.text).toContain("over a socket opened by subprotocol");
    for (const secret of [token, offered[1]!]) expect(kept.text).not.toContain(secret);
    // The socket's expiry is kept as with a query token: the server closes it at the token's exp.
    expect(kept.attachments.map((a: { expiresAt?: number }) => a.expiresAt)).toContain(Number(JSON.parse(atob(token.split(".")[1]!)).exp) * 1000);
    ws.close(1000, "done");
  });

  it("a bad token there gets the same 401 as a bad ?access_token=", async () => {
    const id = await createThread();
    const viaProtocol = await request(`/threads/${id}/ws`, upgrade(socketProtocols("not-a-key")), null);
    const viaQuery = await request(`/threads/${id}/ws?access_token=not-a-key`, upgrade(), null);
    expect([viaProtocol.status, viaProtocol.webSocket]).toEqual([401, null]);
    expect(await viaProtocol.json()).toEqual(await viaQuery.json());
    expect(viaProtocol.headers.get("sec-websocket-protocol")).toBeNull();
  });

  it("refuses one it cannot read, or two, with 401; and a token offered without weft with 400", async () => {
    const id = await createThread();
    const [, tester] = socketProtocols(API_KEYS.tester);
    const [, alice] = socketProtocols(API_KEYS.alice);
    for (const [offered, status] of [
      [["weft", "weft.bearer.not+base64"], 401],
      [["weft", "weft.bearer."], 401],
      [["weft", tester, alice], 401],
      [[tester], 400],
    ] as const) {
      const res = await request(`/threads/${id}/ws`, upgrade([...offered]), null);
      const body = await res.json<any>();
      expect([offered, res.status, body.error.details?.path]).toEqual([offered, status, ["Sec-WebSocket-Protocol"]]);
    }
  });

  it("beats ?access_token= (a header wins, as Authorization does); it counts only on an upgrade", async () => {
    const id = await createThread();
    const wins = await request(`/threads/${id}/ws?access_token=${API_KEYS.alice}`, upgrade(socketProtocols(API_KEYS.tester)), null);
    expect(wins.status).toBe(101); // as tester, the owner: alice would get 404
    wins.webSocket!.accept();
    wins.webSocket!.close();
    const loses = await request(`/threads/${id}/ws?access_token=${API_KEYS.tester}`, upgrade(socketProtocols("not-a-key")), null);
    expect(loses.status).toBe(401);
    const plain = await request("/account", { headers: { "Sec-WebSocket-Protocol": socketProtocols(API_KEYS.tester).join(", ") } }, null);
    expect(plain.status).toBe(401);
  });

  it("is refused in development mode like any credential", async () => {
    const vars = { ...(env as object), WEFT_JWT_SECRET: "", WEFT_API_KEYS: "", WEFT_JWKS: "", WEFT_JWKS_URL: "", WEFT_DEV_MODE: "on" } as never;
    const res = await createApp(registry).fetch(new Request("http://localhost:8787/threads/zzz/ws", upgrade(socketProtocols("garbage"))), vars);
    expect([res.status, (await res.json<any>()).error.code]).toEqual([401, "unauthenticated"]);
  });
});

describe("the upgrade the thread is sent", () => {
  /** The Worker with a thread namespace that records each request and accepts it. */
  async function forwarded(url: string, init: RequestInit): Promise<{ res: Response; sent: Request }> {
    const sent: Request[] = [];
    const THREAD = {
      idFromString: (s: string) => s,
      get: () => ({
        fetch: async (req: Request) => {
          sent.push(req);
          const pair = new WebSocketPair();
          pair[1].accept();
          return new Response(null, { status: 101, webSocket: pair[0] });
        },
      }),
    };
    const res = await createApp(registry).fetch(new Request(url, init), { ...(env as object), THREAD } as never);
    expect(sent).toHaveLength(1);
    return { res, sent: sent[0]! };
  }

  it.each([
    ["the subprotocol", "", socketProtocols(API_KEYS.tester), {}],
    ["?access_token=", `&access_token=${API_KEYS.tester}`, undefined, {}],
    ["Authorization", "", undefined, { authorization: `Bearer ${API_KEYS.tester}` }],
  ] as const)("carries the verified caller, never the token it came in (%s)", async (_how, query, protocols, headers) => {
    const { res, sent } = await forwarded(`http://weft.test/threads/t1/ws?since=0${query}`, { headers: { ...upgrade(protocols ? [...protocols] : undefined).headers, ...headers } });
    expect(res.status).toBe(101);
    expect(JSON.parse(sent.headers.get(CALLER_HEADER)!)).toMatchObject({ userId: "tester" });
    expect(new URL(sent.url).searchParams.get("since")).toBe("0");
    const all = `${sent.url}\n${[...sent.headers].map(([k, v]) => `${k}: ${v}`).join("\n")}`;
    expect(all).not.toContain(API_KEYS.tester);
    if (protocols) expect(all).not.toContain(protocols[1]);
    expect([sent.headers.get("authorization"), sent.headers.get("sec-websocket-protocol")]).toEqual([null, null]);
    expect(res.headers.get("sec-websocket-protocol")).toBe(protocols ? "weft" : null);
    res.webSocket!.accept();
    res.webSocket!.close();
  });
});
