import { expect, it } from "vitest";
import { probeStreamedSecrets } from "../authz/secrets-stream.js";

// The attacker runs the model endpoint and streams guesses: nothing the user sees may depend on
// how much of a secret a guess matched, nor whether a whole guess of one the thread never
// received is right (docs/env-and-secrets.md "Secrets and redaction").
// The short version: each secret streamed one way (`npm run authz` streams each both ways).
it("streamed probes of a Worker and an agent secret look exactly like probes of a look-alike", { timeout: 600_000 }, async () => {
  const { probes, differences } = await probeStreamedSecrets(true);
  expect(probes).toBeGreaterThan(100);
  expect(differences.slice(0, 40)).toEqual([]);
});
