// @ts-check
/**
 * The cron trigger under `npm start`. `wrangler dev` never fires a Worker's `[triggers] crons` on
 * its own (it prints a URL that fires one), yet a deployment's first trigger is what takes file
 * schedules (`agents/schedules/`) up in their threads (docs/schedules.md). So once wrangler says
 * it is ready, this fires the first configured cron through that URL, and again every minute, as
 * Cloudflare would: file schedules then run locally as they do deployed. A tick that fails (the
 * server reloading) is tried at the next one.
 * @module
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";

/** How often the trigger fires (ms): the finest a cron pattern can ask for. */
export const TICK_MS = 60_000;

/**
 * The first cron pattern of a wrangler.toml's `[triggers] crons`, or null when it has none.
 * @param {string} tomlText
 * @returns {string | null}
 */
export function firstCron(tomlText) {
  const m = /^\s*crons\s*=\s*\[\s*"([^"]+)"/m.exec(tomlText);
  return m?.[1] ?? null;
}

/**
 * The wrangler config `wrangler dev` reads: `--config <path>` / `-c <path>` among `args`, else wrangler.toml.
 * @param {string} root
 * @param {string[]} args
 */
function configOf(root, args) {
  const i = args.findIndex((a) => a === "--config" || a === "-c");
  const given = i >= 0 ? args[i + 1] : args.find((a) => a.startsWith("--config="))?.slice("--config=".length);
  return path.resolve(root, given ?? "wrangler.toml");
}

/**
 * The URL that fires `cron` on the dev server at `base` (wrangler's local scheduled route).
 * @param {string} base
 * @param {string} cron
 */
export const scheduledUrl = (base, cron) => `${base}/cdn-cgi/local/scheduled?cron=${encodeURIComponent(cron)}`;

/**
 * Watches wrangler's output for its `Ready on <url>` line, then fires the config's first cron at
 * once and every {@link TICK_MS}. Does nothing when the config has no cron.
 * @param {string} root the project's folder
 * @param {NodeJS.ReadableStream} output wrangler's stdout
 * @param {string[]} args the arguments given to `wrangler dev`
 * @returns a function that stops the ticks
 */
export function fireCrons(root, output, args) {
  let cron = null;
  try {
    cron = firstCron(readFileSync(configOf(root, args), "utf8"));
  } catch {
    // No readable config: wrangler says so itself.
  }
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let timer;
  if (!cron) return () => undefined;
  const pattern = cron;
  createInterface({ input: output, crlfDelay: Infinity }).on("line", (raw) => {
    const m = /Ready on (https?:\/\/\S+)/.exec(raw.replace(/\x1b\[[0-9;]*m/g, ""));
    if (!m?.[1] || timer) return;
    const base = m[1].replace(/\/$/, "").replace("//0.0.0.0:", "//127.0.0.1:");
    const tick = () => void fetch(scheduledUrl(base, pattern)).then((r) => r.body?.cancel(), () => undefined);
    console.log(`weft: firing the cron trigger "${pattern}" every minute, as a deployment would (so wrangler's warning that scheduled Workers are not triggered in local development does not apply here), so agents/schedules/ run here too`);
    tick();
    timer = setInterval(tick, TICK_MS);
    timer.unref();
  });
  return () => clearInterval(timer);
}
