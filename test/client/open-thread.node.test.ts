/**
 * `WeftClient.openThread`: get or create by a continuation token. A new token creates the thread;
 * a token with a thread already answers that thread (weft's 409 `thread_exists` carries its id);
 * any other refusal is thrown as it came.
 */
import { expect, it } from "vitest";
import { WeftClient, WeftClientError } from "weft/client";

function answering(...answers: Response[]) {
  const bodies: unknown[] = [];
  const fetch = (async (_url: string, init: RequestInit) => {
    bodies.push(JSON.parse(String(init.body)));
    return answers.shift()!;
  }) as unknown as typeof globalThis.fetch;
  return { weft: new WeftClient({ url: "http://weft.test", fetch }), bodies };
}

it("creates the thread a new token names, with the options given", async () => {
  const { weft, bodies } = answering(Response.json({ threadId: "t-new", agentId: "shop" }, { status: 201 }));
  expect(await weft.openThread("web:cart-1", { agent: "shop" })).toEqual({ threadId: "t-new", created: true });
  expect(bodies).toEqual([{ agent: "shop", continuationToken: "web:cart-1" }]);
});

it("answers the thread a token names already", async () => {
  const { weft } = answering(Response.json({ error: { code: "thread_exists", message: "you have a thread for that token", details: { threadId: "t-old" } } }, { status: 409 }));
  expect(await weft.openThread("web:cart-1")).toEqual({ threadId: "t-old", created: false });
});

it("throws any other refusal as it came", async () => {
  const { weft } = answering(Response.json({ error: { code: "agent_not_found", message: "no agent", details: { path: ["agent"] } } }, { status: 404 }));
  const refused = await weft.openThread("web:cart-1", { agent: "nope" }).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(WeftClientError);
  expect(refused).toMatchObject({ code: "agent_not_found", status: 404 });
});
