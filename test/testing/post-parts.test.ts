/**
 * weft/testing posts a message of parts (text, an image, a file) as a client does: the kit's
 * thread stores them with the message and its model (here the fake provider in Anthropic's and
 * OpenAI's wire formats, each request checked by the format's validator) receives them.
 */
import { describe, expect, it } from "vitest";
import { createTestThread, live, type ContentPart } from "../../src/testing/index.js";
import { fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { API_KEYS } from "../keys.js";

// test/wrangler.toml wants credentials (npm run test:agents does not): the kit sends a test user's key.
const token = API_KEYS.tester;

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const PARTS: ContentPart[] = [
  { type: "text", text: "Is this kettle broken?" },
  { type: "image", image: PNG, mediaType: "image/png" },
  { type: "file", data: "JVBERi0xLjQKJUVPRgo=", mediaType: "application/pdf", filename: "receipt.pdf" },
];

describe("thread.post with parts", () => {
  it.each([
    ["anthropic:claude-sonnet-4-5", (body: any) => body.messages.find((m: any) => m.role === "user").content.map((p: any) => p.type), ["text", "image", "document"]],
    ["openai:gpt-4.1-mini", (body: any) => body.input.find((m: any) => m.role === "user").content.map((p: any) => p.type), ["input_text", "input_image", "input_file"]],
  ] as const)("%s: stores the parts and sends them in the provider's form", async (spec, types, expected) => {
    const key = fakeKey("kit-parts");
    await scriptFake(key, [{ text: "It looks dented." }]);
    const thread = await createTestThread({ token, model: live(spec), env: Object.fromEntries(Object.entries(fakeEnv(spec, key)).filter(([k]) => k !== "WEFT_MODEL")) });
    const turn = await thread.post(PARTS);
    expect(turn.turn).toMatchObject({ status: "completed" });
    expect(turn.messages[0]).toMatchObject({ role: "user", content: "Is this kettle broken?", parts: PARTS });
    expect(turn.text).toBe("It looks dented.");
    const requests = await fakeRequests(key);
    expect(requests).toHaveLength(1);
    expect(types(requests[0]!.body)).toEqual(expected);
  });

  it("a bad part is refused with the part's path, and the post throws", async () => {
    const thread = await createTestThread({ token });
    await expect(thread.post([{ type: "image", image: "not data" } as ContentPart])).rejects.toThrow("content[0].image: expected an http(s) URL or base64 data");
  });
});
