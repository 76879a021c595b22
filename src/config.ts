/**
 * Every `WEFT_*` Worker variable weft reads, with its default: the one list. The request limits
 * come from their own table (src/limits.ts); the rest are here. docs/configuration.md is checked
 * against this list, and a test fails when src/ reads a `WEFT_*` name that is not in it.
 * @module
 */
import { WeftError, errorMessage } from "./errors.js";
import { LIMITS } from "./limits.js";
import { MODEL_IDLE_MS, MODEL_STEP_MS } from "./run/step-deadline.js";
import { DEFAULT_CALL_TIMEOUT_MS } from "./calls/execute.js";
import { DEFAULT_RESULT_CAP_BYTES } from "./calls/size.js";
import { MAX_EXPORT_BATCH, MAX_OTLP_DELAY_MS, OTLP_DELAY_MS } from "./usage/otlp.js";

/** How long the watchdog alarm waits at most before checking on a turn or an unfinished call, in milliseconds (`WEFT_WATCHDOG_MS`). */
export const WATCHDOG_MS = 2000;

/** Deadline of one run of a hook, in milliseconds (`WEFT_HOOK_TIMEOUT_MS`). */
export const HOOK_TIMEOUT_MS = 30_000;

/**
 * How long deleting a thread waits for the work running in it (direct calls, a person's decision,
 * the stopped turn) before it cuts what still runs, in milliseconds (`WEFT_DELETE_GRACE_MS`).
 */
export const DELETE_GRACE_MS = 10_000;

/** One setting: its variable, its default as the docs show it, and what it does. */
export interface Setting {
  name: `WEFT_${string}`;
  default: string;
  what: string;
}

