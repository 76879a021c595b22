/**
 * the Standard Agents tools API's "Complete Examples", copied unchanged into test/fixtures/tools/, run through real
 * thread turns with the scripted model.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createThread, inThread, json, runTurn } from "../helpers.js";

type Call = { toolName: string; source: string; status: string; result: { status: string; result?: string; error?: string } };

async function turn(body: Record<string, unknown>, calls: Array<{ name: string; arguments: unknown }>) {
  const id = await createThread({ agent: "seed_examples", ...body });
  await runTurn(id, "please", [{ toolCalls: calls }, { text: "done" }]);
  const recorded = (await json<{ calls: Call[] }>("GET", `/threads/${id}/calls`)).body.calls;
  return { id, calls: recorded };
}

afterEach(() => vi.restoreAllMocks());

describe("the Standard Agents tools API's complete examples", () => {
  it("database query: reads DATABASE_URL from env and finds a customer, or says why not", async () => {
    const { calls } = await turn({ env: { DATABASE_URL: "postgres://db" } }, [
      { name: "lookup_customer", arguments: { email: "ada@example.com" } },
      { name: "lookup_customer", arguments: {} },
      { name: "lookup_customer", arguments: { email: "not-an-email" } },
    ]);
    expect(JSON.parse(calls[0]!.result.result!)).toMatchObject({ customerId: "c_100", name: "Ada Lovelace" });
    expect(calls[1]!.result.error).toBe("Either customerId or email is required");
    expect(calls[2]!.result.error).toMatch(/^invalid_tool_input: email: /);
  });

  it("API integration: applies the units default and reports the API's answer", async () => {
    const seen: string[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input) => {
      seen.push(String(input instanceof Request ? input.url : input));
      return Response.json({ temperature: 21, conditions: "sunny" });
    });
    const { calls } = await turn({ env: { WEATHER_API_KEY: "k-1" } }, [{ name: "get_weather", arguments: { city: "Lisbon" } }]);
    expect(calls[0]!.result.result).toBe("Weather in Lisbon: 21°, sunny");
    expect(seen[0]).toBe("https://api.weather.com/v1/current?city=Lisbon&units=metric&key=k-1");
  });

  it("queue chaining: the queued send_notification runs after process_order", async () => {
    const { id, calls } = await turn({}, [{ name: "process_order", arguments: { orderId: "42", action: "ship" } }]);
    expect(calls.map((c) => `${c.toolName}:${c.source}:${c.status}`)).toEqual([
      "process_order:model:succeeded",
      "send_notification:queue:succeeded",
    ]);
    const note = await inThread(id, (i: any) => i.store.kv.get("notification:cust_42"));
    // The seed builds the past tense as `${action}ed`, so "ship" reads "shiped"; the example runs unchanged.
    expect(note).toBe("Order 42 has been shiped");
  });

  it("message injection: stores the context and injects a system message", async () => {
    const { id, calls } = await turn({}, [
      { name: "update_context", arguments: { contextType: "preferences", dataJson: '{"lang":"pt"}' } },
    ]);
    expect(calls[0]!.result.result).toBe("Context updated: preferences");
    const stored = await inThread(id, (i: any) => i.store.kv.get("context:preferences"));
    expect(stored).toEqual({ lang: "pt" });
    const messages = (await json("GET", `/threads/${id}/messages?limit=50`)).body.messages;
    expect(messages.some((m: { role: string; content: string }) => m.role === "system" && m.content === 'Updated preferences: {"lang":"pt"}')).toBe(
      true,
    );
  });

  it("no-argument tool: returns an ISO time, and refuses arguments it does not take", async () => {
    const { calls } = await turn({}, [
      { name: "get_server_time", arguments: {} },
      { name: "get_server_time", arguments: { zone: "UTC" } },
    ]);
    expect(new Date(calls[0]!.result.result!).toISOString()).toBe(calls[0]!.result.result);
    expect(calls[1]!.result.error).toBe("invalid_tool_input: zone: this tool takes no arguments");
  });
});
