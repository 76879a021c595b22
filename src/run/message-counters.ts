/**
 * The message counters a thread keeps (`meta` rows `n:<name>`), so a page's total is a few
 * counter reads and never a COUNT(*). Only the rare kinds are counted: silent messages, and
 * nested ones per depth; a visible message of the thread's own conversation (most of them)
 * writes no counter row. How many messages there are in all is the store's to say (SQLite: the
 * largest id, since no message is ever deleted).
 * @module
 */
import { MAX_DEPTH } from "./messages.js";

/** The counters a stored message adds 1 to (none for a visible message at depth 0). */
export function countersOf(silent: boolean, depth: number): string[] {
  const nested = depth > 0 ? [`messages@${depth}`, ...(silent ? [`silent_messages@${depth}`] : [])] : [];
  return [...(silent ? ["silent_messages"] : []), ...nested];
}

/**
 * How many messages a page's filters select (cursors aside): `all` messages, less the silent
 * ones unless `includeSilent`, less those nested deeper than `maxDepth`; `counter` reads a counter.
 */
export function messageTotal(all: number, counter: (name: string) => number, includeSilent: boolean, maxDepth: number | undefined): number {
  const visible = (at: string, n: number) => (includeSilent ? n : n - counter(`silent_messages${at}`));
  let total = visible("", all);
  if (maxDepth !== undefined) for (let d = maxDepth + 1; d <= MAX_DEPTH; d++) total -= visible(`@${d}`, counter(`messages@${d}`));
  return total;
}

/**
 * The thread's migration to these counters (v24), from the rows themselves: it drops the counters
 * of every message and of visible ones (two rows written per message before) and counts the silent
 * and nested messages (index seeks over `messages_by_visibility` and `messages_by_depth`).
 */
export const MESSAGE_COUNTERS_DDL = `
  DELETE FROM meta WHERE key = 'n:messages' OR key LIKE 'n:messages@%' OR key LIKE 'n:visible!_messages%' ESCAPE '!' OR key LIKE 'n:silent!_messages%' ESCAPE '!';
  INSERT INTO meta (key, value) SELECT 'n:silent_messages', COUNT(*) FROM messages WHERE silent = 1 HAVING COUNT(*) > 0;
  INSERT INTO meta (key, value) SELECT 'n:messages@' || depth, COUNT(*) FROM messages WHERE depth > 0 GROUP BY depth;
  INSERT INTO meta (key, value) SELECT 'n:silent_messages@' || depth, COUNT(*) FROM messages WHERE depth > 0 AND silent = 1 GROUP BY depth;
`;