/** Settings outside the limits table, in the order the docs list them. */
const OTHER_SETTINGS: readonly Setting[] = [
  {
    name: "WEFT_MODEL",
    default: "(unset)",
    what: 'The model of a thread whose agent and prompt name none, as `"<provider>:<model id>"` (for example `"openai:gpt-4.1-mini"`, with `OPENAI_API_KEY` set; at most 256 characters). Unset or empty: the scripted model, which plays the steps posted as `script`.',
  },
  {
    name: "WEFT_RESULT_CAP_BYTES",
    default: String(DEFAULT_RESULT_CAP_BYTES),
    what: "The most bytes of one tool result the model sees; a longer result is cut, with a notice giving the `read_file` call that reads the rest from the thread file keeping the full text; each `read_file` page fits under it too. At most half of a message's limit.",
  },
  {
    name: "WEFT_WATCHDOG_MS",
    default: String(WATCHDOG_MS),
    what: "Milliseconds after a turn starts, a call's row is stored unfinished (a direct call still waiting for I/O when its row commits, a write run on a person's approval or retry), and after each recovery, by which the thread's alarm checks on it: work a crash cut is finished then, with no client request. A call that finishes at once, without waiting for I/O (a read, or a write only to the thread's own storage), commits with its result, leaves nothing to finish and sets no alarm. A thread in steady use moves its alarm ahead from its calls, so it does not fire while nothing is cut.",
  },
  {
    name: "WEFT_HOOK_TIMEOUT_MS",
    default: String(HOOK_TIMEOUT_MS),
    what: "Deadline of one run of a hook (`agents/hooks/`, or an agent's `hooks`), in milliseconds. A hook still running past it fails as if it threw (`hook_failed`, saying it did not finish in time): a `before_create_message` stores nothing, and a thread is never held by a hook that does not return. Its answer after the deadline is ignored, what it writes through its `state` from then on (values, injected messages) is refused, and code it started with `state.runCode` is cancelled. A stop does not wait for the deadline of a hook over a message being admitted, a `filter_messages` or a `tool_call_started`: the wait ends at once, what the hook writes after the stop is refused too, and its code is cancelled.",
  },
  {
    name: "WEFT_CALL_TIMEOUT_MS",
    default: String(DEFAULT_CALL_TIMEOUT_MS),
    what: "Deadline of one attempt of a tool's `execute`, in milliseconds, for tools without `timeoutMs`. Past it a read or idempotent attempt counts as a transient failure; any other call ends with an error saying its outcome is unknown.",
  },
  {
    name: "WEFT_MODEL_IDLE_MS",
    default: String(MODEL_IDLE_MS),
    what: "Idle deadline of one model request, in milliseconds: past it with no stream part (keep-alive comments are none), the request is aborted and counts as a transient failure, retried like a 5xx; when retries run out the turn fails with `errorCode: \"model_timeout\"`.",
  },
  {
    name: "WEFT_MODEL_STEP_MS",
    default: String(MODEL_STEP_MS),
    what: "Overall deadline of one model request, in milliseconds, from the request to its finish; past it, the request is aborted and retried like the idle deadline's.",
  },
  {
    name: "WEFT_DELETE_GRACE_MS",
    default: String(DELETE_GRACE_MS),
    what: "How long deleting a thread (`DELETE /threads/:id`) waits, in milliseconds, for the calls running in it to finish and answer as usual (a running turn is stopped at once, as `POST /threads/:id/stop` does). A call still running when it ends is cut short: its attempt's `signal` fires and its client gets 404 `thread_not_found` (`session_not_found` for a direct call by `sessionId`) with `details.deleted: true`, since its outcome is unknown.",
  },
  {
    name: "WEFT_LOG_FAILED_CALLS",
    default: "on",
    what: "`on`: every failed tool call (not a denied one: a person decided it) prints one line to the Worker's console (`npm start`, `npx wrangler tail`): tool, call id, thread id and message, then the stack. `off`: nothing is printed.",
  },
  {
    name: "WEFT_SANDBOX",
    default: "auto",
    what: '`state.runCode`\'s executor when a call names none. `"auto"`: a Worker Loader isolate (`"isolate"`) where the runtime enforces its limits, measured once per Worker instance by a probe isolate (Cloudflare: CPU time capped, and the thread only awaits the reply, so `stop` is answered during a run), else `"quickjs"` (local `wrangler dev` and tests, or no `LOADER` binding). `"quickjs"` or `"isolate"` force one; force `"isolate"` only where Cloudflare enforces its limits.',
  },
  {
    name: "WEFT_PRICES",
    default: "(unset)",
    what: 'Model prices for the usage ledger, laid over the shipped table (src/usage/prices.ts): JSON `{ "version": "<name>", "models": { "<model id>": { "input": <USD per million tokens>, "output": ..., "cachedInput"?: ..., "cacheWrite"?: ... } } }`. Each request row stores its cost and the version it was costed at, so a change never rewrites past rows. A model in neither table costs 0.',
  },
  {
    name: "WEFT_BUDGETS",
    default: "(unset)",
    what: 'Budgets of the deployment, JSON `[{ "scope": "thread"|"user"|"agent", "period": "turn"|"day"|"month"|"lifetime", "tokens"?: <input and output tokens>, "costUsd"?: <USD>, "agent"?: "<agent id>" }]`, held beside each agent\'s `budgets` and each user\'s own (`PUT /account/budgets`). Before each model request its maximum is reserved in the user\'s account; a request that would cross a budget is refused before any provider call and the turn ends `stopped` with `errorCode: "budget_exceeded"`. These budgets cap what the deployment pays: a request made with a key a user supplied, or to an endpoint a user named (their thread\'s or account\'s env), is neither limited nor counted by them (each agent\'s and the user\'s own budgets count every request).',
  },
  {
    name: "WEFT_OTLP_URL",
    default: "(unset)",
    what: "An OpenTelemetry collector's OTLP/HTTP traces endpoint (for example `http://collector:4318/v1/traces`). Set, each turn is a trace of GenAI spans (`invoke_agent`, `chat` per model request, `execute_tool` per tool call, `run_code` per `state.runCode` run) sent (in `WEFT_OTLP_PROTOCOL`'s encoding) within `WEFT_OTLP_DELAY_MS` of the turn's end or wait, without delaying it; spans carry ids, names, token counts and times, never message content. Unset: no spans are made.",
  },
  {
    name: "WEFT_OTLP_PROTOCOL",
    default: "http/protobuf",
    what: "How spans are encoded for `WEFT_OTLP_URL`, named as OpenTelemetry's `OTEL_EXPORTER_OTLP_PROTOCOL` names it: `http/protobuf` (`application/x-protobuf`, every collector takes it) or `http/json` (`application/json`).",
  },
  {
    name: "WEFT_OTLP_DELAY_MS",
    default: String(OTLP_DELAY_MS),
    what: `How long, in milliseconds (0 to ${MAX_OTLP_DELAY_MS}), a finished span waits before it is sent, so the spans of a thread's turns and calls in that time share one request (as OpenTelemetry's \`OTEL_BSP_SCHEDULE_DELAY\` does; ${MAX_EXPORT_BATCH} waiting spans are sent at once). 0 sends each turn's spans when it ends. Spans still waiting when a thread's Durable Object is evicted are lost.`,
  },
  { name: "WEFT_AUTH", default: "(unset)", what: '`"none"` runs without authentication on purpose; unset, a deployment without credentials answers 503 `auth_not_configured`.' },
  {
    name: "WEFT_TEST_RUNNER",
    default: "(unset)",
    what: '`on` (set by `npm run test:agents`): the Worker runs inside the test runner, which alone reaches it, so the start-up line about `WEFT_AUTH = "none"` is left out, and a thread\'s `WEFT_TEST_MODEL` (set by weft/testing\'s `scripted` and `recorded`) beats the model an agent or prompt file names. Never set it in a deployment: any user could then choose their thread\'s model.',
  },
  {
    name: "WEFT_TEST_MODEL",
    default: "(unset)",
    what: "A thread env value weft/testing sets (`scripted`, or a model spec from `recorded`): the model the test gives its thread. Read only when the Worker's `WEFT_TEST_RUNNER` is `on`, where it beats the model an agent or prompt file names and no `fallbackModels` are tried; a deployed weft ignores it.",
  },
  { name: "WEFT_DEV_MODE", default: "(unset)", what: "`on` (set by `npm start`): requests from loopback addresses act as a local developer when no credentials are configured; a request that sends a token there is refused (401 `unauthenticated`), since nothing can verify it." },
  { name: "WEFT_DEV_STACK_MAPPER", default: "(unset)", what: "A loopback URL (set by `npm start`) of the process that maps a call record's `stack` from wrangler's bundle to your source files (`agents/tools/x.ts:LINE:COL`) as `GET /threads/:id/calls` reads it. Other URLs are ignored; unset (deployed), stacks are read as recorded." },
  { name: "WEFT_JWT_SECRET", default: "(unset)", what: "Secret for HS256 JWTs, at least 32 bytes (`openssl rand -base64 32`). Set it with `wrangler secret put`." },
  { name: "WEFT_JWKS_URL", default: "(unset)", what: "URL of a JWKS for RS256/ES256 JWTs (fetched and cached)." },
  { name: "WEFT_JWKS", default: "(unset)", what: "A JWKS as JSON, instead of `WEFT_JWKS_URL`." },
  { name: "WEFT_JWT_ISSUER", default: "(unset)", what: "When set, a JWT's `iss` must equal it." },
  { name: "WEFT_JWT_AUDIENCE", default: "(unset)", what: "When set, a JWT's `aud` must include it. Required with `WEFT_JWKS_URL` or `WEFT_JWKS`." },
  { name: "WEFT_API_KEYS", default: "(unset)", what: 'JSON object mapping the SHA-256 (hex) of each API key to `{ "userId", "name"?, "roles"? }`. Set it with `wrangler secret put`.' },
  { name: "WEFT_ADMIN_ROLE", default: "admin", what: "The role that may read every thread." },
  { name: "WEFT_CORS_ORIGINS", default: "(unset)", what: "Comma-separated origins (`scheme://host[:port]`) allowed by CORS; unset, CORS is off. `null` is never allowed (it is the origin of every sandboxed frame and file:// page, on any site): it is left out with a warning." },
  {
    name: "WEFT_MCP_HOSTS",
    default: "(unset)",
    what: "Comma-separated hosts (`name` or `name:port`) weft is named by. `POST /mcp` answers only these when set; any other Host is 403 `origin_not_allowed`. With no token to ask for (development mode, `WEFT_AUTH = \"none\"`), every route answers only these and loopback names. A browser's request (with `Origin`) to `/mcp`, or to any route in those modes, is served only from an origin in `WEFT_CORS_ORIGINS` or its own origin on such a host (unset: a loopback name), so a page whose name was rebound to weft's address is refused.",
  },
  {
    name: "WEFT_PUBLIC_URL",
    default: "(unset)",
    what: "The https:// origin this Worker is reached at. OAuth connections to MCP servers (`auth: { type: \"oauth\" }`) register and send the redirect URI `<WEFT_PUBLIC_URL>/mcp-oauth/callback`; unset, such a server answers `capability_missing`.",
  },
  {
    name: "WEFT_MCP_OAUTH_KEY",
    default: "(unset)",
    what: "Secret (32 characters or more) that users' MCP OAuth tokens are encrypted under in their account (AES-GCM) and that signs the OAuth `state`. Set it with `wrangler secret put`; changing it drops every connection (users authorize again). Never thread env.",
  },
  { name: "WEFT_PUBLIC_VARS", default: "(unset)", what: "Comma-separated Worker variables tools may see as `text` (the rest are `secret`)." },
];

