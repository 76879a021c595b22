/**
 * `GET /threads/:id/calls?limit=`: a page's count, as the messages and files lists take it; a bad
 * one is refused naming it, never quietly shrunk.
 */
import { expect, it } from "vitest";
import { createThread, json, stubOf } from "../helpers.js";

it("limit sets a page's count, offset pages on, and every call is read once", async () => {
  const id = await createThread({ agent: "robustness" });
  const toolCalls = ["a", "b", "c"].map((n) => ({ id: n, name: "record_call", arguments: { note: n } }));
  expect((await json("POST", `/threads/${id}/messages`, { content: "go", script: [{ toolCalls }, { text: "ok" }] })).status).toBe(202);
  await stubOf(id).waitIdle();
  const first = await json("GET", `/threads/${id}/calls?limit=2`);
  expect(first.status).toBe(200);
  expect(first.body.calls.map((c: { callId: string }) => c.callId)).toEqual(["a", "b"]);
  expect(first.body.hasMore).toBe(true);
  const rest = await json("GET", `/threads/${id}/calls?limit=2&offset=2`);
  expect(rest.body.calls.map((c: { callId: string }) => c.callId)).toEqual(["c"]);
  expect(rest.body.hasMore).toBe(false);
});

it("a limit outside 1 to 1000 is refused with invalid_request naming limit", async () => {
  const id = await createThread({ agent: "robustness" });
  for (const limit of ["0", "1001", "x"]) {
    const res = await json("GET", `/threads/${id}/calls?limit=${limit}`);
    expect(res.status, limit).toBe(400);
    expect(res.body.error.code).toBe("invalid_request");
    expect(res.body.error.details.path).toEqual(["limit"]);
  }
});
