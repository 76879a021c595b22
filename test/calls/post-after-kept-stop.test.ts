/**
 * After a restart, a stop kept with rows being admitted (inbox_stops) makes the next admission
 * take those rows alone; a message posted to the then-free thread that starts it is answered as
 * queued, never with those rows' refusal or message. Review 23g.
 */
import { describe, expect, it } from "vitest";
import { createThread, inThread, json, messagesOf, stubOf, until } from "../helpers.js";
import { g, holdAdmission } from "./hold.js";

describe("a message posted right after a restart that left a stop kept with a refused message's rows", () => {
  it("is not answered hook_failed for another message's refusal while it is then admitted and answered", async () => {
    const id = await createThread({ agent: "hooked" });
    await holdAdmission(id, "__r23g_p", (c) => c.some((x) => x.includes("forbidden-word")));
    const first = json("POST", `/threads/${id}/messages`, { content: "A forbidden-word" }).catch((e) => e);
    await until(async () => g.__r23g_p?.held === true, "A's admission to be held");
    expect((await json("POST", `/threads/${id}/stop`)).body).toEqual({ stopped: true });
    await inThread(id, (t) => t.ctx.abort("restart before A's turn began")).catch(() => undefined);
    await first;
    // B wakes the thread: it is free (no turn), and its inbox holds A (with the stop) and now B.
    const posted = await json("POST", `/threads/${id}/messages`, { content: "two", script: [{ text: "two done" }] });
    await stubOf(id).waitIdle();
    await new Promise((r) => setTimeout(r, 1000));
    const contents = (await messagesOf(id)).map((m) => m.content);
    const twoRan = contents.includes("two done");
    // Whatever B's answer is, it must agree with what happened to B.
    const answeredFailed = posted.status >= 400;
    const answeredWithOther = posted.status < 300 && posted.body.message !== undefined && posted.body.message.content !== "two";
    expect({ status: posted.status, code: posted.body.error?.code, answeredFailed, answeredWithOther, twoRan }).toEqual({
      status: posted.status,
      code: posted.body.error?.code,
      answeredFailed: !twoRan,
      answeredWithOther: false,
      twoRan,
    });
  }, 30_000);
});

describe("a message posted right after a restart that left a stop kept with another message's rows", () => {
  it("is answered as itself (queued, or started with its own message), not with the stopped message", async () => {
    const id = await createThread({ agent: "guarantees" });
    await holdAdmission(id, "__r23g_q", (c) => c.includes("one"));
    const first = json("POST", `/threads/${id}/messages`, { content: "one", script: [{ text: "one done" }] }).catch((e) => e);
    await until(async () => g.__r23g_q?.held === true, "one's admission to be held");
    expect((await json("POST", `/threads/${id}/stop`)).body).toEqual({ stopped: true });
    await inThread(id, (t) => t.ctx.abort("restart before one's turn began")).catch(() => undefined);
    await first;
    const posted = await json("POST", `/threads/${id}/messages`, { content: "two", script: [{ text: "two done" }] });
    await stubOf(id).waitIdle();
    const ok = posted.body.queued === true || posted.body.message?.content === "two";
    expect({ status: posted.status, body: posted.body, ok }).toEqual({ status: posted.status, body: posted.body, ok: true });
  }, 30_000);
});
