/**
 * A user message posted as parts (text, an image by URL or as base64, a file): stored with the
 * message, returned by the messages API, replayed in the next turn's history, and sent in each
 * provider's own form (the fake provider checks every request with its format's validator, user
 * content parts included). Bad parts are refused with a code and the path; a message over the
 * size of a row is refused naming its largest part.
 */
import { describe, expect, it } from "vitest";
import { fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { createThread, json, stubOf } from "../helpers.js";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const PDF = "JVBERi0xLjQKJUVPRgo=";
const PARTS = [
  { type: "text", text: "What is in these?" },
  { type: "image", image: "https://example.com/cat.png" },
  { type: "image", image: PNG, mediaType: "image/png" },
  { type: "file", data: PDF, mediaType: "application/pdf", filename: "order.pdf" },
];

/** Two turns on `spec`: the first posted as PARTS, the second as text (its request replays the parts). */
async function partsTurns(spec: string) {
  const key = fakeKey("parts");
  await scriptFake(key, [{ text: "A cat, a pixel and an order." }, { text: "Yes." }]);
  const id = await createThread({ env: fakeEnv(spec, key) });
  const posted = await json("POST", `/threads/${id}/messages`, { content: PARTS });
  expect(posted.status, JSON.stringify(posted.body)).toBe(202);
  expect(posted.body.message).toMatchObject({ role: "user", content: "What is in these?", parts: PARTS });
  await stubOf(id).waitIdle();
  expect((await json("GET", `/threads/${id}`)).body.lastTurn).toMatchObject({ status: "completed" });
  await json("POST", `/threads/${id}/messages`, { content: "Sure?" });
  await stubOf(id).waitIdle();
  expect((await json("GET", `/threads/${id}`)).body.lastTurn).toMatchObject({ status: "completed" });
  const { messages } = (await json("GET", `/threads/${id}/messages`)).body;
  expect(messages[0]).toMatchObject({ role: "user", content: "What is in these?", parts: PARTS });
  expect(messages[2]).not.toHaveProperty("parts");
  const requests = (await fakeRequests(key)).map((r) => r.body);
  expect(requests).toHaveLength(2);
  return requests;
}

describe("a message of parts reaches each provider in its own form, and again in the next turn's history", () => {
  it("Anthropic: text, an image by URL, a base64 image and a PDF document", async () => {
    for (const body of await partsTurns("anthropic:claude-sonnet-4-5")) {
      const first = body.messages.find((m: any) => m.role === "user");
      expect(first.content).toEqual([
        { type: "text", text: "What is in these?" },
        { type: "image", source: { type: "url", url: "https://example.com/cat.png" } },
        { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
        expect.objectContaining({ type: "document", source: { type: "base64", media_type: "application/pdf", data: PDF } }),
      ]);
    }
  });

  it("OpenAI Responses: input_text, input_image by URL and as a data URL, input_file", async () => {
    for (const body of await partsTurns("openai:gpt-4.1-mini")) {
      const first = body.input.find((m: any) => m.role === "user");
      expect(first.content).toEqual([
        { type: "input_text", text: "What is in these?" },
        expect.objectContaining({ type: "input_image", image_url: "https://example.com/cat.png" }),
        expect.objectContaining({ type: "input_image", image_url: `data:image/png;base64,${PNG}` }),
        { type: "input_file", filename: "order.pdf", file_data: `data:application/pdf;base64,${PDF}` },
      ]);
    }
  });

  it("OpenAI Chat Completions: text, image_url by URL and as a data URL, file", async () => {
    for (const body of await partsTurns("openai-chat:gpt-4.1-mini")) {
      const first = body.messages.find((m: any) => m.role === "user");
      expect(first.content).toEqual([
        { type: "text", text: "What is in these?" },
        expect.objectContaining({ type: "image_url", image_url: expect.objectContaining({ url: "https://example.com/cat.png" }) }),
        expect.objectContaining({ type: "image_url", image_url: expect.objectContaining({ url: `data:image/png;base64,${PNG}` }) }),
        { type: "file", file: { filename: "order.pdf", file_data: `data:application/pdf;base64,${PDF}` } },
      ]);
    }
  });
});

describe("bad parts are refused with a code and the path, before anything is stored", () => {
  const refusal = async (body: Record<string, unknown>, status = 400) => {
    const id = await createThread({});
    const res = await json("POST", `/threads/${id}/messages`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect((await json("GET", `/threads/${id}`)).body).toMatchObject({ messageCount: 0, status: "idle" });
    return res.body.error;
  };

  it("a part of no known type, data that is neither a URL nor base64, a bad media type, an unknown field", async () => {
    expect(await refusal({ content: [{ type: "video", url: "https://x" }] })).toMatchObject({ code: "invalid_request", details: { path: ["content", 0, "type"] } });
    expect(await refusal({ content: [{ type: "text", text: "hi" }, { type: "image", image: "not base64!" }] })).toMatchObject({
      code: "invalid_request",
      details: { path: ["content", 1, "image"] },
      message: expect.stringContaining("http(s) URL or base64"),
    });
    expect(await refusal({ content: [{ type: "image", image: "ftp://example.com/x.png" }] })).toMatchObject({ details: { path: ["content", 0, "image"] } });
    expect(await refusal({ content: [{ type: "file", data: PDF, mediaType: "pdf" }] })).toMatchObject({ details: { path: ["content", 0, "mediaType"] } });
    expect(await refusal({ content: [{ type: "image", image: PNG, mediaType: "application/pdf" }] })).toMatchObject({ details: { path: ["content", 0, "mediaType"] } });
    expect(await refusal({ content: [{ type: "text", text: "hi", bold: true }] })).toMatchObject({ details: { path: ["content", 0] } });
    expect(await refusal({ content: [] })).toMatchObject({ code: "invalid_request", details: { path: ["content"] } });
  });

  it("a base64 image without its media type; an image in a system message", async () => {
    expect(await refusal({ content: [{ type: "image", image: PNG }] })).toMatchObject({ code: "invalid_request", details: { path: ["content", 0, "mediaType"] } });
    expect(await refusal({ role: "system", content: [{ type: "image", image: "https://example.com/a.png" }] })).toMatchObject({
      code: "invalid_request",
      details: { path: ["content", 0] },
      message: expect.stringContaining("only a user message"),
    });
  });

  it("a message over the size of a row: payload_too_large naming its largest part and the limit", async () => {
    const big = "A".repeat(1024 * 1024);
    const error = await refusal({ content: [{ type: "text", text: "look" }, { type: "image", image: big, mediaType: "image/png" }] }, 413);
    expect(error).toMatchObject({ code: "payload_too_large", details: { path: ["content", 1, "image"], limit: 1024 * 1024 }, message: expect.stringContaining("by URL") });
  });
});
