import { describe, expect, it } from "vitest";
import { runMatrix } from "./matrix.js";

describe("authz matrix (short)", () => {
  it("no principal reaches another's thread, no token gets in, and no canary secret leaves", async () => {
    const report = await runMatrix({ short: true });
    expect(report.routes).toBeGreaterThan(15);
    expect(report.crossUser).toEqual([]);
    expect(report.leaks).toEqual([]);
    expect(report.ownerRefused).toEqual([]);
    expect(report.adminReads).toBeGreaterThan(5);
    expect(report.bytesScanned).toBeGreaterThan(10_000);
  });
});
