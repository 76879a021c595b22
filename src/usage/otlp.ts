/**
 * Spans as OTLP/HTTP JSON (the OpenTelemetry protocol's JSON encoding of
 * `ExportTraceServiceRequest`; the protobuf encoding is otlp-protobuf.ts), and the exporter that
 * sends them to the collector named by `WEFT_OTLP_URL`, in the encoding `WEFT_OTLP_PROTOCOL` names:
 * batched as OpenTelemetry's batch span processor does (one request per `WEFT_OTLP_DELAY_MS`, or
 * sooner once `MAX_EXPORT_BATCH` spans wait), sent without awaiting (a turn never waits on it),
 * from a bounded buffer that drops and counts spans rather than grow.
 * @module
 */
import { otlpProtobuf } from "./otlp-protobuf.js";
import { type AttributeValue, Double, type Span } from "./span.js";
import { log } from "../log.js";

/** Spans a thread instance keeps waiting to be sent, at most; more are dropped and counted. */
export const MAX_BUFFERED_SPANS = 1024;

/** How long a finished span waits for others to share its request, in milliseconds, unless `WEFT_OTLP_DELAY_MS` says otherwise. */
export const OTLP_DELAY_MS = 1000;

/** The longest `WEFT_OTLP_DELAY_MS` taken, in milliseconds: a Durable Object left idle may be evicted, and its waiting spans with it. */
export const MAX_OTLP_DELAY_MS = 10_000;

/** Spans that, once waiting, are sent at once rather than at the delay's end (OpenTelemetry's `OTEL_BSP_MAX_EXPORT_BATCH_SIZE` default). */
export const MAX_EXPORT_BATCH = 512;

/**
 * Export requests a thread instance has open at once; spans finished meanwhile wait in the buffer.
 * A slow or hung collector then holds a bounded number of requests (a Worker's simultaneous
 * outgoing connections are few, and its model requests need them), not one per turn.
 */
export const MAX_EXPORTS_IN_FLIGHT = 2;

/** How long one export may take before it is abandoned, in milliseconds (OpenTelemetry's `OTEL_EXPORTER_OTLP_TIMEOUT` default). */
export const EXPORT_TIMEOUT_MS = 10_000;

/** Random lowercase hex of `bytes` bytes (a trace id is 16, a span id 8). */
export function hexId(bytes: 16 | 8): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const nanos = (ms: number) => `${BigInt(Math.round(ms * 1000)) * 1000n}`;

function valueOf(v: AttributeValue): Record<string, unknown> {
  if (Array.isArray(v)) return { arrayValue: { values: v.map((s) => ({ stringValue: s })) } };
  if (typeof v === "boolean") return { boolValue: v };
  if (v instanceof Double) return { doubleValue: v.value };
  if (typeof v === "number") return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  return { stringValue: v };
}

/** Spans as one OTLP/HTTP JSON request body, under resource `service.name` = `weft`. */
export function otlpJson(spans: readonly Span[], dropped = 0): string {
  const attrs = (a: Record<string, AttributeValue>) => Object.entries(a).map(([key, value]) => ({ key, value: valueOf(value) }));
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: attrs({ "service.name": "weft", ...(dropped > 0 ? { "weft.spans_dropped": dropped } : {}) }) },
        scopeSpans: [
          {
            scope: { name: "weft" },
            spans: spans.map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
              name: s.name,
              kind: s.kind,
              startTimeUnixNano: nanos(s.startMs),
              endTimeUnixNano: nanos(s.endMs),
              attributes: attrs(s.attributes),
              status: { code: s.status },
            })),
          },
        ],
      },
    ],
  });
}

/**
 * OTLP/HTTP's two encodings, named as OpenTelemetry's `OTEL_EXPORTER_OTLP_PROTOCOL` names them:
 * `http/protobuf` (the protocol's default, `application/x-protobuf`) or `http/json` (`application/json`).
 */
export type OtlpProtocol = "http/protobuf" | "http/json";

/** One export request: its body and content type. */
export interface OtlpBody {
  body: string | Uint8Array<ArrayBuffer>;
  contentType: "application/json" | "application/x-protobuf";
}

/** Spans (and the count dropped before them) as one request body in `protocol`'s encoding. */
export function otlpBody(protocol: OtlpProtocol, spans: readonly Span[], dropped = 0): OtlpBody {
  return protocol === "http/json" ? { body: otlpJson(spans, dropped), contentType: "application/json" } : { body: otlpProtobuf(spans, dropped), contentType: "application/x-protobuf" };
}

/** POSTs one export; a collector that answers other than 2xx, or not within {@link EXPORT_TIMEOUT_MS}, is an error (logged by the exporter). */
async function post(url: string, { body, contentType }: OtlpBody): Promise<void> {
  // A timer cleared once the answer came (AbortSignal.timeout's would stay pending for its whole span).
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error(`the collector did not answer within ${EXPORT_TIMEOUT_MS} ms`)), EXPORT_TIMEOUT_MS);
  try {
    const res = await fetch(url, { method: "POST", headers: { "content-type": contentType }, body, signal: deadline.signal });
    await res.body?.cancel();
    if (!res.ok) throw new Error(`the collector answered ${res.status}`);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Buffers spans and sends them to one collector. A request costs the thread's object a subrequest
 * and about as much CPU as a tool call, so spans that finish within `delayMs` of each other (the
 * turns of a busy thread, direct calls) share one; a span waits at most `delayMs` (milliseconds).
 */
export class OtlpExporter {
  private buffer: Span[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private inFlight = 0;
  /** Spans dropped because the buffer was full, since the last send that reported them. */
  dropped = 0;

  constructor(
    private readonly url: string,
    private readonly send: (url: string, body: OtlpBody) => Promise<unknown> = post,
    private readonly protocol: OtlpProtocol = "http/protobuf",
    private readonly delayMs = 0,
  ) {}

  /** Keeps a span for the next send; a full buffer drops it and counts it. */
  add(span: Span): void {
    if (this.buffer.length >= MAX_BUFFERED_SPANS) this.dropped++;
    else this.buffer.push(span);
  }

  /** Sends what is buffered when the delay since the oldest unsent span ends, or now once a batch is full. */
  soon(): void {
    if (this.buffer.length === 0) return;
    if (this.delayMs <= 0 || this.buffer.length >= MAX_EXPORT_BATCH) {
      void this.flush();
      return;
    }
    this.timer ??= setTimeout(() => void this.flush(), this.delayMs);
  }

  /**
   * Sends what is buffered now, not awaited by the caller: a collector that fails or is slow costs
   * the turn nothing. With {@link MAX_EXPORTS_IN_FLIGHT} requests open the spans wait, and go when one ends.
   */
  flush(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.buffer.length === 0 || this.inFlight >= MAX_EXPORTS_IN_FLIGHT) return Promise.resolve();
    const body = otlpBody(this.protocol, this.buffer, this.dropped);
    this.buffer = [];
    this.dropped = 0;
    this.inFlight++;
    return Promise.resolve(this.send(this.url, body))
      .then(
        () => undefined,
        (e: unknown) => log("error", `weft: traces not exported: ${String(e)}`),
      )
      .finally(() => {
        this.inFlight--;
        this.soon();
      });
  }
}
