/**
 * A request that got no answer says where it went and why: Node's fetch throws only "fetch
 * failed" and keeps the reason (`connect ECONNREFUSED ...`) in `cause`, so a new user's CLI
 * printed `network_error: POST /threads: fetch failed` for a weft on the wrong port.
 */
import { expect, it } from "vitest";
import { WeftClient, WeftClientError } from "weft/client";

it("names the address and the cause of a failed fetch", async () => {
  const fetch = (async () => {
    throw new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED 127.0.0.1:8799") });
  }) as unknown as typeof globalThis.fetch;
  const error = await new WeftClient({ url: "http://127.0.0.1:8799", fetch }).createThread({ agent: "example" }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(WeftClientError);
  expect(error).toMatchObject({ code: "network_error", status: 0, message: "POST http://127.0.0.1:8799/threads: fetch failed (connect ECONNREFUSED 127.0.0.1:8799)" });
});

it("keeps a failure without a cause as it came", async () => {
  const fetch = (async () => {
    throw new TypeError("Failed to fetch");
  }) as unknown as typeof globalThis.fetch;
  const error = await new WeftClient({ url: "https://weft.example/", fetch }).getThread("t-1").catch((e: unknown) => e);
  expect(error).toMatchObject({ code: "network_error", message: "GET https://weft.example/threads/t-1: Failed to fetch" });
});
