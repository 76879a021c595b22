/**
 * The streamed half of the authz `secrets:` section: an attacker who runs the model endpoint
 * streams probe texts through real turns (the fake provider, Chat Completions) and reads back
 * everything an ordinary user can see, to learn a secret the user cannot read from where and how
 * redaction acts. Each probe run is compared with a control run that must look the same:
 *
 * - Probes that do not hold the whole secret (every prefix, prefix + a wrong character, the secret
 *   with one character changed, a long token ending in a prefix) are compared with the same probes
 *   built from a look-alike of the secret that matches nothing (its characters mapped one to one
 *   to Greek letters, mapped back before comparing). Any difference is a partial-match oracle.
 * - Whole-guess probes hold the whole secret (in one piece, and split at every position across
 *   deltas). The thread's code never received these secrets (the turn runs no tool that reads
 *   them), so they are compared with the look-alike too: a thread redacts only what its code
 *   received (src/secrets/thread-secrets.ts), and any difference is a full-match oracle.
 * - The same split probes of a secret the owner set on the thread itself (always redacted) are
 *   compared with the same probes of a different thread-level secret of the same length: the match
 *   itself is inherent in redacting a secret the user can read anyway, but nothing else (where,
 *   how split, which secret) may show.
 *
 * Secrets probed: the Worker's `CANARY_WORKER` and the agent's `CANARY_AGENT` (set by the
 * developer, not by the observing user), and the thread's own `PROBE_OWN`, each streamed as model
 * text (`text_delta`) and as a tool call's argument text (`tool_call_delta`, with its parsed `preview`). What is compared: the WebSocket frames of the turn (types,
 * count, order, every field: delta boundaries and lengths, step text, markers) and the HTTP answers
 * `GET /threads/:id`, `/messages` and `/chat`, with ids and times normalised. Timing is not
 * compared: event times are whole milliseconds and the shared test machine's jitter is larger
 * than any difference redaction could make; what makes timing independent of matches is the cut
 * rule itself (see src/secrets/redact.ts).
 * @module
 */
import { STREAM_FLUSH_BYTES } from "../../src/run/stream-events.js";
import type { EventFrame } from "../../src/protocol.js";
import { fakeEnv, fakeKey, scriptFake } from "../fake-provider.js";
import { createThread, json, stubOf, subscribe } from "../helpers.js";
import { CANARIES } from "./matrix.js";

/** Characters per streamed piece: past the flush size, so each piece is flushed as its own delta whatever the timing. */
const CHUNK = STREAM_FLUSH_BYTES + 64;
const WORDS = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua".split(" ");
/** Stand-ins for a secret's characters: no secret, filler or marker uses them. */
const GREEK = "ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩαβγδεζηθικλμνξοπρστυφχψω";

/** `n` characters of plain words, starting and ending with a space (n >= 2). */
function filler(n: number): string {
  let s = " ";
  for (let i = 0; s.length < n - 1; i++) s += `${WORDS[i % WORDS.length]} `;
  return `${s.slice(0, n - 1).trimEnd().padEnd(n - 1, "x")} `;
}

/** One streamed piece of exactly CHUNK characters ending with `tail` (after a space). */
const ending = (tail: string) => filler(CHUNK - tail.length) + tail;
/** One streamed piece of exactly CHUNK characters starting with `head`. */
const starting = (head: string) => head + filler(CHUNK - head.length);

/** A character of the secret's alphabet other than `c`. */
function other(secret: string, c: string): string {
  return [...new Set(secret)].find((x) => x !== c) ?? "x";
}

/** The probe families: each probe is its label and the pieces that carry it. */
function families(secret: string): Record<string, Array<{ label: string; pieces: string[] }>> {
  const n = secret.length;
  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
  return {
    prefix: range(1, n).map((k) => ({ label: `prefix ${k}`, pieces: [ending(secret.slice(0, k))] })),
    wrongNext: range(0, n).map((k) => ({ label: `prefix ${k} + wrong char`, pieces: [ending(secret.slice(0, k) + other(secret, secret[k]!))] })),
    nearMiss: [
      ...range(0, n).map((i) => ({ label: `char ${i} changed`, pieces: [ending(secret.slice(0, i) + other(secret, secret[i]!) + secret.slice(i + 1))] })),
      { label: "first char dropped", pieces: [ending(secret.slice(1))] },
    ],
    // A token longer than any hold-back ending in a prefix: the cut must not look at the prefix.
    longToken: range(1, n).map((k) => ({ label: `long token + prefix ${k}`, pieces: [ending("q".repeat(400) + secret.slice(0, k))] })),
    split: range(1, n).map((k) => ({ label: `split at ${k}`, pieces: [ending(secret.slice(0, k)), starting(secret.slice(k))] })),
    whole: [{ label: "whole", pieces: [ending(secret)] }, { label: "whole, then more", pieces: [starting(`${secret} `)] }],
  };
}

