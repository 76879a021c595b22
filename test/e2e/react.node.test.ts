/**
 * `weft/react`'s `useThread` in headless Chromium (playwright-core) against a real `wrangler dev`:
 * a page built on the hook alone (react-page.ts, bundled with esbuild) shows a scripted turn's
 * messages, the text of a streaming model step before the step ends (a fake OpenAI-compatible
 * provider paces it), a call waiting for approval that its Approve button runs, a Deny whose
 * reason the model gets, and a socket the network drops while the turn goes on: the hook
 * reconnects and replays the frames it missed, each once. The page renders under StrictMode, so
 * the hook's double mount is exercised too. The example component of docs/client.md is bundled as
 * written and holds a conversation with an approval.
 *
 * The page comes from a local server of the test that passes every other request, and WebSocket
 * upgrades, through to `wrangler dev`: one origin, as an app served beside weft has it (so no CORS),
 * and a place to cut the sockets from the network's side and refuse new ones for a while.
 */
import { readFileSync } from "node:fs";
import { build } from "esbuild";
import { type Browser, type Page, chromium } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createFakeProvider, serveFakeProvider } from "../../scripts/lib/fake-provider.mjs";
import { findChromium } from "./chromium.js";
import { type FrontServer, startFront } from "./front-server.js";
import { call, createThread, sharedWeft, waitIdle, waitStatus, type DevServer } from "./support.js";

const found = findChromium();
if ("reason" in found) console.log(`weft/react browser test skipped: ${found.reason}`);

const SCRIPT = [{ text: "Paying.", toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 500 } }] }, { text: "Paid." }];
/** The page that loads `script`. */
const html = (script: string) =>
  `<!doctype html><meta charset="utf-8"><title>useThread</title><link rel="icon" href="data:,"><div id="root"></div><script type="module" src="${script}"></script>`;

/**
 * docs/client.md's `tsx chat-example` block as a page: the component as written, its weft URL
 * made the page's origin, mounted on `?thread=`.
 */
function docsExample(): string {
  const doc = readFileSync("docs/client.md", "utf8");
  const block = /^```tsx chat-example\n([\s\S]*?)^```$/m.exec(doc);
  if (!block) throw new Error("docs/client.md has no ```tsx chat-example block");
  const component = block[1]!.replace('url: "http://localhost:8787"', "url: location.origin");
  if (component === block[1]) throw new Error('the docs example no longer passes url: "http://localhost:8787"');
  return `${component}\nimport { createRoot } from "react-dom/client";\ncreateRoot(document.getElementById("root")!).render(<Chat threadId={new URLSearchParams(location.search).get("thread")!} />);\n`;
}

let weft: DevServer;
let browser: Browser;
/** The bundled scripts the front server serves, by path. */
const scripts = new Map<string, string>();
const fake = createFakeProvider();
let provider: { url: string; close(): Promise<void> };
let front: FrontServer;

/** The test's pages: the hook's page, the docs example, and their scripts. */
function pages(path: string): [string, string] | undefined {
  const script = scripts.get(path);
  if (script) return ["text/javascript", script];
  if (path.startsWith("/__react/example/")) return ["text/html", html("/__react/example.js")];
  if (path.startsWith("/__react/")) return ["text/html", html("/__react/page.js")];
  return undefined;
}

beforeAll(async () => {
  if (!found.path) return;
  const common = {
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    define: { "process.env.NODE_ENV": '"development"' },
    logLevel: "silent",
  } as const;
  scripts.set("/__react/page.js", (await build({ ...common, entryPoints: ["test/e2e/react-page.ts"] })).outputFiles[0]!.text);
  const example = await build({
    ...common,
    stdin: { contents: docsExample(), loader: "tsx", resolveDir: process.cwd(), sourcefile: "docs/client.md#chat-example.tsx" },
    jsx: "automatic",
    alias: { "weft/react": "./src/react/index.ts" },
  });
  scripts.set("/__react/example.js", example.outputFiles[0]!.text);
  provider = await serveFakeProvider(fake);
  weft = await sharedWeft("dev");
  front = await startFront(weft.url, pages);
  browser = await chromium.launch({ executablePath: found.path, headless: true, args: ["--no-sandbox"] });
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await front?.close();
  await weft?.stop();
  await provider?.close();
});

/** A page with the errors it logged; `dropsExpected` when the test cuts its sockets. */
type TestPage = Page & { errors: string[]; dropsExpected: boolean };

