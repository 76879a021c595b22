/**
 * The default executor (`WEFT_SANDBOX` unset or `"auto"`): a Worker Loader isolate where the
 * runtime enforces its limits, QuickJS elsewhere. On Cloudflare an isolate's CPU is measured and
 * capped by the runtime (`limits.cpuMs`, below a Durable Object's 30 s), and the thread's Durable
 * Object only awaits the reply, so `stop` ends the run at once; QuickJS runs on the thread itself
 * and no clock moves during its synchronous work. Local workerd enforces no isolate limit, so
 * there an isolate could loop forever: QuickJS, which ends such a loop at its deadline, is used.
 *
 * Which one holds is measured, not assumed: once per Worker instance a probe isolate spins a
 * counted loop of about 50 ms under a 5 ms CPU limit. A runtime that ends it with its CPU error
 * enforces the limits; one that lets it finish does not.
 * @module
 */
import { ISOLATE_COMPATIBILITY_DATE } from "./limits.js";

/** The probe: a counted loop (a clock may stand still), tens of milliseconds in V8. */
const PROBE_SOURCE = `import { WorkerEntrypoint } from "cloudflare:workers";
/** Spins a counted loop; the host learns whether the CPU limit ends it. */
export class Probe extends WorkerEntrypoint {
  spin() { let x = 0; for (let i = 0; i < 5e7; i++) x = (x + i) | 0; return x; }
}`;

/** CPU limit of the probe, in milliseconds: far below what its loop needs. */
const PROBE_CPU_MS = 5;

/** Enforcement by loader: measured once per Worker instance. */
const measured = new WeakMap<WorkerLoader, Promise<boolean>>();

/**
 * Whether the runtime behind `loader` ends a Worker Loader isolate at its CPU limit. Resolves
 * false when the probe finishes (local workerd) or fails for another reason; never rejects.
 */
export function loaderEnforcesLimits(loader: WorkerLoader): Promise<boolean> {
  let answer = measured.get(loader);
  if (!answer) {
    answer = probe(loader);
    measured.set(loader, answer);
  }
  return answer;
}

async function probe(loader: WorkerLoader): Promise<boolean> {
  try {
    const worker = loader.get("weft-limits-probe", () => ({
      compatibilityDate: ISOLATE_COMPATIBILITY_DATE,
      mainModule: "probe.js",
      modules: { "probe.js": { js: PROBE_SOURCE } },
      env: {},
      globalOutbound: null,
    }));
    const entry = worker.getEntrypoint("Probe", { limits: { cpuMs: PROBE_CPU_MS } }) as unknown as { spin(): Promise<number> };
    await entry.spin();
    return false;
  } catch (error) {
    return /exceeded CPU/i.test(error instanceof Error ? error.message : String(error));
  }
}
