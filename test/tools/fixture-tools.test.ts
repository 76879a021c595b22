/**
 * The fixture tools do what their files say, run directly against an in-memory
 * ThreadState (args parsed as dispatch parses them). End-to-end runs through threads live with
 * the runtime's own suites.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ThreadState, ToolCallContext, ToolResult } from "../../src/index.js";
import { registry } from "../generated/registry.js";
import { fakeState, runTool } from "../run-tool.js";

const run = (name: string, state: ThreadState, args?: Record<string, unknown>, call?: Partial<ToolCallContext>): Promise<ToolResult> =>
  runTool(registry, name, state, args, call);

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the Standard Agents tools API's complete examples", () => {
  it("database query finds customers by id or email and reports the rest", async () => {
    const { state } = fakeState({ DATABASE_URL: "postgres://db.example/customers" });
    const byId = await run("lookup_customer", state, { customerId: "c_100" });
    expect(byId.status).toBe("success");
    expect(JSON.parse(byId.result ?? "")).toMatchObject({ name: "Ada Lovelace" });
    expect(await run("lookup_customer", state, { email: "grace@example.com" })).toMatchObject({ status: "success" });
    expect(await run("lookup_customer", state, {})).toEqual({ status: "error", error: "Either customerId or email is required" });
    expect(await run("lookup_customer", state, { customerId: "c_999" })).toEqual({ status: "error", error: "Customer not found" });
  });

  it("API integration calls the weather API with the defaulted units", async () => {
    const fetch = vi.spyOn(globalThis, "fetch").mockResolvedValue(Response.json({ temperature: 5, conditions: "cloudy" }));
    const { state } = fakeState({ WEATHER_API_KEY: "k" });
    expect(await run("get_weather", state, { city: "Oslo" })).toEqual({ status: "success", result: "Weather in Oslo: 5°, cloudy" });
    expect(String(fetch.mock.calls[0]?.[0])).toContain("city=Oslo&units=metric&key=k");
    fetch.mockResolvedValue(new Response("", { status: 503 }));
    expect(await run("get_weather", state, { city: "Oslo" })).toEqual({ status: "error", error: "Weather API error: 503" });
  });

  it("queue chaining queues send_notification for the order's customer", async () => {
    const { state, queued } = fakeState();
    expect(await run("process_order", state, { orderId: "o1", action: "ship" })).toEqual({
      status: "success",
      result: "Order o1 shiped successfully",
    });
    expect(queued).toEqual([["send_notification", { customerId: "cust_o1", message: "Order o1 has been shiped" }]]);
    const { state: next, kv } = fakeState();
    await run("send_notification", next, queued[0]?.[1]);
    expect(kv.get("notification:cust_o1")).toBe("Order o1 has been shiped");
  });

  it("message injection stores the context and injects a system message", async () => {
    const { state, kv, injected } = fakeState();
    await run("update_context", state, { contextType: "preferences", dataJson: '{"units":"metric"}' });
    expect(kv.get("context:preferences")).toEqual({ units: "metric" });
    expect(injected).toEqual([{ role: "system", content: 'Updated preferences: {"units":"metric"}', silent: false }]);
  });

  it("no-argument tool returns an ISO-8601 time", async () => {
    const result = await run("get_server_time", fakeState().state);
    expect(new Date(result.result ?? "").toISOString()).toBe(result.result);
  });
});

describe("purpose-named fixtures", () => {
  it("throws_error throws exactly the value asked for", async () => {
    const { state } = fakeState();
    await expect(run("throws_error", state, { kind: "error" })).rejects.toThrow(new Error("card declined"));
    await expect(run("throws_error", state, { kind: "string" })).rejects.toBe("x");
    await expect(run("throws_error", state, { kind: "object" })).rejects.toEqual({ code: 7 });
    await expect(run("throws_error", state, { kind: "undefined" })).rejects.toBeUndefined();
  });

  it("person and echo_json_schema echo their parsed args", async () => {
    const { state } = fakeState();
    expect(await run("person", state, { name: "Ada", age: 36 })).toEqual({ status: "success", result: '{"name":"Ada","age":36}' });
    const echoed = await run("echo_json_schema", state, { city: "Oslo", extra: true });
    expect(JSON.parse(echoed.result ?? "")).toEqual({ city: "Oslo", days: 3, extra: true });
  });

  it("record_call counts runs per call id and echoes its args", async () => {
    const { state, kv } = fakeState();
    expect(await run("record_call", state, { a: 1 }, { callId: "c7" })).toEqual({ status: "success", result: '{"a":1}' });
    await run("record_call", state, {}, { callId: "c7" });
    await run("record_call", state, {}, { callId: "c8" });
    expect([kv.get("count:c7"), kv.get("count:c8")]).toEqual([2, 1]);
  });

  it("queue_two queues throws_error then record_call, both declared in uses", async () => {
    const { state, queued } = fakeState();
    await run("queue_two", state);
    expect(queued.map(([name]) => name)).toEqual(["throws_error", "record_call"]);
    expect(registry.tools.queue_two?.uses).toEqual(["throws_error", "record_call"]);
  });

  it("slow_read waits, and stops early when the call is aborted", async () => {
    const { state } = fakeState();
    const started = Date.now();
    expect(await run("slow_read", state, { ms: 30 })).toEqual({ status: "success", result: "waited 30ms" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    const abort = new AbortController();
    const pending = run("slow_read", state, { ms: 60_000 }, { signal: abort.signal });
    abort.abort();
    await expect(pending).rejects.toThrow("aborted while waiting 60000ms");
  });
});
