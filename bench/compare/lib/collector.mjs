/**
 * The OTLP collector the traced weft target sends to: takes every export and answers 200 at once,
 * counting exports and bytes; and that target's spec (weft with `WEFT_OTLP_URL` naming it).
 */
import { createServer } from "node:http";
import { freePort } from "./serve.mjs";

/** Starts the collector on a free loopback port: `{ port, collected: { exports, bytes }, close }`. */
export async function startCollector() {
  const collected = { exports: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on("data", (chunk) => (collected.bytes += chunk.length));
    req.on("end", () => {
      collected.exports++;
      res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(undefined)));
  return { port, collected, close: () => server.close() };
}

/** The traced target's `WEFT_OTLP_DELAY_MS`: a finished span is sent at most this long after. */
export const OTLP_DELAY_MS = 1000;

/**
 * How long each side of the tracing pair idles after its turns before its CPU is read: past the
 * delay, so the last batch's export is counted on the traced side (the untraced side idles as long).
 */
export const EXPORT_WAIT_MS = OTLP_DELAY_MS + 500;

/** `weftSpec` as the target `weft-traced`: the same bundle, its spans sent to the collector on `port`. */
export function tracedSpec(weftSpec, port) {
  return { ...weftSpec, name: "weft-traced", bundle: "weft", vars: { ...weftSpec.vars, WEFT_OTLP_URL: `http://127.0.0.1:${port}/v1/traces`, WEFT_OTLP_DELAY_MS: String(OTLP_DELAY_MS) }, outbound: `127.0.0.1:${port}` };
}
