/**
 * Spans as OTLP/HTTP protobuf: the binary encoding of `ExportTraceServiceRequest` from the
 * OpenTelemetry protocol's definitions (opentelemetry-proto: collector/trace/v1/trace_service.proto,
 * trace/v1/trace.proto, common/v1/common.proto, resource/v1/resource.proto). Only the fields weft
 * sends are written, in field-number order; the tests decode it with those definitions.
 * @module
 */
import { type AttributeValue, Double, type Span } from "./span.js";

/** Protobuf wire types. */
const VARINT = 0;
const FIXED64 = 1;
const LEN = 2;

const utf8 = new TextEncoder();

/** Scratch for a double's bits. */
const float = new Float64Array(1);
const floatWords = new Uint32Array(float.buffer);

/**
 * Bytes of one request in one buffer that grows. A nested message or string is written in place,
 * then its length is put before it (the bytes moved up by the length's size): no writer or array
 * per message. Numbers stay numbers where they fit (below 2^53); BigInt only for 64-bit values that
 * may not (nanosecond times, negative ints).
 */
class Writer {
  private buf: Uint8Array<ArrayBuffer> = new Uint8Array(1024);
  private pos = 0;

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const grown = new Uint8Array(Math.max(this.buf.length * 2, this.pos + n));
    grown.set(this.buf.subarray(0, this.pos));
    this.buf = grown;
  }

  /** A varint of a whole number 0 <= n < 2^53. */
  private varint(n: number): void {
    this.room(10);
    while (n >= 0x80) {
      this.buf[this.pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.pos++] = n;
  }

  /** A varint of any 64-bit value (two's complement for a negative one, as protobuf's int64 is). */
  private varint64(value: bigint): void {
    let v = BigInt.asUintN(64, value);
    this.room(10);
    while (v >= 0x80n) {
      this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.pos++] = Number(v);
  }

  private tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  /** A length-delimited field whose bytes `body` writes here; their length is then put before them. */
  private delimited(field: number, body: () => void): this {
    this.tag(field, LEN);
    const start = this.pos;
    body();
    let len = this.pos - start;
    let size = 1;
    for (let v = len; v >= 0x80; v = Math.floor(v / 0x80)) size++;
    this.room(size);
    this.buf.copyWithin(start + size, start, this.pos);
    let at = start;
    for (; len >= 0x80; len = Math.floor(len / 0x80)) this.buf[at++] = (len % 0x80) | 0x80;
    this.buf[at] = len;
    this.pos += size;
    return this;
  }

  /** A varint field: an enum, a bool (0 or 1), or an int64 (negative ones as protobuf sends them). */
  uint(field: number, value: number): this {
    this.tag(field, VARINT);
    if (Number.isSafeInteger(value) && value >= 0) this.varint(value);
    else this.varint64(BigInt(value));
    return this;
  }

  /** A fixed64 field from its low and high 32 bits, little-endian. */
  private fixed(field: number, lo: number, hi: number): this {
    this.tag(field, FIXED64);
    this.room(8);
    for (let i = 0; i < 4; i++) this.buf[this.pos++] = (lo >>> (8 * i)) & 0xff;
    for (let i = 0; i < 4; i++) this.buf[this.pos++] = (hi >>> (8 * i)) & 0xff;
    return this;
  }

  fixed64(field: number, value: bigint): this {
    return this.fixed(field, Number(value & 0xffffffffn), Number((value >> 32n) & 0xffffffffn));
  }

  double(field: number, value: number): this {
    float[0] = value;
    // The platform's byte order: little-endian on every engine weft runs on.
    return this.fixed(field, floatWords[0]!, floatWords[1]!);
  }

  bytes(field: number, value: Uint8Array): this {
    return this.delimited(field, () => {
      this.room(value.length);
      this.buf.set(value, this.pos);
      this.pos += value.length;
    });
  }

  /** A string field, UTF-8: ASCII byte by byte, the rest through `TextEncoder.encodeInto`. */
  string(field: number, value: string): this {
    return this.delimited(field, () => {
      this.room(value.length * 3);
      for (let i = 0; i < value.length; i++) {
        const c = value.charCodeAt(i);
        if (c >= 0x80) {
          this.pos += utf8.encodeInto(value.slice(i), this.buf.subarray(this.pos)).written;
          return;
        }
        this.buf[this.pos++] = c;
      }
    });
  }

  /** A nested message, its fields written by `build` into this same buffer. */
  message(field: number, build: (w: Writer) => void): this {
    return this.delimited(field, () => build(this));
  }

  finish(): Uint8Array<ArrayBuffer> {
    return this.buf.slice(0, this.pos);
  }
}

/** Lowercase hex as bytes (`"0af1"` is 0x0a 0xf1). */
function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** `AnyValue`: string_value 1, bool_value 2, int_value 3, double_value 4, array_value 5 (`ArrayValue.values` 1). */
function anyValue(w: Writer, v: AttributeValue): void {
  if (Array.isArray(v)) w.message(5, (a) => v.forEach((s) => a.message(1, (x) => x.string(1, s))));
  else if (typeof v === "boolean") w.uint(2, v ? 1 : 0);
  else if (v instanceof Double) w.double(4, v.value);
  else if (typeof v === "number") Number.isInteger(v) ? w.uint(3, v) : w.double(4, v);
  else w.string(1, v);
}

/** Repeated `KeyValue` (key 1, value 2) under `field`. */
function attributes(w: Writer, field: number, attrs: Record<string, AttributeValue>): void {
  for (const [key, value] of Object.entries(attrs)) w.message(field, (kv) => kv.string(1, key).message(2, (a) => anyValue(a, value)));
}

const nanos = (ms: number) => BigInt(Math.round(ms * 1000)) * 1000n;

/** Spans as one OTLP/HTTP protobuf request body (`application/x-protobuf`), under resource `service.name` = `weft`. */
export function otlpProtobuf(spans: readonly Span[], dropped = 0): Uint8Array<ArrayBuffer> {
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
