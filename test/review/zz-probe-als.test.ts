import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { asThreadWork, logOwner } from "../../src/secrets/log-context.js";
import { createThread, inThread, rawStub } from "../helpers.js";

it("probe: does the log context cross a Durable Object call?", async () => {
  const a = await createThread({});
  const b = await createThread({});
  const fake = { last: () => null };
  // Test body -> B (runInDurableObject) inside asThreadWork
  const direct = await asThreadWork(fake, () => inThread(b, () => logOwner() === undefined ? "none" : "some"));
  // From A's work: A calls B's stub, via runInDurableObject of A
  const viaA = await inThread(a, (instance) => asThreadWork(instance.secrets, async () => {
    const ns = (instance.env as { ACCOUNT: DurableObjectNamespace }).ACCOUNT;
    const acc = ns.get(ns.idFromName("probe-user")) as unknown as { fetch(r: Request): Promise<Response> };
    return "ok";
  }));
  console.log("PROBE", direct, viaA);
  expect(true).toBe(true);
});
