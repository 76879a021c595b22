/**
 * A server a user adds (`POST /mcp-servers`) chooses both a tool's outputSchema and the value
 * checked against it (hostile review of the outputSchema check): the schema's cost is bounded
 * when it is compiled, every failure it reports is bounded, and a declared header's value the
 * server says back is redacted however deep it nests. Servers: hostile.mcp.test and
 * leakydeep.mcp.test (scripts/lib/fake-mcp-schemas.mjs).
 */
import { afterEach, describe, expect, it } from "vitest";
import { MAX_ISSUES } from "../../src/tools/json-schema/compile.js";
import { callsOf, createThread, json, runTurn } from "../helpers.js";

type As = "tester" | "alice" | "bob";
type Problem = { server: string; tool?: string; code: string; reason: string };

const added: Array<[string, As]> = [];
afterEach(async () => {
  for (const [name, as] of added.splice(0)) await json("DELETE", `/mcp-servers/${name}`, undefined, as);
});

async function addServer(name: string, query: string, as: As = "tester"): Promise<void> {
  expect((await json("POST", "/mcp-servers", { name, url: `https://hostile.mcp.test/mcp?${query}` }, as)).status).toBe(200);
  added.push([name, as]);
}

/** One model step calling `<server>__t` in a new thread; its call record. */
async function callOnce(server: string) {
  const id = await createThread({ agent: "stepper" });
  await runTurn(id, "go", [{ toolCalls: [{ id: "h", name: `${server}__t`, arguments: { tag: crypto.randomUUID() } }] }, { text: "done" }]);
  return { id, call: (await callsOf(id))[0] as Record<string, any> | undefined };
}

const problemsOf = async (as: As, server: string) =>
  ((await json<{ remote: { problems: Problem[] } }>("GET", "/v1/tools", undefined, as)).body.remote.problems ?? []).filter((p) => p.server === server);

describe("a hostile server's outputSchema", () => {
  it("$dynamicAnchor scopes that would link exponentially many subschemas: refused at compile, the tool offered unchecked, the reason said", async () => {
    await addServer("hdyn", "mode=dyn&k=13", "alice");
    const problems = await problemsOf("alice", "hdyn");
    expect(problems).toEqual([expect.objectContaining({ tool: "t", code: "mcp_protocol_error", reason: expect.stringContaining("links to more than") })]);
    // Another user's listing is not that server's, and answers.
    expect(await problemsOf("bob", "hdyn")).toEqual([]);
  });

  it("an allOf chain that applies a $ref millions of times to one value: refused at compile, the call runs unchecked", async () => {
    await addServer("hdag", "mode=dag&n=22");
    expect(await problemsOf("tester", "hdag")).toEqual([expect.objectContaining({ tool: "t", reason: expect.stringContaining("subschemas to it through $ref") })]);
    const { call } = await callOnce("hdag");
    expect(call).toMatchObject({ status: "succeeded" });
  });

  it("a 5,000-value enum failed by 1,000 properties: invalid_tool_output with bounded issues, nothing large stored", async () => {
    await addServer("henum", "mode=enum&e=5000&p=1000");
    const { id, call } = await callOnce("henum");
    expect(call).toMatchObject({ status: "failed", errorCode: "invalid_tool_output" });
    const issues = call!.errorDetails.issues as Array<{ message: string }>;
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.length).toBeLessThanOrEqual(MAX_ISSUES);
    // A long enum is quoted by its start and its size.
    for (const i of issues) expect(i.message.length).toBeLessThan(400);
    expect(JSON.stringify(call).length).toBeLessThan(100_000);
    const files = (await json<{ files: Array<{ size: number }> }>("GET", `/threads/${id}/files`)).body.files;
    expect(files.reduce((n, f) => n + f.size, 0)).toBeLessThan(100_000);
  });

  it("a refused outputSchema's reason is cut, however long the schema it quotes", async () => {
    await addServer("hbadpat", "mode=badpattern&n=60000");
    const [problem] = await problemsOf("tester", "hbadpat");
    expect(problem!.reason).toContain("pattern");
    expect(problem!.reason.length).toBeLessThanOrEqual(1003);
  });
});

describe("a declared header said back deep in structuredContent", () => {
  const KEY = "hdr-key-deep-7c41d09b";

  it("is redacted from the result of a tool with an outputSchema", async () => {
    const id = await createThread({ agent: "hostile_deep" });
    await runTurn(id, "go", [{ toolCalls: [{ id: "d", name: "leakydeep__deep", arguments: {} }] }, { text: "done" }]);
    const calls = await callsOf(id);
    expect(calls[0]).toMatchObject({ status: "succeeded" });
    expect(JSON.stringify(calls)).toContain("[redacted");
    expect(JSON.stringify(calls)).not.toContain(KEY);
    expect(JSON.stringify((await json("GET", `/threads/${id}/messages`)).body)).not.toContain(KEY);
  });

  it("is redacted from the result of a tool without one that answers no text", async () => {
    const id = await createThread({ agent: "hostile_deep" });
    await runTurn(id, "go", [{ toolCalls: [{ id: "b", name: "leakydeep__bare", arguments: {} }] }, { text: "done" }]);
    expect(JSON.stringify(await callsOf(id))).not.toContain(KEY);
  });
});
