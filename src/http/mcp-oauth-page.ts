/**
 * The page `GET /mcp-oauth/callback` answers a browser coming back from an MCP server's
 * authorization server. It exchanges nothing itself, and names no one (the state's user is not
 * the authorization server's to learn): its script hands the state and code to
 * `POST /mcp-oauth/complete` with a weft credential (the playground's, kept in this tab's
 * `sessionStorage`, or one the person pastes), which completes only for the user who started the
 * authorization. So whoever merely opens a forwarded authorization URL cannot connect their
 * account to someone else's threads.
 *
 * The code stays out of everything that outlives the page: the script drops it from the address
 * bar and history at once, the answer is `no-store` and sends no referrer, and no frame may hold
 * the page. Its one script runs under a hash in the Content-Security-Policy, and talks only to
 * weft's own origin. The module is pure (no Worker bindings), so a browser test can serve it.
 * @module
 */
/** Where the page posts `{ state, code, iss? }` with the browser's weft credential. */
export const OAUTH_COMPLETE_PATH = "/mcp-oauth/complete";

/** The `sessionStorage` key the playground keeps its token under (src/playground/client.html). */
const PLAYGROUND_TOKEN_KEY = "weft-token";

const SCRIPT = `
const query = new URLSearchParams(location.search);
const claim = { state: query.get("state") ?? "", code: query.get("code") ?? "" };
if (query.has("iss")) claim.iss = query.get("iss");
// The code lives on only in this page's memory: not in the address bar, history or a reload.
history.replaceState(null, "", location.pathname);
const $ = (id) => document.getElementById(id);
const say = (text) => { $("status").textContent = text; };
async function complete(token) {
  const headers = { "content-type": "application/json" };
  if (token) headers.authorization = "Bearer " + token;
  say("Checking who you are at weft...");
  let res;
  try {
    res = await fetch(${JSON.stringify(OAUTH_COMPLETE_PATH)}, { method: "POST", headers, body: JSON.stringify(claim), credentials: "omit", cache: "no-store", referrerPolicy: "no-referrer" });
  } catch (e) {
    say("weft could not be reached: " + e.message);
    return;
  }
  const body = await res.json().catch(() => ({}));
  if (res.ok) {
    claim.code = "";
    $("sign-in").hidden = true;
    $("done").hidden = false;
    say("Connected: MCP server " + JSON.stringify(body.server) + ". The waiting call goes on by itself; you can close this page.");
    return;
  }
  const error = body.error ?? { code: "internal_error", message: "HTTP " + res.status };
  const retry = error.code === "unauthenticated" || error.code === "mcp_wrong_user";
  $("sign-in").hidden = !retry;
  if (error.code === "mcp_wrong_user") say("Not connected: you are signed in to weft as someone other than the user who started this connection. Only that user can complete it. If someone sent you this link, close this page.");
  else if (error.code === "unauthenticated") say("Not connected yet: sign in to weft as the user who started this connection to finish (" + error.message + ").");
  else say("Not connected: " + error.message);
  if (retry) $("token").focus();
}
$("sign-in").addEventListener("submit", (e) => {
  e.preventDefault();
  complete($("token").value.trim());
});
complete(sessionStorage.getItem(${JSON.stringify(PLAYGROUND_TOKEN_KEY)}) ?? "");
`;

let policy: Promise<string> | null = null;

/** The page's Content-Security-Policy: its one script by hash, requests to its own origin only, no frames, no forms sent. */
function contentSecurityPolicy(): Promise<string> {
  policy ??= (async () => {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(SCRIPT));
    const hash = btoa(String.fromCharCode(...new Uint8Array(digest)));
    return `default-src 'none'; script-src 'sha256-${hash}'; style-src 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
  })();
  return policy;
}

/**
 * The page for an authorization whose state was verified. Its headers: the CSP above, `Cache-Control: no-store`, `Referrer-Policy: no-referrer`,
 * `X-Frame-Options: DENY`, `X-Content-Type-Options: nosniff`.
 */
export async function callbackPage(): Promise<Response> {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>weft: finish connecting an MCP server</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}strong{font-family:ui-monospace,monospace}input{width:100%;padding:.4rem;margin:.4rem 0}</style>
</head>
<body>
<h1>Finish connecting an MCP server</h1>
<p>This connection was started by a weft user. It links the account you just approved at the server to that user's threads, and completes only in a browser signed in to weft as the same user.</p>
<p id="status" role="status" aria-live="polite">Checking who you are at weft...</p>
<p id="done" hidden>Nothing else to do here.</p>
<form id="sign-in" hidden aria-label="Sign in to weft">
<label for="token">weft token of the user who started it (JWT or API key)</label>
<input id="token" type="password" autocomplete="off">
<button type="submit">Complete the connection</button>
</form>
<script type="module">${SCRIPT}</script>
</body>
</html>
`;
  return new Response(html, {
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": await contentSecurityPolicy(),
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "x-frame-options": "DENY",
      "x-content-type-options": "nosniff",
    },
  });
}
