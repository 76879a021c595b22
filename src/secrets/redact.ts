/**
 * Redaction of secret values from everything that leaves a thread or the Worker: events, WebSocket
 * frames, stored messages (what the model sees), RPC and HTTP answers, error messages and logs.
 *
 * No side channel (docs/env-and-secrets.md "Secrets and redaction"): what a reader sees depends on a secret only where a
 * whole occurrence of it is in the text. The marker is one fixed string for every secret; a
 * partial match costs the same search as a miss (the same passes over the text, runs.ts) and changes
 * nothing in the output; streamed text is cut by a rule that looks at the text alone (redact-stream.ts).
 * Which secrets a redactor holds: a thread's, exactly those its code can read (see
 * `ThreadSecrets` in thread-secrets.ts); weft's own credentials are no thread env ({@link CREDENTIAL_VARS})
 * and are redacted from logs only (an answer that held them would be an oracle for guesses).
 * @module
 */
import { builtin, bytesOf, primitiveOf } from "./built-ins.js";
import { byteRuns } from "./byte-runs.js";
import { Touched, hides, hidingEscapes, jsonTokens, replaceInJson, surelyInString } from "./json-text.js";
import { merged, runsOf } from "./runs.js";

/** Where secret text is in a text (runs.ts), searched here as redaction searches it. */
export { runsOf } from "./runs.js";

/** A secret to hide: its env name (for the configuration only: markers never show it) and its value. */
export interface Secret {
  name: string;
  value: string;
}

/**
 * Values shorter than this are not redacted: they would match ordinary text ("1", "true"). Use
 * longer secrets.
 */
export const MIN_SECRET_CHARS = 6;

/** What replaces a secret, whichever it is: a name would tell which secret a text matched. */
export const REDACTED = "[redacted]";

/**
 * Replaces secret values with {@link REDACTED}. Every occurrence of every secret is found (in its
 * raw form and in its JSON-escaped form), overlapping occurrences count as one stretch, and each
 * stretch becomes one marker: no character of any secret is left beside a marker, and the output
 * depends on a secret only where a whole occurrence of it is in the text (a full match shows, by
 * design; a partial one never does). A text that is JSON as a whole stays JSON (see {@link text}):
 * there a stretch across tokens becomes a marker in each token it touches, its punctuation kept
 * (unless that would make the text over twice as long: then each stretch is one marker, as in any text).
 */
export class Redactor {
  readonly secrets: readonly Secret[];
  /**
   * What {@link plain} (and a stream, and {@link bytes} in each encoding) looks for: each value,
   * and its JSON-escaped form where that differs (the only copy a redactor keeps of a secret).
   */
  readonly forms: readonly string[];
  /** The longest form, in UTF-16 units: streams hold back enough text to see one whole. */
  readonly longest: number;
  /** Whether some form holds whitespace: streams then never cut at whitespace. */
  readonly spaced: boolean;
  /** Escapes a secret may hide behind in a JSON string (json-text.ts). */
  private readonly hides: RegExp;
  /** Whether a form is made only of number characters (digits, `-+.e`): else no number holds one. */
  private readonly numeric: boolean;
  private fingerprinted?: string;

  constructor(secrets: Iterable<Secret>) {
    const seen = new Map<string, Secret>();
    for (const s of secrets) if (s.value.length >= MIN_SECRET_CHARS && !seen.has(s.value)) seen.set(s.value, s);
    this.secrets = [...seen.values()];
    const forms = new Set(this.secrets.map((s) => s.value));
    for (const s of this.secrets) {
      const escaped = JSON.stringify(s.value).slice(1, -1);
      if (escaped !== s.value) forms.add(escaped);
    }
    this.forms = [...forms];
    this.longest = Math.max(0, ...this.forms.map((f) => f.length));
    this.spaced = this.forms.some((f) => /\s/.test(f));
    // An escaped form holds a backslash exactly when some form does (a raw one escapes its own).
    this.hides = hidingEscapes(this.forms);
    this.numeric = this.forms.some((f) => /^[-+.0-9e]+$/.test(f));
  }

