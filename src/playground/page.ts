/**
 * The playground page at `GET /` for browsers: plain HTML with its script inline (no build step,
 * nothing fetched from elsewhere, so it works offline). It holds no data, so it is served before
 * authentication; everything it shows comes from the authenticated routes it calls.
 * @module
 */
import client from "./client.html";
import page from "./index.html";

// A function, so `$` patterns in the script (`$$`, `$&`) are kept as written: the CSP hashes the script as written.
const html = page.replace("<!--client-->", () => client);

let csp: Promise<string> | null = null;

/** A Content-Security-Policy that runs exactly the page's own script and talks only to its origin. */
function policy(): Promise<string> {
  csp ??= (async () => {
    const script = /<script type="module">([\s\S]*?)<\/script>/.exec(client)![1]!;
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(script));
    const hash = btoa(String.fromCharCode(...new Uint8Array(digest)));
    return `default-src 'none'; script-src 'sha256-${hash}'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
  })();
  return csp;
}

/** True when the client asks for HTML (a browser navigating), not JSON. */
export function wantsHtml(accept: string | undefined): boolean {
  return /\btext\/html\b/.test(accept ?? "");
}

/** The page; no other site may frame it (its buttons approve calls), by CSP and `X-Frame-Options` for browsers before CSP 2. */
export async function playgroundResponse(): Promise<Response> {
  return new Response(html, {
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": await policy(),
      "x-frame-options": "DENY",
      "referrer-policy": "no-referrer",
      "x-content-type-options": "nosniff",
      "cache-control": "no-cache",
    },
  });
}
