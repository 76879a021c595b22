/**
 * Checks on a parsed JSON value before it goes anywhere: nesting depth (a deep value overflows the
 * stack when the Worker hands it to a Durable Object) and well-formed Unicode (a lone surrogate
 * would be stored as replacement characters, altering what the client sent).
 * @module
 */
import { WeftError } from "./errors.js";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** `text` with each lone surrogate replaced by U+FFFD, as storing it as UTF-8 would (`String.prototype.toWellFormed`). */
export function wellFormed(text: string): string {
  return loneSurrogateAt(text) < 0 ? text : text.replace(new RegExp(LONE_SURROGATE.source, "g"), "\uFFFD");
}

/** Index of the first lone surrogate in `text`, or -1 when it is well-formed UTF-16. */
export function loneSurrogateAt(text: string): number {
  const match = LONE_SURROGATE.exec(text);
  return match ? match.index : -1;
}

/**
 * Walks a parsed JSON value without recursion (so a 20,000-level value cannot overflow the stack).
 * @throws WeftError `invalid_request` naming the path and the limit when nesting exceeds
 * `maxDepth` levels, or naming the path of a string or key holding a lone surrogate.
 */
export function checkJsonShape(value: unknown, maxDepth: number, root: (string | number)[] = []): void {
  // The usual value passes the quick walk, which keeps no paths; only a refused one is walked
  // again to name where it fails.
  if (wellShaped(value, maxDepth)) return;
  const stack: Array<{ value: unknown; path: (string | number)[] }> = [{ value, path: root }];
  while (stack.length > 0) {
    const { value: node, path } = stack.pop()!;
    if (typeof node === "string") {
      checkText(node, path);
      continue;
    }
    if (node === null || typeof node !== "object") continue;
    const depth = path.length - root.length + 1;
    if (depth > maxDepth) {
      const shown = path.slice(0, 8).join(".") + (path.length > 8 ? "..." : "");
      throw new WeftError("invalid_request", `${shown || "body"}: nested more than ${maxDepth} levels deep; the limit is ${maxDepth} levels (WEFT_MAX_JSON_DEPTH)`, {
        path: path.slice(0, maxDepth + 1),
        limit: maxDepth,
      });
    }
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push({ value: node[i], path: [...path, i] });
    } else {
      for (const [key, child] of Object.entries(node)) {
        checkText(key, [...path, key]);
        stack.push({ value: child, path: [...path, key] });
      }
    }
  }
}

/** Whether `value` is within `maxDepth` levels and holds no lone surrogate; no paths, no recursion. */
function wellShaped(value: unknown, maxDepth: number): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const node = values.pop();
    const depth = depths.pop()!;
    if (typeof node === "string") {
      if (LONE_SURROGATE.test(node)) return false;
      continue;
    }
    if (node === null || typeof node !== "object") continue;
    if (depth > maxDepth) return false;
    if (Array.isArray(node)) {
      for (const child of node) {
        values.push(child);
        depths.push(depth + 1);
      }
    } else {
      for (const key in node) {
        if (!Object.hasOwn(node, key)) continue;
        if (LONE_SURROGATE.test(key)) return false;
        values.push((node as Record<string, unknown>)[key]);
        depths.push(depth + 1);
      }
    }
  }
  return true;
}

function checkText(text: string, path: (string | number)[]): void {
  const at = loneSurrogateAt(text);
  if (at < 0) return;
  const where = path.length === 0 ? "body" : path.join(".");
  throw new WeftError("invalid_request", `${where}: text is not well-formed Unicode (a lone surrogate at index ${at}); send valid UTF-16 pairs`, {
    path,
  });
}

/**
 * A value as it goes on the wire: what `JSON.stringify` makes of it, read back (a `Date` becomes
 * its ISO-8601 text, a `bigint` its decimal text, `undefined` fields drop out). Approvals bind to
 * this form, and call records store it.
 */
export function wireValue(value: unknown): unknown {
  const text = wireJson(value);
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
}

/** `JSON.stringify` that writes a `bigint` as its decimal text instead of throwing. */
export function wireJson(value: unknown): string | undefined {
  try {
    // Without a bigint both give the same text; the plain call spares a replacer call per key.
    return JSON.stringify(value);
  } catch {
    return JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
  }
}
