/**
 * The reservation's input bound counts a message's image and file parts, not only its text
 * (hostile review: 63 PDFs by URL and a 700 KB inline image reserved what "summarize" reserves).
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../../src/records.js";
import { GPT_4O_MINI_IMAGE_INPUT_TOKENS, IMAGE_INPUT_TOKENS, TOOL_USE_ALLOWANCE, inputBound } from "../../src/usage/input-bound.js";
import { SHIPPED_PRICES } from "../../src/usage/prices.js";
import { estimateInput, modelUsageRow } from "../../src/usage/row.js";

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

  it("a tool the provider runs itself (web search) counts the model's window: its results are billed as input (hostile review: a 20,000-token budget admitted a request that used 180,400)", () => {
    const search = { name: "web_search", description: "Searches the web.", inputSchema: { type: "object" }, executionMode: "provider" as const, providerTool: { id: "anthropic.web_search_20250305" } };
    const own = { name: "save", description: "Saves.", inputSchema: { type: "object" } };
    const base = inputBound({ messages: [text("look it up")], tools: [own], contextTokens: 200_000 });
    expect(inputBound({ messages: [text("look it up")], tools: [own, search], contextTokens: 200_000 }) - base).toBeGreaterThanOrEqual(200_000);
  });

  it("an inline text file counts its decoded bytes", () => {
    const csv = btoa("a,b\n".repeat(3000));
    const file = withParts("sum column b", [{ type: "file", data: csv, mediaType: "text/csv" }]);
    expect(inputBound({ messages: [file], tools: [] }) - inputBound({ messages: [text("sum column b")], tools: [] })).toBeGreaterThanOrEqual(12_000);
  });

  it("a failed request's estimate counts what was sent as its reservation does: tool schemas, the tool-use allowance, images (hostile review: 4,809 bytes of schemas estimated as none)", () => {
    const schema = { type: "object", properties: Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`field_${i}`, { type: "string", description: "a field of the record" }])) };
    const tools = [{ name: "save", description: "Saves a record.", inputSchema: schema }];
    const schemaChars = JSON.stringify(schema).length;
    expect(schemaChars).toBeGreaterThan(4000);
    const sent = [text("save it")];
    const bare = estimateInput({ sent, model: "openai:gpt-4.1-mini" });
    const withTools = estimateInput({ sent, tools, model: "openai:gpt-4.1-mini" });
    expect(withTools - bare).toBeGreaterThanOrEqual(Math.floor(schemaChars / 4) + TOOL_USE_ALLOWANCE);
    // The row of a request that failed with nothing reported carries it.
    const row = modelUsageRow({ turnId: "t", step: 1, model: "openai:gpt-4.1-mini", usage: {}, durationMs: 5, sent, tools, answered: "", receivedQuarters: 0, failed: true }, SHIPPED_PRICES);
    expect([row.failed, row.estimated, row.inputTokens]).toEqual([true, true, withTools]);
    // An image sent is counted by the same bound as the reservation's.
    const image = withParts("describe", [{ type: "image", image: "https://example.com/cat.png" }]);
    expect(estimateInput({ sent: [image], model: "openai:gpt-4.1" }) - estimateInput({ sent: [text("describe")], model: "openai:gpt-4.1" })).toBeGreaterThanOrEqual(IMAGE_INPUT_TOKENS);
    // Never more than the reservation's bound (a token a byte): the charge fits in what was reserved.
    expect(withTools).toBeLessThanOrEqual(inputBound({ messages: sent, tools }));
  });
});
