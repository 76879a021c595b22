/**
 * A user names their thread's model (`WEFT_MODEL` in its env, or their account's), so its id is
 * theirs to make long (hostile review). An unknown `openai:` id of 1 MB held the thread's Durable
 * Object for 23 s of CPU working out "did you mean" before its 400; an `openai-compatible:` id
 * (any id is taken) of 1 MB was stored with every model step, so a turn of three steps wrote a
 * 3 MB turn row, which Cloudflare refuses (the turn failed, its usage rows written).
 */
import { expect, it } from "vitest";
import { fakeEnv, fakeKey, scriptFake } from "../fake-provider.js";
import { json } from "../helpers.js";
import { oversizedWrites } from "../row-limit.js";

it("an unknown model id of 1 MB is refused at once, naming the field, without echoing it", async () => {
  const started = Date.now();
  const created = await json("POST", "/threads", { env: { WEFT_MODEL: { value: `openai:${"x".repeat(1_000_000 - 10)}`, type: "text" } } });
  expect(created.status).toBe(400);
  expect(created.body.error.code).toBe("invalid_request");
  expect(created.body.error.message).toMatch(/WEFT_MODEL/);
  expect(JSON.stringify(created.body).length).toBeLessThan(2000);
  expect(Date.now() - started).toBeLessThan(1000);
});

it("an openai-compatible model id of 1 MB is refused when the thread is made: nothing runs, nothing oversized is written", async () => {
  const before = oversizedWrites.length;
  const k = fakeKey("huge-model-id");
  await scriptFake(k, [{ text: "ok" }]);
  const env = { ...fakeEnv("openai-compatible:x", k), WEFT_MODEL: { value: `openai-compatible:${"m".repeat(1_000_000 - 40)}`, type: "text" } };
  const created = await json("POST", "/threads", { env });
  expect(created.status).toBe(400);
  expect(created.body.error.code).toBe("invalid_request");
  expect(oversizedWrites.slice(before)).toEqual([]);
});

it("a model id of ordinary length (a Bedrock-style ARN) is still taken", async () => {
  const k = fakeKey("long-model-id");
  await scriptFake(k, [{ text: "ok" }]);
  const id = "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-5-sonnet-20241022-v2:0";
  const created = await json("POST", "/threads", { env: { ...fakeEnv("openai-compatible:x", k), WEFT_MODEL: { value: `openai-compatible:${id}`, type: "text" } } });
  expect(created.status).toBe(201);
});
