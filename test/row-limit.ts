/**
 * Cloudflare refuses a SQLite value or row over 2 MB; local workerd stores it. The test worker's
 * Durable Objects run every write through this check, so a write production would refuse fails
 * here too, and every oversized write is recorded for the after-suite assertion (test/setup.ts).
 * @module
 */

/** Cloudflare's limit on one SQLite row (and so on any value in it), in bytes. */
export const ROW_LIMIT_BYTES = 2 * 1024 * 1024;

const encoder = new TextEncoder();

/** Oversized writes seen in this isolate: `<class>: <bytes> bytes in <statement>`. */
export const oversizedWrites: string[] = ((globalThis as { __weftOversized?: string[] }).__weftOversized ??= []);

function sizeOf(value: unknown): number {
  if (typeof value === "string") return value.length * 3 <= ROW_LIMIT_BYTES ? value.length : encoder.encode(value).byteLength;
  if (value instanceof ArrayBuffer) return value.byteLength;
  if (ArrayBuffer.isView(value)) return value.byteLength;
  return 8;
}

/** Makes `sql.exec` refuse, as production does, a write whose bound values exceed the row limit. */
export function enforceRowLimit(sql: SqlStorage, owner: string): void {
  const exec = sql.exec.bind(sql);
  sql.exec = ((query: string, ...bindings: unknown[]) => {
    if (/^\s*(INSERT|UPDATE|REPLACE)/i.test(query)) {
      const total = bindings.reduce<number>((sum, b) => sum + sizeOf(b), 0);
      if (total > ROW_LIMIT_BYTES) {
        oversizedWrites.push(`${owner}: ${total} bytes in ${query.trim().slice(0, 60)}`);
        throw new Error(`string or blob too big: SQLITE_TOOBIG (${total} bytes, over Cloudflare's ${ROW_LIMIT_BYTES}-byte row limit)`);
      }
    }
    return exec(query, ...(bindings as never[]));
  }) as SqlStorage["exec"];
}
