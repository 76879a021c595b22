/**
 * What every command shares: the common options, output, refusals and exit codes, and `run`,
 * which hands a command its client.
 * @module
 */
import { type Command, InvalidArgumentError, Option } from "commander";
import { WeftClient, WeftClientError } from "weft/client";
import { jsonText, printable } from "./format.ts";
import { type Runtime, withRuntime } from "./runtime.ts";

export interface Common {
  url?: string;
  auth?: string;
  json?: boolean;
  dir?: string;
}

/** Parses a JSON option value; a usage error names the option. */
export const jsonArg = (name: string) => (value: string) => {
  try {
    return JSON.parse(value) as unknown;
  } catch (e) {
    throw new InvalidArgumentError(`${name} is not valid JSON (${(e as Error).message})`);
  }
};
export const intArg = (value: string) => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError("expected a whole number");
  return Number(value);
};

/** The options every command shares. `ephemeral` commands document the local runtime. */
export function common(cmd: Command, ephemeral = false): Command {
  return cmd
    .addOption(
      new Option(
        "--url <url>",
        ephemeral ? "a running weft (default: the local one npm start serves, else start one for this project)" : "the weft to talk to (default: the local one npm start serves)",
      ).env("WEFT_URL"),
    )
    .addOption(new Option("--auth <token>", "bearer token: a JWT or an API key").env("WEFT_TOKEN"))
    .option("--json", "print JSON", false);
}

/** Prints a value as JSON: one line with `--json`, indented for people without (control characters escaped either way, {@link jsonText}). */
export const out = (value: unknown, json: boolean | undefined): void => void process.stdout.write(`${jsonText(value, json ? undefined : 2)}\n`);
/** Prints a line for people: control characters written out ({@link printable}). */
export const say = (line: string): void => void process.stdout.write(`${printable(line)}\n`);

/** Prints a line for people on stderr (notes, progress, refusals), control characters written out too. */
export const note = (line: string): void => void process.stderr.write(`${printable(line)}\n`);

/** Prints a refusal (stdout: the error body; stderr: one line for people) and sets exit code 1. */
export function refused(error: unknown, json: boolean | undefined): void {
  process.exitCode = 1;
  if (!(error instanceof WeftClientError)) {
    note(`weft: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  const body = { error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) } };
  out(body, json);
  if (!json) {
    const path = Array.isArray(error.details?.path) ? ` (at ${(error.details.path as unknown[]).join(".") || "the top level"})` : "";
    note(`weft: ${error.code}: ${error.message}${path}`);
  }
}

/**
 * Whether a token given (`--auth`, or `WEFT_TOKEN` from the environment) is withheld from the weft at
 * `base`, said on stderr: one from the environment (meant for a weft the user named) is not sent to
 * a local runtime in development mode, which refuses every token, nor to a weft only found
 * answering at the local address, which may be any process on the machine. `--auth` always is.
 */
export function envTokenWithheld(auth: string | undefined, cmd: Command | undefined, runtime: Runtime, base: string): boolean {
  if (!auth || cmd?.getOptionValueSource("auth") !== "env") return false;
  if (runtime.devMode) process.stderr.write('weft: the local runtime is in development mode: WEFT_TOKEN is not sent (requests act as "dev")\n');
  else if (runtime.found) process.stderr.write(`weft: WEFT_TOKEN is not sent to the weft found at ${base}: name it with --url (or WEFT_URL) to send it there, or pass --auth\n`);
  return runtime.devMode || runtime.found;
}

/**
 * Runs `fn` with a client, turning every failure into output and an exit code; a token is sent as
 * {@link envTokenWithheld} says.
 */
export async function run(opts: Common, fn: (client: WeftClient) => Promise<void>, ephemeral = false, cmd?: Command): Promise<void> {
  try {
    const where = { ...(opts.url ? { url: opts.url } : {}), ...(opts.dir ? { dir: opts.dir } : {}), ephemeral };
    await withRuntime(where, (base, runtime) => {
      const token = envTokenWithheld(opts.auth, cmd, runtime, base) ? undefined : opts.auth;
      return fn(new WeftClient({ url: base, ...(token ? { token } : {}) }));
    });
  } catch (e) {
    refused(e, opts.json);
  }
}

