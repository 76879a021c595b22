/**
 * A finished span as weft's tracer makes it (tracer.ts) and its exporter encodes it (otlp.ts,
 * otlp-protobuf.ts).
 * @module
 */

/**
 * A number sent as OTLP's `double_value` whatever its value. A plain number goes as an
 * `int_value` when whole, so an attribute that is sometimes whole (a cost of 0) would change type
 * between spans, which collectors keying columns by type split or refuse.
 */
export class Double {
  constructor(readonly value: number) {}
}

/** An attribute value: text, a number (`int_value` when whole, else `double_value`), a {@link Double}, a boolean, or a list of texts. */
export type AttributeValue = string | number | Double | boolean | string[];

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
