/**
 * Views of the objects a thread's world works through that stop answering once the thread is
 * removed (see `RunWorld.removed`).
 * @module
 */

/**
 * A view of `target` whose every property read throws `refusal()` once `revoked()` is true. Its
 * methods run with the view as `this`, so one that was awaiting when the revocation came meets it
 * at its next read of its own fields. `target` must keep no `#private` fields (they cannot be read
 * through a view) and must not be a runtime object whose methods need the real receiver.
 */
export function revocable<T extends object>(target: T, revoked: () => boolean, refusal: () => Error): T {
  return new Proxy(target, {
    get(of, key, view) {
      if (revoked()) throw refusal();
      return Reflect.get(of, key, view);
    },
  });
}
