import { expect, it } from "vitest";
import { runMatrix } from "./matrix.js";
import { probeEndpointChoices } from "./secrets-endpoints.js";
import { probeStreamedSecrets } from "./secrets-stream.js";

// `npm run authz`: the full matrix, every route by every principal, then the secrets section (every
// endpoint an ordinary user can choose, and streamed guesses of secrets), in one verdict line.
it("authz", async () => {
  const r = await runMatrix();
  // The endpoint probe changes the Worker's env for a while, so it runs after the matrix, not beside it.
  const endpoints = await probeEndpointChoices();
  const stream = await probeStreamedSecrets();
  const findings = [...r.crossUser, ...r.leaks, ...r.ownerRefused.map((o) => `owner refused: ${o}`), ...endpoints.sentElsewhere, ...stream.differences];
  for (const line of findings) console.log(`authz: ${line}`);
  console.log(
    `authz: ${r.routes} routes x ${r.principals} principals: ${r.crossUser.length} cross-user access, ${r.bytesScanned} outgoing bytes scanned, ${r.leaks.length} canary leaks; ` +
      `secrets: ${endpoints.choices} endpoint choices, ${endpoints.sentElsewhere.length} credentials sent elsewhere, ${stream.probes} streamed probes, ${stream.differences.length} observable differences`,
  );
  expect(findings).toEqual([]);
});
