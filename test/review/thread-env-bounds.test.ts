/**
 * A thread's env is its creator's to fill (`POST /threads` `env`), bounded only by the body's size
 * (hostile review): a value's name of 1.5 MB beside a 0.9 MB value made a 2.4 MB env row, which
 * Cloudflare refuses (500 on create); 200,000 small secret values (every one a form the thread's
 * redaction looks for in all it shows) took 8 s and ended in a stack overflow (500). An account's
 * env is held to 1000 values and names of at most 128 characters; a thread's is now held to the same.
 */
import { expect, it } from "vitest";
import { json } from "../helpers.js";
import { oversizedWrites } from "../row-limit.js";

it("an env value's name over 128 characters is refused with 400 naming env, nothing written", async () => {
  const before = oversizedWrites.length;
  const created = await json("POST", "/threads", { env: { ["N".repeat(1_500_000)]: "v".repeat(900_000) } });
  expect(created.status).toBe(400);
  expect(created.body.error).toMatchObject({ code: "invalid_request", details: { path: expect.arrayContaining(["env"]) } });
  expect(JSON.stringify(created.body).length).toBeLessThan(2000);
  expect(oversizedWrites.slice(before)).toEqual([]);
});

it("more than 1000 env values are refused with 400 naming env; 1000 are taken", async () => {
  const env = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`S${i}`, `secret-${i}-x`]));
  const many = await json("POST", "/threads", { env: env(200_000) });
  expect(many.status).toBe(400);
  expect(many.body.error).toMatchObject({ code: "invalid_request", details: { path: ["env"] } });
  expect(many.body.error.message).toMatch(/1000/);
  const most = await json("POST", "/threads", { env: env(1000) });
  expect(most.status).toBe(201);
  const named = await json("POST", "/threads", { env: { ["N".repeat(128)]: "v" } });
  expect(named.status).toBe(201);
});
