import { describe, expect, it } from "vitest";
import { createThread, json, request, runTurn, subscribe } from "../helpers.js";

/** Everything a client can read of a thread, to compare before and after refused requests. */
async function snapshot(id: string) {
  const [info, messages, calls, files] = await Promise.all([
    json("GET", `/threads/${id}`),
    json("GET", `/threads/${id}/messages?limit=1000&includeSilent=true`),
    json("GET", `/threads/${id}/calls`),
    json("GET", `/threads/${id}/files`),
  ]);
  return { info: info.body, messages: messages.body, calls: calls.body, files: files.body };
}

const raw = (path: string, body: string, type = "application/json") =>
  request(path, { method: "POST", headers: { "content-type": type }, body });

describe("oversized and malformed input", () => {
  it("gets its 4xx with a code, and leaves the thread exactly as it was", async () => {
    const id = await createThread({ agent: "guarantees" });
    await runTurn(id, "go", [{ toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 500 } }] }]);
    const before = await snapshot(id);
    const mib = 1024 * 1024;
    const cases: Array<[string, () => Promise<Response>, number, string]> = [
      ["text/plain body", () => raw(`/threads/${id}/messages`, '{"content":"x"}', "text/plain"), 415, "unsupported_media_type"],
      ["form body", () => raw(`/threads/${id}/calls/pay/approve`, "a=1", "application/x-www-form-urlencoded"), 415, "unsupported_media_type"],
      ["malformed JSON", () => raw(`/threads/${id}/messages`, '{"content": '), 400, "invalid_json"],
      ["wrong shape", () => raw(`/threads/${id}/messages`, '{"content": 5}'), 400, "invalid_request"],
      ["bad script step", () => raw(`/threads/${id}/messages`, JSON.stringify({ content: "x", script: [{ toolCalls: [{}] }] })), 400, "invalid_request"],
      ["message over its limit", () => raw(`/threads/${id}/messages`, JSON.stringify({ content: "x".repeat(mib + 1) })), 413, "payload_too_large"],
      ["body over its limit", () => raw(`/threads/${id}/messages`, JSON.stringify({ content: "x", pad: "y".repeat(8 * mib) })), 413, "payload_too_large"],
      ["tool input over its limit", () => raw("/v1/tools/needs_ok", JSON.stringify({ sessionId: id, input: { label: "z".repeat(mib) } })), 413, "payload_too_large"],
      ["invalid tool input", () => raw("/v1/tools/needs_ok", JSON.stringify({ sessionId: id, input: { amount: "lots" } })), 400, "invalid_tool_input"],
      ["bad settlement", () => raw(`/threads/${id}/calls/pay/settle`, '{"outcome":"maybe"}'), 400, "invalid_request"],
      ["bad query", () => request(`/threads/${id}/messages?limit=-1`), 400, "invalid_request"],
      ["bad since", () => request(`/threads/${id}/ws?since=99999`, { headers: { Upgrade: "websocket" } }), 400, "invalid_request"],
    ];
    for (const [what, send, status, code] of cases) {
      const res = await send();
      const body = await res.json<any>();
      expect([what, res.status, body.error.code]).toEqual([what, status, code]);
      if (status === 413) expect(body.error.message).toMatch(/limit/);
    }
    expect(await snapshot(id)).toEqual(before);
  });

  it("stores no attachment of a result over the per-call limit, and says why", async () => {
    const id = await createThread();
    const res = await json("POST", "/v1/tools/many_attachments", { input: { count: 17 }, sessionId: id });
    expect(res.body.result).toMatch(/returned 17 attachments; the limit is 16 per call/);
    expect((await json("GET", `/threads/${id}/files`)).body.files).toEqual([]);
    await json("POST", "/v1/tools/many_attachments", { input: { count: 2 }, sessionId: id });
    expect((await json("GET", `/threads/${id}/files`)).body.files).toHaveLength(2);
  });
});

describe("WebSocket limits", () => {
  it("closes a flooding client with 1008 and an oversized frame with 1009; the thread and other clients go on", async () => {
    const id = await createThread();
    const quiet = await subscribe(id);
    const closes: number[] = [];
    const open = async () => {
      const res = await request(`/threads/${id}/ws`, { headers: { Upgrade: "websocket" } });
      const ws = res.webSocket!;
      ws.accept();
      const closed = new Promise<number>((resolve) => ws.addEventListener("close", (e) => resolve(e.code)));
      return { ws, closed };
    };
    const flooder = await open();
    for (let i = 0; i < 100; i++) {
      try {
        flooder.ws.send(`hello ${i}`);
      } catch {
        break; // closed already
      }
    }
    closes.push(await flooder.closed);
    const big = await open();
    big.ws.send("x".repeat(70 * 1024));
    closes.push(await big.closed);
    expect(closes).toEqual([1008, 1009]);
    await runTurn(id, "still there?", [{ text: "yes" }]);
    await quiet.until((frames) => frames.some((f) => f.type === "message_created" && (f.data as any).message.content === "yes"));
    quiet.close();
  });
});

describe("thread files", () => {
  it("are listed, fetched with their type and a Content-Disposition, and deleted by the owner only", async () => {
    const id = await createThread();
    await json("POST", "/v1/tools/big_result", { input: { bytes: 10, attach: true }, sessionId: id });
    const files = (await json("GET", `/threads/${id}/files`)).body.files;
    expect(files).toHaveLength(1);
    const url = `/threads/${id}/files/${files[0].path}`;
    const png = await request(url);
    expect(png.headers.get("content-type")).toBe("image/png");
    expect(png.headers.get("content-disposition")).toBe("inline; filename*=UTF-8''0-pixel.png");
    expect((await png.arrayBuffer()).byteLength).toBe(files[0].size);
    expect((await request(url, {}, "alice")).status).toBe(404);
    expect((await request(url, { method: "DELETE" }, "alice")).status).toBe(404);
    expect((await request(url, { method: "DELETE" })).status).toBe(200);
    expect((await request(url)).status).toBe(404);
    expect((await json("GET", `/threads/${id}/files`)).body.files).toEqual([]);
  });
});
