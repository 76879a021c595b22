/**
 * Real answers checked against `GET /openapi.json`: each request is matched to the document's
 * operation (method and path template), its status to the operation's response (the status, or
 * `default`), and its body validated with `@cfworker/json-schema` against that response's schema.
 * Every operation+status an answer exercised is recorded, so a suite can require them all.
 * @module
 */
import { type OutputUnit, Validator } from "@cfworker/json-schema";
import { type TestUser, request } from "./helpers.js";

type Content = Record<string, { schema: object }>;
type Operation = { responses: Record<string, { description: string; content?: Content }>; requestBody?: unknown; security?: unknown[] };
/** The parts of the document the check reads. */
export type Document = { paths: Record<string, Record<string, Operation>>; components: Record<string, unknown> };

/** A request as {@link ResponseCheck.send} makes it. */
export interface Send {
  /** A JSON body (sent as `application/json`). */
  json?: unknown;
  /** A raw body, sent with `headers` as given. */
  raw?: string;
  headers?: Record<string, string>;
  /** Who sends it (default `tester`; null: no credentials). */
  as?: TestUser | null;
}

/** An answer after its check: the operation it was matched to, its status and its body (parsed JSON, or text). */
export interface Checked {
  op: string;
  status: number;
  body: any;
  res: Response;
}

/** `/threads/{id}/files/{path}` as a pattern of request paths (`{path}` may hold slashes). */
function templatePattern(template: string): RegExp {
  const parts = template.split(/(\{[^}]+\})/).map((p) => (p === "{path}" ? ".+" : p.startsWith("{") ? "[^/]+" : p.replace(/[.*+?^$()|[\]\\]/g, "\\$&")));
  return new RegExp(`^${parts.join("")}$`);
}

/** Checks answers against the document, and records the operation+status pairs they exercised. */
export class ResponseCheck {
  /** `METHOD template status` of every answer checked so far. */
  readonly seen = new Set<string>();
  private readonly validators = new Map<string, Validator>();
  private readonly templates: Array<[string, RegExp]>;

  constructor(readonly doc: Document) {
    this.templates = Object.keys(doc.paths).map((t) => [t, templatePattern(t)]);
  }

  /** Every `METHOD template status` the document lists. */
  listed(): string[] {
    return Object.entries(this.doc.paths).flatMap(([path, item]) =>
      Object.entries(item).flatMap(([method, op]) => Object.keys(op.responses).map((status) => `${method.toUpperCase()} ${path} ${status}`)),
    );
  }

  /** The operations, as `METHOD template`, with their operation object. */
  operations(): Array<[string, Operation]> {
    return Object.entries(this.doc.paths).flatMap(([path, item]) => Object.entries(item).map(([m, op]) => [`${m.toUpperCase()} ${path}`, op] as [string, Operation]));
  }

  /** The operation `method path` is an answer of (`METHOD template`). @throws Error when the document has none. */
  operationOf(method: string, path: string): string {
    const bare = path.split("?")[0]!;
    const matches = this.templates.filter(([t, re]) => re.test(bare) && this.doc.paths[t]![method.toLowerCase()]);
    // The most literal template wins: `/threads/{id}/calls` over `/threads/{id}/files/{path}`.
    matches.sort(([a], [b]) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
    if (matches.length === 0) throw new Error(`${method} ${bare}: no operation in the document`);
    return `${method.toUpperCase()} ${matches[0]![0]}`;
  }

  /** The mismatches of `body` (with its media type) against the document's answer of `op` with `status`; empty when it fits. */
  mismatches(op: string, status: number, type: string | null, body: unknown): string[] {
    const [method, template] = op.split(" ") as [string, string];
    const responses = this.doc.paths[template]![method.toLowerCase()]!.responses;
    const key = String(status) in responses ? String(status) : "default";
    const answer = responses[key];
    if (!answer) return [`${op} ${status}: the document lists no such status (and no default)`];
    if (!answer.content) return body === undefined || body === "" ? [] : [`${op} ${status}: the document lists no body, the answer has one`];
    if (type === null) return [`${op} ${status}: the answer has no content type`];
    if (type !== "application/json") {
      return answer.content[type] || answer.content["*/*"] ? [] : [`${op} ${status}: content type ${type} is not one of ${Object.keys(answer.content).join(", ")}`];
    }
    const schema = answer.content["application/json"]?.schema;
    if (!schema) return [`${op} ${status}: JSON is not one of ${Object.keys(answer.content).join(", ")}`];
    const id = `${op} ${key}`;
    let validator = this.validators.get(id);
    if (!validator) {
      // The response's schema as the root, with the document's components beside it for its `$ref`s.
      validator = new Validator(structuredClone({ ...schema, components: this.doc.components }) as never, "2020-12", false);
      this.validators.set(id, validator);
    }
    const result = validator.validate(body);
    return result.valid ? [] : describeErrors(op, status, result.errors);
  }

  /**
   * Sends a request to the test worker and checks its answer; records the operation+status it exercised.
   * @throws Error naming the operation, the status and the path of each mismatch
   */
  async send(method: string, path: string, init: Send = {}): Promise<Checked> {
    const headers: Record<string, string> = { ...(init.json !== undefined ? { "content-type": "application/json" } : {}), ...init.headers };
    const body = init.json !== undefined ? JSON.stringify(init.json) : init.raw;
    const res = await request(path, { method, headers, ...(body !== undefined ? { body } : {}) }, init.as === undefined ? "tester" : init.as);
    return this.check(method, path, res);
  }

  /** Checks an answer to `method path` already received (a WebSocket upgrade, a stream read to its end). */
  async check(method: string, path: string, res: Response): Promise<Checked> {
    const op = this.operationOf(method, path);
    const type = res.headers.get("content-type")?.split(";")[0]!.trim().toLowerCase() ?? null;
    const text = res.status === 101 ? "" : await res.text();
    const body = type === "application/json" ? JSON.parse(text) : text;
    const wrong = this.mismatches(op, res.status, text === "" ? null : type, text === "" ? undefined : body);
    if (wrong.length > 0) throw new Error(`${wrong.join("\n")}\nbody: ${text.slice(0, 400)}`);
    const responses = this.doc.paths[op.split(" ")[1]!]![method.toLowerCase()]!.responses;
    this.seen.add(`${op} ${String(res.status) in responses ? res.status : "default"}`);
    return { op, status: res.status, body, res };
  }
}

/** Keywords whose errors only say that a part below them failed (that part's error names it). */
const WRAPPERS = new Set(["$ref", "properties", "items", "prefixItems", "allOf", "additionalProperties", "propertyNames"]);

/** `METHOD template status: /path/in/body: error` for each failure that names its field; anyOf failures stay whole. */
function describeErrors(op: string, status: number, errors: OutputUnit[]): string[] {
  const named = errors.filter((e) => !WRAPPERS.has(e.keyword) || (e.keyword === "additionalProperties" && /^Property /.test(e.error)));
  return [...new Set((named.length ? named : errors).map((e) => `${op} ${status}: ${e.instanceLocation.replace(/^#/, "") || "/"}: ${e.error}`))];
}
