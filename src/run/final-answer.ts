/**
 * A structured final answer: an agent or prompt that declares `outputSchema` gets its schema in
 * the system prompt, and its final answer (a step with no calls) must be JSON that the schema
 * accepts. A refused answer is sent back once with what was wrong; refused again, the run fails
 * with `invalid_output` naming the path.
 * @module
 */
import { type CompiledSchema, compileSchema } from "../tools/schema.js";
import type { SchemaInput } from "../tools/types.js";

/** Compiled schemas by the definition's schema value: compiled once per isolate. */
const compiled = new WeakMap<object, CompiledSchema>();

/**
 * The compiled `outputSchema` of a definition.
 * @param owner how errors name the definition (`prompt "triage"`, `agent "support"`).
 * @throws WeftError `invalid_config` naming the owner, `outputSchema` and the keyword's path when
 *   the schema cannot be compiled (a Zod 3 schema, JSON Schema weft cannot validate).
 */
export function finalAnswerSchema(owner: string, schema: SchemaInput): CompiledSchema {
  const key = schema as object;
  let out = compiled.get(key);
  if (!out) {
    out = compileSchema(owner, "outputSchema", schema, { owner });
    compiled.set(key, out);
  }
  return out;
}

/** What the system prompt adds for a declared output schema. */
export function outputInstruction(schema: CompiledSchema): string {
  return `When you give your final answer (a reply with no tool calls), reply with only a JSON value, no other text, that this JSON Schema accepts:\n${JSON.stringify(schema.jsonSchema)}`;
}

/** Why a final answer was refused: the JSON path (`$` for the whole answer) and the rule it broke. */
export interface AnswerProblem {
  path: string;
  message: string;
}

/** A fenced block (```json ... ```) around the whole answer, as models often write one. */
const FENCED = /^```[a-zA-Z]*\s*\n([\s\S]*?)\n?```$/;

/**
 * Checks a final answer's text against the schema: null when it is JSON the schema accepts (a
 * fence around the whole answer is allowed), else the first problem with its path.
 */
export function checkFinalAnswer(schema: CompiledSchema, text: string): AnswerProblem | null {
  const trimmed = text.trim();
  const body = FENCED.exec(trimmed)?.[1] ?? trimmed;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { path: "$", message: "the answer is not JSON" };
  }
  const checked = schema.validate(value);
  if (checked.ok) return null;
  const issue = checked.issues[0]!;
  const path = ["$", ...issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${p}`))].join("");
  // Zod's messages repeat the path in front ("reasons: Too small ..."); the path is said once.
  const prefix = `${issue.path.join(".")}: `;
  return { path, message: issue.path.length > 0 && issue.message.startsWith(prefix) ? issue.message.slice(prefix.length) : issue.message };
}

/** The message that sends a refused answer back to the model. */
export function retryInstruction(problem: AnswerProblem): string {
  return `Your final answer does not match the required output schema: at ${problem.path}: ${problem.message}. Reply again with only JSON that the schema accepts.`;
}
