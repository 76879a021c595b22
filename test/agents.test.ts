/**
 * The smoke test of your project's agents/ folder: whatever tools and agents it holds, each tool
 * is served by `GET /v1/tools` with an object input schema, and each agent offers only tools that
 * exist. It reads the registry `npm run build` generates from agents/, so it grows with the folder
 * and stays green as tools are added; weft's own suites use test/fixtures/ instead.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createWeft } from "../src/runtime.js";
import { registry } from "../src/generated/registry.js";
import { API_KEYS } from "./helpers.js";

const weft = createWeft(registry);
const listing = (async () => {
  const req = new Request("http://weft.test/v1/tools", { headers: { authorization: `Bearer ${API_KEYS.tester}` } });
  const res = await weft.worker.fetch(req, env as never);
  return (await res.json()) as { tools: Array<{ name: string; description: string; inputSchema: any }> };
})();

const tools = Object.keys(registry.tools);
const agents = Object.entries(registry.agents);

describe("agents/tools/", () => {
  it("holds at least one tool", () => {
    expect(tools.length).toBeGreaterThan(0);
  });

  it.each(tools)("%s is listed by GET /v1/tools with its description and an object input schema", async (name) => {
    const listed = (await listing).tools.find((t) => t.name === name);
    expect(listed, `${name} is missing from GET /v1/tools: its definition did not compile`).toBeDefined();
    expect(listed!.description.length).toBeGreaterThan(0);
    expect(listed!.inputSchema).toMatchObject({ type: "object" });
  });
});

describe.skipIf(agents.length === 0)("agents/agents/", () => {
  it.each(agents)("%s offers only tools that exist in agents/tools/", (_id, agent) => {
    for (const tool of agent.tools ?? []) expect(tools).toContain(tool);
  });
});
