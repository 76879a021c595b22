#!/usr/bin/env node
// @ts-check
/**
 * Rows a scripted turn (three tool calls) reads and writes, as Durable Object storage bills
 * them: each target serves on its own, takes 3 warm-up turns, then 10 counted ones; printed per
 * turn are the statements, rows read and rows written (workerd's own counters, summed over every
 * object the turn touches: the thread's and the account's), then each SQL statement's runs, rows
 * read and rows written, most rows written first. Not timed: nothing here depends on the machine.
 *
 *   node bench/compare/turn-rows.mjs [weft] [bare] [sdk] ...   (default: weft)
 *
 * `npm run bench:turn-rows` builds the bench registry first and puts node_modules/.bin on PATH
 * (wrangler, which builds the targets, needs the project's Node 22.12+ from there).
 */
import path from "node:path";
import { request } from "./lib/http.mjs";
import { freePort, startAll } from "./lib/serve.mjs";
import { targets } from "./lib/targets.mjs";
import { startProvider } from "./lib/provider.mjs";
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const provider = await startProvider();
const names = process.argv.slice(2).length ? process.argv.slice(2) : ["weft"];
const main = await startAll(ROOT, await Promise.all(names.map(async (n) => ({ ...targets[n].spec, outbound: `127.0.0.1:${provider.port}`, port: await freePort() }))));
try {
  for (const s of main.servers) {
    const n = s.spec.name; const t = targets[n]; const base = s.base;
    const thread = await t.newThread(base);
    const sub = await t.turnSetup(base, thread);
    for (let i = 0; i < 3; i++) await t.turn(base, thread, sub, { model: "scripted" });
    await new Promise((r) => setTimeout(r, 3000));
    await request(base, "GET", "/__bench/rows?by=statement");
    const N = 10;
    for (let i = 0; i < N; i++) await t.turn(base, thread, sub, { model: "scripted" });
    await new Promise((r) => setTimeout(r, 3000));
    const rows = await request(base, "GET", "/__bench/rows");
    console.log(`${n}: ${(rows.statements / N).toFixed(1)} statements, ${(rows.rowsRead / N).toFixed(1)} read, ${(rows.rowsWritten / N).toFixed(1)} written per turn`);
    for (const [q, d] of Object.entries(rows.byStatement ?? {}).sort((a, b) => b[1].rowsWritten - a[1].rowsWritten)) console.log(`  ${(d.runs / N).toFixed(2)} runs  read ${(d.rowsRead / N).toFixed(2)}  written ${(d.rowsWritten / N).toFixed(2)}  ${q.slice(0, 200)}`);
  }
} finally { main.stop(); provider.close(); }
process.exit(0);
