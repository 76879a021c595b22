/**
 * The authz `secrets` section's endpoint half, in the suite: every endpoint choice an ordinary
 * user has sends no Worker credential anywhere but the Worker's own endpoint
 * (test/authz/secrets-endpoints.ts), each provider under one of the Worker's three setups in turn
 * (`npm run authz` probes every provider under all three).
 */
import { expect, it } from "vitest";
import { ENDPOINT_PROVIDERS, probeEndpointChoices } from "./secrets-endpoints.js";

it("no endpoint an ordinary user chooses, at any level they write, receives a Worker credential", { timeout: 300_000 }, async () => {
  const { choices, sentElsewhere } = await probeEndpointChoices({ short: true });
  // Providers (each under one Worker setup; npm run authz takes all three) x levels of the base URL x key cases.
  expect(choices).toBe(Object.keys(ENDPOINT_PROVIDERS).length * 2 * 6);
  expect(sentElsewhere).toEqual([]);
});
