/**
 * The host side of the QuickJS executor inside the VM: `globalThis.__weftHost` (the prelude takes
 * it), each function backed by the run's session, and the signal `settle` sleeps on until a host
 * operation of its run settles.
 * @module
 */
import type { QuickJSAsyncContext as QuickJSContext, QuickJSDeferredPromise, QuickJSHandle } from "quickjs-emscripten-core";
import type { RunSession } from "./session.js";
import { type EngineYields, newTick } from "./yields.js";

/** Lets `settle` sleep until some host operation of a session settles. */
export const hostTick = {
  waiters: new WeakMap<RunSession, () => void>(),
  next(session: RunSession): Promise<void> {
    return new Promise((resolve) => this.waiters.set(session, resolve));
  },
  wake(session: RunSession): void {
    const resolve = this.waiters.get(session);
    this.waiters.delete(session);
    resolve?.();
  },
};

/** `globalThis.__weftHost`: tick, log, progress, call, sleep, wake and a granted fetch, each backed by the session. */
export function installHost(context: QuickJSContext, session: RunSession, deferreds: Set<QuickJSDeferredPromise>, yields: EngineYields): void {
  const host = context.newObject();
  const asyncOp = (op: () => Promise<string | undefined>) => {
    // An operation refused at once (a closed run, too many timers) throws into the VM before a
    // deferred is made: one nothing settles would keep settle waiting until the deadline.
    const pending = op();
    const deferred = context.newPromise();
    deferreds.add(deferred);
    pending.then(
      (text) => {
        if (!deferred.alive || !context.alive) return;
        const value = text === undefined ? context.undefined : context.newString(text);
        deferred.resolve(value);
        if (text !== undefined) value.dispose();
      },
      (error) => {
        if (!deferred.alive || !context.alive) return;
        const value = context.newError({ name: "Error", message: error instanceof Error ? error.message : String(error) });
        deferred.reject(value);
        value.dispose();
      },
    ).finally(() => {
      deferreds.delete(deferred);
      hostTick.wake(session);
    });
    return deferred.handle;
  };
  // While a host function runs, the guest code its argument reads call back into never suspends.
  const hosted =
    <A extends QuickJSHandle[], R>(fn: (...args: A) => R) =>
    (...args: A): R => {
      yields.inHost++;
      try {
        return fn(...args);
      } finally {
        yields.inHost--;
      }
    };
  const fns: Record<string, QuickJSHandle> = {
    tick: newTick(context, session, yields),
    log: context.newFunction("log", hosted((level, text) => {
      session.log(context.getString(level), context.getString(text));
    })),
    progress: context.newFunction("progress", hosted((text) => {
      session.progress(context.getString(text));
    })),
    call: context.newFunction("call", hosted((module, name, args) => {
      const [m, n, a] = [context.getString(module), context.getString(name), context.getString(args)];
      return asyncOp(() => session.call(m, n, a));
    })),
    sleep: context.newFunction("sleep", hosted((ms, id) => {
      const [delay, timer] = [context.getNumber(ms), context.getNumber(id)];
      return asyncOp(() => session.sleep(delay, timer).then(() => undefined));
    })),
    wake: context.newFunction("wake", hosted((id) => {
      session.wake(context.getNumber(id));
    })),
  };
  if (session.request.fetchAllow.length > 0) {
    fns.fetch = context.newFunction("fetch", hosted((url, init) => {
      const [u, i] = [context.getString(url), context.getString(init)];
      return asyncOp(() => session.fetch(u, i));
    }));
  }
  for (const [name, fn] of Object.entries(fns)) {
    context.setProp(host, name, fn);
    fn.dispose();
  }
  context.setProp(context.global, "__weftHost", host);
  host.dispose();
}
