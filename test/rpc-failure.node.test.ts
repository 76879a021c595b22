/** An unexpected exception inside an RPC method reaches its caller as `internal_error` only: its text goes to the Worker's log. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { rpc } from "../src/rpc.js";

afterEach(() => vi.restoreAllMocks());

describe("rpc", () => {
  it("answers an unexpected throw as internal_error without its text, and logs that text", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const answer = await rpc(() => {
      throw new Error("SQLITE_ERROR near sk-live-0123456789: internals the caller must not read");
    });
    expect(answer).toEqual({ ok: false, error: { code: "internal_error", message: "internal error (the Worker's log has its cause)" } });
    expect((logged.mock.calls[0]![1] as Error).message).toContain("sk-live-0123456789");
  });
});
