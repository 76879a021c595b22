/**
 * A removal cut between unlisting the thread and deleting its rows (a crash between the two) leaves
 * a live thread: its schedule counts still reach the owner's account. The account learns that the
 * thread (its id and createdAt) is gone only once the rows are (found by hostile review 20a: it was
 * told at the unlisting, and dropped the live thread's counts for a day).
 */
import { expect, it } from "vitest";
import { createThread, inThread, json, keyed, until } from "../helpers.js";
import { countedIn } from "../schedules/helpers.js";

it("a thread alive after a cut removal counts its schedules again", async () => {
  const id = await createThread({ agent: "guarantees" });
  // The removal is cut (the object restarts) after it unlisted the thread, before its rows go.
  await inThread(id, (t) => {
    t.alarmClock.delete = async () => {
      t.ctx.abort("crash between the unlisting and the rows' deletion");
    };
  });
  const cut = await json("DELETE", `/threads/${id}`).catch((e: unknown) => ({ status: 0, body: String(e) }));
  expect(cut.status).not.toBe(200);
  // The thread is still here (rows kept) and works.
  await until(async () => (await json("GET", `/threads/${id}`)).status === 200, "the thread to wake");
  const body = { every: "1h", target: { tool: "effect_read", input: {} } };
  for (let i = 0; i < 3; i++) expect((await keyed("POST", `/threads/${id}/schedules`, `z-${i}-${crypto.randomUUID()}`, body)).status).toBe(201);
  const active = (await json("GET", `/threads/${id}/schedules`)).body;
  await new Promise((r) => setTimeout(r, 300));
  expect({ activeInThread: (active.schedules ?? active.items ?? []).length, countedInAccount: await countedIn(id) }).toEqual({ activeInThread: 3, countedInAccount: 3 });
}, 90_000);
