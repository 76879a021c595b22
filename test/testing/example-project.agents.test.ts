/**
 * The smoke test of your project's agents/ folder: whatever it holds, each file keeps the contract
 * it declares. Every tool is served by `GET /v1/tools` with a description and an object input
 * schema; every agent, prompt and hook passes the checks the registry build runs
 * (`defineAgent`, `definePrompt`, `defineHook`), and every name an agent or prompt offers is a tool,
 * a prompt, an agent exposed as a tool or a remote MCP server's (the build's own reference rules); every agent gets a
 * thread. It reads the registry `npm run build` generates from agents/, so it grows with the
 * folder; it runs with your own tests (`npm run test:agents`), while weft's own suites use
 * test/fixtures/ instead.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { checkAgentDefinition } from "../../src/run/agent.js";
import { checkHookDefinition } from "../../src/run/hooks.js";
import { checkPromptDefinition } from "../../src/run/prompt.js";
import { checkReferences } from "../../src/run/references.js";
import { registry } from "../../src/generated/registry.js";

// The Worker npm start serves (vitest.agents.config.ts: wrangler.toml, no credentials needed).
const worker = (exports as unknown as { default: Fetcher }).default;
const ask = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
  const init = body === undefined ? { method } : { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  const res = await worker.fetch(new Request(`http://localhost${path}`, init));
  return { status: res.status, body: await res.json() };
};
const listing = ask("GET", "/v1/tools") as Promise<{ status: number; body: { tools: Array<{ name: string; description: string; inputSchema: any }> } }>;

const tools = Object.keys(registry.tools);
const agents = Object.entries(registry.agents);
const prompts = Object.entries(registry.prompts ?? {});
const hooks = Object.entries(registry.hooks ?? {});

describe("agents/tools/", () => {
  it("holds at least one tool", () => {
    expect(tools.length).toBeGreaterThan(0);
  });

  it.each(tools)("%s is listed by GET /v1/tools with its description and an object input schema", async (name) => {
    const listed = (await listing).body.tools.find((t) => t.name === name);
    expect(listed, `${name} is missing from GET /v1/tools: its definition did not compile`).toBeDefined();
    expect(listed!.description.length).toBeGreaterThan(0);
    expect(listed!.inputSchema).toMatchObject({ type: "object" });
  });
});

describe("names agents and prompts offer", () => {
  it("are each a tool, a prompt or an agent exposed as a tool (the build's reference rules)", () => {
    const problems = checkReferences({ tools, prompts: registry.prompts ?? {}, agents: registry.agents, mcpServers: registry.mcpServers ?? {}, toolsWhere: "agents/tools/" });
    expect(problems.map((p) => p.message)).toEqual([]);
  });
});

describe.skipIf(agents.length === 0)("agents/agents/", () => {
  it.each(agents)("%s is a valid defineAgent and gets a thread", async (id, agent) => {
    expect(() => checkAgentDefinition(id, agent)).not.toThrow();
    const created = await ask("POST", "/threads", { agent: id });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.agentId).toBe(id);
  });
});

describe.skipIf(prompts.length === 0)("agents/prompts/", () => {
  it.each(prompts)("%s is a valid definePrompt", (name, prompt) => {
    expect(() => checkPromptDefinition(name, prompt)).not.toThrow();
  });
});

describe.skipIf(hooks.length === 0)("agents/hooks/", () => {
  it.each(hooks)("%s is a valid defineHook", (name, hook) => {
    expect(() => checkHookDefinition(name, hook)).not.toThrow();
  });
});
