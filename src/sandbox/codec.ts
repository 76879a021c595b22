/**
 * How values cross the sandbox boundary: structured-clone values as tagged JSON text.
 *
 * Supported: `undefined`, `null`, booleans, numbers (NaN, ±Infinity, -0 kept), strings, bigints,
 * arrays, plain objects, `Date`, `Map`, `Set`, `RegExp`, `Uint8Array`. Anything else (functions,
 * symbols, class instances, cycles) is refused with the path of the offending value. Special values
 * become `{"$weft": tag, "v": ...}`; a plain object that has a `$weft` key is wrapped the same way,
 * so decoding is unambiguous. The host side is below in TypeScript; `VM_CODEC_SOURCE` is the same
 * format for code running inside QuickJS, and the conformance suite round-trips every kind through
 * both.
 * @module
 */

/** A value that cannot cross the boundary; `path` is where in the value it sits. */
export class CloneError extends TypeError {
  override readonly name = "DataCloneError";
  constructor(
    readonly path: string,
    what: string,
  ) {
    super(`${path}: ${what} is not a structured-clone value weft passes (use JSON values, Date, Map, Set, RegExp, Uint8Array or bigint)`);
  }
}

const TAG = "$weft";

/** Where in a value the walk is: an array index, an object key, or a Map/Set entry label. */
type Step = number | string | { label: string };

/** Encodes a host value; throws `CloneError` naming the path of an unsupported value. */
export function encodeValue(value: unknown, root = "value"): string {
  const seen = new Set<object>();
  // The path is kept as steps and spelled out only for an error: most values never need it.
  const steps: Step[] = [];
  const refuse = (what: string) =>
    new CloneError(root + steps.map((s) => (typeof s === "number" ? `[${s}]` : `.${typeof s === "string" ? s : s.label}`)).join(""), what);
  const at = (step: Step, v: unknown): unknown => {
    steps.push(step);
    const out = walk(v);
    steps.pop();
    return out;
  };
  const walk = (v: unknown): unknown => {
    switch (typeof v) {
      case "undefined":
        return { [TAG]: "undefined" };
      case "boolean":
      case "string":
        return v;
      case "number":
        if (Number.isNaN(v)) return { [TAG]: "number", v: "NaN" };
        if (!Number.isFinite(v)) return { [TAG]: "number", v: v > 0 ? "Infinity" : "-Infinity" };
        if (Object.is(v, -0)) return { [TAG]: "number", v: "-0" };
        return v;
      case "bigint":
        return { [TAG]: "bigint", v: v.toString() };
      case "function":
        throw refuse("a function");
      case "symbol":
        throw refuse("a symbol");
    }
    if (v === null) return null;
    const obj = v as object;
    if (seen.has(obj)) throw refuse("a cyclic reference");
    seen.add(obj);
    try {
      if (Array.isArray(obj)) {
        const out = new Array<unknown>(obj.length);
        for (let i = 0; i < obj.length; i++) out[i] = at(i, obj[i]);
        return out;
      }
      if (obj instanceof Date) return { [TAG]: "date", v: obj.getTime() };
      if (obj instanceof Map) return { [TAG]: "map", v: Array.from(obj, ([k, val], i) => [at({ label: `<key ${i}>` }, k), at({ label: `<value ${i}>` }, val)]) };
      if (obj instanceof Set) return { [TAG]: "set", v: Array.from(obj, (item, i) => at({ label: `<item ${i}>` }, item)) };
      if (obj instanceof RegExp) return { [TAG]: "regexp", v: [obj.source, obj.flags] };
      if (obj instanceof Uint8Array) return { [TAG]: "bytes", v: Array.from(obj) };
      const proto = Object.getPrototypeOf(obj);
      if (proto !== Object.prototype && proto !== null) throw refuse(`a ${proto?.constructor?.name ?? "class"} instance`);
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(obj)) {
        Object.defineProperty(out, key, { value: at(key, (obj as Record<string, unknown>)[key]), enumerable: true, writable: true, configurable: true });
      }
      return TAG in out ? { [TAG]: "object", v: out } : out;
    } finally {
      seen.delete(obj);
    }
  };
  return JSON.stringify(walk(value));
}

