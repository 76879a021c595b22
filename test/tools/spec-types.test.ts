// The Standard Agents tools API's type names, importable from the package alias as its examples import them.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "@standardagents/spec";
import type { ThreadState, Tool, ToolArgsNode, ToolArgsRawShape } from "@standardagents/spec";

const shape = { orderId: z.string(), limit: z.number().optional().default(10) } satisfies ToolArgsRawShape;
const args = z.object(shape);
const node: ToolArgsNode = z.enum(["metric", "imperial"]).default("metric");

const lookup: Tool<ThreadState, typeof args> = async (_state, a) => ({ status: "success", result: `${a.orderId}:${a.limit}` });
const now: Tool = async () => ({ status: "success", result: "now" });

describe("the tools API's type names", () => {
  it("type a tool body that defineTool takes as execute, with and without args", () => {
    expect(defineTool({ description: "Look up an order", args, execute: lookup }).kind).toBe("tool");
    expect(defineTool({ description: "The time", execute: now }).kind).toBe("tool");
    expect(node.parse(undefined)).toBe("metric");
  });
});
