/**
 * Settings derived from a Worker's env, worked out once per env object rather than on every
 * request: the runtime hands each request the same env object until the Worker's configuration
 * changes (a deploy, a new binding), which makes a new one.
 * @module
 */

/**
 * Wraps `derive` so it runs once per env object; later calls with the same env get the kept
 * result. Held weakly, so a replaced env and what was derived from it are freed together.
 */
export function perEnv<E extends object, T>(derive: (env: E) => T): (env: E) => T {
  const kept = new WeakMap<E, T>();
  return (env) => {
    const known = kept.get(env);
    if (known !== undefined || kept.has(env)) return known as T;
    const value = derive(env);
    kept.set(env, value);
    return value;
  };
}
