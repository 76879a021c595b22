/**
 * Two creates of one continuation token at once (two tabs opening the same conversation): the
 * one that loses answers `thread_exists` with the thread's id, as a create after it does, so
 * `openThread` answers that thread instead of throwing.
 */
import { expect, it } from "vitest";
import { json } from "../helpers.js";

it("concurrent creates of one continuation token: one 201, the others 409 naming the thread", async () => {
  const answers = await Promise.all(Array.from({ length: 4 }, () => json("POST", "/threads", { continuationToken: "web:race-1" })));
  const created = answers.filter((a) => a.status === 201);
  expect(created).toHaveLength(1);
  for (const a of answers.filter((a) => a.status !== 201)) {
    expect(a.status).toBe(409);
    expect(a.body.error.details.threadId).toBe(created[0]!.body.threadId);
  }
});
