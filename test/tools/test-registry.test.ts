/**
 * The authoring surface as the generated test registry sees it, inside workerd: every definition
 * is well formed, the Standard Agents tools API's examples produce the model-facing schemas they should, the
 * `@standardagents/spec` alias is weft's entry, and schema refusals are clear.
 */
import { defineAgent as specDefineAgent, defineTool as specDefineTool } from "@standardagents/spec";
import { callableNames } from "../../src/run/references.js";
import { remoteReference } from "../../src/remote/define.js";
import { describe, expect, it, vi } from "vitest";
import * as z from "zod";
import { z as z3 } from "zod/v3";
import { defineAgent, defineTool, WeftError } from "../../src/index.js";
import { checkToolDefinition, TOOL_NAME_PATTERN } from "../../src/tools/define.js";
import { compileSchema } from "../../src/tools/schema.js";
import type { AnyToolDefinition, ToolArgs } from "../../src/tools/types.js";
import lookupCustomer from "../fixtures/tools/lookup_customer.js";
import { registry } from "../generated/registry.js";

const tool = (name: string): AnyToolDefinition => {
  const def = registry.tools[name];
  if (!def) throw new Error(`fixture tool ${name} is not in the test registry`);
  return def;
};

/** What `z.toJSONSchema(args, { io: "input" })` gives the model for a registered tool. */
const inputSchema = (name: string) => z.toJSONSchema(tool(name).args as ToolArgs, { io: "input" });

