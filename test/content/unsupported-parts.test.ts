/**
 * A part the thread's provider does not take (a PDF by URL to an OpenAI-compatible server, a
 * text file to Anthropic) ends the turn failed with errorCode unsupported_content and a message
 * naming what the provider refused, before any request is sent.
 */
import { expect, it } from "vitest";
import { fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { createThread, json, stubOf } from "../helpers.js";

it.each([
  ["openai-compatible:any", { type: "file", data: "https://example.com/order.pdf", mediaType: "application/pdf" }, "PDF file parts with URLs"],
  ["anthropic:claude-sonnet-4-5", { type: "file", data: "aGVsbG8=", mediaType: "text/csv", filename: "a.csv" }, "media type: text/csv"],
])("%s: a part it does not take fails the turn with unsupported_content", async (spec, part, named) => {
  const key = fakeKey("unsupported");
  await scriptFake(key, [{ text: "never" }]);
  const id = await createThread({ env: fakeEnv(spec, key) });
  const posted = await json("POST", `/threads/${id}/messages`, { content: [{ type: "text", text: "read this" }, part] });
  expect(posted.status).toBe(202);
  await stubOf(id).waitIdle();
  const { lastTurn } = (await json("GET", `/threads/${id}`)).body;
  expect(lastTurn).toMatchObject({ status: "failed", steps: 0, errorCode: "unsupported_content" });
  expect(lastTurn.error).toContain(`the provider does not take this message's content (${named})`);
  expect(await fakeRequests(key)).toHaveLength(0);
});
