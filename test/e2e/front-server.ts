/**
 * A local server in front of `wrangler dev` for browser tests: it serves the test's own pages
 * and scripts, and passes every other request, WebSocket upgrades included, through to weft. The
 * page and weft then share one origin (as an app served beside weft has it, so no CORS), and the
 * test can cut the WebSockets from the network's side and refuse new ones for a while.
 * @module
 */
import { createServer, request } from "node:http";
import { connect, type Socket } from "node:net";

/** A running front server. */
export interface FrontServer {
  /** Its address, `http://127.0.0.1:<port>`. */
  url: string;
  /** The path of every WebSocket upgrade passed through, in order. */
  readonly upgrades: string[];
  /** While true, WebSocket upgrades are refused (the socket is destroyed, as a network down). */
  refuseUpgrades: boolean;
  /** Cuts the open WebSockets (of one thread, or all) with no close frame; answers their paths. */
  cutSockets(threadId?: string): string[];
  /** Cuts every WebSocket and stops listening. */
  close(): Promise<void>;
}

/**
 * Starts a front server for the weft at `weftUrl`; `pages` answers a path (query left on) with
 * `[content type, body]`, or undefined to pass the request through.
 */
export async function startFront(weftUrl: string, pages: (path: string) => [string, string] | undefined): Promise<FrontServer> {
  const target = new URL(weftUrl);
  const tunnels = new Set<{ path: string; sockets: [Socket, Socket] }>();
  const server = createServer((req, res) => {
    const page = pages(req.url ?? "/");
    if (page) return void res.writeHead(200, { "content-type": page[0] }).end(page[1]);
    const upstream = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  const front: FrontServer = {
    url: "",
    upgrades: [],
    refuseUpgrades: false,
    cutSockets(threadId) {
      const cut = [...tunnels].filter((t) => !threadId || t.path.startsWith(`/threads/${threadId}/ws`));
      for (const { sockets } of cut) for (const s of sockets) s.destroy();
      return cut.map((t) => t.path);
    },
    async close() {
      front.cutSockets();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  server.on("upgrade", (req, socket: Socket, head: Buffer) => {
    if (front.refuseUpgrades) return void socket.destroy();
    front.upgrades.push(req.url ?? "");
    // The upgrade request as it came, written to weft; from then on bytes flow both ways untouched.
    const upstream = connect(Number(target.port), target.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      socket.pipe(upstream).pipe(socket);
    });
    const tunnel = { path: req.url ?? "", sockets: [socket, upstream] as [Socket, Socket] };
    tunnels.add(tunnel);
    const end = () => {
      tunnels.delete(tunnel);
      socket.destroy();
      upstream.destroy();
    };
    socket.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  front.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return front;
}
