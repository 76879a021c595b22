/**
 * A thread's files (full results that were capped for the model, and attachments): list, fetch
 * with their content type and a `Content-Disposition`, delete. Owner only (admins may read).
 * @module
 */
import { unwrap } from "../rpc.js";
import { Hono } from "hono";
import type { AuthedEnv } from "./auth.js";
import { describe, ok, refused } from "./openapi.js";
import * as R from "./responses.js";
import { FilesQuery } from "./schemas.js";
import { threadStub } from "./stubs.js";
import { query } from "./validate.js";

/** The path after `/files/`, decoded once (stored paths hold percent-encoded call ids). */
function filePath(url: string): string {
  const raw = new URL(url).pathname;
  return decodeURIComponent(raw.slice(raw.indexOf("/files/") + "/files/".length));
}

/**
 * Types a browser shows without running anything: plain text, CSV, Markdown, JSON and raster
 * images. Anything else (HTML, SVG, XML, scripts) a tool or a remote server chose is downloaded,
 * never shown on weft's origin.
 */
const SHOWN = /^(text\/(plain|csv|markdown)|application\/json|image\/(png|jpeg|gif|webp|avif))$/;

/**
 * The `Content-Type` a file is sent with: its stored type when that is one plain media type, with a
 * charset at most (lower-cased); otherwise `application/octet-stream`. A browser reads a header
 * holding several types (`text/plain, text/html`) by the last, so one is never passed on as stored.
 */
function contentType(mimeType: string): string {
  const m = /^\s*([a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*)\s*(?:;\s*charset\s*=\s*"?([a-z0-9._-]+)"?\s*)?$/i.exec(mimeType);
  if (!m) return "application/octet-stream";
  const essence = m[1]!.toLowerCase();
  return m[2] ? `${essence}; charset=${m[2].toLowerCase()}` : essence;
}

/** `filename*` per RFC 6266 / RFC 5987, so any name survives; shown only for a type in {@link SHOWN}. */
function disposition(path: string, type: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1) || "file";
  return `${SHOWN.test(type.split(";")[0]!) ? "inline" : "attachment"}; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** The `/threads/:id/files` routes. */
export function fileRoutes() {
  const app = new Hono<AuthedEnv>();

  app.get("/:id/files", describe("List the thread's files by path (?limit= from 1 to 1000, default 1000; at most 4 MiB of JSON a page, ?cursor= pages on)", { 200: ok("The files; nextCursor is null on the last page", R.FileList), ...refused(400, 404) }), query(FilesQuery), async (c) => {
    const { limit, cursor } = c.req.valid("query");
    return c.json(unwrap(await threadStub(c.env, c.req.param("id")).listFiles(c.var.caller, { ...(limit !== undefined ? { limit } : {}), ...(cursor !== undefined ? { cursor } : {}) })));
  });

  app.get("/:id/files/*", describe("Fetch one file, with its content type", { 200: { description: "The file's bytes, with the content type it was stored with", media: ["*/*"] }, ...refused(404) }), async (c) => {
    const path = filePath(c.req.url);
    const file = unwrap(await threadStub(c.env, c.req.param("id")).getFile(c.var.caller, path));
    const body = file.encoding === "utf-8" ? new TextEncoder().encode(file.data) : Uint8Array.from(atob(file.data), (ch) => ch.charCodeAt(0));
    const type = contentType(file.mimeType);
    return new Response(body, {
      headers: {
        "content-type": type,
        "content-length": String(body.byteLength),
        "content-disposition": disposition(path, type),
        "x-content-type-options": "nosniff",
        // Shown or not, a file's content runs nothing and loads nothing on weft's origin.
        "content-security-policy": "sandbox; default-src 'none'",
      },
    });
  });

  app.delete("/:id/files/*", describe("Delete one file", { 200: ok("Whether there was such a file", R.Deleted), ...refused(404) }), async (c) => c.json(unwrap(await threadStub(c.env, c.req.param("id")).deleteFile(c.var.caller, filePath(c.req.url)))));

  return app;
}
