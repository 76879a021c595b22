/**
 * The default executor in production terms: a Worker Loader isolate where the runtime enforces its
 * limits (Cloudflare: CPU time, and the thread only awaits the reply), QuickJS where it does not
 * (local workerd, measured by a probe).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loaderEnforcesLimits } from "../../src/sandbox/auto.js";
import { Cancellation } from "../../src/sandbox/cancel.js";
import { pickExecutor } from "../../src/sandbox/run-code.js";
import type { SandboxExecutor, SandboxRequest } from "../../src/sandbox/executor.js";

const LOADER = (env as unknown as { LOADER: WorkerLoader }).LOADER;

/** A loader that answers like Cloudflare: the probe is ended at its CPU limit; other isolates are the real ones. */
function enforcingLoader(): WorkerLoader {
  return {
    get(name: string, factory: () => WorkerLoaderWorkerCode) {
      if (name !== "weft-limits-probe") return LOADER.get(name, factory);
      return { getEntrypoint: () => ({ spin: async () => { throw new Error("Worker exceeded CPU time limit.") } }) };
    },
  } as unknown as WorkerLoader;
}

function request(): SandboxRequest {
  return {
    filename: "code.js",
    source: "export default () => 6 * 7",
    modules: {},
    execute: { fn: "default", args: [] },
    globals: {},
    imports: {},
    timeoutMs: 5000,
    memoryLimitBytes: 128 * 1024 * 1024,
    maxLogBytes: 1024,
    maxResultBytes: 1024,
    fetchAllow: [],
    scope: "sandbox-default-test",
    cancellation: new Cancellation(),
  };
}

async function runWith(executor: SandboxExecutor | Promise<SandboxExecutor>) {
  return (await executor).run(request());
}

describe("the default executor", () => {
  it("is the Worker Loader isolate where the runtime enforces its limits", async () => {
    const out = await runWith(pickExecutor(undefined, { LOADER: enforcingLoader() }));
    expect(out).toMatchObject({ status: "success", value: 42, executor: "isolate" });
  });

  it("is QuickJS where the runtime does not enforce them (local workerd, measured) or there is no loader", async () => {
    expect(await loaderEnforcesLimits(LOADER)).toBe(false);
    expect(await runWith(pickExecutor(undefined, { LOADER }))).toMatchObject({ status: "success", value: 42, executor: "quickjs" });
    expect(await runWith(pickExecutor(undefined, {}))).toMatchObject({ status: "success", value: 42, executor: "quickjs" });
  });

  it("follows WEFT_SANDBOX and the call's choice", async () => {
    expect(await runWith(pickExecutor(undefined, { LOADER: enforcingLoader(), WEFT_SANDBOX: "quickjs" }))).toMatchObject({ executor: "quickjs" });
    expect(await runWith(pickExecutor("isolate", { LOADER }))).toMatchObject({ executor: "isolate" });
  });
});