/** Opens the page on `threadId` and waits for its subscription to connect. */
async function openPage(threadId: string, path = "/__react/", query = ""): Promise<TestPage> {
  const page = (await browser.newPage()) as TestPage;
  page.errors = [];
  page.dropsExpected = false;
  page.on("pageerror", (e) => page.errors.push(e.message));
  // Failed upgrades once a test refuses them are expected; any other error is not.
  page.on("console", (m) => m.type() === "error" && !(page.dropsExpected && m.text().includes("WebSocket connection")) && page.errors.push(m.text()));
  await page.goto(`${front.url}${path}?thread=${threadId}${query}`);
  if (path !== "/__react/") return page;
  await page.waitForSelector("#connection[data-state=connected]").catch(async (e: Error) => {
    throw new Error(`${e.message}\npage errors: ${JSON.stringify(page.errors)}\npage: ${(await page.content()).slice(0, 2000)}`);
  });
  return page;
}

const text = (page: Page, selector: string) => page.textContent(selector);
const statusOf = (page: Page, callId: string) => page.getAttribute(`[data-call="${callId}"]`, "data-status").catch(() => null);
/** The messages the page shows, as `[id, role, content]`. */
const shown = (page: Page) =>
  page.$$eval("#messages .msg", (items) => items.map((li) => [Number(li.getAttribute("data-id")), li.getAttribute("data-role"), li.textContent]));
/** The thread's stored messages, from the server, in the page's shape. */
async function stored(threadId: string): Promise<[number, string, string][]> {
  const res = await call(weft.url, "GET", `/threads/${threadId}/messages`);
  return res.body.messages.map((m: any) => [m.id, m.role, m.content]);
}
/** Every seq the hook delivered: exactly 1..lastSeq, once each, in order. */
async function expectEveryFrameOnce(page: Page, threadId: string): Promise<void> {
  const { lastSeq } = await waitIdle(weft.url, threadId);
  await expect.poll(() => page.getAttribute("#connection", "data-last-seq")).toBe(String(lastSeq));
  const seqs = await page.evaluate(() => window.__seqs);
  expect(seqs).toEqual(Array.from({ length: lastSeq }, (_, i) => i + 1));
}

/** A thread whose scripted turn asks to pay, sent from the page: it waits for approval of call `pay`. */
async function payWaitingForApproval(): Promise<{ threadId: string; page: TestPage }> {
  const threadId = await createThread(weft.url, { agent: "default" });
  const page = await openPage(threadId);
  await page.fill("#content", "Pay 500 please");
  await page.fill("#script", JSON.stringify(SCRIPT));
  await page.click("button:text-is('Send')");
  await expect.poll(() => statusOf(page, "pay")).toBe("awaiting_approval");
  // The call shows before the turn's last events (its waiting status) reach the page: a test that
  // cuts the socket now must know the page has everything stored so far.
  const waiting = await waitStatus(weft.url, threadId, "waiting");
  await expect.poll(() => page.getAttribute("#connection", "data-last-seq")).toBe(String(waiting.lastSeq));
  return { threadId, page };
}

