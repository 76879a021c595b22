/**
 * The CLI's "no weft answers" hint names the `npm start` that would answer at the address it
 * tried (`WEFT_LOCAL_URL`), its port included when it is not wrangler's default.
 */
import { expect, it } from "vitest";
import { startCommand } from "../../bin/cli/runtime.ts";

it("names the port when the local address is not on 8787", () => {
  expect(startCommand("http://localhost:8787")).toBe("npm start");
  expect(startCommand("http://localhost:8954")).toBe("npm start -- --port 8954");
  expect(startCommand("http://127.0.0.1:9000/")).toBe("npm start -- --port 9000");
});
