/**
 * The cron trigger `npm start` fires (scripts/lib/dev-cron.mjs): wrangler dev never fires one on
 * its own, so once wrangler says it is ready the config's first cron is fired through wrangler's
 * local scheduled route, at once and every minute; a config without crons fires nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, expect, it } from "vitest";
import { fireCrons, firstCron, scheduledUrl } from "../../scripts/lib/dev-cron.mjs";

let dir = "";
let stop: () => void = () => undefined;
afterEach(() => {
  stop();
  rmSync(dir, { recursive: true, force: true });
});

function project(toml: string): string {
  dir = mkdtempSync(join(tmpdir(), "weft-dev-cron-"));
  writeFileSync(join(dir, "wrangler.toml"), toml);
  return dir;
}

it("reads the first cron of [triggers], or none", () => {
  expect(firstCron('[triggers]\ncrons = ["*/5 * * * *", "0 0 * * *"]\n')).toBe("*/5 * * * *");
  expect(firstCron('name = "x"\n')).toBeNull();
  expect(scheduledUrl("http://127.0.0.1:8787", "* * * * *")).toBe("http://127.0.0.1:8787/cdn-cgi/local/scheduled?cron=*%20*%20*%20*%20*");
});

it("fires the cron once wrangler is ready (a --config given is the one read), and not before", async () => {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? "");
    res.end("ok");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  const root = project('name = "x"\n');
  writeFileSync(join(root, "other.toml"), '[triggers]\ncrons = ["* * * * *"]\n');
  const out = new PassThrough();
  stop = fireCrons(root, out, ["--config", "other.toml"]);
  out.write("Starting local server...\n");
  await new Promise((r) => setTimeout(r, 200));
  expect(seen).toEqual([]);
  out.write(`\x1b[32m[wrangler:info] Ready on http://127.0.0.1:${port}\x1b[0m\n`);
  const deadline = Date.now() + 10_000;
  while (seen.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  server.close();
  expect(seen).toEqual(["/cdn-cgi/local/scheduled?cron=*%20*%20*%20*%20*"]);
});

it("a config without crons fires nothing", async () => {
  const out = new PassThrough();
  stop = fireCrons(project('name = "x"\n'), out, []);
  out.write("[wrangler:info] Ready on http://127.0.0.1:1\n");
  await new Promise((r) => setTimeout(r, 100));
  expect(out.listenerCount("data")).toBe(0);
});