/** A look-alike of `text`: each character of `secret` replaced by its Greek stand-in. */
function lookAlike(secret: string): { to: (s: string) => string; back: (s: string) => string } {
  const alphabet = [...new Set(secret)];
  if (alphabet.length > GREEK.length) throw new Error(`probe: secret alphabet too large (${alphabet.length})`);
  const fwd = new Map(alphabet.map((c, i) => [c, GREEK[i]!]));
  const rev = new Map(alphabet.map((c, i) => [GREEK[i]!, c]));
  return {
    to: (s) => [...s].map((c) => fwd.get(c) ?? c).join(""),
    back: (s) => [...s].map((c) => rev.get(c) ?? c).join(""),
  };
}

/**
 * The secrets probed. `received: false`: no code of the probe threads reads it, so every family
 * (whole guesses too) is compared with the look-alike. `received: true`: the owner set it on the
 * thread, so only its split probes run, compared with the thread-level twin of the same length.
 */
const TARGETS = [
  { name: "CANARY_WORKER", value: CANARIES.CANARY_WORKER, received: false },
  { name: "CANARY_AGENT", value: CANARIES.CANARY_AGENT, received: false },
  { name: "PROBE_OWN", value: "own-secret-4d2a8c7e19", received: true },
];
const twinOf = (value: string) => `twin-${"7e3c91ab".repeat(8)}`.slice(0, value.length);

const OPEN = '{"query":"';

/** What an ordinary user sees of one turn: its frames over the WebSocket and three HTTP answers. */
async function observe(pieces: string[], via: "text" | "args"): Promise<unknown> {
  const key = fakeKey("probe");
  // As argument text the probes stream as one string member: the object's opening takes the
  // place of the first piece's first characters, so every piece still ends where it did.
  const args = `${OPEN}${pieces.join("").slice(OPEN.length)}"}`;
  await scriptFake(key, via === "text" ? [{ text: pieces.join(""), chunk: CHUNK }] : [{ toolCalls: [{ id: "probe", name: "no_such_tool", arguments: args }], chunk: CHUNK }, { text: "ok" }]);
  const twins = Object.fromEntries(TARGETS.map((t, i) => [`PROBE_TWIN_${i}`, { value: twinOf(t.value), type: "secret" as const }]));
  const own = Object.fromEntries(TARGETS.filter((t) => t.received).map((t) => [t.name, { value: t.value, type: "secret" as const }]));
  const id = await createThread({ agent: "canary", env: { ...fakeEnv("openai-compatible:x", key), ...twins, ...own } });
  const sub = await subscribe(id, 0);
  const posted = await json("POST", `/threads/${id}/messages`, { content: "go" });
  if (posted.status !== 202) throw new Error(`probe: post answered ${posted.status}: ${JSON.stringify(posted.body)}`);
  await sub.until((frames) => frames.some((f) => f.type === "turn_finished"), 120_000);
  await stubOf(id).waitIdle();
  // Every frame the thread stored, however late the socket delivers it: a probe and its control
  // are compared frame for frame, so neither may stop short by timing.
  const { lastSeq } = (await json("GET", `/threads/${id}`)).body as { lastSeq: number };
  await sub.until((frames) => frames.some((f) => f.seq >= lastSeq), 120_000);
  sub.close();
  const http = await Promise.all(["", "/messages?limit=100&includeSilent=true", "/chat"].map(async (path) => (await json("GET", `/threads/${id}${path}`)).body));
  return normalise({ frames: sub.frames.map((f: EventFrame) => ({ seq: f.seq, type: f.type, data: f.data })), http });
}