  /**
   * Makes its search now (with many secrets, a one-pass search takes tens of ms to make:
   * src/secrets/runs.ts), so its maker pays for it, not whoever redacts first. Text, streams and
   * bytes all use it.
   */
  prepare(): void {
    runsOf("", this.forms);
  }

  /**
   * The text with every stretch of secret text replaced by one marker. A text that is JSON as a
   * whole stays JSON, its other bytes as written (src/secrets/json-text.ts): a number that secret
   * text touches becomes the marker as a string (`{"pin":"[redacted]"}`), and its strings are
   * redacted decoded too (a reader that decodes it would otherwise see a secret written with
   * escapes such as `\u00e9`), each string that held one written anew, the rest left as they were.
   */
  text(text: string): string {
    return this.redacted(text, 0, this.find);
  }

  /**
   * A text file's text: {@link text}, looking in the same pass for each form's bytes as {@link bytes}
   * does, so a secret's bytes that overlap another's text are one stretch with it (a pass for each
   * cut the occurrence the other found first, and left part of it).
   */
  textFile(text: string): string {
    return this.secrets.length === 0 ? text : this.redacted(text, 0, this.findInFile);
  }

  /** Only the stretches of secret text, without decoding: what a stream's pieces add up to. */
  plain(text: string): string {
    return replaceRuns(text, runsOf(text, this.forms));
  }

  /** A hash (106 bits, hex) of the secrets held, in any order: what stored text was redacted for (kept in the thread, never sent). */
  get fingerprint(): string {
    return (this.fingerprinted ??= hashText(JSON.stringify(this.secrets.map((s) => s.value).sort())));
  }

  /** Whether the secrets held are exactly `values` (held once each, as a redactor holds them). */
  holdsExactly(values: ReadonlySet<string>): boolean {
    return this.secrets.length === values.size && this.secrets.every((s) => values.has(s.value));
  }

  /**
   * Bytes, as a binary string (one character per byte, as `atob` gives them), with every stretch of
   * a secret's bytes replaced by the marker's, in each encoding a text file may use: UTF-8, UTF-16
   * (both byte orders) and, for a secret of Latin-1 characters only, Latin-1; each of the secret's
   * forms (raw and JSON-escaped). The bytes are read in each encoding rather than each form
   * encoded (src/secrets/byte-runs.ts): its cost is {@link forms}' search's, a few times over.
   */
  bytes(binary: string): string {
    if (this.secrets.length === 0) return binary;
    return replaceRuns(binary, byteRuns(binary, this.forms));
  }

  /** Base64 data with every secret's bytes replaced (see {@link bytes}); the same string when none was found, or when it is not base64. */
  base64(data: string): string {
    if (this.secrets.length === 0) return data;
    let binary: string;
    try {
      binary = atob(data);
    } catch {
      return data;
    }
    const clean = this.bytes(binary);
    return clean === binary ? data : btoa(clean);
  }

  /**
   * A value with every string (keys too) redacted, as a copy built from what was read once: what
   * leaves is the copy, so a getter, a Proxy or a `toJSON` that answers otherwise when asked again
   * is never asked again. Plain objects, arrays, a `Map` and a `Set` are copied (a class instance
   * becomes a plain object of its own enumerable properties, as JSON and structured clone see it),
   * an object with `toJSON` (a URL, a class) becomes its JSON form, redacted; a Date stays a Date,
   * an Error becomes an Error of its redacted name, message and stack; bytes (a typed array, an
   * ArrayBuffer, a DataView) are copied from their bytes, unscanned (see {@link bytes}); a function or
   * a symbol is left out, as JSON leaves it. A value without secrets to look for comes back as it is.
   * Numbers are left as they are (weft's own: seq cursors, times, counts); see {@link content}.
   */
  value<T>(value: T): T {
    if (this.secrets.length === 0) return value;
    return this.walk(value, 0, new Walk(false)) as T;
  }

