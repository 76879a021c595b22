/**
 * Hostile text on the playground's call cards: a call id, a tool name, an input and an answer's
 * error a model or user controls, all carrying markup. The page builds its DOM with textContent
 * only, so none of it becomes an element, and the CSP would refuse an inline handler anyway.
 */
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findChromium } from "./chromium.js";
import { sharedWeft, type DevServer } from "./support.js";

const found = findChromium();
let weft: DevServer;
let browser: Browser;

beforeAll(async () => {
  if (!found.path) return;
  weft = await sharedWeft("dev");
  browser = await chromium.launch({ executablePath: found.path, headless: true, args: ["--no-sandbox"] });
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await weft?.stop();
});

const MARKUP = `"><img src=x onerror="window.pwned=1"><script>window.pwned=2</script>`;

describe.skipIf(!found.path)("playground page against markup in a call", () => {
  it("shows a client tool's call, an unknown tool's call and a refused answer as text", async () => {
    const page = await browser.newPage();
    await page.goto(`${weft.url}/`);
    await expect.poll(() => page.textContent("#who")).toContain("development mode");
    await page.selectOption("#agent", "browser");
    await page.click("text=New thread");
    await expect.poll(() => page.textContent("#thread-id")).toMatch(/^[0-9a-f]{64}$/);
    const callId = `c${MARKUP}`;
    await page.fill("#content", "go");
    await page.fill("#script", JSON.stringify([{ toolCalls: [{ id: callId, name: "pick_file", arguments: { prompt: MARKUP } }, { id: `u${MARKUP}`, name: `x${MARKUP}`, arguments: {} }] }, { text: "done" }]));
    await page.click("button:text-is('Send')");
    const card = page.locator(`[data-call="${callId.replace(/"/g, '\\"')}"]`);
    await expect.poll(() => card.getAttribute("data-status").catch(() => null)).toBe("parked");
    await card.getByLabel("Answer with").selectOption("error");
    await card.getByLabel("Result (JSON, or plain text) or error text").fill(MARKUP);
    await page.click("text=Answer pick_file");
    await expect.poll(() => card.getAttribute("data-status").catch(() => null)).toBe("failed");
    expect(await card.textContent()).toContain(`error: ${MARKUP}`);
    expect(await page.locator("#calls img, #calls script, #events img, #events script, #messages img, #messages script").count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    await page.close();
  });
});
