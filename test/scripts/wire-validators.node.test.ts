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
    expect(validateAnthropic({ max_tokens: 1024, messages: [{ role: "user", content: "x" }, { role: "assistant", content: [use("a"), use("b")] }, { role: "user", content: [result("a"), result("b"), { type: "text", text: "next" }] }] })).toEqual([]);
    expect(validateAnthropic({ max_tokens: 1024, messages: [{ role: "user", content: "x" }, { role: "assistant", content: [use("a"), use("b")] }, { role: "user", content: [result("b"), result("a")] }] })).toHaveLength(1);
    expect(validateAnthropic({ max_tokens: 1024, messages: [{ role: "assistant", content: "hi" }] })).toHaveLength(1);
    expect(validateAnthropic({ max_tokens: 1024, messages: [{ role: "user", content: "x" }, { role: "user", content: "y" }] })).toHaveLength(1);
  });

  it("user content parts: images and files in each format's own form, by http(s) URL or base64", () => {
    const data = "data:image/png;base64,iVBORw0KGgo=";
    expect(validateChatCompletions({ messages: [{ role: "user", content: [{ type: "text", text: "x" }, { type: "image_url", image_url: { url: data } }, { type: "file", file: { filename: "a.pdf", file_data: "data:application/pdf;base64,JVBE" } }] }] })).toEqual([]);
    expect(validateChatCompletions({ messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "iVBORw0KGgo=" } }, { type: "text", text: "" }, { type: "image", image: "x" }] }] })).toHaveLength(3);
    expect(validateResponses({ input: [{ role: "user", content: [{ type: "input_text", text: "x" }, { type: "input_image", image_url: "https://e.com/a.png" }, { type: "input_file", filename: "a.pdf", file_data: "data:application/pdf;base64,JVBE" }] }] })).toEqual([]);
    expect(validateResponses({ input: [{ role: "user", content: [{ type: "input_image", image_url: "ftp://e.com/a.png" }, { type: "input_file", file_data: "data:application/pdf;base64,JVBE" }] }] })).toHaveLength(2);
    const png = { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } };
    expect(validateAnthropic({ max_tokens: 1024, messages: [{ role: "user", content: [png, { type: "document", source: { type: "url", url: "https://e.com/a.pdf" } }] }] })).toEqual([]);
    expect(validateAnthropic({ max_tokens: 1024, messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/tiff", data: "iVBO" } }, { type: "document", source: { type: "base64", media_type: "application/pdf", data: "not base64!" } }, { type: "image", source: {} }] }] })).toHaveLength(3);
  });

  describe("request settings, each seen refused (scripts/lib/wire-settings.mjs)", () => {
    const chatTools = [{ type: "function", function: { name: "lookup", parameters: { type: "object" } } }];
    const chat = (extra: object) => validateChatCompletions({ messages: [{ role: "user", content: "x" }], tools: chatTools, ...extra });
    const respTools = [{ type: "function", name: "lookup", parameters: { type: "object" } }];
    const responses = (extra: object) => validateResponses({ input: [{ role: "user", content: "x" }], tools: respTools, ...extra });
    const anthTools = [{ name: "lookup", input_schema: { type: "object" } }];
    const anthropic = (extra: object) => validateAnthropic({ max_tokens: 4096, messages: [{ role: "user", content: "x" }], tools: anthTools, ...extra });

    it("Chat Completions: sampling, bounds, stop, tool_choice, reasoning_effort", () => {
      expect(chat({ temperature: 2, top_p: 1, max_tokens: 10, stop: ["a", "b"], tool_choice: { type: "function", function: { name: "lookup" } }, reasoning_effort: "low" })).toEqual([]);
      expect(chat({ tool_choice: "required", max_completion_tokens: 5, stop: "END" })).toEqual([]);
      expect(chat({ temperature: 2.5 })).toEqual(["temperature: 2.5 is not a number in [0, 2]"]);
      expect(chat({ top_p: -0.1 })).toHaveLength(1);
      expect(chat({ max_tokens: 0 })).toEqual(["max_tokens: 0 is not a whole number of at least 1"]);
      expect(chat({ stop: ["a", "b", "c", "d", "e"] })).toHaveLength(1);
      expect(chat({ tool_choice: "any" })).toEqual(['tool_choice: "any" is not none, auto or required']);
      expect(chat({ tool_choice: { type: "function", name: "lookup" } })).toHaveLength(1);
      expect(chat({ tool_choice: { type: "function", function: { name: "other" } } })).toEqual(["tool_choice: names other, which tools does not offer"]);
      expect(chat({ reasoning_effort: "max" })).toHaveLength(1);
      expect(validateChatCompletions({ messages: [{ role: "user", content: "x" }], tool_choice: "required" })).toEqual(["tool_choice: required with no tools"]);
    });

    it("Responses: sampling, max_output_tokens, tool_choice, reasoning.effort, outputs as text", () => {
      expect(responses({ temperature: 0, max_output_tokens: 16, tool_choice: { type: "function", name: "lookup" }, reasoning: { effort: "high" } })).toEqual([]);
      expect(responses({ max_output_tokens: 15 })).toEqual(["max_output_tokens: 15 is not a whole number of at least 16"]);
      expect(responses({ tool_choice: { type: "function", function: { name: "lookup" } } })).toHaveLength(1);
      expect(responses({ tool_choice: { type: "function", name: "nope" } })).toEqual(["tool_choice: names nope, which tools does not offer"]);
      expect(responses({ reasoning: { effort: "extreme" } })).toHaveLength(1);
      const fc = { type: "function_call", call_id: "a", name: "lookup", arguments: "{}" };
      expect(responses({ input: [{ role: "user", content: "x" }, fc, { type: "function_call_output", call_id: "a", output: { ok: true } }] })).toEqual(["input[2]: function_call_output.output is not a string"]);
    });

    it("Anthropic: max_tokens required, sampling, stop_sequences, tool_choice, thinking, cache_control, is_error", () => {
      expect(anthropic({ temperature: 1, top_p: 0.9, stop_sequences: ["END"], tool_choice: { type: "tool", name: "lookup" }, system: [{ type: "text", text: "s", cache_control: { type: "ephemeral" } }] })).toEqual([]);
      expect(anthropic({ thinking: { type: "enabled", budget_tokens: 1024 }, tool_choice: { type: "auto" } })).toEqual([]);
      expect(validateAnthropic({ messages: [{ role: "user", content: "x" }] })).toEqual(["max_tokens: undefined is not a whole number of at least 1 (it is required)"]);
      expect(anthropic({ temperature: 1.5 })).toEqual(["temperature: 1.5 is not a number in [0, 1]"]);
      expect(anthropic({ stop_sequences: [" "] })).toHaveLength(1);
      expect(anthropic({ tool_choice: "auto" })).toHaveLength(1);
      expect(anthropic({ tool_choice: { type: "tool", name: "other" } })).toEqual(['tool_choice: names "other", which tools does not offer']);
      expect(anthropic({ thinking: { type: "enabled", budget_tokens: 512 } })).toHaveLength(1);
      expect(anthropic({ thinking: { type: "enabled", budget_tokens: 4096 } })).toEqual(["thinking.budget_tokens: 4096 is not below max_tokens 4096"]);
      expect(anthropic({ thinking: { type: "enabled", budget_tokens: 2048 }, temperature: 0.2, tool_choice: { type: "any" } })).toHaveLength(2);
      const cached = (n: number) => Array.from({ length: n }, () => ({ type: "text", text: "s", cache_control: { type: "ephemeral" } }));
      expect(anthropic({ system: cached(5) })).toEqual(["cache_control: 5 breakpoints, more than 4"]);
      expect(anthropic({ system: [{ type: "text", text: "s", cache_control: { type: "persistent" } }] })).toHaveLength(1);
      const use = { role: "assistant", content: [{ type: "tool_use", id: "a", name: "lookup", input: {} }] };
      expect(anthropic({ messages: [{ role: "user", content: "x" }, use, { role: "user", content: [{ type: "tool_result", tool_use_id: "a", content: "boom", is_error: true }] }] })).toEqual([]);
      expect(anthropic({ messages: [{ role: "user", content: "x" }, use, { role: "user", content: [{ type: "tool_result", tool_use_id: "a", content: "boom", is_error: "yes" }] }] })).toEqual([
        "messages[2].content[0]: tool_result.is_error is not a boolean",
      ]);
    });
  });
});
