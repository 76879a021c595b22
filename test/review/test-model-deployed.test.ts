/**
 * `WEFT_TEST_MODEL` in a Worker not under the test runner (test/wrangler.toml sets no
 * `WEFT_TEST_RUNNER`): no level a user sets makes it choose the model.
 */
import { expect, it } from "vitest";
import { createThread, json } from "../helpers.js";

it("a thread's or account's WEFT_TEST_MODEL chooses nothing in a deployed Worker", async () => {
  expect((await json("PUT", "/account/env/WEFT_TEST_MODEL", { value: "openai:gpt-4.1-mini", type: "text" }, "bob")).status).toBeLessThan(300);
  const mine = await json("POST", "/threads", { env: { WEFT_TEST_MODEL: { value: "anthropic:claude-sonnet-4-5", type: "text" }, WEFT_TEST_RUNNER: { value: "on", type: "text" } } }, "bob");
  expect(mine.status).toBe(201);
  const info = await json("GET", `/threads/${mine.body.threadId}`, undefined, "bob");
  expect(info.body.models.map((m: { spec: string }) => m.spec)).toEqual(["scripted"]);
  await json("DELETE", "/account/env/WEFT_TEST_MODEL", undefined, "bob");
  const id = await createThread({ env: { WEFT_TEST_MODEL: "scripted" } });
  expect((await json("GET", `/threads/${id}`)).body.models[0].where).not.toContain("WEFT_TEST_MODEL");
});
