/**
 * The authz `secrets` section's endpoint half, in the suite: every endpoint choice an ordinary
 * user has sends no Worker credential anywhere but the Worker's own endpoint
 * (test/authz/secrets-endpoints.ts).
 */
import { expect, it } from "vitest";
import { probeEndpointChoices } from "./authz/secrets-endpoints.js";

it("no endpoint an ordinary user chooses, at any level they write, receives a Worker credential", { timeout: 300_000 }, async () => {
  const { choices, sentElsewhere } = await probeEndpointChoices();
  expect(choices).toBe(3 * 3 * 2 * 6);
  expect(sentElsewhere).toEqual([]);
});
