/**
 * `POST /mcp-servers` refuses every spelling of the Worker's own machine and of private networks
 * (400, path `url`), and keeps nothing. Users: `hosts-*`.
 */
import { describe, expect, it } from "vitest";
import { as } from "./user-flow.js";

describe("a server a user adds on a loopback or private host", () => {
  it("is refused however the host is spelled", async () => {
    const u = `hosts-${crypto.randomUUID().slice(0, 6)}`;
    const urls = ["https://localhost./mcp", "https://LOCALHOST./mcp", "https://foo.localhost./mcp", "https://0.0.0.0/mcp", "https://0/mcp", "https://[::]/mcp", "https://[::ffff:127.0.0.1]/mcp", "https://[0:0:0:0:0:0:0:1]/mcp", "https://2130706433/mcp", "https://0x7f.1/mcp", "https://127.1/mcp", "https://169.254.169.254/mcp", "https://10.0.0.1/mcp", "https://172.20.1.1/mcp", "https://192.168.0.1/mcp", "https://[fd00::1]/mcp", "https://[fe80::1]/mcp"];
    for (const url of urls) {
      const r = await as(u, "POST", "/mcp-servers", { name: "lb", url });
      expect([url, r.status, r.body.error?.details?.path]).toEqual([url, 400, ["url"]]);
    }
    expect((await as(u, "GET", "/mcp-servers")).body.servers).toEqual([]);
  });
});
