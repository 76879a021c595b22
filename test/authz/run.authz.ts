import { expect, it } from "vitest";
import { runMatrix } from "./matrix.js";

// `npm run authz`: the full matrix, every route by every principal, and its one-line verdict.
it("authz", async () => {
  const r = await runMatrix();
  for (const line of [...r.crossUser, ...r.leaks, ...r.ownerRefused.map((o) => `owner refused: ${o}`)]) console.log(`authz: ${line}`);
  console.log(`authz: ${r.routes} routes x ${r.principals} principals: ${r.crossUser.length} cross-user access, ${r.bytesScanned} outgoing bytes scanned, ${r.leaks.length} canary leaks`);
  expect(r.crossUser.length + r.leaks.length + r.ownerRefused.length).toBe(0);
});
