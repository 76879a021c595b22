/**
 * A refused `POST /threads` takes back the listing the Worker made for it only when no thread was
 * made: a refusal that says a thread is there (it exists, or a request under the same
 * Idempotency-Key makes it) leaves it listed. Found by a hostile review: a keyed create sent twice
 * at once (409 `idempotency_key_in_use`) or its key reused with another body (422) unlisted the
 * live thread, which then held no slot of the per-user limit and was missing from `GET /threads`.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { isListed, json, keyed } from "../helpers.js";

describe("a refused create and the thread's listing", () => {
  it("a keyed create sent twice at once leaves its thread listed", async () => {
    const key = `twice-${crypto.randomUUID()}`;
    const answers = await Promise.all([keyed("POST", "/threads", key, { agent: "guarantees" }), keyed("POST", "/threads", key, { agent: "guarantees" })]);
    const made = answers.find((a) => a.status === 201)!;
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    expect(await isListed(made.body.threadId)).toBe(true);
  });

  it("a key reused with another body leaves the thread it made listed", async () => {
    const key = `reused-${crypto.randomUUID()}`;
    const made = await keyed("POST", "/threads", key, { agent: "guarantees" });
    expect(made.status).toBe(201);
    const reused = await keyed("POST", "/threads", key, { agent: "guarantees", arguments: { other: true } });
    expect([reused.status, reused.body.error.code]).toEqual([422, "idempotency_key_reused"]);
    expect(await isListed(made.body.threadId)).toBe(true);
  });

  it("a create the thread refused before any thread was made is not listed", async () => {
    const key = `refused-${crypto.randomUUID()}`;
    // Refused by the thread object (its agent needs an env value it lacks), after the Worker listed it.
    const refused = await keyed("POST", "/threads", key, { agent: "needs_key" });
    expect([refused.status, refused.body.error.code]).toEqual([400, "missing_variables"]);
    const ns = (env as unknown as { THREAD: DurableObjectNamespace }).THREAD;
    expect(await isListed(ns.idFromName(`idem:${JSON.stringify(["thread", "tester", key])}`).toString())).toBe(false);
  });
});
