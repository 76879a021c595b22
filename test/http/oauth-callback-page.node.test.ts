/**
 * The OAuth callback's page (src/http/mcp-oauth-page.ts) in headless Chromium, under its own
 * Content-Security-Policy: it drops the code from the address bar, posts the state and code with
 * the playground's token from this tab's sessionStorage, and on a refusal (another weft user, no
 * credential) asks for the right user's token. weft's side is played by a route handler that
 * answers as `POST /mcp-oauth/complete` does; the real route is tested in workerd
 * (test/remote/oauth-callback.test.ts).
 */
import { type Browser, type Page, type Route, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callbackPage } from "../../src/http/mcp-oauth-page.js";
import { findChromium } from "../e2e/chromium.js";

const found = findChromium();
if ("reason" in found) console.log(`OAuth callback page browser test skipped: ${found.reason}`);

const ORIGIN = "https://weft.test";
const BACK = `${ORIGIN}/mcp-oauth/callback?code=the-code-123&state=the-state.sig&iss=${encodeURIComponent("https://as.example")}`;
const TOKENS: Record<string, string> = { "bob-token": "bob", "alice-token": "alice" };

let browser: Browser;

beforeAll(async () => {
  if (found.path) browser = await chromium.launch({ executablePath: found.path, headless: true, args: ["--no-sandbox"] });
}, 120_000);
afterAll(async () => {
  await browser?.close();
});

/** A tab on weft's origin whose sessionStorage holds `token` (as the playground keeps it), with weft's two routes played. */
async function tab(token: string | null): Promise<{ page: Page; posts: Array<{ authorization: string | null; body: unknown }>; errors: string[] }> {
  const page = await browser.newPage();
  const posts: Array<{ authorization: string | null; body: unknown }> = [];
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await page.route(`${ORIGIN}/**`, async (route: Route) => {
    const req = route.request();
    const url = new URL(req.url());
    if (url.pathname === "/") return route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>playground</title>" });
    if (url.pathname === "/mcp-oauth/callback") {
      const res = await callbackPage();
      return route.fulfill({ status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() });
    }
    if (url.pathname === "/mcp-oauth/complete" && req.method() === "POST") {
      const authorization = req.headers()["authorization"] ?? null;
      posts.push({ authorization, body: req.postDataJSON() });
      const user = authorization ? TOKENS[authorization.replace(/^Bearer /, "")] : undefined;
      const answer = !authorization
        ? { status: 401, json: { error: { code: "unauthenticated", message: "missing bearer token (Authorization: Bearer <token>)" } } }
        : user !== "bob"
          ? { status: 403, json: { error: { code: "mcp_wrong_user", message: "state: this authorization was started by another weft user" } } }
          : { status: 200, json: { connected: true, server: "tracker", threadId: "t1" } };
      return route.fulfill({ status: answer.status, contentType: "application/json", body: JSON.stringify(answer.json) });
    }
    return route.fulfill({ status: 404, body: "" });
  });
  await page.goto(`${ORIGIN}/`);
  if (token !== null) await page.evaluate((t) => sessionStorage.setItem("weft-token", t), token);
  await page.goto(BACK);
  return { page, posts, errors };
}

const status = (page: Page) => page.textContent("#status");

describe.skipIf(!found.path)("the OAuth callback page", () => {
  it("completes with the playground's token of the user who started it, and drops the code from the address", async () => {
    const { page, posts, errors } = await tab("bob-token");
    await expect.poll(() => status(page)).toMatch(/^Connected: MCP server "tracker"\. The waiting call goes on/);
    expect(page.url()).toBe(`${ORIGIN}/mcp-oauth/callback`);
    expect(posts).toEqual([{ authorization: "Bearer bob-token", body: { state: "the-state.sig", code: "the-code-123", iss: "https://as.example" } }]);
    expect(await page.isHidden("#sign-in")).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("tells another weft user it is not theirs, naming no one, then completes with a pasted token of the user who started it", async () => {
    const { page, posts, errors } = await tab("alice-token");
    await expect.poll(() => status(page)).toMatch(/^Not connected: you are signed in to weft as someone other than the user who started this connection/);
    expect(page.url()).toBe(`${ORIGIN}/mcp-oauth/callback`);
    expect(await page.content()).not.toContain("bob");
    await page.fill("#token", "bob-token");
    await page.click("#sign-in button");
    await expect.poll(() => status(page)).toMatch(/^Connected:/);
    expect(posts.map((p) => p.authorization)).toEqual(["Bearer alice-token", "Bearer bob-token"]);
    expect(errors.filter((e) => !/status of 403/.test(e))).toEqual([]);
    await page.close();
  });

  it("asks for a token when the tab holds none", async () => {
    const { page, posts } = await tab(null);
    await expect.poll(() => status(page)).toMatch(/^Not connected yet: sign in to weft as the user who started this connection/);
    expect(posts).toEqual([{ authorization: null, body: { state: "the-state.sig", code: "the-code-123", iss: "https://as.example" } }]);
    expect(await page.isVisible("#sign-in")).toBe(true);
    await page.close();
  });
});
