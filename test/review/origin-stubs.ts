/**
 * Stubbed origins for the Worker's outbound `fetch`, one handler per origin. Files of the shared
 * workerd runtime run side by side in one isolate, so a test that replaced `globalThis.fetch`
 * whole answered other files' requests too (a provider's, an MCP server's), and their cancels
 * marked its own body cancelled, which left its run's read waiting to the deadline. A request to
 * an origin with no handler goes to the fetch that was there before.
 */

type Handler = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

/** The handlers, kept on the global so every file of the isolate shares one wrapper. */
const KEY = Symbol.for("weft.test.originStubs");

function handlers(): Map<string, Handler> {
  const global = globalThis as unknown as Record<symbol, Map<string, Handler> | undefined>;
  let map = global[KEY];
  if (!map) {
    const stubs = (map = new Map<string, Handler>());
    const next = globalThis.fetch;
    globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input);
      const handler = stubs.get(new URL(url).origin);
      return handler ? handler(input, init) : next(input, init);
    }) as typeof fetch;
    global[KEY] = map;
  }
  return map;
}

/** Answers requests to `origin` with `handler` until {@link unstubOrigin}. */
export function stubOrigin(origin: string, handler: Handler): void {
  handlers().set(origin, handler);
}

/** Lets requests to `origin` go out again. */
export function unstubOrigin(origin: string): void {
  handlers().delete(origin);
}
