/**
 * Cross-file rules of an authoring folder: names that agents and prompts refer to must exist,
 * and the tools, prompts and exposed agents a model can call share one namespace. The build runs
 * these on the evaluated modules; nothing here touches a file.
 * @module
 */
import { type ModelSettings, namedToolChoice } from "../models/settings.js";
import type { AgentDefinition } from "./agent.js";
import type { PromptDefinition } from "./prompt.js";
import { type McpServerDefinition, remoteReference } from "../remote/define.js";
import { nearNames } from "../near-names.js";

/** `; did you mean "a", "b"?` naming the callable names near a mistyped one, or nothing. */
const didYouMean = (target: string, known: Iterable<string>) => {
  const near = nearNames(target, known, 3);
  return near.length ? `; did you mean ${near.map((n) => `"${n}"`).join(", ")}?` : "";
};

/** The definitions a registry will hold, by name. */
export interface ReferenceInput {
  tools: readonly string[];
  prompts: Readonly<Record<string, PromptDefinition>>;
  agents: Readonly<Record<string, AgentDefinition>>;
  /** Remote MCP servers (`agents/mcp/`), whose tools are listed as `<server>.<tool>` or `<server>`. */
  mcpServers?: Readonly<Record<string, McpServerDefinition>>;
  /** How to name the tools folder(s) in messages, for example `agents/tools/`. */
  toolsWhere: string;
}

/** A rule broken by the definition `kind` `name`. */
export interface ReferenceProblem {
  kind: "prompt" | "agent";
  name: string;
  message: string;
}

/**
 * Every name a model can call: tools, prompts (through `toolDescription`) and agents with
 * `exposeAsTool`.
 */
export function callableNames(input: Pick<ReferenceInput, "tools" | "prompts" | "agents">): Set<string> {
  const exposed = Object.entries(input.agents).filter(([, a]) => a.exposeAsTool === true).map(([n]) => n);
  return new Set([...input.tools, ...Object.keys(input.prompts), ...exposed]);
}

/** Whether `name` is a remote tool reference its server's allow-list permits. */
function remoteAllowed(name: string, servers: Readonly<Record<string, McpServerDefinition>>): boolean {
  const ref = remoteReference(name, servers);
  if (!ref) return false;
  const allow = servers[ref.server]!.tools;
  return ref.tool === null || (ref.tool !== "" && (allow === undefined || allow.includes(ref.tool)));
}

/** Checks every reference; returns the problems, sorted by kind and name. */
export function checkReferences(input: ReferenceInput): ReferenceProblem[] {
  const problems: ReferenceProblem[] = [];
  const tools = new Set(input.tools);
  const local = callableNames(input);
  const servers = input.mcpServers ?? {};
  // A remote tool is `<server>.<tool>` (within the server's allow-list) or a whole `<server>`.
  const callable = { has: (t: string) => local.has(t) || remoteAllowed(t, servers) };
  const unknown = (kind: ReferenceProblem["kind"], name: string, field: string, target: string) =>
    problems.push({
      kind,
      name,
      message: `${kind} "${name}": ${field} lists "${target}", which is not a tool in ${input.toolsWhere}, a prompt, or an agent exposed as a tool${didYouMean(target, local)}`,
    });

  // A tool choice names a tool its side offers (its own `tools`, or every tool when it lists none).
  const unoffered = (kind: ReferenceProblem["kind"], name: string, def: { tools?: readonly string[]; modelSettings?: ModelSettings }) => {
    const chosen = namedToolChoice(def.modelSettings);
    if (chosen !== undefined && !(def.tools ? def.tools.includes(chosen) : tools.has(chosen))) {
      problems.push({ kind, name, message: `${kind} "${name}": modelSettings.toolChoice names "${chosen}", which its tools do not offer` });
    }
  };

  for (const [name, prompt] of Object.entries(input.prompts)) {
    unoffered("prompt", name, prompt);
    if (tools.has(name)) problems.push({ kind: "prompt", name, message: `prompt "${name}": a tool has the same name; callable names must be unique` });
    for (const t of prompt.tools ?? []) {
      if (t === name) problems.push({ kind: "prompt", name, message: `prompt "${name}": tools lists the prompt itself` });
      else if (!callable.has(t)) unknown("prompt", name, "tools", t);
    }
  }
  for (const [name, agent] of Object.entries(input.agents)) {
    if (agent.exposeAsTool === true && (tools.has(name) || Object.hasOwn(input.prompts, name))) {
      problems.push({ kind: "agent", name, message: `agent "${name}": exposeAsTool, but a tool or prompt has the same name; callable names must be unique` });
    }
    for (const t of agent.tools ?? []) if (!callable.has(t)) unknown("agent", name, "tools", t);
    unoffered("agent", name, agent);
    for (const key of ["sideA", "sideB"] as const) {
      const raw = agent[key];
      if (raw === undefined) continue;
      const side = typeof raw === "string" ? { prompt: raw } : raw;
      const prompt = Object.hasOwn(input.prompts, side.prompt) ? input.prompts[side.prompt] : undefined;
      if (!prompt) {
        problems.push({ kind: "agent", name, message: `agent "${name}": ${key} names prompt "${side.prompt}", which is not in prompts/` });
        continue;
      }
      const stopTool = typeof raw === "string" ? undefined : raw.stopTool;
      const offered = prompt.tools ? new Set(prompt.tools) : tools;
      if (stopTool !== undefined && !offered.has(stopTool)) {
        problems.push({ kind: "agent", name, message: `agent "${name}": ${key}.stopTool "${stopTool}" is not offered by prompt "${side.prompt}"` });
      }
    }
  }
  for (const server of Object.keys(servers)) {
    if (local.has(server)) problems.push({ kind: "agent", name: server, message: `mcp server "${server}": a tool, prompt or exposed agent has the same name; callable names must be unique` });
  }
  return problems.sort((a, b) => (a.kind + a.name < b.kind + b.name ? -1 : a.kind + a.name > b.kind + b.name ? 1 : 0));
}
