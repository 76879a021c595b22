/**
 * Spans as OTLP/HTTP protobuf: the binary encoding of `ExportTraceServiceRequest` from the
 * OpenTelemetry protocol's definitions (opentelemetry-proto: collector/trace/v1/trace_service.proto,
 * trace/v1/trace.proto, common/v1/common.proto, resource/v1/resource.proto). Only the fields weft
 * sends are written, in field-number order; the tests decode it with those definitions.
 * @module
 */
import type { AttributeValue, Span } from "./span.js";

/** Protobuf wire types. */
const VARINT = 0;
const FIXED64 = 1;
const LEN = 2;

const utf8 = new TextEncoder();

/** Bytes of one message under construction; nested messages are built first, then written with their length. */
class Writer {
  private readonly parts: number[] = [];

  private varint(value: bigint): void {
    let v = BigInt.asUintN(64, value);
    while (v >= 0x80n) {
      this.parts.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.parts.push(Number(v));
  }

  private tag(field: number, wire: number): void {
    this.varint(BigInt((field << 3) | wire));
  }

  uint(field: number, value: number | bigint): this {
    this.tag(field, VARINT);
    this.varint(BigInt(value));
    return this;
  }

  fixed64(field: number, value: bigint): this {
    this.tag(field, FIXED64);
    let v = BigInt.asUintN(64, value);
    for (let i = 0; i < 8; i++, v >>= 8n) this.parts.push(Number(v & 0xffn));
    return this;
  }

  double(field: number, value: number): this {
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, value, true);
    return this.fixed64(field, view.getBigUint64(0, true));
  }

  bytes(field: number, value: Uint8Array | readonly number[]): this {
    this.tag(field, LEN);
    this.varint(BigInt(value.length));
    for (const b of value) this.parts.push(b);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, utf8.encode(value));
  }

  message(field: number, build: (w: Writer) => void): this {
    const inner = new Writer();
    build(inner);
    return this.bytes(field, inner.parts);
  }

  finish(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}

const hexBytes = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16));

/** `AnyValue`: string_value 1, bool_value 2, int_value 3, double_value 4, array_value 5 (`ArrayValue.values` 1). */
function anyValue(w: Writer, v: AttributeValue): void {
  if (Array.isArray(v)) w.message(5, (a) => v.forEach((s) => a.message(1, (x) => x.string(1, s))));
  else if (typeof v === "boolean") w.uint(2, v ? 1 : 0);
  else if (typeof v === "number") Number.isInteger(v) ? w.uint(3, BigInt(v)) : w.double(4, v);
  else w.string(1, v);
}

/** Repeated `KeyValue` (key 1, value 2) under `field`. */
function attributes(w: Writer, field: number, attrs: Record<string, AttributeValue>): void {
  for (const [key, value] of Object.entries(attrs)) w.message(field, (kv) => kv.string(1, key).message(2, (a) => anyValue(a, value)));
}

const nanos = (ms: number) => BigInt(Math.round(ms * 1000)) * 1000n;

/** Spans as one OTLP/HTTP protobuf request body (`application/x-protobuf`), under resource `service.name` = `weft`. */
export function otlpProtobuf(spans: readonly Span[], dropped = 0): Uint8Array {
  return new Writer()
    .message(1, (resourceSpans) =>
      resourceSpans
        // Resource.attributes 1
        .message(1, (resource) => attributes(resource, 1, { "service.name": "weft", ...(dropped > 0 ? { "weft.spans_dropped": dropped } : {}) }))
        // ScopeSpans: scope 1 (InstrumentationScope.name 1), spans 2
        .message(2, (scopeSpans) => {
          scopeSpans.message(1, (scope) => scope.string(1, "weft"));
          for (const s of spans) scopeSpans.message(2, (span) => writeSpan(span, s));
        }),
    )
    .finish();
}

/** `Span`: trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6, start 7, end 8, attributes 9, status 15 (`Status.code` 3). */
function writeSpan(w: Writer, s: Span): void {
  w.bytes(1, hexBytes(s.traceId)).bytes(2, hexBytes(s.spanId));
  if (s.parentSpanId) w.bytes(4, hexBytes(s.parentSpanId));
  w.string(5, s.name).uint(6, s.kind).fixed64(7, nanos(s.startMs)).fixed64(8, nanos(s.endMs));
  attributes(w, 9, s.attributes);
  w.message(15, (status) => {
    if (s.status !== 0) status.uint(3, s.status);
  });
}
