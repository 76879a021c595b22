// @ts-check
/**
 * Records a model provider's traffic once and replays it offline, for `recorded(...)` threads of
 * `weft/testing`. It answers the test Worker's outbound fetches to `weft-recorder.test`
 * (vitest.agents.config.ts routes them here, outside workerd):
 *
 *   POST /sessions        `{ file, provider, secrets }` -> `{ session, mode }`: a thread's session
 *   GET  /sessions/:id    `{ errors }`: requests that differed from the recording, as diffs
 *   ANY  /s/:id/<path>    the provider's API: replayed from the file, or (recording) forwarded to
 *                         the real provider and written to the file
 *
 * Recording (`WEFT_RECORD=1`): the real key and base URL come from this process's env or the
 * project's `.dev.vars` (`OPENAI_API_KEY`, `OPENAI_BASE_URL`, ...); the Worker never holds them.
 * Nothing secret is written: no header is kept, and the key and every secret value the thread
 * was given are replaced by `[secret]` in bodies (JSON-escaped too, and in a streamed answer
 * also where the provider sent a secret in pieces over several events). Replaying, the n-th request of a session must
 * equal the n-th recorded one (after the same stripping); one that differs is answered 400 and
 * reported with the paths that differ.
 * @module
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { readDevVars } from "./dev-vars.mjs";

/** Env names of each provider's key and base URL, and its own endpoint. */
const PROVIDERS = {
  openai: { key: "OPENAI_API_KEY", baseUrl: "OPENAI_BASE_URL", endpoint: "https://api.openai.com/v1" },
  anthropic: { key: "ANTHROPIC_API_KEY", baseUrl: "ANTHROPIC_BASE_URL", endpoint: "https://api.anthropic.com/v1" },
  "openai-compatible": { key: "OPENAI_COMPATIBLE_API_KEY", baseUrl: "OPENAI_COMPATIBLE_BASE_URL", endpoint: "" },
};

/** What stands in for a secret in a recording. */
export const SECRET_MARK = "[secret]";

/**
 * @typedef {{ method: string, path: string, body: unknown }} RecordedRequest
 * @typedef {{ status: number, contentType: string, body: string }} RecordedResponse
 * @typedef {{ request: RecordedRequest, response: RecordedResponse }} Exchange
 * @typedef {{ provider: string, exchanges: Exchange[] }} Recording
 */

/**
 * The project's wrangler.toml for `npm run test:agents`, copied into `.wrangler/agents-test/`
 * with its relative paths made absolute, so wrangler finds no `.dev.vars` beside it; `vars` is
 * the project's `.dev.vars` without `WEFT_MODEL` (a model set for `npm start` must not take over
 * threads that name none) and without the credential settings (the test Worker runs with
 * `WEFT_AUTH = "none"`, which any credential would beat: every test's request would need a token),
 * to pass as bindings.
 * @param {string} root the project folder
 * @returns {{ configPath: string, vars: Record<string, string> }}
 */
export function testWranglerConfig(root) {
  const dir = join(root, ".wrangler", "agents-test");
  mkdirSync(dir, { recursive: true });
  const text = readFileSync(join(root, "wrangler.toml"), "utf8")
    .replace(/^(\s*main\s*=\s*)"([^"]+)"/gm, (_, head, p) => `${head}${JSON.stringify(resolve(root, p))}`)
    .replace(/=\s*"(\.{1,2}\/[^"]*)"/g, (_, p) => `= ${JSON.stringify(resolve(root, p))}`);
  const configPath = join(dir, "wrangler.toml");
  writeFileSync(configPath, text);
  const vars = readDevVars(join(root, ".dev.vars"));
  for (const name of ["WEFT_MODEL", ...AUTH_SETTINGS]) delete vars[name];
  return { configPath, vars };
}

/** `AUTH_SETTINGS` of src/config.ts (test/testing/test-wrangler-config.node.test.ts keeps them equal). */
export const AUTH_SETTINGS = ["WEFT_JWT_SECRET", "WEFT_JWKS_URL", "WEFT_JWKS", "WEFT_API_KEYS"];

/**
 * Each secret as it may stand in a body: as written, JSON-escaped (a `"` or `\\` in it), and escaped
 * twice (inside JSON text a string holds, as a tool call's arguments), longest first.
 * @param {string[]} secrets @returns {string[]}
 */
function formsOf(secrets) {
  const esc = (/** @type {string} */ s) => JSON.stringify(s).slice(1, -1);
  const forms = secrets.filter((s) => s.length >= 4).flatMap((s) => [s, esc(s), esc(esc(s))]);
  return [...new Set(forms)].sort((a, b) => b.length - a.length);
}

/** Replaces every secret (longest first, in each of its forms) in `text`. @param {string} text @param {string[]} secrets */
export function strip(text, secrets) {
  let out = text;
  for (const s of formsOf(secrets)) out = out.split(s).join(SECRET_MARK);
  return out;
}

