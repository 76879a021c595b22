/**
 * An `outputSchema` weft cannot use is refused when the definition is checked (at build), naming
 * the definition, the field and the keyword's path; the answer check itself names JSON paths.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkAgentDefinition, defineAgent } from "../../src/run/agent.js";
import { checkFinalAnswer, finalAnswerSchema } from "../../src/run/final-answer.js";
import { checkPromptDefinition, definePrompt } from "../../src/run/prompt.js";

describe("outputSchema definitions", () => {
  it("refuses a JSON Schema weft cannot validate, naming the prompt, the field and the path", () => {
    const def = definePrompt({ toolDescription: "x", outputSchema: { type: "object", properties: { a: { $ref: "https://example.com/s.json" } } } });
    expect(() => checkPromptDefinition("extract", def)).toThrow(/prompt "extract": outputSchema at #\/properties\/a/);
  });

  it("refuses outputSchema inline beside sideA, as the other inline fields are", () => {
    const def = defineAgent({ sideA: "p", outputSchema: z.object({ a: z.string() }) });
    expect(() => checkAgentDefinition("duo", def)).toThrow(/outputSchema belong to side a's prompt/);
  });

  it("names the JSON path of the first problem, and the answer that is not JSON at $", () => {
    const schema = finalAnswerSchema("agent \"t\"", z.object({ items: z.array(z.object({ n: z.number() })) }));
    expect(checkFinalAnswer(schema, '{"items":[{"n":1},{"n":"2"}]}')).toMatchObject({ path: "$.items[1].n" });
    expect(checkFinalAnswer(schema, "sure, here it is")).toEqual({ path: "$", message: "the answer is not JSON" });
    expect(checkFinalAnswer(schema, '```json\n{"items":[]}\n```')).toBeNull();
  });
});
