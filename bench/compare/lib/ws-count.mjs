// @ts-check
/**
 * The fan-out measurement's WebSocket client: it reads the wire format (RFC 6455) off a plain TCP
 * socket and counts the events in each text frame by a byte search for a marker, stamping each
 * TCP read with its arrival time. Node's built-in WebSocket dispatches an event, decodes UTF-8
 * and (in `subscribe`) parses JSON per message: with 100 sockets x 200 events that cost more CPU
 * than the server's sending did, so the figure measured the client. Counting bytes, the client
 * spends a few microseconds per read and the figure is the server's.
 * @module
 */
import { randomBytes } from "node:crypto";
import net from "node:net";
import { BENCH_KEY } from "./http.mjs";

/**
 * @typedef {{ events: number, onRead: null | ((at: number) => void), close: () => void }} CountingSocket
 * `events`: marker occurrences seen so far; `onRead(at)` runs after each TCP read that carried
 * frame bytes, with the read's arrival time (performance.now()).
 */

/**
 * Opens a WebSocket to `url` (ws://) and counts occurrences of `marker` in its text frames.
 * @param {string} url
 * @param {string} marker e.g. '"type":"burst"': each event carries it once
 * @returns {Promise<CountingSocket>} once the server answered 101
 */
export function countingSocket(url, marker) {
  const u = new URL(url);
  const needle = Buffer.from(marker);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: u.hostname, port: Number(u.port) });
    socket.setNoDelay(true);
    /** @type {CountingSocket} */
    const sub = {
      events: 0,
      onRead: null,
      close: () => {
        // A masked close frame (code 1000), as a client must send, then the end of the stream.
        const mask = randomBytes(4);
        const body = Buffer.from([0x03 ^ mask[0], 0xe8 ^ mask[1]]);
        socket.end(Buffer.concat([Buffer.from([0x88, 0x82]), mask, body]));
      },
    };
    let upgraded = false;
    /** Bytes of an incomplete frame (or of the 101 answer) carried over to the next read. */
    let pending = Buffer.alloc(0);
    socket.on("error", reject);
    socket.on("data", (chunk) => {
      const at = performance.now();
      let buf = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      if (!upgraded) {
        const end = buf.indexOf("\r\n\r\n");
        if (end < 0) return void (pending = buf);
        const head = buf.subarray(0, end).toString("latin1");
        if (!/^HTTP\/1\.1 101 /.test(head)) return reject(new Error(`WebSocket ${url}: ${head.split("\r\n")[0]}`));
        upgraded = true;
        buf = buf.subarray(end + 4);
        resolve(sub);
      }
      let off = 0;
      for (;;) {
        if (buf.length - off < 2) break;
        const opcode = buf[off] & 0x0f;
        let len = buf[off + 1] & 0x7f;
        let head = 2;
        if (len === 126) {
          if (buf.length - off < 4) break;
          len = buf.readUInt16BE(off + 2);
          head = 4;
        } else if (len === 127) {
          if (buf.length - off < 10) break;
          len = Number(buf.readBigUInt64BE(off + 2));
          head = 10;
        }
        if (buf.length - off < head + len) break;
        if (opcode === 0x1 || opcode === 0x0) {
          const payload = buf.subarray(off + head, off + head + len);
          for (let i = payload.indexOf(needle); i >= 0; i = payload.indexOf(needle, i + needle.length)) sub.events++;
        }
        off += head + len;
      }
      pending = off < buf.length ? Buffer.from(buf.subarray(off)) : Buffer.alloc(0);
      if (off > 0) sub.onRead?.(at);
    });
    socket.write(
      `GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Authorization: Bearer ${BENCH_KEY}\r\nSec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
  });
}
