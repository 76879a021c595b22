/**
 * Route fuzzing: random and malformed requests against every route of a running weft (the list
 * comes from its router, read at `GET /`), judged by one rule: the answer is never a 5xx, and every refusal is
 * JSON `{ error: { code, message } }` with a code.
 * @module
 */
import fc from "fast-check";
import { type FuzzTarget, sendJson } from "./target.js";

/** The routes, tools and agents a running weft names at `GET /` (its route list comes from the router). */
export async function surfaceOf(target: FuzzTarget): Promise<{ routes: string[]; tools: string[]; agents: string[] }> {
  const res = await sendJson<{ routes: string[]; tools: string[]; agents: string[] }>(target, "GET", "/");
  if (res.status !== 200 || !Array.isArray(res.body.routes)) throw new Error(`GET / -> ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
  return res.body;
}

/** What the route fuzz found. */
export interface RouteFuzzReport {
  requests: number;
  routes: number;
  serverErrors: string[];
  uncoded: string[];
  /** Drawn requests never sent because the client cannot form their URL (`METHOD path`). */
  unformed: string[];
  /** Thread ids it created, for the crashed-thread check. */
  threads: string[];
  /** Thread ids a request deleted (they answer 404 afterwards, rightly). */
  deleted: Set<string>;
}

const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"];
const BAD_SEGMENTS = ["%ZZ", "%E0%A4%A", "%ED%A0%80", "..", "%2e%2e", "a%00b", "x".repeat(300), "%", "%%", "💥", "null", "0", "-1", " "];

/** A random path segment: a real id or name, or garbage. */
function segment(real: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...real) },
    { weight: 2, arbitrary: fc.constantFrom(...BAD_SEGMENTS) },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((s) => encodeURIComponent(s)) },
    { weight: 1, arbitrary: fc.stringMatching(/^[0-9a-f]{64}$/) },
  );
}

/** JSON nested `levels` deep. */
const deep = (levels: number) => '{"a":'.repeat(levels) + "1" + "}".repeat(levels);

/** A random body: valid-shaped for some route, any JSON, malformed text, deep, or ill-formed Unicode. */
function body(tools: string[], agents: string[]): fc.Arbitrary<string | undefined> {
  const script = fc.array(
    fc.record({
      text: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
      toolCalls: fc.option(
        fc.array(fc.record({ name: fc.oneof(fc.constantFrom(...tools), fc.string({ maxLength: 8 })), arguments: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.string({ maxLength: 20 })) }), {
          maxLength: 3,
        }),
        { nil: undefined },
      ),
    }),
    { maxLength: 3 },
  );
  const shaped = fc.oneof(
    fc.record({ agent: fc.oneof(fc.constantFrom(...agents), fc.string({ maxLength: 8 })), script, dryRun: fc.boolean() }, { requiredKeys: [] }),
    fc.record({ content: fc.oneof(fc.string({ maxLength: 40 }), fc.jsonValue({ maxDepth: 2 })), script, role: fc.constantFrom("user", "system", "tool", 5) }, { requiredKeys: [] }),
    fc.record({ input: fc.jsonValue({ maxDepth: 4 }), sessionId: fc.string({ maxLength: 70 }), continuationToken: fc.string({ maxLength: 20 }) }, { requiredKeys: [] }),
    fc.record({ argsHash: fc.string({ maxLength: 64 }), reason: fc.string({ maxLength: 20 }), outcome: fc.constantFrom("succeeded", "failed", "retry", "maybe"), result: fc.jsonValue({ maxDepth: 2 }), error: fc.string() }, { requiredKeys: [] }),
    fc.record({ value: fc.jsonValue({ maxDepth: 3 }), type: fc.constantFrom("text", "secret", "other") }, { requiredKeys: [] }),
  );
  return fc.oneof(
    { weight: 6, arbitrary: shaped.map((v) => JSON.stringify(v)) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 5 }).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
    { weight: 1, arbitrary: fc.constantFrom('{"content":"a \\ud800 b"}', '{"\\udc00":1}', "{", "[", '{"a":1,}', "\u0000", deep(65), deep(5000), '"just a string"', "null", "1e999") },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

const headerValues = fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom("application/json", "text/plain", "application/json; charset=utf-8", "multipart/form-data", ""));

/** One request's parts. */
const requestArb = (routeList: string[], ids: string[], tools: string[], agents: string[]) =>
  fc.record({
    route: fc.constantFrom(...routeList),
    method: fc.oneof({ weight: 8, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) }),
    id: segment(ids),
    callId: segment(["c1", "c2", "auto", "pay", "x"]),
    name: segment(tools),
    rest: fc.array(segment(["result.txt", "calls", "attachments", "a"]), { maxLength: 3 }),
    query: fc.array(fc.tuple(fc.constantFrom("since", "limit", "offset", "order", "status", "includeSilent", "x", "%ZZ"), fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom("-1", "1e9", "99999999999999999999", "%ZZ", "asc", "awaiting_approval"))), { maxLength: 3 }),
    body: body(tools, agents),
    contentType: fc.option(headerValues, { nil: undefined }),
    idempotencyKey: fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
    auth: fc.constantFrom<"tester" | "none" | "garbage">("tester", "tester", "tester", "none", "garbage"),
  });

/**
 * Runs `count` random requests over every route.
 * @returns counts and every 5xx or uncoded refusal, as `METHOD path -> status body`.
 */
export async function fuzzRoutes(target: FuzzTarget, count: number, seed: number, seedThreads: string[]): Promise<RouteFuzzReport> {
  const { routes: list, tools, agents } = await surfaceOf(target);
  const threads: string[] = [...seedThreads];
  const report: RouteFuzzReport = { requests: 0, routes: list.length, serverErrors: [], uncoded: [], unformed: [], threads, deleted: new Set() };
  const samples = fc.sample(requestArb(list, seedThreads, tools, agents.length > 0 ? agents : ["default"]), { numRuns: count, seed });
  for (const r of samples) {
    const [routeMethod, pattern] = r.route.split(" ") as [string, string];
    const method = r.method ?? routeMethod;
    const path = pattern
      .replace(":id", r.id)
      .replace(":callId", r.callId)
      .replace(":name", r.name)
      .replace(":path", r.rest.join("/") || "x")
      .replace("*", r.rest.join("/") || "x")
      .replace(/:[A-Za-z]+/g, "x");
    const query = r.query.length > 0 ? `?${r.query.map(([k, v]) => `${k}=${v}`).join("&")}` : "";
    const headers = new Headers();
    if (r.contentType !== undefined) headers.set("content-type", r.contentType);
    else if (r.body !== undefined) headers.set("content-type", "application/json");
    if (r.idempotencyKey !== undefined) {
      try {
        headers.set("idempotency-key", r.idempotencyKey);
      } catch {
        // Not a valid header value: the client could not send it either.
      }
    }
    if (r.auth === "garbage") headers.set("authorization", "Bearer not-a-key");
    const hasBody = r.body !== undefined && method !== "GET" && method !== "HEAD";
    let res: Response;
    try {
      res = await target.request(`${path}${query}`, { method, headers, ...(hasBody ? { body: r.body } : {}) }, r.auth === "tester" ? "tester" : null);
    } catch (e) {
      // A URL the client cannot even form is not a request the Worker sees.
      if (e instanceof TypeError) {
        report.unformed.push(`${method} ${path}${query}`);
        continue;
      }
      throw e;
    }
    report.requests += 1;
    const text = await res.text();
    const shown = `${method} ${path}${query} -> ${res.status} ${text.slice(0, 200)}`;
    if (res.status >= 500) report.serverErrors.push(shown);
    else if (res.status >= 400 && method !== "HEAD") {
      let code: unknown;
      try {
        code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
      } catch {
        code = undefined;
      }
      if (typeof code !== "string" || code === "") report.uncoded.push(shown);
    }
    if (method === "DELETE" && pattern === "/threads/:id" && res.status < 300) report.deleted.add(r.id);
    if (method === "POST" && pattern === "/threads" && res.status === 201) threads.push((JSON.parse(text) as { threadId: string }).threadId);
    const socket = (res as unknown as { webSocket?: { accept(): void; close(code?: number, reason?: string): void } | null }).webSocket;
    if (res.status === 101 && socket) {
      socket.accept();
      socket.close(1000, "fuzz");
    }
  }
  return report;
}
