/**
 * What weft/client's WebSocket upgrade looks like on the wire, with Node's own WebSocket against a
 * local server that records it: the token goes in `Sec-WebSocket-Protocol` beside `weft`, encoded
 * so any token is a valid subprotocol, and never in the URL (request logs and proxies keep URLs).
 * The server answering `weft` is what lets the connection open.
 */
import { createHash } from "node:crypto";
import { type IncomingHttpHeaders, createServer } from "node:http";
import type { Socket } from "node:net";
import { expect, it } from "vitest";
import { type EventFrame, WeftClient } from "weft/client";
import { socketProtocols } from "../../src/socket-token.js";

const WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

it("weft/client offers its token as a subprotocol, not in the URL, and opens when the server selects weft", async () => {
  const token = "k/1 ä,=;"; // characters no subprotocol may hold as they are
  const upgrades: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
  const sockets: Socket[] = [];
  // The thread as the client first asks for it over HTTP, then its upgrade: 101 selecting weft, and one frame.
  const server = createServer((_req, res) => void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ threadId: "t1", status: "idle", createdAt: 1000, lastSeq: 1 })));
  server.on("upgrade", (req, socket: Socket) => {
    sockets.push(socket);
    upgrades.push({ url: req.url!, headers: req.headers });
    const accept = createHash("sha1").update(`${req.headers["sec-websocket-key"]}${WS_GUID}`).digest("base64");
    socket.write(["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade", `Sec-WebSocket-Accept: ${accept}`, "Sec-WebSocket-Protocol: weft", "", ""].join("\r\n"));
    const payload = Buffer.from(JSON.stringify({ seq: 1, type: "turn_started", data: {}, at: 1 }));
    socket.write(Buffer.concat([Buffer.from([0x81, payload.length]), payload]));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  try {
    const frames: EventFrame[] = [];
    const sub = new WeftClient({ url: `http://127.0.0.1:${port}`, token }).subscribe("t1", { onEvent: (f) => void frames.push(f) });
    await expect.poll(() => upgrades.length, { timeout: 10_000 }).toBeGreaterThan(0);
    const [first] = upgrades;
    expect(first!.url).toMatch(/^\/threads\/t1\/ws\?/);
    expect(new URL(first!.url, "http://x").searchParams.has("access_token")).toBe(false);
    expect(decodeURIComponent(first!.url)).not.toContain(token);
    expect(first!.headers["sec-websocket-protocol"]).toBe(socketProtocols(token).join(", "));
    await expect.poll(() => frames.length, { timeout: 10_000 }).toBe(1);
    sub.close();
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});
