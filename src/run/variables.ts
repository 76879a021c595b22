/**
 * Required variables: a tool that lists `variables` with `required: true` needs each of them to
 * resolve (any level of env resolution) before a thread that may call the tool is created.
 * @module
 */
import { WeftError } from "../errors.js";
import { type Registry, type ResolvedSide, findAgent, findPrompt } from "./agent.js";
import type { ToolCatalog } from "../tools/catalog.js";
import type { AnyToolDefinition } from "../tools/types.js";
import { type EnvSources, resolveEnv } from "../secrets/env.js";

/**
 * Every tool definition a thread of these sides may reach: the sides' tools (all tools when a
 * side lists none), through prompts and exposed agents they offer (their tools run in this thread
 * or a child, and a child is created with the same environment), plus the catalog's dynamic tools.
 */
export function reachableTools(registry: Registry, sides: readonly ResolvedSide[], catalog: ToolCatalog): Map<string, AnyToolDefinition> {
  const out = new Map<string, AnyToolDefinition>();
  const seen = new Set<string>();
  const visit = (names: readonly string[] | undefined) => {
    for (const name of names ?? Object.keys(registry.tools)) {
      if (seen.has(name)) continue;
      seen.add(name);
      if (Object.hasOwn(registry.tools, name)) out.set(name, registry.tools[name]!);
      const prompt = findPrompt(registry, name);
      if (prompt) visit(prompt.tools);
      const agent = Object.hasOwn(registry.agents, name) ? findAgent(registry, name) : undefined;
      if (agent?.exposeAsTool) {
        for (const raw of [agent.sideA, agent.sideB]) {
          if (raw !== undefined) visit(findPrompt(registry, typeof raw === "string" ? raw : raw.prompt)?.tools);
        }
        if (agent.sideA === undefined) visit(agent.tools);
      }
    }
  };
  for (const side of sides) visit(side.tools);
  for (const name of catalog.names()) {
    if (!out.has(name)) {
      try {
        out.set(name, catalog.get(name).def);
      } catch {
        // A broken dynamic tool is refused when called; it declares nothing usable here.
      }
    }
  }
  return out;
}

/**
 * Checks that every required variable of the reachable tools resolves.
 * @throws WeftError `missing_variables` (400) listing each missing name with the tools needing it;
 *   `details.path` points at the first under `env` of the create request.
 */
export async function checkRequiredVariables(tools: Map<string, AnyToolDefinition>, sources: EnvSources): Promise<void> {
  const missing = new Map<string, string[]>();
  for (const [toolName, def] of [...tools].sort(([a], [b]) => (a < b ? -1 : 1))) {
    for (const v of def.variables ?? []) {
      if (v.required !== true || typeof v.name !== "string") continue;
      if (missing.has(v.name)) {
        missing.get(v.name)!.push(toolName);
        continue;
      }
      if (!(await resolveEnv(sources, v.name))) missing.set(v.name, [toolName]);
    }
  }
  if (missing.size === 0) return;
  const list = [...missing].map(([name, byTools]) => ({ name, tools: byTools }));
  const text = list.map((m) => `${m.name} (needed by ${m.tools.map((t) => `"${t}"`).join(", ")})`).join(", ");
  throw new WeftError("missing_variables", `required variables are not set: ${text}; pass them in env when creating the thread, or set them on the Worker`, {
    missing: list,
    path: ["env", list[0]!.name],
  });
}
