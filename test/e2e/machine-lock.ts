/**
 * A lock held across processes on this machine, for tests that need a fixed resource the README
 * names (the example MCP servers' ports 8788 and 8789): a second `npm test` beside the first waits
 * for it instead of sharing servers the first one closes under it. A directory under the system's
 * temporary folder is the lock (`mkdir` is atomic); one whose holder's process is gone is taken over.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Whether process `pid` still runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === "EPERM";
  }
}

/**
 * Takes the lock `name`, waiting while another live process holds it, for at most `waitMs`.
 * @returns the function that releases it (safe to call twice).
 * @throws Error naming the holder when it is still held after `waitMs`.
 */
export async function machineLock(name: string, waitMs: number): Promise<() => void> {
  const dir = join(tmpdir(), `weft-lock-${name}`);
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, "pid"), String(process.pid));
      let held = true;
      return () => {
        if (held) rmSync(dir, { recursive: true, force: true });
        held = false;
      };
    } catch (e) {
      if ((e as { code?: string }).code !== "EEXIST") throw e;
    }
    let holder = NaN;
    try {
      holder = Number(readFileSync(join(dir, "pid"), "utf8"));
    } catch {
      // Made but not yet written: its holder is about to write it.
    }
    if (Number.isInteger(holder) && holder > 0 && !alive(holder)) {
      rmSync(dir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`lock ${dir} is still held by process ${holder} after ${waitMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