/**
 * A streamed answer (server-sent events of JSON) with every secret it streams in pieces stripped:
 * a provider sends a few characters a delta, so a secret the model says is in no one event whole.
 * The strings at the same place in the events (`delta`, `choices.0.delta.content`, ...) are read
 * as one text; a secret found there becomes {@link SECRET_MARK} in the event it starts in and is
 * dropped from the events after it. Events it changes are written again as JSON; the rest stay
 * as they came. A body that is not such a stream is answered as it is.
 * @param {string} body @param {string[]} secrets @returns {string}
 */
export function stripStream(body, secrets) {
  const forms = formsOf(secrets);
  if (forms.length === 0 || !/^data: ?\{/m.test(body)) return body;
  const lines = body.split("\n");
  /** @type {Map<number, { head: string, value: any, end: string }>} */
  const events = new Map();
  /** @type {Map<string, Array<{ line: number, holder: any, key: string | number }>>} */
  const places = new Map();
  const walk = (/** @type {any} */ v, /** @type {string} */ path, /** @type {number} */ line) => {
    for (const [k, item] of Object.entries(v)) {
      const key = Array.isArray(v) ? Number(k) : k;
      if (typeof item === "string") {
        const at = `${path}.${k}`;
        if (!places.has(at)) places.set(at, []);
        places.get(at)?.push({ line, holder: v, key });
      } else if (item !== null && typeof item === "object") walk(item, `${path}.${k}`, line);
    }
  };
  lines.forEach((text, line) => {
    const m = /^(data: ?)(\{.*?)(\r?)$/.exec(text);
    if (!m) return;
    try {
      const value = JSON.parse(String(m[2]));
      events.set(line, { head: String(m[1]), value, end: String(m[3]) });
      walk(value, "", line);
    } catch {
      // Not JSON: left as it came (the raw strip still reads it).
    }
  });
  /** @type {Set<number>} */
  const changed = new Set();
  for (const pieces of places.values()) {
    if (pieces.length < 2) continue;
    const whole = pieces.map((p) => String(p.holder[p.key])).join("");
    const hidden = new Uint8Array(whole.length);
    for (const form of forms) {
      for (let at = whole.indexOf(form); at >= 0; at = whole.indexOf(form, at + form.length)) hidden.fill(1, at, at + form.length);
    }
    if (!hidden.includes(1)) continue;
    let offset = 0;
    for (const p of pieces) {
      const text = String(p.holder[p.key]);
      let out = "";
      for (let i = 0; i < text.length; i++) {
        const j = offset + i;
        if (!hidden[j]) out += text[i];
        else if (j === 0 || !hidden[j - 1]) out += SECRET_MARK;
      }
      offset += text.length;
      if (out !== text) {
        p.holder[p.key] = out;
        changed.add(p.line);
      }
    }
  }
  for (const line of changed) {
    const e = events.get(line);
    if (e) lines[line] = `${e.head}${JSON.stringify(e.value)}${e.end}`;
  }
  return lines.join("\n");
}

/**
 * The paths where two JSON values differ, one line each: `at <path>: recorded <a>, sent <b>`.
 * @param {unknown} a @param {unknown} b @param {string} [path] @returns {string[]}
 */
export function jsonDiff(a, b, path = "$") {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  const show = (/** @type {unknown} */ v) => (v === undefined ? "(absent)" : JSON.stringify(v).slice(0, 300));
  const bothObjects = a !== null && b !== null && typeof a === "object" && typeof b === "object" && Array.isArray(a) === Array.isArray(b);
  if (!bothObjects) return [`at ${path}: recorded ${show(a)}, sent ${show(b)}`];
  const ao = /** @type {Record<string, unknown>} */ (a);
  const bo = /** @type {Record<string, unknown>} */ (b);
  const keys = [...new Set([...Object.keys(ao), ...Object.keys(bo)])];
  return keys.flatMap((k) => jsonDiff(ao[k], bo[k], Array.isArray(a) ? `${path}[${k}]` : `${path}.${k}`));
}

/**
 * Creates the recorder. `root` is the project folder recording files are relative to; `env`
 * holds `WEFT_RECORD` and the real keys (default: `process.env` over the project's `.dev.vars`).
 * @param {{ root: string, env?: Record<string, string | undefined>, fetch?: typeof fetch }} options
 */
export function createRecorder(options) {
  const root = options.root;
  const env = options.env ?? { ...readDevVars(join(root, ".dev.vars")), ...process.env };
  const upstreamFetch = options.fetch ?? fetch;
  const recording = env.WEFT_RECORD === "1";
  /** @type {Map<string, { file: string, provider: keyof typeof PROVIDERS, secrets: string[], exchanges: Exchange[], next: number, errors: string[] }>} */
  const sessions = new Map();
  let counter = 0;

  /** @param {string} file */
  function pathOf(file) {
    const full = resolve(root, file);
    const rel = relative(root, full);
    if (rel.startsWith("..") || isAbsolute(rel)) throw new Error(`recording file ${file} is outside the project`);
    return full;
  }

  /** @param {Request} request @returns {Promise<Response>} */
  async function handle(request) {
    const url = new URL(request.url);
    try {
      if (url.pathname === "/sessions" && request.method === "POST") return openSession(await request.json());
      const info = /^\/sessions\/([^/]+)$/.exec(url.pathname);
      if (info) return Response.json({ errors: sessions.get(String(info[1]))?.errors ?? [`no session ${info[1]}`] });
      const api = /^\/s\/([^/]+)(\/.*)$/.exec(url.pathname);
      if (api) return await exchange(String(api[1]), String(api[2]) + url.search, request);
      return new Response(`recorder: no route ${request.method} ${url.pathname}`, { status: 404 });
    } catch (e) {
      return new Response(`recorder: ${e instanceof Error ? e.message : String(e)}`, { status: 500 });
    }
  }

  /** @param {{ file: string, provider: string, secrets?: string[] }} body */
  function openSession(body) {
    if (!Object.hasOwn(PROVIDERS, body.provider)) throw new Error(`cannot record provider ${body.provider}`);
    const provider = /** @type {keyof typeof PROVIDERS} */ (body.provider);
    const file = pathOf(body.file);
    const names = PROVIDERS[provider];
    const secrets = [...(body.secrets ?? [])];
    /** @type {Exchange[]} */
    let exchanges = [];
    if (recording) {
      if (!env[names.key]) throw new Error(`WEFT_RECORD=1 needs ${names.key} in the env or .dev.vars to record ${body.file}`);
      secrets.push(/** @type {string} */ (env[names.key]));
    } else {
      if (!existsSync(file)) throw new Error(`no recording at ${body.file}: run the test once with WEFT_RECORD=1 and ${names.key} set (docs/testing.md)`);
      exchanges = /** @type {Recording} */ (JSON.parse(readFileSync(file, "utf8"))).exchanges;
    }
    const session = `r${++counter}`;
    sessions.set(session, { file, provider, secrets, exchanges, next: 0, errors: [] });
    return Response.json({ session, mode: recording ? "record" : "replay" });
  }

  /** @param {string} id @param {string} path @param {Request} request */
  async function exchange(id, path, request) {
    const s = sessions.get(id);
    if (!s) return new Response(`recorder: no session ${id}`, { status: 404 });
    const text = await request.text();
    const stripped = strip(text, s.secrets);
    /** @type {RecordedRequest} */
    const sent = { method: request.method, path, body: stripped === "" ? null : safeJson(stripped) };
    const n = s.next++;
    if (!recording) {
      const want = s.exchanges[n];
      const diff = want ? jsonDiff(want.request, sent) : [`request ${n + 1} was not recorded (the recording has ${s.exchanges.length})`];
      if (!want || diff.length > 0) {
        const message = `recorded provider ${relative(root, s.file)}: request ${n + 1} differs from the recording (record again with WEFT_RECORD=1 if the change is intended):\n  ${diff.slice(0, 20).join("\n  ")}`;
        s.errors.push(message);
        return Response.json({ error: { message, type: "invalid_request_error" } }, { status: 400 });
      }
      return new Response(want.response.body, { status: want.response.status, headers: { "content-type": want.response.contentType } });
    }
    const names = PROVIDERS[s.provider];
    const base = (env[names.baseUrl] || names.endpoint).replace(/\/+$/, "");
    if (!base) throw new Error(`${names.baseUrl} is needed to record ${s.provider}`);
    const headers = new Headers(request.headers);
    for (const h of ["authorization", "x-api-key"]) if (headers.has(h)) headers.set(h, h === "authorization" ? `Bearer ${env[names.key]}` : /** @type {string} */ (env[names.key]));
    headers.delete("host");
    const res = await upstreamFetch(base + path, { method: request.method, headers, ...(text === "" ? {} : { body: text }) });
    const body = await res.text();
    s.exchanges[n] = { request: sent, response: { status: res.status, contentType: res.headers.get("content-type") ?? "", body: strip(stripStream(body, s.secrets), s.secrets) } };
    mkdirSync(dirname(s.file), { recursive: true });
    writeFileSync(s.file, `${JSON.stringify({ provider: s.provider, exchanges: s.exchanges }, null, 2)}\n`);
    return new Response(body, { status: res.status, headers: { "content-type": res.headers.get("content-type") ?? "text/plain" } });
  }

  return { handle, recording };
}

/** JSON when it parses, else the text. @param {string} text */
function safeJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
