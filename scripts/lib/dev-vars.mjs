// @ts-check
/**
 * The author's local env files as `wrangler dev` reads them: `.dev.vars`, or `.env` when there is
 * no `.dev.vars` (KEY=value lines, optional quotes), over the `[vars]` of wrangler.toml.
 * @module
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Parses one env file (KEY=value lines, optional quotes); a missing file is {}. @param {string} file */
export function readDevVars(file) {
  if (!existsSync(file)) return /** @type {Record<string, string>} */ ({});
  /** @type {Record<string, string>} */
  const vars = {};
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (m) vars[/** @type {string} */ (m[1])] = String(m[2]).replace(/^(["'])(.*)\1$/, "$2");
  }
  return vars;
}

/**
 * The line `npm start` prints about the model threads talk to by default: `WEFT_MODEL` from the
 * local env file wrangler reads, else from wrangler.toml's `[vars]`, else the scripted model.
 * @param {string} root the project folder
 */
export function modelLine(root) {
  const file = existsSync(join(root, ".dev.vars")) ? ".dev.vars" : ".env";
  const local = readDevVars(join(root, file)).WEFT_MODEL;
  const toml = existsSync(join(root, "wrangler.toml")) ? /^\s*WEFT_MODEL\s*=\s*"([^"]*)"/m.exec(readFileSync(join(root, "wrangler.toml"), "utf8"))?.[1] : undefined;
  const [spec, where] = local ? [local, `WEFT_MODEL in ${file}`] : toml ? [toml, "WEFT_MODEL in wrangler.toml"] : [undefined, undefined];
  if (!spec) return `weft: model: scripted (no WEFT_MODEL in .dev.vars): threads play the scripted steps they are given; set WEFT_MODEL=<provider>:<model> and its key in .dev.vars for a real one`;
  return `weft: model: ${spec} (${where}); an agent or prompt that names its own model uses it, and GET /threads/:id shows each thread's`;
}
