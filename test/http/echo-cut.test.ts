/**
 * An error answer repeats a client's value (a name, an id, a path, a query value, a header) cut to
 * its first characters (src/errors.ts `echoedValue`): a 20 000-character value no longer comes
 * back whole, once or several times. The error codes stay.
 */
import { describe, expect, it } from "vitest";
import { MAX_ECHOED_CHARS } from "../../src/errors.js";
import { createThread, json, request } from "../helpers.js";

const LONG = "x".repeat(20_000);

/** An answer's status and code, whether it is small, and whether each time it repeats the value it is cut. */
async function answer(res: Response) {
  const text = await res.text();
  const body = JSON.parse(text) as { error: { code: string } };
  const runs = text.match(/x{10,}/g) ?? [];
  return { status: res.status, code: body.error.code, small: text.length < 5000, cut: runs.length > 0 && runs.every((run) => run.length <= MAX_ECHOED_CHARS) };
}

const cut = (status: number, code: string) => ({ status, code, small: true, cut: true });

describe("error answers that name a client's value", () => {
  it("cut a thread id, a call id, a schedule id, a file path, an unknown route and an unknown tool", async () => {
    const id = await createThread();
    expect(await answer(await request(`/threads/${LONG}`))).toEqual(cut(404, "thread_not_found"));
    expect(await answer(await request(`/threads/${id}/calls/${LONG}`))).toEqual(cut(404, "call_not_found"));
    expect(await answer(await request(`/threads/${id}/calls/${LONG}/approve`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }))).toEqual(cut(404, "call_not_found"));
    expect(await answer(await request(`/threads/${id}/schedules/${LONG}`, { method: "DELETE" }))).toEqual(cut(404, "schedule_not_found"));
    expect(await answer(await request(`/threads/${id}/files/${LONG}`))).toEqual(cut(404, "not_found"));
    expect(await answer(await request(`/threads/${id}/files/${LONG}`, { method: "DELETE" }))).toEqual(cut(404, "not_found"));
    expect(await answer(await request(`/${LONG}`))).toEqual(cut(404, "not_found"));
    expect(await answer(await request(`/v1/tools/${LONG}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ input: {} }) }))).toEqual(cut(404, "unknown_tool"));
  });

  it("cut a media type and the event stream's query values", async () => {
    const id = await createThread();
    expect(await answer(await request("/threads", { method: "POST", headers: { "content-type": `text/${LONG}` }, body: "{}" }))).toEqual(cut(415, "unsupported_media_type"));
    for (const query of [`since=${LONG}`, `batch=${LONG}`, `createdAt=${LONG}`]) {
      expect(await answer(await request(`/threads/${id}/ws?${query}`, { headers: { upgrade: "websocket" } }))).toEqual(cut(400, "invalid_request"));
    }
    expect((await json("GET", `/threads/${id}/messages?order=${LONG}`)).status).toBe(400);
  });
});