  /**
   * {@link value} for what tool code hands weft (emitted data, error details) and for logs: a number
   * whose JSON text holds secret text also becomes the marker, whole, as {@link text} does in JSON.
   * Not for weft's own answers: a cursor or a time holding a user's digits would change type.
   */
  content<T>(value: T): T {
    if (this.secrets.length === 0) return value;
    return this.walk(value, 0, new Walk(this.numeric)) as T;
  }

  /** The stretches of secret text in a text; in a text file's text, of secret bytes too (see {@link bytes}). */
  private readonly find = (text: string) => runsOf(text, this.forms);
  private readonly findInFile = (text: string) => merged([...runsOf(text, this.forms), ...byteRuns(text, this.forms)]);

  /**
   * {@link plain}, kept JSON where the text is JSON as a whole (see {@link text}); `depth`: levels of
   * JSON inside JSON strings above this text (decoded {@link MAX_DECODE_DEPTH} deep at most);
   * `find`: where secret text is.
   */
  private redacted(text: string, depth: number, find: (text: string) => Array<[number, number]>): string {
    let runs = find(text);
    // One scan for the common case, a text without any backslash: escapes other than `\u` and `\/`
    // are the ones JSON.stringify writes, which the escaped forms match without decoding.
    const hiding = depth <= MAX_DECODE_DEPTH && this.secrets.length > 0 && text.includes("\\") && hides(this.hides, text, 0) !== Infinity;
    if (runs.length === 0 && !hiding) return text;
    if (!hiding && runs.every((run) => surelyInString(text, run))) return replaceRuns(text, runs);
    // Only the tokens these steps change are read into memory (every token took 10 bytes or more a
    // character); past as many markers as the text can hold kept JSON, only the strings to decode.
    let touched = new Touched(text, runs, hiding ? this.hides : null, REDACTED);
    let tokens = jsonTokens(text, touched.keep);
    if (!tokens) return replaceRuns(text, runs);
    if (depth <= MAX_DECODE_DEPTH) {
      const decoded = this.decodedStrings(text, tokens, runs, depth, find);
      if (decoded !== text) {
        text = decoded;
        runs = find(text);
        touched = new Touched(text, runs, null, REDACTED);
        tokens = jsonTokens(text, touched.keep);
      }
    }
    return (tokens && !touched.over ? replaceInJson(text, tokens, runs, REDACTED) : null) ?? replaceRuns(text, runs);
  }

  /**
   * JSON `text` with each string that `runs` touch or that holds an escape a secret may hide behind
   * (`hidingEscapes`) decoded and redacted (JSON in it too), written anew where that changed it;
   * every other byte as it was. `tokens`: those of `text` that runs touch or that hold such an
   * escape, at least.
   */
  private decodedStrings(text: string, tokens: readonly number[], runs: ReadonlyArray<[number, number]>, depth: number, find: (text: string) => Array<[number, number]>): string {
    let out = "";
    let at = 0;
    let r = 0;
    let hiding = -1;
    for (let t = 0; t < tokens.length; t += 2) {
      const a = tokens[t]!;
      const b = tokens[t + 1]!;
      // A number or a literal: replaced whole later, if secret text touches it.
      if (text.charCodeAt(a) !== 0x22) continue;
      while (r < runs.length && runs[r]![1] <= a) r++;
      if (hiding < a) hiding = hides(this.hides, text, a);
      if (!(r < runs.length && runs[r]![0] < b) && hiding >= b) continue;
      const value = JSON.parse(text.slice(a, b)) as string;
      const clean = this.redacted(value, depth + 1, find);
      if (clean === value) continue;
      out += text.slice(at, a) + JSON.stringify(clean);
      at = b;
    }
    return at === 0 ? text : out + text.slice(at);
  }

