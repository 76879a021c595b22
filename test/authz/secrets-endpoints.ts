/**
 * The endpoint half of the authz `secrets` section: as an ordinary user, every way to choose a
 * provider's endpoint at every env level the user can write (the thread's env at create, the
 * account env), for every provider with a base URL, with the provider key unset, empty or set at
 * another level, while the Worker level holds a canary key. Each choice runs a turn; the fake
 * provider (scripts/lib/fake-provider.mjs, the test worker's outbound service) keeps every
 * outgoing request, and any that carries a Worker canary to a host other than the Worker's own
 * endpoint is a leak (the endpoint rule of docs/env-and-secrets.md "Secrets and redaction").
 * @module
 */
import { env } from "cloudflare:workers";
import { SignJWT } from "jose";
import { outboundContaining, scriptFake } from "../fake-provider.js";
import { request, stubOf } from "../helpers.js";

/** The env names of each provider that has a base URL (src/models/registry.ts `PROVIDERS`). */
export const ENDPOINT_PROVIDERS = {
  openai: { spec: "openai:gpt-4.1-mini", keyEnv: "OPENAI_API_KEY", urlEnv: "OPENAI_BASE_URL", defaultOrigin: "https://api.openai.com" },
  "openai-chat": { spec: "openai-chat:gpt-4.1-mini", keyEnv: "OPENAI_API_KEY", urlEnv: "OPENAI_BASE_URL", defaultOrigin: "https://api.openai.com" },
  anthropic: { spec: "anthropic:claude-sonnet-4-5", keyEnv: "ANTHROPIC_API_KEY", urlEnv: "ANTHROPIC_BASE_URL", defaultOrigin: "https://api.anthropic.com" },
  "openai-compatible": { spec: "openai-compatible:any", keyEnv: "OPENAI_COMPATIBLE_API_KEY", urlEnv: "OPENAI_COMPATIBLE_BASE_URL", defaultOrigin: null },
} as const;

/** A provider of {@link ENDPOINT_PROVIDERS}. */
export type EndpointProvider = keyof typeof ENDPOINT_PROVIDERS;

/** The env levels an ordinary user writes: the thread's env (at create) and the account env. */
export type UserLevel = "thread" | "user";

/** Where the Worker keeps its canary key: in its env (and so `process.env`), with or without its own endpoint, or in `process.env` only. */
type WorkerSetup = "key" | "key-and-url" | "process-env-only";

/** Where the user puts the provider key, relative to the level holding the chosen base URL. */
type KeyCase = "unset" | "empty-here" | "empty-other" | "empty-both" | "own-other" | "own-here";

const SETUPS: WorkerSetup[] = ["key", "key-and-url", "process-env-only"];
const LEVELS: UserLevel[] = ["thread", "user"];
const KEY_CASES: KeyCase[] = ["unset", "empty-here", "empty-other", "empty-both", "own-other", "own-here"];

const JWT_SECRET = new TextEncoder().encode("weft-test-jwt-secret-not-for-production");

/** A JWT (test/wrangler.toml's secret, issuer and audience) for an ordinary user: no roles. */
export async function userToken(sub: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ name: sub, roles: [] })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(sub)
    .setIssuer("weft-tests")
    .setAudience("weft-test")
    .setIssuedAt(now - 60)
    .setExpirationTime(now + 3600)
    .sign(JWT_SECRET);
}

