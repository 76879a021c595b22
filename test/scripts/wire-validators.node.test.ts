import { describe, expect, it } from "vitest";
import { validateAnthropic, validateChatCompletions, validateResponses } from "../../scripts/lib/wire-validators.mjs";

const call = (id: string) => ({ id, type: "function", function: { name: "t", arguments: "{}" } });

describe("wire validators", () => {
  it("Chat Completions: calls answered right after their assistant message, each once", () => {
    expect(validateChatCompletions({ messages: [{ role: "user", content: "x" }, { role: "assistant", tool_calls: [call("a"), call("b")] }, { role: "tool", tool_call_id: "a" }, { role: "tool", tool_call_id: "b" }] })).toEqual([]);
    expect(validateChatCompletions({ messages: [{ role: "assistant", tool_calls: [call("a")] }, { role: "user", content: "x" }, { role: "tool", tool_call_id: "a" }] })).toHaveLength(2);
    expect(validateChatCompletions({ messages: [{ role: "assistant", tool_calls: [call("x".repeat(41))] }, { role: "tool", tool_call_id: "x".repeat(41) }] })).toHaveLength(1);
  });

  it("Responses: every call has one output before the next user message", () => {
    const fc = (id: string) => ({ type: "function_call", call_id: id, name: "t", arguments: "{}" });
    expect(validateResponses({ input: [{ role: "user", content: "x" }, fc("a"), { type: "function_call_output", call_id: "a", output: "ok" }] })).toEqual([]);
    expect(validateResponses({ input: [fc("a"), { role: "user", content: "x" }] })).toHaveLength(2);
    expect(validateResponses({ input: [{ type: "function_call_output", call_id: "z", output: "" }] })).toHaveLength(1);
  });

  it("Anthropic: alternating roles from a user message; results together, in call order, first", () => {
    const use = (id: string) => ({ type: "tool_use", id, name: "t", input: {} });
    const result = (id: string) => ({ type: "tool_result", tool_use_id: id, content: "ok" });
    expect(validateAnthropic({ messages: [{ role: "user", content: "x" }, { role: "assistant", content: [use("a"), use("b")] }, { role: "user", content: [result("a"), result("b"), { type: "text", text: "next" }] }] })).toEqual([]);
    expect(validateAnthropic({ messages: [{ role: "user", content: "x" }, { role: "assistant", content: [use("a"), use("b")] }, { role: "user", content: [result("b"), result("a")] }] })).toHaveLength(1);
    expect(validateAnthropic({ messages: [{ role: "assistant", content: "hi" }] })).toHaveLength(1);
    expect(validateAnthropic({ messages: [{ role: "user", content: "x" }, { role: "user", content: "y" }] })).toHaveLength(1);
  });

  it("user content parts: images and files in each format's own form, by http(s) URL or base64", () => {
    const data = "data:image/png;base64,iVBORw0KGgo=";
    expect(validateChatCompletions({ messages: [{ role: "user", content: [{ type: "text", text: "x" }, { type: "image_url", image_url: { url: data } }, { type: "file", file: { filename: "a.pdf", file_data: "data:application/pdf;base64,JVBE" } }] }] })).toEqual([]);
    expect(validateChatCompletions({ messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "iVBORw0KGgo=" } }, { type: "text", text: "" }, { type: "image", image: "x" }] }] })).toHaveLength(3);
    expect(validateResponses({ input: [{ role: "user", content: [{ type: "input_text", text: "x" }, { type: "input_image", image_url: "https://e.com/a.png" }, { type: "input_file", filename: "a.pdf", file_data: "data:application/pdf;base64,JVBE" }] }] })).toEqual([]);
    expect(validateResponses({ input: [{ role: "user", content: [{ type: "input_image", image_url: "ftp://e.com/a.png" }, { type: "input_file", file_data: "data:application/pdf;base64,JVBE" }] }] })).toHaveLength(2);
    const png = { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } };
    expect(validateAnthropic({ messages: [{ role: "user", content: [png, { type: "document", source: { type: "url", url: "https://e.com/a.pdf" } }] }] })).toEqual([]);
    expect(validateAnthropic({ messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/tiff", data: "iVBO" } }, { type: "document", source: { type: "base64", media_type: "application/pdf", data: "not base64!" } }, { type: "image", source: {} }] }] })).toHaveLength(3);
  });
});