  /** `key` is the value's key in its parent (as `JSON.stringify` passes it to `toJSON`). */
  private walk(value: unknown, depth: number, w: Walk, key = ""): unknown {
    if (typeof value === "string") return this.redacted(value, 0, this.find);
    // Searched as the text a reader sees (a finite number's JSON text is `String(n)`; NaN and Infinity hold no form).
    if (typeof value === "number" || typeof value === "bigint") return w.numbers && this.find(String(value)).length > 0 ? REDACTED : value;
    // JSON leaves a function or a symbol out, as the copy does; logs would show its properties or description.
    if (typeof value === "function" || typeof value === "symbol") return undefined;
    if (value === null || typeof value !== "object") return value;
    // Deeper than any value weft validates: replaced whole, unread (never passed on unread).
    if (depth > MAX_WALK_DEPTH) return TOO_DEEP;
    // Each object is walked once per value: one met twice gets the same copy, and one inside
    // itself does not send the walk round it.
    const seen = (w.seen ??= new Map());
    if (seen.has(value)) return seen.get(value);
    seen.set(value, CYCLE);
    const clean = this.walkObject(value, depth, w, key);
    seen.set(value, clean);
    return clean;
  }

  private walkObject(value: object, depth: number, w: Walk, key: string): unknown {
    if (Array.isArray(value)) {
      const length = value.length;
      // A copy of a huge (or sparse) array would take its length in memory: replaced whole, unread.
      if (length > MAX_WALK_ITEMS) return TOO_MANY;
      const out: unknown[] = [];
      for (let i = 0; i < length; i++) out.push(this.walk(value[i], depth + 1, w, String(i)));
      return out;
    }
    if (value instanceof Error) {
      const message = this.text(String(value.message));
      const stack = value.stack === undefined ? undefined : this.text(String(value.stack));
      const name = this.text(String(value.name));
      // Whatever else an error carries (details, a cause) is dropped by the copy, so no secret rides along unread.
      const copy = new Error(message);
      copy.name = name;
      if (stack) copy.stack = stack;
      return copy;
    }
    // Bytes leave as a copy of their bytes (not their own properties); a lookalike is walked as an object.
    const bytes = bytesOf(value);
    if (bytes !== undefined) return bytes;
    // A String, Number, Boolean or BigInt object is its primitive to JSON.
    const boxed = primitiveOf(value);
    if (boxed !== undefined) return this.walk(boxed, depth, w, key);
    // What JSON makes of it (a URL's href, a class's toJSON) is what leaves: that is what is redacted
    // and given back, so JSON does not ask the object again. A Date with the standard toJSON stays a
    // Date (its JSON is a timestamp), copied from its time.
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (value instanceof Date && toJSON === Date.prototype.toJSON) {
      const time = builtin(() => Date.prototype.getTime.call(value));
      if (time !== undefined) return new Date(time);
    }
    if (typeof toJSON === "function") return this.walk(toJSON.call(value, key) as unknown, depth + 1, w, key);
    // A Map's and a Set's contents travel by structured clone (an RPC answer) and show in logs.
    const pairs = value instanceof Map ? builtin(() => [...Map.prototype.entries.call(value)]) : undefined;
    if (pairs) return new Map(pairs.map(([k, v]) => [this.walk(k, depth + 1, w), this.walk(v, depth + 1, w)]));
    const members = value instanceof Set ? builtin(() => [...Set.prototype.values.call(value)]) : undefined;
    if (members) return new Set(members.map((v) => this.walk(v, depth + 1, w)));
    const entries = Object.entries(value);
    for (const entry of entries) {
      const k = entry[0];
      entry[0] = this.text(k);
      entry[1] = this.walk(entry[1], depth + 1, w, k);
    }
    return Object.fromEntries(entries);
  }
}

/** cyrb53 with two seeds: a fast, well-spread hash of a text (not a cryptographic one). */
function hashText(text: string): string {
  const lane = (seed: number) => {
    let h1 = 0xdeadbeef ^ seed;
    let h2 = 0x41c6ce57 ^ seed;
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 2654435761);
      h2 = Math.imul(h2 ^ ch, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, "0");
  };
  return lane(1) + lane(2);
}

