import { afterAll, expect } from "vitest";
import { oversizedWrites } from "./row-limit.js";

// After every suite: no write in any table exceeded the 2 MB row limit Cloudflare enforces.
afterAll(() => {
  expect(oversizedWrites).toEqual([]);
});
