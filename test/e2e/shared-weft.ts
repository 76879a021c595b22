/**
 * One `wrangler dev` per configuration for the whole Node suite (a vitest globalSetup): test
 * files that only need a running weft over the fixtures share it instead of each paying a start
 * (seconds each, more on a loaded machine). Started on first request, so a run of files that need
 * none starts none; stopped when the run ends. Files reach it through `sharedWeft` in support.ts.
 * @module
 */
import { createServer } from "node:http";
import type { TestProject } from "vitest/node";
import { type DevServer, startDevServer } from "../../scripts/lib/dev-server.mjs";

declare module "vitest" {
  interface ProvidedContext {
    /** The URL of the broker that hands out the shared servers (set by this globalSetup). */
    weftBroker?: string;
  }
}

/** Blanks the fixtures' test credentials: development mode, as `npm start` runs (no token needed). */
export const DEV_MODE_ARGS = ["--var", "WEFT_API_KEYS:", "--var", "WEFT_JWT_SECRET:"];

/**
 * The shared servers: `dev` is the fixtures' config in development mode, credentials blanked (as
 * `npm start` runs, no token needed); `secured` is the fixtures' config as it stands, API keys and
 * a JWT secret configured, so tokens count.
 */
export const SHARED_CONFIGS = ["dev", "secured"] as const;
export type SharedConfig = (typeof SHARED_CONFIGS)[number];

/** Starts a server of the given configuration on fresh state (what a file would start itself). */
export function startShared(name: SharedConfig): Promise<DevServer> {
  return startDevServer({ config: "test/wrangler.toml", readyPath: "/v1/tools", extraArgs: name === "dev" ? DEV_MODE_ARGS : [] });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = new Map<SharedConfig, Promise<DevServer>>();
  const broker = createServer((req, res) => {
    const name = new URL(req.url ?? "/", "http://broker").searchParams.get("config") as SharedConfig;
    if (!SHARED_CONFIGS.includes(name)) return void res.writeHead(400).end(`unknown shared config ${name}`);
    let server = started.get(name);
    if (!server) started.set(name, (server = startShared(name)));
    server.then(
      (s) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ url: s.url, port: s.port, logFile: s.logFile })),
      (e: unknown) => res.writeHead(500).end(String(e instanceof Error ? e.message : e)),
    );
  });
  await new Promise<void>((resolve) => broker.listen(0, "127.0.0.1", resolve));
  const address = broker.address();
  if (!address || typeof address === "string") throw new Error("the shared-server broker has no port");
  project.provide("weftBroker", `http://127.0.0.1:${address.port}`);
  return async () => {
    broker.close();
    await Promise.all([...started.values()].map((s) => s.then((server) => server.stop(), () => undefined)));
  };
}
