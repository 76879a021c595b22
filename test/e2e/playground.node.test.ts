/**
 * The playground page in headless Chromium (playwright-core), against a real `wrangler dev`:
 * create a thread, send a message, watch the events arrive, approve the call that waits, answer a
 * client tool's call, and call a tool from its generated form; once with the mouse and once with
 * the keyboard alone.
 * Screenshots go to test-results/.
 */
import { mkdirSync } from "node:fs";
import { type Browser, type Page, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findChromium } from "./chromium.js";
import { sharedWeft, type DevServer } from "./support.js";

const found = findChromium();
if ("reason" in found) console.log(`playground browser test skipped: ${found.reason}`);

const SHOTS = "test-results";
const SCRIPT = JSON.stringify([{ text: "Paying.", toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 500 } }] }, { text: "Paid." }]);

let weft: DevServer;
let browser: Browser;

beforeAll(async () => {
  if (!found.path) return;
  mkdirSync(SHOTS, { recursive: true });
  weft = await sharedWeft("dev");
  browser = await chromium.launch({ executablePath: found.path, headless: true, args: ["--no-sandbox"] });
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await weft?.stop();
});

/** Presses Tab until the focused element's accessible name starts with `name`. */
async function tabTo(page: Page, name: string): Promise<void> {
  for (let i = 0; i < 120; i++) {
    await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => {
      const a = document.activeElement as HTMLElement & { labels?: NodeListOf<HTMLLabelElement> };
      return (a.getAttribute("aria-label") || a.labels?.[0]?.textContent || a.textContent || "").trim();
    });
    if (focused.startsWith(name)) return;
  }
  throw new Error(`no focusable element named "${name}" reached with Tab`);
}

async function openPage(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  (page as any).errors = errors;
  await page.goto(`${weft.url}/`);
  await expect.poll(() => page.textContent("#who")).toContain("development mode");
  await page.waitForSelector("#tool option[value=sum_range]", { state: "attached" });
  return page;
}

const statusOf = (page: Page, callId: string) => page.getAttribute(`[data-call="${callId}"]`, "data-status").catch(() => null);

