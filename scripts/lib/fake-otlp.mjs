// @ts-check
/**
 * A local OpenTelemetry collector for tests: answers the test worker's outbound fetches to
 * `otlp.test` (wired in vitest.config.ts) as an OTLP/HTTP traces receiver. A protobuf body
 * (`application/x-protobuf`) is decoded with the OpenTelemetry protocol's own definitions
 * (otlp-proto/, copied from opentelemetry-proto) through protobufjs; a JSON body (`application/json`)
 * is read as the protocol's JSON encoding. A body that does not decode is answered 400 and kept as
 * an error, so a test sees it.
 *
 *   POST /v1/traces              an export; answered with an empty `ExportTraceServiceResponse`
 *   GET  /__otlp/exports?thread= the exports holding a span whose `weft.thread.id` is `thread`,
 *                                oldest first: `{ contentType, resource, spans, error? }`, each span
 *                                `{ traceId, spanId, parentSpanId, name, kind, startTimeUnixNano,
 *                                endTimeUnixNano, attributes: { key: value }, status: { code } }`
 *                                (ids lowercase hex, "" when absent; times decimal text; ints numbers)
 *   GET  /__otlp/errors          the exports that did not decode
 * @module
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";

const PROTO_ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "otlp-proto");

/** Whether a request is for the collector. @param {Request} request */
export function isFakeOtlp(request) {
  return new URL(request.url).hostname === "otlp.test";
}

/** The protocol's request and response messages, loaded from the .proto files. */
function loadTypes() {
  const root = new protobuf.Root();
  // The definitions import each other by their path from the repository's root.
  root.resolvePath = (_origin, target) => (path.isAbsolute(target) ? target : path.join(PROTO_ROOT, target));
  root.loadSync(path.join(PROTO_ROOT, "opentelemetry/proto/collector/trace/v1/trace_service.proto"), { keepCase: false });
  return {
    request: root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest"),
    response: root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse"),
  };
}

/**
 * @typedef {string | number | boolean | Array<string | number | boolean>} Value
 * @typedef {{ traceId: string, spanId: string, parentSpanId: string, name: string, kind: number, startTimeUnixNano: string, endTimeUnixNano: string, attributes: Record<string, Value>, status: { code: number } }} DecodedSpan
 * @typedef {{ contentType: string, resource: Record<string, Value>, spans: DecodedSpan[], doubles: string[], error?: string }} DecodedExport
 *   `doubles`: the attribute keys some span of the export sent as a `double_value` (its numbers read alike whichever type came)
 */

/**
 * @param {{ onRequest?: (record: { url: string, method: string, headers: Record<string, string>, body: string }) => void }} [options]
 *   `onRequest` sees every request as text (the fake provider keeps it in its outbound list, where
 *   tests look for a value that must reach no host).
 */
export function createFakeOtlp(options = {}) {
  const types = loadTypes();
  /** @type {DecodedExport[]} */
  const exports = [];

  /** @param {Request} request @returns {Promise<Response>} */
  async function handle(request) {
    const url = new URL(request.url);
    if (url.pathname === "/__otlp/exports") {
      const thread = url.searchParams.get("thread") ?? "";
      return Response.json(exports.filter((e) => e.spans.some((s) => s.attributes["weft.thread.id"] === thread)));
    }
    if (url.pathname === "/__otlp/errors") return Response.json(exports.filter((e) => e.error));
    const bytes = new Uint8Array(await request.arrayBuffer());
    const contentType = request.headers.get("content-type") ?? "";
    options.onRequest?.({ url: request.url, method: request.method, headers: Object.fromEntries(request.headers), body: new TextDecoder().decode(bytes) });
    if (url.pathname !== "/v1/traces" || request.method !== "POST") return new Response("not found", { status: 404 });
    try {
      const decoded = contentType === "application/x-protobuf" ? fromProtobuf(types.request, bytes) : contentType === "application/json" ? fromJson(JSON.parse(new TextDecoder().decode(bytes))) : null;
      if (!decoded) throw new Error(`unsupported content-type ${JSON.stringify(contentType)}`);
      exports.push({ contentType, ...decoded });
    } catch (e) {
      exports.push({ contentType, resource: {}, spans: [], doubles: [], error: String(e) });
      return new Response(String(e), { status: 400 });
    }
    if (contentType === "application/json") return Response.json({});
    return new Response(Buffer.from(types.response.encode(types.response.create({})).finish()), { headers: { "content-type": "application/x-protobuf" } });
  }

  return { handle, exports };
}

const hex = (/** @type {Uint8Array | undefined} */ b) => (b ? Buffer.from(b).toString("hex") : "");

/** Decodes a protobuf `ExportTraceServiceRequest`. @param {protobuf.Type} type @param {Uint8Array} bytes */
function fromProtobuf(type, bytes) {
  // `oneofs` names the field an `AnyValue` holds (`value`), so false, 0 and "" read as sent.
  const message = /** @type {any} */ (type.toObject(type.decode(bytes), { longs: String, enums: Number, bytes: Array, oneofs: true }));
  /** @param {any} v @returns {Value} */
  const value = (v) => (v.value === "arrayValue" ? v.arrayValue.values.map(value) : v.value === "intValue" ? Number(v.intValue) : v[v.value]);
  return normalize(message, value, (b) => hex(b && Uint8Array.from(b)), (v) => v.value === "doubleValue");
}

/** Reads the JSON encoding (ids already hex). @param {any} message */
function fromJson(message) {
  /** @param {any} v @returns {Value} */
  const value = (v) => ("intValue" in v ? Number(v.intValue) : "arrayValue" in v ? v.arrayValue.values.map(value) : Object.values(v)[0]);
  return normalize(message, value, (id) => id ?? "", (v) => "doubleValue" in v);
}

/** @param {any} message @param {(v: any) => Value} value @param {(id: any) => string} id @param {(v: any) => boolean} isDouble */
function normalize(message, value, id, isDouble) {
  const doubles = new Set();
  /** @param {any[] | undefined} list */
  const attrs = (list) => Object.fromEntries((list ?? []).map((/** @type {any} */ kv) => (isDouble(kv.value) && doubles.add(kv.key), [kv.key, value(kv.value)])));
  const resourceSpans = message.resourceSpans ?? [];
  const resource = Object.assign({}, ...resourceSpans.map((/** @type {any} */ r) => attrs(r.resource?.attributes)));
  const spans = resourceSpans.flatMap((/** @type {any} */ r) =>
    (r.scopeSpans ?? []).flatMap((/** @type {any} */ s) =>
      (s.spans ?? []).map((/** @type {any} */ span) => ({
        traceId: id(span.traceId),
        spanId: id(span.spanId),
        parentSpanId: id(span.parentSpanId),
        name: span.name,
        kind: span.kind,
        startTimeUnixNano: String(span.startTimeUnixNano),
        endTimeUnixNano: String(span.endTimeUnixNano),
        attributes: attrs(span.attributes),
        status: { code: span.status?.code ?? 0 },
      })),
    ),
  );
  return { resource, spans, doubles: [...doubles].sort() };
}
