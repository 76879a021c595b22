import { defineConfig, mergeConfig } from "vitest/config";
import base from "../../vitest.config.js";

// `npm run sandbox`: the sandbox suites inside workerd as npm test runs them, at full scale (every
// allocation bomb at every memory limit); npm test runs the short version.
export default mergeConfig(base, defineConfig({ test: { provide: { sandboxScale: "full" } } }));