describe.skipIf(!found.path)("useThread in Chromium", () => {
  // A test that failed while refusing upgrades must not leave the next test's page without a socket.
  afterEach(() => {
    front.refuseUpgrades = false;
  });

  it("shows a scripted turn: the call waits, Approve runs it, and the turn's messages appear", async () => {
    const threadId = await createThread(weft.url, { agent: "default" });
    const page = await openPage(threadId);
    expect(await text(page, "#status")).toBe("idle");
    await page.fill("#content", "Pay 500 please");
    await page.fill("#script", JSON.stringify(SCRIPT));
    await page.click("button:text-is('Send')");

    await expect.poll(() => statusOf(page, "pay")).toBe("awaiting_approval");
    await expect.poll(() => text(page, "#status")).toBe("waiting");
    expect((await shown(page)).map(([, role, content]) => [role, content])).toEqual([
      ["user", "Pay 500 please"],
      ["assistant", "Paying."],
    ]);

    await page.click("text=Approve needs_ok");
    await expect.poll(() => statusOf(page, "pay")).toBe("succeeded");
    await expect.poll(() => text(page, "#last-turn")).toBe("completed");
    expect(await text(page, "#status")).toBe("idle");
    const calls = (await call(weft.url, "GET", `/threads/${threadId}/calls`)).body.calls;
    expect(calls).toMatchObject([{ callId: "pay", status: "succeeded", approvedBy: "dev" }]);
    const messages = await stored(threadId);
    expect(messages.map(([, role]) => role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(messages.at(-1)![2]).toBe("Paid.");
    expect(await shown(page)).toEqual(messages);
    await expectEveryFrameOnce(page, threadId);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it("onClientCall answers a client tool's call by itself, once, and emitted shows each event type's last data", async () => {
    const threadId = await createThread(weft.url, { agent: "default" });
    const page = await openPage(threadId, "/__react/", "&auto=1");
    const script = [
      { toolCalls: [{ id: "burst", name: "emit_burst", arguments: { count: 3, bytes: 2 } }] },
      { toolCalls: [{ id: "pick", name: "pick_file", arguments: { prompt: "notes" } }] },
      { text: "Got it." },
    ];
    await page.fill("#content", "Pick a file");
    await page.fill("#script", JSON.stringify(script));
    await page.click("button:text-is('Send')");
    await expect.poll(() => text(page, "#last-turn")).toBe("completed");
    expect(JSON.parse((await text(page, "#emitted"))!)).toEqual({ tick: { i: 2, s: "xx" } });
    const calls = (await call(weft.url, "GET", `/threads/${threadId}/calls`)).body.calls;
    expect(calls.find((c: { callId: string }) => c.callId === "pick")).toMatchObject({ status: "succeeded", result: { status: "success", result: JSON.stringify({ name: "auto-notes", bytes: 7 }) } });
    expect(await page.evaluate(() => window.__autoAnswered)).toEqual(["pick"]);
    // A tool called directly from the page (callTool) emits too: the page shows its data.
    await page.click("button:text-is('Tick')");
    await expect.poll(async () => JSON.parse((await text(page, "#emitted"))!)).toEqual({ tick: { i: 0, s: "yyy" } });
    await expectEveryFrameOnce(page, threadId);
    expect(page.errors).toEqual([]);
    await page.close();

    // A page opened later replays the answered call's park: the handler is never handed it.
    const later = await openPage(threadId, "/__react/", "&auto=1");
    await expectEveryFrameOnce(later, threadId);
    expect(JSON.parse((await text(later, "#emitted"))!)).toEqual({ tick: { i: 0, s: "yyy" } });
    await new Promise((r) => setTimeout(r, 300));
    expect(await later.evaluate(() => window.__autoAnswered)).toEqual([]);
    expect(await text(later, "#error")).toBe("");
    expect(later.errors).toEqual([]);
    await later.close();
  });

  it("Deny ends the call denied and the model gets the denial with its reason", async () => {
    const { threadId, page } = await payWaitingForApproval();
    await page.fill("#reason", "over the limit today");
    await page.click("text=Deny needs_ok");
    await expect.poll(() => statusOf(page, "pay")).toBe("denied");
    await expect.poll(() => text(page, "#last-turn")).toBe("completed");
    expect(await page.$$("[data-call=pay] button")).toHaveLength(0);
    // The tool message is the result the model's next step read.
    const messages = await stored(threadId);
    const result = messages.find(([, role]) => role === "tool")!;
    expect(result[2]).toContain("over the limit today");
    expect(await text(page, '[data-call="pay"]')).toContain("over the limit today");
    expect(await shown(page)).toEqual(messages);
    await expectEveryFrameOnce(page, threadId);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it("shows a model step's text while it streams, before the step ends, then the stored message", async () => {
    const key = `react-stream-${Date.now()}`;
    const answer = "Streaming, one small piece after another, so the page shows it growing.";
    fake.script(key, [{ text: answer, chunk: 3, delayMs: 60 }]);
    const threadId = await createThread(weft.url, {
      agent: "stepper",
      env: {
        WEFT_MODEL: { value: "openai-compatible:x", type: "text" },
        OPENAI_COMPATIBLE_API_KEY: { value: key, type: "secret" },
        OPENAI_COMPATIBLE_BASE_URL: { value: `${provider.url}/v1`, type: "text" },
      },
    });
    const page = await openPage(threadId);
    await page.fill("#content", "tell me");
    await page.click("button:text-is('Send')");
    // Seen growing while the assistant message does not exist yet.
    await expect.poll(() => text(page, "#streaming"), { timeout: 90_000 }).not.toBe("");
    await expect.poll(() => text(page, "#last-turn"), { timeout: 90_000 }).toBe("completed");
    expect(await text(page, "#streaming")).toBe("");
    const renders = await page.evaluate(() => window.__renders);
    const distinct = [...new Set(renders.map((r) => r.streaming))];
    expect(distinct.length).toBeGreaterThanOrEqual(3);
    for (const r of renders) {
      expect(answer.startsWith(r.streaming)).toBe(true);
      expect(r.assistant).toBe(0);
      expect(r.status).toBe("running");
    }
    expect(distinct.some((t) => t.length < answer.length)).toBe(true);
    expect((await shown(page)).map(([, role, content]) => [role, content])).toEqual([
      ["user", "tell me"],
      ["assistant", answer],
    ]);
    await expectEveryFrameOnce(page, threadId);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it("send with parts: the message shows its text and keeps its parts, and the provider gets the image in its own form", async () => {
    const key = `react-parts-${Date.now()}`;
    fake.script(key, [{ text: "A kettle." }]);
    const threadId = await createThread(weft.url, {
      agent: "stepper",
      env: {
        WEFT_MODEL: { value: "anthropic:claude-sonnet-4-5", type: "text" },
        ANTHROPIC_API_KEY: { value: key, type: "secret" },
        ANTHROPIC_BASE_URL: { value: `${provider.url}/v1`, type: "text" },
      },
    });
    const page = await openPage(threadId);
    await page.fill("#content", "What is in this picture?");
    await page.fill("#image", "https://example.com/kettle.png");
    await page.click("button:text-is('Send')");
    await expect.poll(() => text(page, "#last-turn"), { timeout: 90_000 }).toBe("completed");
    expect((await shown(page)).map(([, role, content]) => [role, content])).toEqual([
      ["user", "What is in this picture?"],
      ["assistant", "A kettle."],
    ]);
    expect(await page.getAttribute(".msg[data-role=user]", "data-parts")).toBe("text,image");
    // The fake provider checked the request with Anthropic's validator (user content parts included).
    const requests = fake.requests.filter((r) => r.key === key);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.body.messages[0].content).toEqual([
      { type: "text", text: "What is in this picture?" },
      { type: "image", source: { type: "url", url: "https://example.com/kettle.png" } },
    ]);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it("a socket dropped while the turn goes on reconnects and replays what it missed, nothing twice", async () => {
    const { threadId, page } = await payWaitingForApproval();
    const before = Number(await page.getAttribute("#connection", "data-last-seq"));
    // Every connection names the thread its cursor belongs to, known before the first.
    const { createdAt } = (await call(weft.url, "GET", `/threads/${threadId}`)).body;

    // Cut the socket and refuse new ones while the turn finishes without the page.
    page.dropsExpected = true;
    front.refuseUpgrades = true;
    // One socket per thread: StrictMode's first mount left none open.
    expect(front.cutSockets(threadId)).toEqual([`/threads/${threadId}/ws?since=0&createdAt=${createdAt}&batch=1`]);
    await expect.poll(() => page.getAttribute("#connection", "data-state")).toBe("reconnecting");
    const approved = await call(weft.url, "POST", `/threads/${threadId}/calls/pay/approve`, {});
    expect(approved.status).toBe(200);
    const info = await waitIdle(weft.url, threadId);
    expect(info.lastSeq).toBeGreaterThan(before);
    // Nothing of it reached the page yet.
    expect(await statusOf(page, "pay")).toBe("awaiting_approval");
    expect(Number(await page.getAttribute("#connection", "data-last-seq"))).toBe(before);

    // A decision from the stale view is refused by weft: the hook's error says so, nothing thrown.
    await page.click("text=Deny needs_ok");
    await expect.poll(() => text(page, "#error")).toMatch(/^call_not_waiting: /);
    // Chromium logs the refused request itself; that one line is expected.
    expect(page.errors.splice(0).map((e) => e.replace(/\d+/g, "N"))).toEqual(["Failed to load resource: the server responded with a status of N (Conflict)"]);

    front.refuseUpgrades = false;
    await expect.poll(() => page.getAttribute("#connection", "data-state"), { timeout: 90_000 }).toBe("connected");
    expect(Number(await page.getAttribute("#connection", "data-connections"))).toBeGreaterThanOrEqual(2);
    await expect.poll(() => statusOf(page, "pay")).toBe("succeeded");
    await expect.poll(() => text(page, "#last-turn")).toBe("completed");
    expect(await shown(page)).toEqual(await stored(threadId));
    await expectEveryFrameOnce(page, threadId);

    // A second drop with nothing missed: it reconnects and shows nothing twice.
    const opened = await page.getAttribute("#connection", "data-connections");
    // The reconnect asked for the frames after the last one shown before the cut, of the thread it follows.
    const ofThread = () => front.upgrades.filter((u) => u.startsWith(`/threads/${threadId}/ws`));
    expect(ofThread().at(-1)).toBe(`/threads/${threadId}/ws?since=${before}&createdAt=${createdAt}&batch=1`);
    expect(front.cutSockets(threadId)).toEqual([`/threads/${threadId}/ws?since=${before}&createdAt=${createdAt}&batch=1`]);
    await expect.poll(() => page.getAttribute("#connection", "data-connections"), { timeout: 90_000 }).not.toBe(opened);
    await expect.poll(() => page.getAttribute("#connection", "data-state")).toBe("connected");
    expect(ofThread().at(-1)).toBe(`/threads/${threadId}/ws?since=${info.lastSeq}&createdAt=${createdAt}&batch=1`);
    expect(await shown(page)).toEqual(await stored(threadId));
    await expectEveryFrameOnce(page, threadId);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it("docs/client.md's example component, as written, holds a conversation with an approval", async () => {
    const threadId = await createThread(weft.url, { agent: "default", script: SCRIPT });
    const page = await openPage(threadId, "/__react/example/");
    await page.fill("input[aria-label=Message]", "Pay 500 please");
    await page.click("button:text-is('Send')");
    await page.waitForSelector("button:text-is('Approve')");
    expect(await text(page, ".call")).toContain("needs_ok: awaiting_approval");
    await page.click("button:text-is('Approve')");
    await expect.poll(() => page.locator("p.assistant").allTextContents()).toEqual(["Paying.", "Paid."]);
    expect(await page.locator("p.user").allTextContents()).toEqual(["Pay 500 please"]);
    expect(await text(page, ".call")).toContain("needs_ok: succeeded");
    expect(await page.$$("button:text-is('Stop')")).toHaveLength(0);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});

describe.skipIf(!found.path)("useThread with a token", () => {
  let secured: DevServer;
  let securedFront: FrontServer;
  // The fixtures' config with its test API keys kept: tokens are required, even on localhost.
  beforeAll(async () => {
    secured = await sharedWeft("secured");
    securedFront = await startFront(secured.url, pages);
  }, 300_000);
  afterAll(async () => {
    await securedFront?.close();
    await secured?.stop();
  });

  it("sends it on the WebSocket as a subprotocol beside weft, never in the URL, and gets the thread's events", async () => {
    const token = "test-key-tester";
    const created = await fetch(`${secured.url}/threads`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ agent: "default" }) });
    const { threadId } = (await created.json()) as { threadId: string };
    const page = await browser.newPage();
    // Each WebSocket handshake as Chromium sends and receives it.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.enable");
    const offered: string[] = [];
    const selected: string[] = [];
    const header = (headers: Record<string, string>) => Object.entries(headers).find(([k]) => k.toLowerCase() === "sec-websocket-protocol")?.[1] ?? "";
    cdp.on("Network.webSocketWillSendHandshakeRequest", (e) => void offered.push(header(e.request.headers)));
    cdp.on("Network.webSocketHandshakeResponseReceived", (e) => void selected.push(header(e.response.headers)));
    await page.goto(`${securedFront.url}/__react/?thread=${threadId}&token=${token}`);
    await page.waitForSelector("#connection[data-state=connected]");
    await page.fill("#content", "hello");
    await page.fill("#script", JSON.stringify([{ text: "Hi there." }]));
    await page.click("button:text-is('Send')");
    await expect.poll(() => text(page, "#last-turn")).toBe("completed");
    const upgrades = securedFront.upgrades.filter((u) => u.startsWith(`/threads/${threadId}/ws`));
    expect(upgrades.length).toBeGreaterThan(0);
    for (const url of upgrades) expect(url).not.toContain(token);
    expect(offered.length).toBeGreaterThan(0);
    for (const value of offered) expect(value).toBe(`weft, weft.bearer.${Buffer.from(token).toString("base64url")}`);
    expect(selected.length).toBeGreaterThan(0);
    for (const value of selected) expect(value).toBe("weft");
    await page.close();
  });
});
