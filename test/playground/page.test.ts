/**
 * The playground page at `GET /`: served to browsers before authentication (it holds no data),
 * with a Content-Security-Policy that allows exactly its own inline script. Everything else at
 * `/` still needs a verified caller. (The page itself is driven in Chromium by test/e2e/playground.node.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { request } from "../helpers.js";

describe("GET / for a browser", () => {
  it("serves the page without credentials, with a CSP naming the hash of its one script", async () => {
    const res = await request("/", { headers: { accept: "text/html,application/xhtml+xml" } }, null);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await res.text();
    expect(html).toContain("<title>weft playground</title>");
    // No external resource: it works offline.
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//);
    const scripts = [...html.matchAll(/<script type="module">([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(scripts[0]));
    const hash = btoa(String.fromCharCode(...new Uint8Array(digest)));
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain(`script-src 'sha256-${hash}'`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    // No other site may frame it (its buttons approve calls): the CSP says so, and X-Frame-Options for browsers before CSP 2.
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
  });

  it("keeps the JSON answer of GET / behind authentication", async () => {
    expect((await request("/", { headers: { accept: "application/json" } }, null)).status).toBe(401);
    const res = await request("/", { headers: { accept: "application/json" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).routes).toEqual(expect.arrayContaining(["POST /mcp", "POST /threads/:id/chat"]));
  });
});
