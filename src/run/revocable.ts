/**
 * Views of the objects a thread's world works through that stop answering once the thread is
 * removed (see `RunWorld.removed`).
 * @module
 */
import { WeftError } from "../errors.js";

/** What the removed thread's world answers every use with (see `RunWorld.removed`). */
export function removedThread(): WeftError {
  return new WeftError(
    "thread_not_found",
    "this thread was deleted while its code ran: its tables, journal and events are gone (a thread made again on the same id is another thread)",
    { deleted: true },
  );
}

/**
 * A view of `target` whose every property read throws `refusal()` once `revoked()` is true. Its
 * methods run with the view as `this`, so one that was awaiting when the revocation came meets it
 * at its next read of its own fields. A property named in `nested` (an object the target hands
 * out, whose methods may await too) is answered as a view of its own under the same rule.
 * `target` must keep no `#private` fields (they cannot be read through a view) and must not be a
 * runtime object whose methods need the real receiver.
 */
export function revocable<T extends object>(target: T, revoked: () => boolean, refusal: () => Error, nested: readonly (keyof T)[] = []): T {
  const views = new Map<PropertyKey, { of: object; view: object }>();
  return new Proxy(target, {
    get(of, key, view) {
      if (revoked()) throw refusal();
      const value: unknown = Reflect.get(of, key, view);
      if (!(nested as readonly PropertyKey[]).includes(key) || typeof value !== "object" || value === null) return value;
      let kept = views.get(key);
      if (kept?.of !== value) views.set(key, (kept = { of: value, view: revocable(value, revoked, refusal) }));
      return kept.view;
    },
  });
}
