/**
 * A slow or hung collector holds a bounded number of export requests: at most
 * MAX_EXPORTS_IN_FLIGHT open, the spans finished meanwhile waiting in the bounded buffer (more are
 * dropped and counted), and each request abandoned after EXPORT_TIMEOUT_MS. Found by a hostile
 * review: 5,000 turns against a collector that never answered held 5,000 requests and 5.2 MB of
 * bodies, and fetch had no deadline (each one also held one of a Worker's few outgoing connections).
 */
import { afterEach, expect, it, vi } from "vitest";
import { MAX_BUFFERED_SPANS, MAX_EXPORTS_IN_FLIGHT, OtlpExporter, type OtlpBody } from "../../src/usage/otlp.js";
import type { Span } from "../../src/usage/span.js";
import { threadTracerOf } from "../../src/usage/tracer.js";

const span = (i: number): Span => ({
  traceId: `${"0".repeat(31)}1`,
  spanId: i.toString(16).padStart(16, "0"),
  name: "invoke_agent x",
  kind: 1,
  startMs: 1,
  endMs: 2,
  attributes: { "weft.turn.id": `turn_${i}` },
  status: 1,
});

afterEach(() => vi.unstubAllGlobals());

it("a collector that never answers holds at most MAX_EXPORTS_IN_FLIGHT requests; the rest wait, bounded, and go once one ends", async () => {
  const open: Array<() => void> = [];
  const spansSent: number[] = [];
  const slow = (_url: string, body: OtlpBody) => {
    spansSent.push((body.body as Uint8Array).byteLength);
    return new Promise<void>((resolve) => open.push(resolve));
  };
  const exporter = new OtlpExporter("http://collector.test/v1/traces", slow, "http/protobuf", 0);
  for (let turn = 0; turn < 5000; turn++) {
    for (let s = 0; s < 10; s++) exporter.add(span(turn * 10 + s));
    exporter.soon();
  }
  expect(open).toHaveLength(MAX_EXPORTS_IN_FLIGHT);
  // The buffer kept what it holds and counted the rest.
  expect(exporter.dropped).toBe(5000 * 10 - MAX_EXPORTS_IN_FLIGHT * 10 - MAX_BUFFERED_SPANS);
  // One answer frees a request: the waiting spans go in the next.
  open.shift()!();
  await vi.waitFor(() => expect(open).toHaveLength(MAX_EXPORTS_IN_FLIGHT));
  expect(spansSent).toHaveLength(MAX_EXPORTS_IN_FLIGHT + 1);
  expect(exporter.dropped).toBe(0);
});

it("the collector request has a deadline", () => {
  const inits: Array<RequestInit | undefined> = [];
  vi.stubGlobal("fetch", (_input: unknown, init?: RequestInit) => {
    inits.push(init);
    return new Promise<Response>(() => {});
  });
  const tracer = threadTracerOf({ threadId: "t", agentId: "a", userId: "u" }, { WEFT_OTLP_URL: "http://collector.test/v1/traces", WEFT_OTLP_DELAY_MS: "0" });
  tracer!.exporter.add(span(1));
  void tracer!.exporter.flush();
  expect(inits).toHaveLength(1);
  expect(inits[0]?.signal).toBeInstanceOf(AbortSignal);
});
