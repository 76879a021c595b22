/**
 * Reads the local OTLP receiver of the test worker (scripts/lib/fake-otlp.mjs, wired in
 * vitest.config.ts at `http://otlp.test/v1/traces`): the exports it decoded with the OpenTelemetry
 * protocol's definitions.
 */
import { until } from "../helpers.js";

/** An attribute value as the receiver decoded it. */
export type Value = string | number | boolean | Array<string | number | boolean>;

/** One span as the receiver decoded it: ids lowercase hex ("" when absent), times decimal nanoseconds. */
export interface DecodedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, Value>;
  status: { code: number };
}

/** One export request as the receiver decoded it. */
export interface DecodedExport {
  contentType: string;
  resource: Record<string, Value>;
  spans: DecodedSpan[];
  /** The attribute keys some span of it sent as a `double_value` (`attributes` reads numbers alike whichever type came). */
  doubles: string[];
  error?: string;
}

/** The exports holding a span of thread `threadId` (by its `weft.thread.id`), oldest first. */
export async function exportsOf(threadId: string): Promise<DecodedExport[]> {
  return (await fetch(`http://otlp.test/__otlp/exports?thread=${encodeURIComponent(threadId)}`)).json();
}

/** Exports the receiver could not decode (none, unless weft sent a malformed body). */
export async function undecodable(): Promise<DecodedExport[]> {
  return (await fetch("http://otlp.test/__otlp/errors")).json();
}

/** Thread `threadId`'s exports once one holds its turn's `invoke_agent` span (they are sent without the turn waiting). */
export async function turnExports(threadId: string): Promise<DecodedExport[]> {
  let exports: DecodedExport[] = [];
  await until(async () => (exports = await exportsOf(threadId)).some((e) => e.spans.some((s) => s.name.startsWith("invoke_agent "))), `the trace of thread ${threadId}`);
  return exports;
}
