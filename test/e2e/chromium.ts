/**
 * Finding a Chromium for the page tests: `CHROMIUM_PATH`, else the usual install paths (Debian's
 * `chromium` package puts it at /usr/bin/chromium). Under `CI=true` a missing one is an error.
 * @module
 */
import { existsSync } from "node:fs";

const USUAL = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome", "/usr/bin/google-chrome-stable", "/snap/bin/chromium", "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"];

/**
 * The Chromium executable to drive, or null (with the reason) when there is none.
 * @throws Error when `CHROMIUM_PATH` names a missing file, or under `CI=true` when none is found.
 */
export function findChromium(): { path: string } | { path: null; reason: string } {
  const given = process.env.CHROMIUM_PATH;
  if (given) {
    if (!existsSync(given)) throw new Error(`CHROMIUM_PATH=${given} does not exist`);
    return { path: given };
  }
  const found = USUAL.find((p) => existsSync(p));
  if (found) return { path: found };
  const reason = `no Chromium found (looked at ${USUAL.join(", ")}; set CHROMIUM_PATH, or install Debian's chromium package)`;
  if (process.env.CI === "true") throw new Error(`CI=true and ${reason}: .ci/run installs it with apt-get`);
  return { path: null, reason };
}