describe.skipIf(!found.path)("playground page", () => {
  it("works with the mouse: new thread, message, live events, approve, tool form", async () => {
    const page = await openPage();
    await page.selectOption("#agent", "default");
    await page.click("text=New thread");
    await expect.poll(() => page.textContent("#thread-id")).toMatch(/^[0-9a-f]{64}$/);
    // The model in force, as GET /threads/:id gives it (no model configured here: the scripted one).
    await expect.poll(() => page.textContent("#thread-model")).toBe("model scripted (no model in agents/agents/default.ts and no WEFT_MODEL)");
    await page.fill("#content", "Pay 500 please");
    await page.fill("#script", SCRIPT);
    await page.click("button:text-is('Send')");
    await page.waitForSelector(".event[data-type=turn_waiting]");
    expect(await statusOf(page, "pay")).toBe("awaiting_approval");
    expect(await page.textContent('[data-call="pay"] pre')).toContain('"amount": 500');
    expect(await page.locator(".event[data-type=message_created]").count()).toBeGreaterThanOrEqual(1);
    await page.screenshot({ path: `${SHOTS}/playground-mouse-waiting.png`, fullPage: true });

    await page.click("text=Approve needs_ok");
    await expect.poll(() => statusOf(page, "pay")).toBe("succeeded");
    expect(await page.textContent('[data-call="pay"]')).toMatch(/\d+ ms/);
    expect(await page.textContent('[data-call="pay"]')).toContain('"approvedBy":"dev"');
    await page.waitForSelector(".event[data-type=turn_finished]");
    await expect.poll(() => page.locator(".msg[data-role=assistant]").allTextContents()).toContain("assistantPaid.");
    // An assistant message shows the calls it made (one that only calls tools was an empty box).
    expect(await page.locator(".msg[data-role=assistant]").allTextContents()).toContainEqual(expect.stringMatching(/^assistantPaying\.\n→ needs_ok\(\{"amount": ?500\}\)$/));
    // The turn's tokens and cost, as GET /threads/:id/usage gives them (the scripted model reports
    // no usage, so weft's estimates, marked).
    const id = (await page.textContent("#thread-id"))!;
    const usage = (await (await fetch(`${weft.url}/threads/${id}/usage`)).json()) as any;
    expect(usage.turns).toHaveLength(1);
    expect(usage.turns[0]).toMatchObject({ requests: 2, estimatedRequests: 2 });
    const cells = (selector: string) => page.locator(`#usage ${selector} > *`).allTextContents();
    const shown = (u: { requests: number; inputTokens: number; outputTokens: number; costUsd: number }) => [String(u.requests), `${u.inputTokens}*`, `${u.outputTokens}*`, `$${u.costUsd.toFixed(6)}`];
    await expect.poll(() => cells(`tr[data-turn="${usage.turns[0].turnId}"]`)).toEqual([usage.turns[0].turnId, ...shown(usage.turns[0])]);
    expect(await cells("tr[data-total]")).toEqual(["Thread", ...shown(usage.total)]);
    expect(usage.turns[0].inputTokens).toBeGreaterThan(0);
    expect(await page.textContent("#usage-note")).toContain("estimated");

    // A client tool (pick_file) and a provider's (web_search) cannot be called from here: not offered.
    const offered = await page.locator("#tool option").evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect([offered.includes("sum_range"), offered.includes("pick_file"), offered.includes("web_search")]).toEqual([true, false, false]);
    await page.selectOption("#tool", "sum_range");
    await page.fill("#arg-from", "2");
    await page.fill("#arg-to", "4");
    await page.click("text=Call tool");
    await expect.poll(() => page.textContent("#tool-result")).toContain('\\"total\\":9');
    await page.screenshot({ path: `${SHOTS}/playground-mouse-done.png`, fullPage: true });
    expect((page as any).errors).toEqual([]);
    await page.close();
  });

  it("stops a turn and settles the call it parked", async () => {
    const page = await openPage();
    await page.selectOption("#agent", "guarantees");
    await page.click("text=New thread");
    await expect.poll(() => page.textContent("#thread-id")).toMatch(/^[0-9a-f]{64}$/);
    await page.fill("#content", "Write something slow");
    await page.fill("#script", JSON.stringify([{ toolCalls: [{ id: "w", name: "effect_write", arguments: { hang: true } }] }]));
    await page.click("button:text-is('Send')");
    await expect.poll(() => statusOf(page, "w")).toBe("running");
    await page.click("text=Stop turn");
    await expect.poll(() => statusOf(page, "w")).toBe("parked");
    expect(await page.textContent('[data-call="w"]')).toContain("stopped");
    await page.selectOption('[data-call="w"] select', "failed");
    await page.fill('[data-call="w"] input[type=text]', "cancelled in the playground");
    await page.click("text=Settle effect_write");
    await expect.poll(() => statusOf(page, "w")).toBe("failed");
    expect(await page.textContent('[data-call="w"]')).toContain("cancelled in the playground");
    await page.screenshot({ path: `${SHOTS}/playground-settled.png`, fullPage: true });
    expect((page as any).errors).toEqual([]);
    await page.close();
  });

  it("answers a client tool's call: a JSON result, an error, and a refusal shown on the card", async () => {
    const page = await openPage();
    await page.selectOption("#agent", "browser");
    await page.click("text=New thread");
    await expect.poll(() => page.textContent("#thread-id")).toMatch(/^[0-9a-f]{64}$/);
    const id = (await page.textContent("#thread-id"))!;
    const ask = async (callId: string, then: string) => {
      await page.fill("#content", `pick (${callId})`);
      await page.fill("#script", JSON.stringify([{ toolCalls: [{ id: callId, name: "pick_file", arguments: { prompt: "Your notes" } }] }, { text: then }]));
      await page.click("button:text-is('Send')");
      await expect.poll(() => statusOf(page, callId)).toBe("parked");
    };
    const card = (callId: string) => page.locator(`[data-call="${callId}"]`);

    // Parked for this page, not for a person: an answer form, no Settle form; the input is shown.
    await ask("pick", "Read it.");
    expect(await card("pick").textContent()).toContain("waiting for the client's answer (a client tool)");
    expect(await card("pick").locator("pre[aria-label=arguments]").textContent()).toContain('"prompt": "Your notes"');
    expect(await card("pick").locator("[data-action=settle]").count()).toBe(0);
    await page.screenshot({ path: `${SHOTS}/playground-client-tool.png`, fullPage: true });
    // A refusal that leaves the call waiting: shown on the card, the typed answer kept for another try.
    const typed = '{"name": "notes.txt", "bytes": 12}';
    await page.route(`**/threads/${id}/calls/pick/result`, (route) =>
      route.fulfill({ status: 413, contentType: "application/json", body: JSON.stringify({ error: { code: "payload_too_large", message: "the body is over the limit" } }) }),
    );
    await card("pick").getByLabel("Result (JSON, or plain text) or error text").fill(typed);
    await page.click("text=Answer pick_file");
    await expect.poll(() => card("pick").locator("[data-refusal]").textContent().catch(() => null)).toBe("Refused: 413 payload_too_large: the body is over the limit");
    expect(await statusOf(page, "pick")).toBe("parked");
    expect(await card("pick").getByLabel("Result (JSON, or plain text) or error text").inputValue()).toBe(typed);
    await page.unroute(`**/threads/${id}/calls/pick/result`);
    await page.click("text=Answer pick_file");
    await expect.poll(() => statusOf(page, "pick")).toBe("succeeded");
    expect(await card("pick").locator("[data-refusal]").count()).toBe(0);
    expect(await card("pick").locator("pre[aria-label=result]").textContent()).toBe('result: {"name":"notes.txt","bytes":12}');
    await expect.poll(() => page.locator(".msg[data-role=assistant]").allTextContents()).toContain("assistantRead it.");

    // An error the model sees.
    await ask("pick2", "No file then.");
    await card("pick2").getByLabel("Answer with").selectOption("error");
    await card("pick2").getByLabel("Result (JSON, or plain text) or error text").fill("the user closed the dialog");
    await page.click("text=Answer pick_file");
    await expect.poll(() => statusOf(page, "pick2")).toBe("failed");
    expect(await card("pick2").textContent()).toContain("error: the user closed the dialog");
    await expect.poll(() => page.locator(".msg[data-role=assistant]").allTextContents()).toContain("assistantNo file then.");

    // Another client answers first: the page's answer (plain text, sent as a string) is refused, and says so on the card.
    await ask("pick3", "Done.");
    let sent: unknown;
    let first: number | undefined;
    await page.route(`**/threads/${id}/calls/pick3/result`, async (route) => {
      sent = route.request().postDataJSON();
      // Always let the page's request go on: a throw here left it pending, and the test waited out its poll.
      try {
        first = (await fetch(`${weft.url}/threads/${id}/calls/pick3/result`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ error: "answered in another tab" }) })).status;
      } finally {
        await route.continue();
      }
    });
    await card("pick3").getByLabel("Result (JSON, or plain text) or error text").fill("notes.txt");
    await page.click("text=Answer pick_file");
    // The page sent its answer (undefined: it never did), after the other client's was taken.
    await expect.poll(() => first).toBe(200);
    await expect.poll(() => card("pick3").locator("[data-refusal]").textContent().catch(() => null)).toMatch(/^Refused: 409 call_not_waiting: /);
    expect(sent).toEqual({ result: "notes.txt" });
    await expect.poll(() => statusOf(page, "pick3")).toBe("failed");
    expect(await card("pick3").textContent()).toContain("error: answered in another tab");
    await page.screenshot({ path: `${SHOTS}/playground-client-tool-refused.png`, fullPage: true });
    // Chromium logs each refused request itself; nothing else went wrong.
    expect((page as any).errors).toEqual([413, 409].map((s) => expect.stringMatching(new RegExp(`^Failed to load resource: the server responded with a status of ${s} `))));
    await page.close();
  });

  it("a call's button pressed as the turn's usage row comes in is still clicked: nothing above the cards moves", async () => {
    const page = await openPage();
    await page.selectOption("#agent", "browser");
    await page.click("text=New thread");
    await expect.poll(() => page.textContent("#thread-id")).toMatch(/^[0-9a-f]{64}$/);
    const id = (await page.textContent("#thread-id"))!;
    // The usage the page reads when the turn waits is held until the button is pressed.
    const held: (() => Promise<void>)[] = [];
    await page.route(`**/threads/${id}/usage`, (route) => void held.push(() => route.continue()));
    await page.fill("#content", "pick (press)");
    await page.fill("#script", JSON.stringify([{ toolCalls: [{ id: "press", name: "pick_file", arguments: { prompt: "Your notes" } }] }, { text: "Read it." }]));
    await page.click("button:text-is('Send')");
    await expect.poll(() => statusOf(page, "press")).toBe("parked");
    await page.locator('[data-call="press"]').getByLabel("Result (JSON, or plain text) or error text").fill('{"name": "notes.txt", "bytes": 12}');
    await expect.poll(() => held.length).toBeGreaterThan(0);
    const rows = await page.locator("#usage tbody tr").count();
    const button = page.locator('[data-call="press"] [data-action=answer]');
    await button.scrollIntoViewIfNeeded();
    const pressed = (await button.boundingBox())!;
    await page.mouse.move(pressed.x + pressed.width / 2, pressed.y + pressed.height / 2);
    await page.mouse.down();
    await Promise.all(held.splice(0).map((go) => go()));
    await expect.poll(() => page.locator("#usage tbody tr").count()).toBe(rows + 1);
    expect(await button.boundingBox()).toEqual(pressed);
    await page.mouse.up();
    await expect.poll(() => statusOf(page, "press")).toBe("succeeded");
    expect(await page.locator('[data-call="press"] pre[aria-label=result]').textContent()).toBe('result: {"name":"notes.txt","bytes":12}');
    expect((page as any).errors).toEqual([]);
    await page.close();
  });

  it("waits longer between reconnects while its thread's upgrade is refused", async () => {
    const page = await openPage();
    await page.selectOption("#agent", "guarantees");
    await page.click("text=New thread");
    await expect.poll(() => page.textContent("#thread-id")).toMatch(/^[0-9a-f]{64}$/);
    const id = (await page.textContent("#thread-id"))!;
    let upgrades = 0;
    page.on("websocket", () => void upgrades++);
    // Removed: its sockets close, and every upgrade after is refused (404).
    expect(await page.evaluate(async (thread) => (await fetch(`/threads/${thread}`, { method: "DELETE" })).status, id)).toBe(200);
    await page.waitForTimeout(10_000);
    // Waits of 1, 2 and 4 s: three tries in 10 s (a try every second made seven to nine).
    expect(upgrades).toBeGreaterThanOrEqual(2);
    expect(upgrades).toBeLessThanOrEqual(4);
    await page.close();
  });

  it("works with the keyboard alone", async () => {
    const page = await openPage();
    await tabTo(page, "Agent");
    await page.keyboard.type("default");
    await tabTo(page, "New thread");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.textContent("#thread-id")).toMatch(/^[0-9a-f]{64}$/);
    // Creating a thread moves focus to the message box.
    await page.keyboard.type("Pay 500 with the keyboard");
    await page.keyboard.press("Tab");
    await page.keyboard.insertText(SCRIPT);
    await tabTo(page, "Send");
    await page.keyboard.press("Enter");
    await expect.poll(() => statusOf(page, "pay")).toBe("awaiting_approval");
    await page.screenshot({ path: `${SHOTS}/playground-keyboard-waiting.png`, fullPage: true });
    await tabTo(page, "Approve needs_ok");
    await page.keyboard.press("Enter");
    await expect.poll(() => statusOf(page, "pay")).toBe("succeeded");
    await expect.poll(() => page.locator(".msg[data-role=assistant]").allTextContents()).toContain("assistantPaid.");

    await tabTo(page, "Tool");
    await page.keyboard.type("sum_range");
    await tabTo(page, "from");
    await page.keyboard.type("2");
    await tabTo(page, "to");
    await page.keyboard.type("4");
    await tabTo(page, "Call tool");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.textContent("#tool-result")).toContain('\\"total\\":9');
    await page.screenshot({ path: `${SHOTS}/playground-keyboard-done.png`, fullPage: true });
    expect((page as any).errors).toEqual([]);
    await page.close();
  });
});

