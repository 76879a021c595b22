/**
 * The end of an OAuth authorization as a browser does it: the redirect back to
 * `GET /mcp-oauth/callback` (no weft credential) answers a page, and the page posts the state and
 * code to `POST /mcp-oauth/complete` with the weft credential that browser holds.
 */
import { expect } from "vitest";
import { type TestUser, request } from "../helpers.js";

/** Opens weft's page for `back` (the callback's path and query) with no credential; checks it is the page. */
export async function openCallbackPage(back: string): Promise<{ res: Response; html: string }> {
  const res = await request(back, undefined, null);
  const html = await res.text();
  expect([res.status, res.headers.get("content-type")]).toEqual([200, expect.stringMatching(/^text\/html/)]);
  return { res, html };
}

/** What the page posts for `back`, sent with the credential of `as` (null: none). */
export function postCompletion(back: string, as: TestUser | null): Promise<Response> {
  const query = new URL(back, "https://weft.test").searchParams;
  const body = { state: query.get("state"), code: query.get("code"), ...(query.has("iss") ? { iss: query.get("iss") } : {}) };
  return request("/mcp-oauth/complete", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }, as);
}

/** The page, then its completion as `as`: the completion's answer. */
export async function completeAs(back: string, as: TestUser | null): Promise<Response> {
  await openCallbackPage(back);
  return postCompletion(back, as);
}
