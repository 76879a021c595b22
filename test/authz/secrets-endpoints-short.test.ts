/**
 * The authz `secrets` section's endpoint half, in the suite: every endpoint choice an ordinary
 * user has sends no Worker credential anywhere but the Worker's own endpoint
 * (test/authz/secrets-endpoints.ts).
 */
import { expect, it } from "vitest";
import { ENDPOINT_PROVIDERS, probeEndpointChoices } from "./secrets-endpoints.js";

it("no endpoint an ordinary user chooses, at any level they write, receives a Worker credential", { timeout: 300_000 }, async () => {
  const { choices, sentElsewhere } = await probeEndpointChoices();
  // Providers x Worker setups x levels of the base URL x key cases.
  expect(choices).toBe(Object.keys(ENDPOINT_PROVIDERS).length * 3 * 2 * 6);
  expect(sentElsewhere).toEqual([]);
});
