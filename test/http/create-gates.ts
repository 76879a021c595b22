/**
 * What the tests of racing creates share: a continuationToken's thread id for the tester, and a
 * gate that holds a create of the `needs_key` agent inside the thread object, at its lookup of the
 * value it needs, until the test releases it.
 */
import { env } from "cloudflare:workers";
import { inThread, until } from "../helpers.js";

const g = globalThis as unknown as { __gates?: Record<string, Array<() => void>> };

/** The thread id `continuationToken` names for the tester (src/http/stubs.ts `tokenThread`). */
export function tokenId(token: string): string {
  const ns = (env as unknown as { THREAD: DurableObjectNamespace }).THREAD;
  return ns.idFromName(`ct:${JSON.stringify(["tester", token])}`).toString();
}

/** Holds each lookup of the `needs_key` agent's variable in thread `id` under `gate`. */
export function gateVariable(id: string, gate: string): Promise<void> {
  return inThread(id, (t) => {
    const gates = (g.__gates ??= {});
    gates[gate] = [];
    const get = t.userEnv.get.bind(t.userEnv);
    t.userEnv.get = async (userId: string, name: string) => {
      if (name === "WEFT_FIXTURE_PAYMENT_KEY") await new Promise<void>((r) => gates[gate]!.push(r));
      return get(userId, name);
    };
  });
}

/** Waits until `n` creates wait at `gate`. */
export const waiting = (id: string, gate: string, n: number) => until(() => inThread(id, () => (g.__gates?.[gate]?.length ?? 0) >= n), `${n} create(s) to wait`);

/** Lets the `i`th create waiting at `gate` go on. */
export const release = (id: string, gate: string, i: number) => inThread(id, () => g.__gates![gate]![i]!());