/**
 * One walk over a value, which builds every object anew from what was read. `seen` holds each
 * object walked with its redacted form, made at the first object met.
 */
class Walk {
  seen?: Map<object, unknown>;
  /** Whether numbers are searched too ({@link Redactor.content}, with a form made of number characters). */
  constructor(readonly numbers: boolean) {}
}

/** Levels of JSON inside JSON strings whose strings are decoded to look for secrets (deeper, searched as written). */
const MAX_DECODE_DEPTH = 8;

/**
 * Levels of nesting a value is walked through: past the 256 levels a validated value may have
 * (`MAX_VALUE_DEPTH`), and well within the stack (JSON in a string is read without a walk, and
 * decoded {@link MAX_DECODE_DEPTH} levels deep at most). Anything deeper is replaced by {@link TOO_DEEP}: no part of an answer passes unread.
 */
const MAX_WALK_DEPTH = 300;
/** What stands for a part of a value nested deeper than {@link MAX_WALK_DEPTH}. */
const TOO_DEEP = "[redacted: nested too deeply to check for secrets]";
/** Items of an array a copy is made of at most; a longer array is replaced by {@link TOO_MANY}. */
const MAX_WALK_ITEMS = 1_000_000;
/** What stands for an array longer than {@link MAX_WALK_ITEMS}. */
const TOO_MANY = "[redacted: too many items to check for secrets]";
/** What stands for an object inside itself (JSON has no form for it; `JSON.stringify` throws). */
const CYCLE = "[redacted: a value inside itself]";

/** `text` with each stretch `[start, end)` of `runs` (in order, apart, as {@link runsOf} gives them) replaced by the marker. */
export function replaceRuns(text: string, runs: ReadonlyArray<[number, number]>): string {
  if (runs.length === 0) return text;
  let out = "";
  let at = 0;
  for (const [s, e] of runs) {
    out += text.slice(at, s) + REDACTED;
    at = e;
  }
  return out + text.slice(at);
}

/** A secret value in the given env map, as a list for {@link Redactor}. */
export function secretsOf(entries: Iterable<[string, { value: string; type: string }]>): Secret[] {
  const out: Secret[] = [];
  for (const [name, v] of entries) if (v.type === "secret") out.push({ name, value: v.value });
  return out;
}

/**
 * weft's own credentials: the only `WEFT_*` vars that hold secrets. They are never thread env
 * (`state.env` does not answer them at the Worker level), so thread code cannot read them and a
 * thread's redactor does not hold them, nor does the Worker's answers' (no code puts them in an
 * answer, and redacting them there would make an answer echoing a user's text an oracle for
 * them); every log is still cleaned of them.
 */
export const CREDENTIAL_VARS: ReadonlySet<string> = new Set(["WEFT_JWT_SECRET", "WEFT_API_KEYS", "WEFT_MCP_OAUTH_KEY"]);

/**
 * The Worker's secrets: every string binding except weft's plain config vars (`WEFT_*`) and the
 * names listed in `WEFT_PUBLIC_VARS` (comma-separated). Wrangler gives vars and secrets alike as
 * strings, so a var is treated as a secret unless declared public. With `credentials: false`,
 * only what thread code can read: weft's own credentials ({@link CREDENTIAL_VARS}) left out.
 */
export function workerSecrets(env: Readonly<Record<string, unknown>>, options: { credentials?: boolean } = {}): Secret[] {
  const open = publicVars(env);
  const out: Secret[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (typeof value !== "string" || open.has(name)) continue;
    if (name.startsWith("WEFT_") && !(CREDENTIAL_VARS.has(name) && options.credentials !== false)) continue;
    out.push({ name, value });
  }
  return out;
}

/** Names in `WEFT_PUBLIC_VARS`: Worker vars that tools may show (their `envType` is `text`). */
export function publicVars(env: Readonly<Record<string, unknown>>): Set<string> {
  return new Set(String(env.WEFT_PUBLIC_VARS ?? "").split(",").map((s) => s.trim()).filter(Boolean));
}
