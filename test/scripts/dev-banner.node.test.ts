/**
 * `npm start` shows the development-mode banner once: a reload's repeat (with wrangler's warning
 * header and blank lines) is dropped, every other line passes (scripts/lib/dev-banner.mjs).
 */
import { expect, it } from "vitest";
import { bannerOnce } from "../../scripts/lib/dev-banner.mjs";

/** wrangler's output around the banner, as a reload prints it (colour codes left out). */
const BANNER = [
  "▲ [WARNING] ",
  "",
  "  *** weft: DEVELOPMENT MODE: no authentication is configured. Requests to localhost without a",
  '  *** token act as the development user "dev" (admin); one with a token is refused (nothing can',
  "  *** every request. See docs/authentication.md.",
  "  ",
  "",
];

const run = (lines: string[]) => {
  const filter = bannerOnce();
  return [...lines.flatMap((l) => filter(l, l)), ...filter.flush()];
};

it("passes the first banner whole and drops a reload's repeat, keeping the lines around it", () => {
  const out = run(["[wrangler:info] Ready on http://localhost:8787", ...BANNER, "Reloading local server...", ...BANNER, "agents/tools/BadName.ts: a tool file name must match", "▲ [WARNING] ", "", "  another warning"]);
  expect(out).toEqual(["[wrangler:info] Ready on http://localhost:8787", ...BANNER, "Reloading local server...", "agents/tools/BadName.ts: a tool file name must match", "▲ [WARNING] ", "", "  another warning"]);
});

it("gives back a warning header held at the end of the stream", () => {
  expect(run(["x", "▲ [WARNING] ", ""])).toEqual(["x", "▲ [WARNING] ", ""]);
});