describe.skipIf(!found.path)("playground page with authentication on", () => {
  let secured: DevServer;
  // The fixtures' config with its test API keys kept: tokens are required, even on localhost.
  beforeAll(async () => {
    secured = await sharedWeft("secured");
  }, 300_000);
  afterAll(async () => {
    await secured?.stop();
  });

  it("asks for a token, then works as that user over HTTP and the WebSocket, its token in a subprotocol, not the URL", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    // Each WebSocket handshake as Chromium sends and receives it.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.enable");
    const sent: Array<{ url: string; headers: Record<string, string> }> = [];
    const answered: Array<Record<string, string>> = [];
    cdp.on("Network.webSocketCreated", (e) => void sent.push({ url: e.url, headers: {} }));
    cdp.on("Network.webSocketWillSendHandshakeRequest", (e) => void (sent.at(-1)!.headers = e.request.headers));
    cdp.on("Network.webSocketHandshakeResponseReceived", (e) => void answered.push(e.response.headers));
    await page.goto(`${secured.url}/`);
    await expect.poll(() => page.textContent("#who")).toContain("a token is needed");
    await page.fill("#token", "test-key-alice");
    await page.click("text=Use token");
    await expect.poll(() => page.textContent("#who")).toBe("signed in as alice");
    await page.selectOption("#agent", "default");
    await page.click("text=New thread");
    await expect.poll(() => page.textContent("#thread-id")).toMatch(/^[0-9a-f]{64}$/);
    await page.fill("#content", "Add 1 to 3");
    await page.fill("#script", JSON.stringify([{ toolCalls: [{ id: "sum", name: "sum_range", arguments: {} }] }, { text: "Six." }]));
    await page.click("button:text-is('Send')");
    // Events arrive over the WebSocket, which carries the token as a subprotocol beside "weft".
    await expect.poll(() => statusOf(page, "sum")).toBe("succeeded");
    await page.waitForSelector(".event[data-type=turn_finished]");
    expect(sent.length).toBeGreaterThan(0);
    for (const { url, headers } of sent) {
      expect(url).not.toContain("test-key-alice");
      const offered = Object.entries(headers).find(([k]) => k.toLowerCase() === "sec-websocket-protocol")?.[1];
      expect(offered).toBe(`weft, weft.bearer.${Buffer.from("test-key-alice").toString("base64url")}`);
    }
    expect(answered.length).toBeGreaterThan(0);
    for (const headers of answered) {
      const selected = Object.entries(headers).find(([k]) => k.toLowerCase() === "sec-websocket-protocol")?.[1];
      expect(selected).toBe("weft");
    }
    await page.screenshot({ path: `${SHOTS}/playground-token.png`, fullPage: true });
    await page.close();
  });
});
