/**
 * A finished span as weft's tracer makes it (tracer.ts) and its exporter encodes it (otlp.ts,
 * otlp-protobuf.ts).
 * @module
 */

/** An attribute value: text, a whole number, a boolean, or a list of texts. */
export type AttributeValue = string | number | boolean | string[];

/** One finished span. Times are epoch milliseconds; ids are lowercase hex (trace 32, span 16 digits). */
export interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP `SpanKind`: 1 internal, 3 client. */
  kind: 1 | 3;
  startMs: number;
  endMs: number;
  attributes: Record<string, AttributeValue>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  status: 0 | 1 | 2;
}