/** Decodes text made by either side's encoder. */
export function decodeValue(text: string): unknown {
  // Without the tag nothing needs reviving, and a reviver makes JSON.parse several times slower.
  if (!text.includes(TAG)) return JSON.parse(text);
  return JSON.parse(text, (_key, v) => {
    if (v === null || typeof v !== "object" || Array.isArray(v) || typeof v[TAG] !== "string") return v;
    switch (v[TAG]) {
      case "undefined":
        return undefined;
      case "number":
        return v.v === "-0" ? -0 : Number(v.v);
      case "bigint":
        return BigInt(v.v);
      case "date":
        return new Date(v.v);
      case "map":
        return new Map(v.v);
      case "set":
        return new Set(v.v);
      case "regexp":
        return new RegExp(v.v[0], v.v[1]);
      case "bytes":
        // Only an array: an array-like such as {"length": 1e9} would allocate its length from a few bytes of text.
        if (!Array.isArray(v.v)) throw new TypeError("a byte array is not encoded as an array");
        return Uint8Array.from(v.v);
      case "object":
        return v.v;
    }
    return v;
  });
}

/**
 * The same codec for code inside QuickJS: defines `encode(value, root)` and `decode(text)` in the
 * enclosing scope. Kept as text because it runs in another engine; format as above.
 */
export const VM_CODEC_SOURCE = String.raw`
const TAG = "$weft";
const cloneError = (path, what) => new TypeError(path + ": " + what + " is not a structured-clone value weft passes (use JSON values, Date, Map, Set, RegExp, Uint8Array or bigint)");
function encode(value, root) {
  const seen = new Set();
  const walk = (v, path) => {
    switch (typeof v) {
      case "undefined": return { [TAG]: "undefined" };
      case "boolean": case "string": return v;
      case "number":
        if (Number.isNaN(v)) return { [TAG]: "number", v: "NaN" };
        if (!Number.isFinite(v)) return { [TAG]: "number", v: v > 0 ? "Infinity" : "-Infinity" };
        if (Object.is(v, -0)) return { [TAG]: "number", v: "-0" };
        return v;
      case "bigint": return { [TAG]: "bigint", v: v.toString() };
      case "function": throw cloneError(path, "a function");
      case "symbol": throw cloneError(path, "a symbol");
    }
    if (v === null) return null;
    if (seen.has(v)) throw cloneError(path, "a cyclic reference");
    seen.add(v);
    try {
      if (Array.isArray(v)) return Array.from(v, (item, i) => walk(item, path + "[" + i + "]"));
      if (v instanceof Date) return { [TAG]: "date", v: v.getTime() };
      if (v instanceof Map) return { [TAG]: "map", v: Array.from(v, ([k, val], i) => [walk(k, path + ".<key " + i + ">"), walk(val, path + ".<value " + i + ">")]) };
      if (v instanceof Set) return { [TAG]: "set", v: Array.from(v, (item, i) => walk(item, path + ".<item " + i + ">")) };
      if (v instanceof RegExp) return { [TAG]: "regexp", v: [v.source, v.flags] };
      if (v instanceof Uint8Array) return { [TAG]: "bytes", v: Array.from(v) };
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) throw cloneError(path, "a " + ((proto && proto.constructor && proto.constructor.name) || "class") + " instance");
      const out = {};
      for (const key of Object.keys(v)) Object.defineProperty(out, key, { value: walk(v[key], path + "." + key), enumerable: true, writable: true, configurable: true });
      return TAG in out ? { [TAG]: "object", v: out } : out;
    } finally {
      seen.delete(v);
    }
  };
  return JSON.stringify(walk(value, root));
}
function decode(text) {
  if (!text.includes(TAG)) return JSON.parse(text);
  return JSON.parse(text, (_key, v) => {
    if (v === null || typeof v !== "object" || Array.isArray(v) || typeof v[TAG] !== "string") return v;
    switch (v[TAG]) {
      case "undefined": return undefined;
      case "number": return v.v === "-0" ? -0 : Number(v.v);
      case "bigint": return BigInt(v.v);
      case "date": return new Date(v.v);
      case "map": return new Map(v.v);
      case "set": return new Set(v.v);
      case "regexp": return new RegExp(v.v[0], v.v[1]);
      case "bytes": if (!Array.isArray(v.v)) throw new TypeError("a byte array is not encoded as an array"); return Uint8Array.from(v.v);
      case "object": return v.v;
    }
    return v;
  });
}
`;
