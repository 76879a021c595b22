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
  return `weft: model: ${spec} (${where}); an agent or prompt that names its own model uses it, and GET /threads/:id shows the model each thread uses`;
}

/** The sealing key of OAuth tokens under `npm start` when the local env file sets none: development only, never a deployment's. */
export const DEV_MCP_OAUTH_KEY = "weft-development-only-mcp-oauth-key-never-deploy-this";

/**
 * The `wrangler dev` arguments that let OAuth connections to MCP servers work locally (the example's
 * `diary`): `WEFT_PUBLIC_URL`, the address weft is reached at (its redirect URI is that +
 * `/mcp-oauth/callback`), and `WEFT_MCP_OAUTH_KEY`, each unless the local env file sets it.
 * @param {string} root the project folder
 * @param {string} publicUrl e.g. `http://localhost:8787`
 */
export function devOAuthArgs(root, publicUrl) {
  const local = readDevVars(join(root, existsSync(join(root, ".dev.vars")) ? ".dev.vars" : ".env"));
  return [
    ...(local.WEFT_PUBLIC_URL ? [] : ["--var", `WEFT_PUBLIC_URL:${publicUrl}`]),
    ...(local.WEFT_MCP_OAUTH_KEY ? [] : ["--var", `WEFT_MCP_OAUTH_KEY:${DEV_MCP_OAUTH_KEY}`]),
  ];
}

/**
 * The value of `--name value` or `--name=value` in `args`, or undefined.
 * @param {readonly string[]} args
 * @param {string} name
 * @returns {string | undefined}
 */
export function argValue(args, name) {
  const at = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (at < 0) return undefined;
  const arg = String(args[at]);
  return arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : args[at + 1];
}

/**
 * Where `npm start` listens, from its arguments: `--ip` as given, else `localhost` (wrangler's own
 * default, made explicit so no wrangler.toml `[dev] ip` widens it). Development mode answers every
 * request as an admin, so only an address of this machine is allowed.
 * @param {string[]} args the arguments passed on to `wrangler dev`
 * @returns {{ args: string[] } | { refused: string }} the arguments to pass, or why they are refused
 */
export function loopbackArgs(args) {
  const given = argValue(args, "ip");
  if (given === undefined && !args.includes("--ip")) return { args: [...args, "--ip", "localhost"] };
  const ip = given ?? "";
  if (/^(localhost|127(?:\.\d{1,3}){3}|::1|\[::1\])$/i.test(ip)) return { args };
  return {
    refused: `weft: npm start runs in development mode, where every request without a token acts as "dev" (an admin), so it listens on this machine only; --ip ${ip} is refused. To serve other machines, configure authentication (docs/authentication.md) and run wrangler dev without WEFT_DEV_MODE.`,
  };
}