/** Sends a JSON request with the user's token; throws on an unexpected status. */
export async function asUser(token: string, method: string, path: string, body?: unknown, expect?: number): Promise<any> {
  const res = await request(
    path,
    { method, headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) },
    null,
  );
  const text = await res.text();
  if (expect !== undefined && res.status !== expect) throw new Error(`${method} ${path}: expected ${expect}, got ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/**
 * Puts Worker-level values in place for a while: into the Worker's env (the object every
 * Durable Object of this isolate reads) and/or `process.env`. Returns the undo.
 */
export function setWorkerValues(values: Record<string, string>, where: { env: boolean; processEnv: boolean }): () => void {
  const workerEnv = env as unknown as Record<string, unknown>;
  const processEnv = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};
  const before = Object.keys(values).map((name) => [name, Object.hasOwn(workerEnv, name), workerEnv[name], Object.hasOwn(processEnv, name), processEnv[name]] as const);
  for (const [name, value] of Object.entries(values)) {
    if (where.env) workerEnv[name] = value;
    if (where.processEnv) processEnv[name] = value;
  }
  return () => {
    for (const [name, hadEnv, envValue, hadProcess, processValue] of before) {
      if (hadEnv) workerEnv[name] = envValue;
      else delete workerEnv[name];
      if (hadProcess) processEnv[name] = processValue;
      else delete processEnv[name];
    }
  };
}

/** One choice: the user's values per level; returns the thread that ran the turn. */
export async function runChoice(token: string, levels: Record<UserLevel, Record<string, string>>): Promise<string> {
  for (const [name, value] of Object.entries(levels.user)) await asUser(token, "PUT", `/account/env/${name}`, { value, type: "secret" }, 200);
  try {
    const env = Object.fromEntries(Object.entries(levels.thread).map(([name, value]) => [name, { value, type: "secret" as const }]));
    const { threadId } = await asUser(token, "POST", "/threads", { agent: "faults", env }, 201);
    await asUser(token, "POST", `/threads/${threadId}/messages`, { content: "hello" }, 202);
    await stubOf(threadId).waitIdle();
    return threadId;
  } finally {
    for (const name of Object.keys(levels.user)) await asUser(token, "DELETE", `/account/env/${name}`, undefined, 200);
  }
}

/** The user's values per level for a key case, with the base URL and model at `urlLevel`. */
function choiceLevels(p: (typeof ENDPOINT_PROVIDERS)[EndpointProvider], urlLevel: UserLevel, keyCase: KeyCase, chosenUrl: string, ownKey: string) {
  const other: UserLevel = urlLevel === "thread" ? "user" : "thread";
  const levels: Record<UserLevel, Record<string, string>> = { thread: {}, user: {} };
  levels[urlLevel][p.urlEnv] = chosenUrl;
  levels[urlLevel].WEFT_MODEL = p.spec;
  if (keyCase === "empty-here" || keyCase === "empty-both") levels[urlLevel][p.keyEnv] = "";
  if (keyCase === "empty-other" || keyCase === "empty-both") levels[other][p.keyEnv] = "";
  if (keyCase === "own-other") levels[other][p.keyEnv] = ownKey;
  if (keyCase === "own-here") levels[urlLevel][p.keyEnv] = ownKey;
  return levels;
}

/**
 * Tries every endpoint choice an ordinary user has (see the module comment) and reports each
 * outgoing request that carried a Worker canary key anywhere (URL, headers, body) to a host that
 * is not the Worker's own endpoint (its base URL when it sets one, else the provider's default),
 * and each that carried another Worker secret (`CANARY_WORKER`, `WEFT_JWT_SECRET`,
 * `WEFT_API_KEYS`) to any host the probe chose.
 * Each choice gets its own host, so a leak names the choice that made it.
 * @returns `choices`: the combinations tried; `sentElsewhere`: one line per leak (empty when none).
 */
export async function probeEndpointChoices(options: { short?: boolean } = {}): Promise<{ choices: number; sentElsewhere: string[] }> {
  const run = crypto.randomUUID().slice(0, 8);
  const sentElsewhere: string[] = [];
  let choices = 0;
  for (const [s, setup] of SETUPS.entries()) {
    // Providers with different env names run side by side, each as its own user; those sharing
    // env names (OpenAI's two APIs) one after the other, each with the Worker's values its own.
    // Short (npm test): each provider under one Worker setup, in turn, so every setup, provider,
    // level and key case is still probed once.
    const providers = (Object.entries(ENDPOINT_PROVIDERS) as Array<[EndpointProvider, (typeof ENDPOINT_PROVIDERS)[EndpointProvider]]>).filter(
      (_entry, i) => !options.short || i % SETUPS.length === s,
    );
    const byKeyEnv = new Map<string, typeof providers>();
    for (const entry of providers) byKeyEnv.set(entry[1].keyEnv, [...(byKeyEnv.get(entry[1].keyEnv) ?? []), entry]);
    const probeOne = async ([provider, p]: (typeof providers)[number]) => {
      const token = await userToken(`endpoint-prober-${provider}-${run}`);
      const canary = `canary-worker-${provider}-${setup}-${run}`;
      const workerUrl = setup === "key-and-url" ? `http://worker-endpoint-${run}.test/v1` : undefined;
      const values: Record<string, string> = { [p.keyEnv]: canary, ...(workerUrl ? { [p.urlEnv]: workerUrl } : {}) };
      const undo = setWorkerValues(values, { env: setup !== "process-env-only", processEnv: true });
      try {
        for (const urlLevel of LEVELS) {
          for (const keyCase of KEY_CASES) {
            choices++;
            const ownKey = `own-key-${provider}-${urlLevel}-${keyCase}-${run}`;
            await scriptFake(ownKey, [{ text: "answered with the user's own key" }]);
            await runChoice(token, choiceLevels(p, urlLevel, keyCase, `http://chosen-${provider}-${urlLevel}-${keyCase}-${run}.test/v1`, ownKey));
          }
        }
      } finally {
        undo();
      }
      const allowed = workerUrl ? new URL(workerUrl).origin : p.defaultOrigin;
      for (const sent of await outboundContaining(canary)) {
        if (new URL(sent.url).origin !== allowed) sentElsewhere.push(`${provider} (Worker ${setup}): its key went to ${sent.method} ${sent.url}`);
      }
    };
    await Promise.all(
      [...byKeyEnv.values()].map(async (group) => {
        for (const member of group) await probeOne(member);
      }),
    );
  }
  // The Worker's other secrets go to no endpoint at all: none may show up at a host this probe chose.
  const workerEnv = env as unknown as Record<string, unknown>;
  for (const name of ["CANARY_WORKER", "WEFT_JWT_SECRET", "WEFT_API_KEYS"]) {
    const value = workerEnv[name];
    if (typeof value !== "string" || value === "") continue;
    for (const sent of await outboundContaining(value)) {
      if (sent.url.includes(`-${run}.test`)) sentElsewhere.push(`the Worker's ${name} went to ${sent.method} ${sent.url}`);
    }
  }
  return { choices, sentElsewhere };
}