// A thread id, or a branch of one (its id, a dot and 8 hex digits).
const ID = /^(thr|thread|turn|msg|call|m)[_-]?[0-9A-Za-z_-]{6,}$|^[0-9a-f-]{32,64}(\.[0-9a-f]{8})?$/;
const TIME_KEY = /(^at$|At$|Ms$|ms$|^ts$|[Dd]uration|[Ll]atency)/;

/** Ids become their order of first appearance; times and durations are dropped. */
function normalise(value: unknown): unknown {
  const ids = new Map<string, string>();
  const walk = (v: unknown, key: string): unknown => {
    if (typeof v === "string") {
      if (ID.test(v)) return ids.get(v) ?? (ids.set(v, `<id${ids.size}>`), `<id${ids.size - 1}>`);
      if (/^\d{4}-\d\d-\d\dT/.test(v)) return "<time>";
      return v;
    }
    if (Array.isArray(v)) return v.map((x) => walk(x, key));
    if (v && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) if (!TIME_KEY.test(k)) out[k] = walk(x, k);
      return out;
    }
    return v;
  };
  return walk(value, "");
}

/** Every string in a value mapped by `f` (keys too). */
function mapStrings(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === "string") return f(value);
  if (Array.isArray(value)) return value.map((x) => mapStrings(x, f));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, x]) => [f(k), mapStrings(x, f)]));
  return value;
}

/** Paths where two observations differ, each with both sides (shortened). */
function diff(a: unknown, b: unknown, path = ""): string[] {
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b) || a === null || b === null || typeof a !== "object") {
    if (a === b) return [];
    const show = (x: unknown) => {
      const s = JSON.stringify(x) ?? "undefined";
      return s.length > 160 ? `${s.slice(0, 70)}…${s.slice(-70)} (${s.length} chars)` : s;
    };
    return [`${path || "/"}: ${show(a)} vs ${show(b)}`];
  }
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  const out: string[] = [];
  if (Array.isArray(a) && ka.length !== kb.length) out.push(`${path}: ${ka.length} vs ${kb.length} items`);
  for (const k of new Set([...ka, ...kb])) out.push(...diff((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}/${k}`));
  return out;
}

/**
 * Streams every probe family for each target secret through real turns and compares what an
 * ordinary user observes with the control runs. `probes` counts the probes streamed (controls not
 * counted); `differences` lists every observable difference, named by secret, family and path.
 * `short` (npm test's version): each secret streamed one way only, the ways taking turns, so every
 * secret and every way is probed at half the cost; `npm run authz` streams each secret both ways.
 */
export async function probeStreamedSecrets(short = false): Promise<{ probes: number; differences: string[] }> {
  let probes = 0;
  const differences: string[] = [];
  for (const [t, target] of TARGETS.entries()) {
    const twin = twinOf(target.value);
    const map = lookAlike(target.value);
    const real = families(target.value);
    const twinFamilies = families(twin);
    // The same probes built from the look-alike (the bijection keeps every family's shape).
    const alikeFamilies = families(map.to(target.value));
    // As model text (text_delta) and as a tool call's argument text (tool_call_delta).
    for (const via of short ? ([t % 2 === 0 ? "text" : "args"] as const) : (["text", "args"] as const)) {
      for (const [family, list] of Object.entries(real)) {
        // A secret the thread's owner set is redacted by design: only its split probes (vs the twin) say anything.
        if (target.received && family !== "split") continue;
        probes += list.length;
        const pieces = list.flatMap((p) => p.pieces);
        const mine = await observe(pieces, via);
        // A run whose pieces were not flushed one by one probes nothing: say so rather than pass.
        const deltaType = via === "text" ? "text_delta" : "tool_call_delta";
        const deltas = (mine as { frames: Array<{ type: string }> }).frames.filter((f) => f.type === deltaType).length;
        if (deltas < pieces.length - 1) differences.push(`${target.name} ${via} ${family}: only ${deltas} ${deltaType} events for ${pieces.length} streamed pieces`);
        // A received secret's split probes are controlled by the whole twin; every other probe by the look-alike.
        const control =
          target.received
            ? await observe(twinFamilies.split!.flatMap((p) => p.pieces), via)
            : mapStrings(await observe(alikeFamilies[family]!.flatMap((p) => p.pieces), via), map.back);
        for (const d of diff(mine, control)) differences.push(`${target.name} ${via} ${family}: ${d}`);
      }
    }
  }
  return { probes, differences };
}
