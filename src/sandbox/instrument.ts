/**
 * Source instrumentation for the QuickJS executor's yields (yields.ts): at every loop head and
 * function entry the guest code decrements a counter of its own, and every `YIELD_EVERY_TICKS`
 * ticks calls the host, which may then give the Durable Object's thread back for a moment. A
 * synchronous CPU-bound run so stays stoppable: QuickJS's own interrupt handler cannot wait.
 *
 * The counter lives in the module's scope under a name the source does not use. Code that finds
 * and overwrites it (it can read its own instrumented text) only loses its own yields; its
 * deadline still ends it. Code the parser refuses (acorn, the newest ECMAScript) runs as written:
 * QuickJS then reports its own syntax error, or, where QuickJS accepts what acorn does not, the
 * run is bounded by its deadline alone. Code made at run time (`eval`, `new Function`) is not
 * instrumented either.
 * @module
 */
import { type Node, parse } from "acorn";

/** Guest ticks (loop iterations and function entries) between two calls of the host's tick. */
export const YIELD_EVERY_TICKS = 1000;

/** The global the prelude defines (non-writable): the host's tick, returning the next count. */
export const TICK_GLOBAL = "__weftTick";

type AnyNode = Node & Record<string, unknown>;

const LOOPS = new Set(["ForStatement", "ForInStatement", "ForOfStatement", "WhileStatement", "DoWhileStatement"]);
const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

/** A name for the counter that occurs nowhere in `source`. */
function freshName(source: string): string {
  for (let i = 0; ; i++) {
    const name = `__weft_ticks${i === 0 ? "" : i}`;
    if (!source.includes(name)) return name;
  }
}

/**
 * `source` (an ES module) with a tick at each loop head and function entry, on the same lines
 * (only line 1's columns move), or `source` unchanged when acorn cannot parse it.
 */
export function instrument(source: string): string {
  let ast: Node;
  try {
    ast = parse(source, { ecmaVersion: "latest", sourceType: "module", allowHashBang: true });
  } catch {
    return source;
  }
  const counter = freshName(source);
  const tick = `(--${counter} < 0 && (${counter} = ${TICK_GLOBAL}()))`;
  const inserts: Array<[at: number, text: string]> = [];
  const visit = (node: AnyNode): void => {
    if (LOOPS.has(node.type)) {
      const body = node.body as AnyNode;
      if (body.type === "BlockStatement") inserts.push([body.start + 1, `${tick};`]);
      else inserts.push([body.start, `{${tick};`], [body.end, "}"]);
    } else if (FUNCTIONS.has(node.type)) {
      const body = node.body as AnyNode;
      if (body.type === "BlockStatement") inserts.push([body.start + 1, `${tick};`]);
      else inserts.push([body.start, `(${tick}, `], [body.end, ")"]);
    }
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (Array.isArray(value)) {
        for (const child of value) if (child && typeof child.type === "string") visit(child);
      } else if (value && typeof value === "object" && typeof (value as AnyNode).type === "string") visit(value as AnyNode);
    }
  };
  visit(ast as AnyNode);
  if (inserts.length === 0) return source;
  // Stable by position; at one position, the order found (an outer `{` before an inner text).
  const order = inserts.map((insert, i) => ({ insert, i })).sort((a, b) => a.insert[0] - b.insert[0] || a.i - b.i);
  let out = "";
  let from = 0;
  for (const { insert: [at, text] } of order) {
    out += source.slice(from, at) + text;
    from = at;
  }
  out += source.slice(from);
  // `var`: hoisted and set before any of the module's code runs; a function of this module called
  // earlier (a cycle of imports) sees `undefined`, whose decrement never ticks, and runs on.
  const head = `var ${counter} = ${YIELD_EVERY_TICKS};`;
  // On line 1, or at the start of line 2 after a hashbang, so lines keep their numbers.
  if (!out.startsWith("#!")) return head + out;
  const eol = out.indexOf("\n");
  return eol < 0 ? `${out}\n${head}` : out.slice(0, eol + 1) + head + out.slice(eol + 1);
}
