/**
 * `WeftClient.stop` answers `{ stopped }` as docs/client.md says, typed so (the type check of this
 * file is part of `npm run typecheck`): a caller reads `stopped` without a cast.
 */
import { expect, expectTypeOf, it } from "vitest";
import { WeftClient } from "weft/client";

it("answers whether a turn was stopped, typed { stopped: boolean }", async () => {
  const fetch = (async () => Response.json({ stopped: true })) as unknown as typeof globalThis.fetch;
  const answer = await new WeftClient({ url: "http://weft.test", fetch }).stop("t-1");
  expectTypeOf(answer).toEqualTypeOf<{ stopped: boolean }>();
  expect(answer.stopped).toBe(true);
});