/** Every setting: the limits (from src/limits.ts), then the others. */
export const SETTINGS: readonly Setting[] = [
  ...Object.values(LIMITS).map((l) => ({
    name: l.env,
    default: String(l.default),
    what: `${l.what[0]!.toUpperCase()}${l.what.slice(1)}: at most this many ${l.unit} (what happens beyond it: docs/limits.md).`,
  })),
  ...OTHER_SETTINGS,
];

/**
 * A setting read as an integer of at least `min` (milliseconds, bytes, ...), or undefined when it is
 * unset or not such an integer, for the caller's default to apply.
 */
export function integerSetting(env: Readonly<Record<string, unknown>>, name: Setting["name"], min: number): number | undefined {
  const value = Number(env[name]);
  return env[name] !== undefined && env[name] !== "" && Number.isInteger(value) && value >= min ? value : undefined;
}

/** Checked JSON settings by their text: a Worker's env is fixed, so each text is parsed and checked once. */
const jsonSettings = new Map<string, unknown>();

/**
 * A setting whose value is JSON, parsed and checked by `check` (which throws for a bad shape), or
 * undefined when it is unset or empty.
 * @throws WeftError `invalid_config` naming the setting when its text is not JSON; whatever `check` throws.
 */
export function jsonSetting<T>(env: Readonly<Record<string, unknown>>, name: Setting["name"], check: (value: unknown) => T): T | undefined {
  const raw = env[name];
  if (typeof raw !== "string" || raw === "") return undefined;
  const key = `${name}\n${raw}`;
  if (jsonSettings.has(key)) return jsonSettings.get(key) as T;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    throw new WeftError("invalid_config", `${name}: not JSON (${errorMessage(e)})`);
  }
  const checked = check(value);
  jsonSettings.set(key, checked);
  return checked;
}

/** A setting's value: the Worker variable when it is a non-empty string, else the default. */
export function settingOf(env: Readonly<Record<string, unknown>>, name: Setting["name"]): string {
  const raw = env[name];
  if (typeof raw === "string" && raw !== "") return raw;
  return SETTINGS.find((s) => s.name === name)?.default ?? "";
}

/** The settings that configure credentials: any of them set, every request must carry a token (src/http/auth.ts `authConfigured`). */
export const AUTH_SETTINGS = ["WEFT_JWT_SECRET", "WEFT_JWKS_URL", "WEFT_JWKS", "WEFT_API_KEYS"] as const;
