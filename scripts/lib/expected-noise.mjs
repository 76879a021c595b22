// @ts-check
/**
 * workerd's log lines that the crash tests cause on purpose. Aborting a Durable Object with
 * `ctx.abort("injected crash ...")` makes workerd report an uncaught `outputGateBroken` exception,
 * a native line per crash that reads like a failure. The vitest pool writes those lines straight
 * to stdout or stderr (its own log handler cannot be replaced), so this filters both streams:
 * exactly those lines are hidden, with one line saying they are expected; everything else passes
 * unchanged.
 * @module
 */

/** An injected crash as workerd reports it. @param {string} line */
export const isInjectedCrash = (line) => /outputGateBroken/.test(line) && /injected crash/.test(line);

let told = false;

/** Installs the filter on `process.stdout` and `process.stderr` (once per process). */
export function hideInjectedCrashes() {
  for (const stream of [process.stdout, process.stderr]) filter(stream);
}

/** @param {NodeJS.WriteStream & { weftFiltered?: boolean }} stream */
function filter(stream) {
  if (stream.weftFiltered) return;
  stream.weftFiltered = true;
  const write = stream.write.bind(stream);
  stream.write = /** @type {typeof stream.write} */ (
    (/** @type {any} */ chunk, /** @type {any[]} */ ...rest) => {
      if (typeof chunk === "string" && chunk.includes("outputGateBroken")) {
        const lines = chunk.split("\n");
        const kept = lines.filter((line) => !isInjectedCrash(line));
        if (kept.length !== lines.length && !told) {
          told = true;
          write("weft: workerd reports each injected crash as an uncaught exception; expected here, so those lines are hidden\n");
        }
        chunk = kept.join("\n");
        if (chunk === "") return true;
      }
      return write(chunk, ...rest);
    }
  );
}
