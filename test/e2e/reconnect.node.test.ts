/**
 * A browser-style client (partysocket's reconnecting WebSocket) whose connection really breaks:
 * it talks to weft through a TCP proxy that the test cuts mid-stream. Each reconnect asks for
 * `?since=<last seq seen>`, and the frames it collects must be exactly 1..lastSeq.
 */
import ReconnectingWebSocket from "partysocket/ws";
import { afterAll, beforeAll, expect, it } from "vitest";
import { busyScript, call, createThread, range1, startProxy, sharedWeft, waitIdle, type DevServer, type Frame, type Proxy } from "./support.js";

let weft: DevServer;
let proxy: Proxy;

beforeAll(async () => {
  weft = await sharedWeft("dev");
  proxy = await startProxy(weft.port);
});
afterAll(async () => {
  await proxy?.close();
  await weft?.stop();
});

it("partysocket resumes from its last seq after each drop: no gap, no duplicate", async () => {
  const id = await createThread(weft.url);
  const frames: Frame[] = [];
  const opens: string[] = [];
  const lastSeq = () => frames.at(-1)?.seq ?? 0;
  const cutAt = new Set([6, 40, 70]); // seqs after which the network drops
  let cuts = 0;

  const ws = new ReconnectingWebSocket(
    () => {
      const url = `${proxy.url.replace(/^http/, "ws")}/threads/${id}/ws?since=${lastSeq()}`;
      opens.push(url);
      return url;
    },
    undefined,
    { minReconnectionDelay: 20, maxReconnectionDelay: 100, connectionTimeout: 4000, maxRetries: 50 },
  );
  let settle: () => void = () => {};
  const done = new Promise<void>((resolve) => (settle = resolve));
  let target = Number.POSITIVE_INFINITY;
  ws.addEventListener("message", (event) => {
    const frame = JSON.parse(String(event.data)) as Frame;
    frames.push(frame);
    if (cutAt.has(frame.seq)) {
      cutAt.delete(frame.seq);
      cuts += proxy.cut();
    }
    if (lastSeq() >= target) settle();
  });
  await new Promise<void>((resolve) => ws.addEventListener("open", () => resolve(), { once: true }));

  const posted = await call(weft.url, "POST", `/threads/${id}/messages`, { content: "go", script: busyScript(8, "party") });
  expect(posted.status).toBe(202);
  const info = await waitIdle(weft.url, id);
  target = info.lastSeq;
  if (lastSeq() >= target) settle();
  await Promise.race([done, new Promise((_, reject) => setTimeout(() => reject(new Error(`stuck at seq ${lastSeq()} of ${target}`)), 15_000))]);
  ws.close();

  expect(cuts).toBe(3);
  expect(opens.length).toBeGreaterThanOrEqual(4);
  expect(opens[0]).toMatch(/\?since=0$/);
  expect(frames.map((f) => f.seq)).toEqual(range1(info.lastSeq));
  expect(frames.at(-1)!.type).toBe("turn_finished");
});
