/**
 * `state.emit` redacts what JSON makes of its data: a URL (or any object with toJSON) carrying a
 * thread secret is stored and sent redacted (found by hostile review 20a: the redactor walked the
 * object's own entries, and JSON.stringify then called toJSON), and what is sent is what the
 * redactor read (review 20c: a getter asked again gave its secret).
 */
import { expect, it } from "vitest";
import { createThread, eventsOf, inThread, subscribe } from "../helpers.js";

const SECRET = "sk-live-0123456789abcdef";

it("a URL holding a thread secret in a custom event is redacted in the log and on the socket", async () => {
  const id = await createThread({ agent: "guarantees", env: { API_KEY: SECRET } });
  const sub = await subscribe(id, 0);
  await inThread(id, (t) => {
    t.world.emitCustom("custom.endpoint", { plain: `key=${SECRET}`, url: new URL(`https://api.example.com/v1?key=${SECRET}`) });
  });
  await sub.until((frames) => frames.some((f) => f.type === "custom.endpoint"));
  const live = JSON.stringify(sub.frames.find((f) => f.type === "custom.endpoint"));
  const stored = JSON.stringify((await eventsOf(id)).find((f) => f.type === "custom.endpoint"));
  sub.close();
  expect({ liveHasSecret: live.includes(SECRET), storedHasSecret: stored.includes(SECRET), live }).toMatchObject({ liveHasSecret: false, storedHasSecret: false });
});

it("a getter that gives the secret only when read again is stored and sent as it was first read (review 20c)", async () => {
  const id = await createThread({ agent: "guarantees", env: { API_KEY: SECRET } });
  const sub = await subscribe(id, 0);
  let reads = 0;
  const data = {
    get token() {
      return reads++ === 0 ? "nothing yet" : SECRET;
    },
    list: Object.assign(["a"], { extra: SECRET }),
  };
  await inThread(id, (t) => {
    t.world.emitCustom("custom.sly", data);
  });
  await sub.until((frames) => frames.some((f) => f.type === "custom.sly"));
  const live = JSON.stringify(sub.frames.find((f) => f.type === "custom.sly"));
  const stored = JSON.stringify((await eventsOf(id)).find((f) => f.type === "custom.sly"));
  sub.close();
  expect({ liveHasSecret: live.includes(SECRET), storedHasSecret: stored.includes(SECRET), live }).toMatchObject({ liveHasSecret: false, storedHasSecret: false });
  expect(live).toContain("nothing yet");
});
