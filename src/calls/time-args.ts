/**
 * `timeArgs` under a thread created with `asOf` (the Agent SDK tools reference): each named argument must be an
 * absolute ISO-8601 instant with an offset, not later than `asOf`.
 * @module
 */
import { WeftError } from "../errors.js";
import { wireValue } from "../json-shape.js";
import { type CompiledTool, compileTool } from "../tools/catalog.js";
import type { AnyToolDefinition } from "../tools/types.js";

/** `2024-05-01T12:00:00Z` or with `+02:00`; date and time both required. */
const ABSOLUTE_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * Checks a call's time arguments against `asOf`: each as sent when it was text, a `Date` given by
 * code as its ISO-8601 text, anything else (a number a `z.coerce.date()` field would take) refused.
 * One the call did not send is refused, default or not.
 * @throws WeftError `invalid_tool_input` naming the argument and telling the model how to retry.
 */
export function checkTimeArgs(tool: CompiledTool, sent: unknown, input: unknown, asOf: string): void {
  const names = tool.def.timeArgs as readonly string[] | undefined;
  if (!names || names.length === 0) return;
  const limit = Date.parse(asOf);
  const raw = (sent ?? {}) as Record<string, unknown>;
  const wire = (wireValue(input) ?? {}) as Record<string, unknown>;
  for (const name of names) {
    const given = raw[name];
    // Text is judged as sent and a Date (from code) by its ISO text; a number the schema would
    // coerce to a Date is no ISO-8601 instant, so it is judged as itself and refused.
    const value = typeof given === "string" ? given : given instanceof Date ? wire[name] : given;
    const retry = `retry with absolute ISO-8601 instants that include an offset (for example 2024-01-31T00:00:00Z) and are not later than ${asOf}`;
    // Judged on what the call sent: a bound it left out is refused even where the schema's default would fill it.
    if (given === undefined || given === null || given === "") {
      throw new WeftError("invalid_tool_input", `${name}: required in a thread frozen at ${asOf}; ${retry}`, { path: [name] });
    }
    if (typeof value !== "string" || !ABSOLUTE_INSTANT.test(value) || Number.isNaN(Date.parse(value))) {
      throw new WeftError("invalid_tool_input", `${name}: ${JSON.stringify(value)} is not an absolute instant with an offset; ${retry}`, {
        path: [name],
      });
    }
    if (Date.parse(value) > limit) {
      throw new WeftError("invalid_tool_input", `${name}: ${value} is later than the thread's asOf ${asOf}; ${retry}`, { path: [name] });
    }
  }
}

/**
 * A thread with `asOf` refuses to start when a tool it can reach (on either side, or inside a
 * prompt it calls) names a time argument its schema lacks: a misspelled name would silently
 * check nothing. Only tools that declare `timeArgs` are compiled here.
 * @param tools each reachable tool's definition by name.
 * @throws WeftError `invalid_config` naming the tool and the names.
 */
export function checkTimeArgNames(tools: ReadonlyMap<string, AnyToolDefinition>): void {
  for (const [name, def] of tools) {
    const names = (def.timeArgs ?? []) as readonly string[];
    if (names.length === 0) continue;
    const properties = (compileTool(name, def).inputSchema.properties ?? {}) as Record<string, unknown>;
    const missing = names.filter((n) => !Object.hasOwn(properties, n));
    if (missing.length > 0) {
      throw new WeftError("invalid_config", `tool "${name}": timeArgs names missing from the schema: ${missing.join(", ")}`, { tool: name, missing });
    }
  }
}
