// @ts-check
/**
 * A Vite plugin for the test runs (`npm run test:agents`, weft's workerd suites) that drops one warning:
 * packages such as the MCP SDK ship source maps whose sources they leave out, and Vite warned once
 * per such file (a screenful on a first run) about something a reader can neither act on nor
 * needs. Vitest sets its own logger in a `config` hook, so this one wraps it after that.
 * @module
 */

const MISSING_SOURCES = /^Sourcemap for "[^"]*\/node_modules\/[^"]*" points to missing source files$/;

/** @returns {import("vite").Plugin} */
export function quietDependencySourcemaps() {
  return {
    name: "weft:quiet-dependency-sourcemaps",
    enforce: "post",
    config: {
      order: "post",
      handler(config) {
        const logger = config.customLogger;
        if (!logger) return;
        config.customLogger = {
          ...logger,
          warnOnce: (message, options) => {
            if (!MISSING_SOURCES.test(message.replace(/\x1b\[[0-9;]*m/g, ""))) logger.warnOnce(message, options);
          },
        };
      },
    },
  };
}