/** Runs `fn` and returns what it threw. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("the test registry", () => {
  it("holds every fixture under its file name, sorted, and nothing from agents/", () => {
    const tools = Object.keys(registry.tools);
    const agents = Object.keys(registry.agents);
    expect(tools).toEqual([...tools].sort());
    expect(agents).toEqual([...agents].sort());
    // Other suites add fixtures of their own, so these are a floor, not the whole list.
    expect(tools).toEqual(expect.arrayContaining([
      "echo_json_schema",
      "get_server_time",
      "get_weather",
      "lookup_customer",
      "person",
      "process_order",
      "queue_two",
      "record_call",
      "send_notification",
      "slow_read",
      "throws_error",
      "update_context",
    ]));
    expect(agents).toEqual(expect.arrayContaining(["faults", "seed_examples"]));
    expect(agents).not.toContain("example");
    expect(registry.tools.lookup_customer).toBe(lookupCustomer);
  });

  it("has only well-formed tool definitions with compilable schemas", () => {
    for (const [name, def] of Object.entries(registry.tools)) {
      expect(name).toMatch(TOOL_NAME_PATTERN);
      expect(() => checkToolDefinition(name, def)).not.toThrow();
      if (def.args !== undefined) expect(compileSchema(name, "args", def.args).jsonSchema).toMatchObject({ type: "object" });
      const output = def.outputSchema;
      if (output !== undefined) expect(() => compileSchema(name, "outputSchema", output)).not.toThrow();
    }
  });

  it("has agents whose tools are all callable: a tool, a prompt, an agent exposed as a tool, or a remote MCP server's tool", () => {
    const callable = callableNames({ tools: Object.keys(registry.tools), prompts: registry.prompts ?? {}, agents: registry.agents });
    for (const agent of Object.values(registry.agents)) {
      expect(agent.kind).toBe("agent");
      for (const name of agent.tools ?? []) expect(callable.has(name) || remoteReference(name, registry.mcpServers) !== null).toBe(true);
    }
  });
});

describe("the Standard Agents tools API's complete examples: model-facing schemas", () => {
  it("database query: two optional fields, email with its format", () => {
    const schema = inputSchema("lookup_customer");
    expect(schema).toMatchObject({
      type: "object",
      properties: {
        customerId: { type: "string", description: "Customer ID" },
        email: { type: "string", format: "email", description: "Customer email" },
      },
    });
    expect(schema.required).toBeUndefined();
  });

  it("API integration: a defaulted enum is optional for the model", () => {
    const schema = inputSchema("get_weather");
    expect(schema.required).toEqual(["city"]);
    expect(schema.properties).toEqual({
      city: { type: "string", description: "City name" },
      units: { type: "string", enum: ["metric", "imperial"], default: "metric" },
    });
    expect(compileSchema("get_weather", "args", tool("get_weather").args).validate({ city: "Oslo" })).toEqual({
      ok: true,
      data: { city: "Oslo", units: "metric" },
    });
  });

  it("queue chaining and message injection: required enums and strings", () => {
    expect(inputSchema("process_order")).toMatchObject({
      required: ["orderId", "action"],
      properties: { action: { type: "string", enum: ["confirm", "cancel", "ship"] } },
    });
    expect(inputSchema("update_context")).toMatchObject({
      required: ["contextType", "dataJson"],
      properties: { contextType: { enum: ["user_info", "preferences", "history"] } },
    });
  });

  it("no-argument tool: no args schema at all", () => {
    expect(tool("get_server_time").args).toBeUndefined();
    expect(tool("get_server_time").description).toBe("Get the current server time in ISO format");
  });
});

describe("defineTool and defineAgent", () => {
  it("return a new plain object marked with its kind, calling and changing nothing", () => {
    const execute = vi.fn(async () => ({ status: "success" as const, result: "ok" }));
    const options = Object.freeze({ description: "Say ok", execute });
    const def = defineTool(options);
    expect(Object.getPrototypeOf(def)).toBe(Object.prototype);
    expect(def).toEqual({ description: "Say ok", execute, kind: "tool" });
    expect(def).not.toBe(options);
    expect(defineTool(options)).not.toBe(def);
    expect(execute).not.toHaveBeenCalled();
    expect(defineAgent({ system: "s" })).toEqual({ system: "s", kind: "agent" });
  });

  it("are what @standardagents/spec exports, so seed code runs unchanged", () => {
    expect(specDefineTool).toBe(defineTool);
    expect(specDefineAgent).toBe(defineAgent);
  });
});

describe("schema refusals and JSON Schema args", () => {
  it("refuses a Zod 3 schema with invalid_config and says why", () => {
    const error = thrown(() => compileSchema("legacy", "args", z3.object({ name: z3.string() }) as never));
    expect(error).toBeInstanceOf(WeftError);
    expect(error).toMatchObject({ code: "invalid_config", message: expect.stringContaining("is a Zod 3 schema; weft needs Zod 4") });
  });

  it("refuses args that are not an object schema", () => {
    expect(thrown(() => compileSchema("flat", "args", z.string()))).toMatchObject({ code: "invalid_config" });
    expect(thrown(() => compileSchema("list", "args", { type: "array" } as never))).toMatchObject({ code: "invalid_config" });
  });

  it("validates JSON Schema args: defaults applied, allowed extra keys kept, bad values named", () => {
    const schema = compileSchema("echo_json_schema", "args", tool("echo_json_schema").args);
    expect(schema.validate({ city: "Oslo", note: "extra" })).toEqual({
      ok: true,
      data: { city: "Oslo", days: 3, note: "extra" },
    });
    const tooLong = schema.validate({ city: "Oslo", days: 30 });
    expect(tooLong.ok).toBe(false);
    if (!tooLong.ok) expect(tooLong.issues.map((i) => i.path)).toEqual([["days"]]);
    const missing = schema.validate({});
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.issues[0]?.message).toMatch(/^city: /);
    expect(schema.jsonSchema).toMatchObject({ properties: { days: { type: "integer", default: 3 } }, required: ["city"] });
  });

  it("names the failing path of Zod args", () => {
    const result = compileSchema("person", "args", tool("person").args).validate({ name: "Ada", age: "x" });
    expect(result).toEqual({ ok: false, issues: [{ path: ["age"], message: "age: expected number, received string", keyword: "invalid_type" }] });
  });
});

describe("JSON Schema defaults", () => {
  it("does not apply a default its own schema refuses, and warns naming the tool and where it is", () => {
    const bad = { type: "object", properties: { years: { type: "integer", default: "5 years" } } } as const;
    const loan = compileSchema("loan", "args", bad);
    expect(loan.warnings).toEqual([expect.stringMatching(/^tool "loan": args properties\/years\/default is "5 years", which its own schema refuses .*it is not applied$/)]);
    expect(loan.validate({})).toEqual({ ok: true, data: {} });
    const nested = { type: "object", properties: { opts: { type: "object", properties: { on: { type: "boolean", default: "false" } } } } } as const;
    expect(compileSchema("t", "args", nested).warnings[0]).toMatch(/properties\/opts\/properties\/on\/default/);
    const good = { type: "object", properties: { years: { type: "integer", default: 5 } } } as const;
    expect(compileSchema("loan", "args", good).validate({})).toEqual({ ok: true, data: { years: 5 } });
  });
});
