/**
 * Built-in objects read by their internal slots, not their properties: a lookalike (an object on a
 * built-in's prototype, a Proxy) is told apart, and what is read is what the object holds. The
 * redactor copies values through these (src/secrets/redact.ts).
 * @module
 */

/** What `read` gives, or undefined when the object is not the built-in it claims to be (a Proxy, a lookalike). */
export function builtin<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

const getter = (proto: object, name: PropertyKey) => Object.getOwnPropertyDescriptor(proto, name)!.get!;
/** A typed array's type, read from its internal slot: undefined for anything else. */
const typedArrayName = getter(Object.getPrototypeOf(Uint8Array.prototype) as object, Symbol.toStringTag);
const bufferLength = getter(ArrayBuffer.prototype, "byteLength");
const view = { buffer: getter(DataView.prototype, "buffer"), offset: getter(DataView.prototype, "byteOffset"), length: getter(DataView.prototype, "byteLength") };

/**
 * A copy of a typed array, an ArrayBuffer or a DataView, made from its bytes through the built-ins
 * (a lookalike or a Proxy is not one); undefined for anything else. The `instanceof` tests only
 * spare a thrown error per plain object: one that fails them is walked as an object, as sound.
 */
export function bytesOf(value: object): object | undefined {
  const name = typedArrayName.call(value) as string | undefined;
  if (name !== undefined) return builtin(() => new (globalThis as unknown as Record<string, new (from: object) => object>)[name]!(value));
  if (value instanceof ArrayBuffer) return builtin(() => (bufferLength.call(value), new Uint8Array(new Uint8Array(value)).buffer));
  if (value instanceof DataView) return builtin(() => new DataView(new Uint8Array(new Uint8Array(view.buffer.call(value) as ArrayBuffer, view.offset.call(value) as number, view.length.call(value) as number)).buffer));
  return undefined;
}

/**
 * The primitive in a String, Number, Boolean or BigInt object; undefined for anything else. A
 * String object is found by its own `length` whatever its prototype (walked as an object, its
 * characters would pass one by one, each too short to match, and JSON would print the string).
 */
export function primitiveOf(value: object): unknown {
  if (Object.hasOwn(value, "length")) {
    const text = builtin(() => String.prototype.valueOf.call(value));
    if (text !== undefined) return text;
  }
  if (value instanceof Number) return builtin(() => Number.prototype.valueOf.call(value));
  if (value instanceof Boolean) return builtin(() => Boolean.prototype.valueOf.call(value));
  if (value instanceof BigInt) return builtin(() => BigInt.prototype.valueOf.call(value));
  return undefined;
}

