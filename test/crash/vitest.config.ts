import { defineConfig, mergeConfig } from "vitest/config";
import base from "../../vitest.config.js";

// `npm run crash-matrix`, before the matrix itself: the crash proofs of npm test at full scale
// (test/crash/scale.ts), inside workerd as npm test runs them.
export default mergeConfig(base, defineConfig({ test: { provide: { crashScale: "full" } } }));
