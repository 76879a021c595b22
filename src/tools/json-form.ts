/**
 * Zod types a model cannot send. Arguments arrive as JSON, so a schema type without a JSON form
 * (`z.date()`, `z.bigint()`, `z.map()`, `z.set()`, ...) could never validate: it is refused when
 * the tool is built, naming the field and the JSON-friendly alternative. A coercing type
 * (`z.coerce.date()`) accepts JSON text and is advertised as that text's form, never as `{}`.
 * @module
 */
import * as z from "zod";
import { WeftError } from "../errors.js";

/** What to write instead of each type that has no JSON form. */
const ALTERNATIVES: Record<string, string> = {
  date: "z.iso.datetime() (or z.coerce.date() to receive a Date)",
  bigint: "z.coerce.bigint() or z.int()",
  map: "z.record(keySchema, valueSchema)",
  set: "z.array(itemSchema)",
  symbol: "z.string()",
  function: "a string naming the action",
  promise: "the value's own schema",
  nan: "z.number()",
  undefined: "z.optional(...) on the field",
  void: "z.optional(...) on the field",
};

/** The JSON form a coercing type is sent as. */
const COERCED: Record<string, Record<string, unknown>> = {
  date: { type: "string", format: "date-time" },
  bigint: { type: "integer" },
};

/** `properties.when` -> `when`; `properties.list.items` -> `list[]`. */
function fieldOf(path: readonly (string | number)[]): string {
  let out = "";
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    if (key === "properties" || key === "additionalProperties") {
      const name = path[i + 1];
      if (key === "properties" && name !== undefined) {
        out += out === "" ? String(name) : `.${String(name)}`;
        i++;
      } else out += ".*";
    } else if (key === "items" || key === "prefixItems") out += "[]";
  }
  return out || "(root)";
}

/**
 * The JSON Schema a model sees for a Zod schema: `z.toJSONSchema(schema, { io: "input" })`
 * without `$schema`, with coercing dates and bigints shown as the text they accept.
 * @throws WeftError `invalid_config` naming the tool, the field and the alternative, for a type
 * that has no JSON form.
 */
export function zodJsonSchema(tool: string, field: "args" | "outputSchema", schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
    override(ctx) {
      const def = ctx.zodSchema._zod.def as { type: string; coerce?: boolean };
      const alternative = ALTERNATIVES[def.type];
      if (alternative === undefined) return;
      const coerced = def.coerce ? COERCED[def.type] : undefined;
      if (coerced) {
        Object.assign(ctx.jsonSchema, coerced);
        return;
      }
      const name = fieldOf(ctx.path);
      throw new WeftError(
        "invalid_config",
        `tool "${tool}": ${field} field "${name}" is z.${def.type}(), which has no JSON form (a model sends JSON); use ${alternative}`,
        { tool, field, path: name.split(".") },
      );
    },
  }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}
