/**
 * `WeftClient.answerCall` posts a client tool's answer to the call's `result` route, with the
 * Idempotency-Key it is given, and a refusal comes back as a `WeftClientError` with weft's code.
 */
import { expect, it } from "vitest";
import { WeftClient, WeftClientError } from "weft/client";

/** A client whose fetch records each request and answers with `answer`. */
function recording(answer: () => Response) {
  const sent: Array<{ url: string; method: string; headers: Record<string, string>; body: unknown }> = [];
  const fetch = (async (url: string, init: RequestInit) => {
    sent.push({ url, method: init.method!, headers: init.headers as Record<string, string>, body: JSON.parse(String(init.body)) });
    return answer();
  }) as unknown as typeof globalThis.fetch;
  return { weft: new WeftClient({ url: "http://weft.test", token: "k-1", fetch }), sent };
}

it("posts the result to /threads/:id/calls/:callId/result with the Idempotency-Key, and answers the call as it stands", async () => {
  const { weft, sent } = recording(() => Response.json({ callId: "c/1", status: "succeeded" }));
  const outcome = await weft.answerCall("t1", "c/1", { result: { name: "a.txt" } }, { idempotencyKey: "k-answer" });
  expect(outcome).toMatchObject({ callId: "c/1", status: "succeeded" });
  expect(sent).toEqual([
    {
      url: "http://weft.test/threads/t1/calls/c%2F1/result",
      method: "POST",
      headers: expect.objectContaining({ "idempotency-key": "k-answer", "content-type": "application/json", authorization: "Bearer k-1" }),
      body: { result: { name: "a.txt" } },
    },
  ]);
  await weft.answerCall("t1", "c2", { error: "the user closed the dialog" });
  expect(sent[1]!.body).toEqual({ error: "the user closed the dialog" });
  expect(sent[1]!.headers["idempotency-key"]).toBeUndefined();
});

it("a second answer is refused with weft's code", async () => {
  const { weft } = recording(() => Response.json({ error: { code: "call_not_waiting", message: "call c1 is succeeded, not parked" } }, { status: 409 }));
  const refused = await weft.answerCall("t1", "c1", { result: "again" }).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(WeftClientError);
  expect(refused).toMatchObject({ code: "call_not_waiting", status: 409 });
});
