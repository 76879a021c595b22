/**
 * Request-body parsing: malformed JSON is `invalid_json`, a shape mismatch is `invalid_request`
 * naming the path; neither is ever a 500.
 * @module
 */
import type { Context } from "hono";
import type { z } from "zod";
import { byteLength, fitsBytes } from "../bytes.js";
import { WeftError } from "../errors.js";
import { checkJsonShape, maxJsonDepth } from "../json-shape.js";
import { describeIssues } from "../tools/schema.js";

/** Bytes a request body may have. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/**
 * Reads and validates a JSON body; an empty body counts as `{}`. Nesting past the depth limit and
 * lone surrogates are refused (see `checkJsonShape`).
 * @throws WeftError `invalid_json`, `invalid_request` (with `details.path`), `payload_too_large`.
 */
export async function readBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  const declared = Number(c.req.header("content-length"));
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
    throw new WeftError("payload_too_large", `request body is ${declared} bytes, over the ${MAX_BODY_BYTES}-byte limit`);
  }
  const text = await c.req.text();
  if (!fitsBytes(text, MAX_BODY_BYTES)) {
    const bytes = byteLength(text);
    throw new WeftError("payload_too_large", `request body is ${bytes} bytes, over the ${MAX_BODY_BYTES}-byte limit`);
  }
  let value: unknown = {};
  if (text.trim() !== "") {
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new WeftError("invalid_json", `request body is not valid JSON: ${(e as Error).message}`);
    }
  }
  // Before anything crosses to a Durable Object: too deep a value overflows the RPC's stack.
  checkJsonShape(value, maxJsonDepth(c.env));
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issues = describeIssues(parsed.error.issues);
    throw new WeftError("invalid_request", issues.map((i) => i.message).join("; "), { path: issues[0]!.path, issues });
  }
  return parsed.data;
}
