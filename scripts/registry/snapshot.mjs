// @ts-check
/**
 * The copy of agents/ that the Worker bundle imports. The build refreshes it only after every
 * rule passed, so under `wrangler dev` a broken save never reaches the running Worker: the last
 * good copy keeps serving until the file is fixed. Files are byte-identical to their originals,
 * so a line and column in the copy are the same line and column in agents/.
 * @module
 */
import { copyFile, mkdir, readdir, readFile, rm } from "node:fs/promises";
import path from "node:path";

/**
 * Makes `dest` an exact mirror of `src` (dot files skipped), writing only files whose bytes
 * changed so that watchers see no spurious edits, and removing what `src` no longer has.
 * @param {string} src
 * @param {string} dest
 */
export async function mirror(src, dest) {
  await mkdir(dest, { recursive: true });
  const want = (await readdir(src, { withFileTypes: true })).filter((i) => !i.name.startsWith("."));
  const names = new Set(want.map((i) => i.name));
  for (const item of await readdir(dest, { withFileTypes: true })) {
    if (!names.has(item.name)) await rm(path.join(dest, item.name), { recursive: true, force: true });
  }
  for (const item of want) {
    const from = path.join(src, item.name);
    const to = path.join(dest, item.name);
    if (item.isDirectory()) await mirror(from, to);
    else if (item.isFile() && !(await same(from, to))) {
      await rm(to, { recursive: true, force: true });
      await copyFile(from, to);
    }
  }
}

/** @param {string} a @param {string} b */
async function same(a, b) {
  try {
    return (await readFile(a)).equals(await readFile(b));
  } catch {
    return false;
  }
}

/**
 * Where an authoring file's copy lives.
 * @param {string} src the mirrored folder
 * @param {string} dest its copy
 * @param {string} file a file under `src`
 */
export const inCopy = (src, dest, file) => path.join(dest, path.relative(src, file));
