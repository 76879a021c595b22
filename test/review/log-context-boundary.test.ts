/**
 * Hostile review of the log attribution (src/secrets/log-context.ts): work one thread starts cannot
 * carry its context into another Durable Object, so a line another user's thread writes is never
 * taken as the first thread's (and redacted by its log redactor alone). Each call into a Durable
 * Object is a request of its own in workerd, begun outside any thread's work; a thread's entries
 * then enter their own.
 */
import { expect, it } from "vitest";
import { asThreadWork, logOwner } from "../../src/secrets/log-context.js";
import { createThread, inThread } from "../helpers.js";

it("a call into another thread's Durable Object, made in one thread's work, runs outside that work", async () => {
  const mine = await createThread({});
  const theirs = await createThread({});
  const owners = await inThread(mine, (instance) =>
    asThreadWork(instance.secrets, async () => {
      const here = logOwner() === instance.secrets;
      // The other object's work, reached from inside this one's (runInDurableObject: not a Thread entry, so it enters nothing itself).
      const there = await inThread(theirs, (other) => ({ none: logOwner() === undefined, own: logOwner() === other.secrets }));
      return { here, there, after: logOwner() === instance.secrets };
    }),
  );
  expect(owners).toEqual({ here: true, there: { none: true, own: false }, after: true });
});
