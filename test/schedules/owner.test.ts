/**
 * The owner of file schedules' threads without an `owner`, `weft:schedules`, is a reserved id
 * (hostile review): no credential may name it (or any `weft:` id), so no person owns those threads.
 */
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { FILE_SCHEDULE_OWNER } from "../../src/schedules/define.js";
import { send } from "../usage/users.js";

const tokenFor = (sub: string) =>
  new SignJWT({})
    .setProtectedHeader({ alg: "HS256" })
    .setIssuer("weft-tests")
    .setAudience("weft-test")
    .setSubject(sub)
    .setExpirationTime(Math.floor(Date.now() / 1000) + 3600)
    .sign(new TextEncoder().encode("weft-test-jwt-secret-not-for-production"));

describe("the file schedules' owner id", () => {
  it("a token whose sub is weft:schedules (or any weft: id) is refused: 401 unauthenticated naming sub", async () => {
    for (const sub of [FILE_SCHEDULE_OWNER, "weft:anything"]) {
      const me = await send(await tokenFor(sub), "GET", "/account");
      expect([me.status, me.body.error?.code, me.body.error?.details?.path, me.body.userId]).toEqual([401, "unauthenticated", ["sub"], undefined]);
    }
    // An id that merely looks alike is an ordinary user.
    expect((await send(await tokenFor("weft-schedules"), "GET", "/account")).status).toBe(200);
  });
});
