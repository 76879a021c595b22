/**
 * Every item of one of weft's paged lists, page after page: by `offset` while `hasMore` (messages,
 * calls) or by `cursor` until `nextCursor` is null (files, the inbox).
 * @module
 */

/** Items of each page from offset 0, `read(offset)` asked again at the offset past them while it says `more`. */
export async function* byOffset<T>(read: (offset: number) => Promise<{ items: T[]; more: boolean }>): AsyncGenerator<T> {
  for (let offset = 0; ; ) {
    const { items, more } = await read(offset);
    yield* items;
    offset += items.length;
    if (!more || items.length === 0) return;
  }
}

/** Items of each page from the first (`read(undefined)`), then from each page's `next` until it is null. */
export async function* byCursor<T>(read: (cursor: string | undefined) => Promise<{ items: T[]; next: string | null }>): AsyncGenerator<T> {
  for (let cursor: string | undefined; ; ) {
    const { items, next } = await read(cursor);
    yield* items;
    if (next === null) return;
    cursor = next;
  }
}
