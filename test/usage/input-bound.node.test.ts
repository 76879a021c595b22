/**
 * The reservation's input bound counts a message's image and file parts, not only its text
 * (hostile review: 63 PDFs by URL and a 700 KB inline image reserved what "summarize" reserves).
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../../src/records.js";
import { GPT_4O_MINI_IMAGE_INPUT_TOKENS, IMAGE_INPUT_TOKENS, inputBound } from "../../src/usage/input-bound.js";

const at = Date.UTC(2026, 11, 2);
const text = (content: string): Message => ({ id: 1, role: "user", content, silent: false, createdAt: at });
const withParts = (content: string, parts: NonNullable<Message["parts"]>): Message => ({ ...text(content), parts: [{ type: "text", text: content }, ...parts] });

describe("inputBound and message parts", () => {
  const plain = inputBound({ messages: [text("summarize")], tools: [] });

  it("a PDF by URL counts the model's whole context window: its pages are unknown until the provider reads them", () => {
    const pdfs = withParts("summarize", Array.from({ length: 63 }, (_, i) => ({ type: "file" as const, data: `https://example.com/report-${i}.pdf`, mediaType: "application/pdf" })));
    expect(inputBound({ messages: [pdfs], tools: [], contextTokens: 200_000 })).toBeGreaterThan(plain + 63 * 200_000);
    // No window named: weft's default window, 128k.
    expect(inputBound({ messages: [pdfs], tools: [] })).toBeGreaterThan(plain + 63 * 128_000);
  });

  it("an image counts a fixed bound whatever its bytes (providers count pixels after scaling), gpt-4o-mini's own", () => {
    const inline = withParts("describe", [{ type: "image", image: "A".repeat(700_000), mediaType: "image/png" }]);
    const byUrl = withParts("describe", [{ type: "image", image: "https://example.com/cat.png" }]);
    const base = inputBound({ messages: [text("describe")], tools: [] });
    expect(inputBound({ messages: [inline], tools: [] }) - base).toBeGreaterThanOrEqual(IMAGE_INPUT_TOKENS);
    expect(inputBound({ messages: [byUrl], tools: [] }) - base).toBeGreaterThanOrEqual(IMAGE_INPUT_TOKENS);
    expect(inputBound({ messages: [byUrl], tools: [], model: "openai:gpt-4o-mini" }) - base).toBeGreaterThanOrEqual(GPT_4O_MINI_IMAGE_INPUT_TOKENS);
  });

  it("an inline text file counts its decoded bytes", () => {
    const csv = btoa("a,b\n".repeat(3000));
    const file = withParts("sum column b", [{ type: "file", data: csv, mediaType: "text/csv" }]);
    expect(inputBound({ messages: [file], tools: [] }) - inputBound({ messages: [text("sum column b")], tools: [] })).toBeGreaterThanOrEqual(12_000);
  });
});
