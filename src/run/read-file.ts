/**
 * `read_file`: weft's built-in tool a model calls to read its thread's stored files in pages, above
 * all the rest of a result that was capped (the cap's notice gives the exact input). It reads the
 * calling thread's own files only: each thread's files are in its own Durable Object, and the tool
 * takes a path inside them, never a thread id. A page and its notice fit under the result cap. It
 * pages the text with the thread's secrets replaced, as the cap cuts it, so offsets agree and no
 * secret is split across an edge (where neither half would match it).
 * @module
 */
import * as z from "zod";
import { READ_FILE_TOOL, pageOf } from "../calls/file-pages.js";
import { WeftError } from "../errors.js";
import type { ToolResult } from "../protocol.js";
import type { AnyToolDefinition } from "../tools/types.js";
import { type Registry, findPrompt } from "./agent.js";
import { resultCapBytes } from "./result-cap.js";
import type { RunWorld } from "./world.js";
import { servedFileAt } from "../secrets/served-file.js";

const ReadFileArgs = z.object({
  path: z.string().min(1).max(2048).describe("The file's path in this thread, as a notice gives it, such as calls/<call id>/result.txt"),
  offset: z.number().int().min(0).default(0).describe("Where the page starts, in UTF-8 bytes from the file's start; a notice gives the next page's offset"),
  length: z.number().int().min(1).optional().describe("Most bytes of the page (default and ceiling: what fits in one result)"),
});

/**
 * Whether the thread offers the built-in `read_file`: not when the project has a tool, prompt or
 * agent of that name, which is offered instead (and a capped result's notice names the files route).
 */
export function readFileOffered(registry: Registry): boolean {
  return !Object.hasOwn(registry.tools, READ_FILE_TOOL) && findPrompt(registry, READ_FILE_TOOL) === undefined && !Object.hasOwn(registry.agents, READ_FILE_TOOL);
}

/**
 * The definition of `read_file` for `engine`'s thread. Effect `read`. Input `{ path, offset?,
 * length? }`, `offset` and `length` in UTF-8 bytes; the result is the page's text and one notice
 * line (`\n[weft: bytes <offset> to <end> of <size> of <path>; ...]`) with the next page's input.
 * Errors (recorded with their code and `details.path`): `not_found` (`["path"]`) for a file the
 * thread does not have, `unsupported_media_type` (`["path"]`) for a binary file, and
 * `invalid_tool_input` (`["offset"]`, `["length"]`) as {@link pageOf} says.
 */
export function readFileTool(engine: RunWorld): AnyToolDefinition {
  return {
    kind: "tool",
    description:
      "Reads a file weft stored for this thread, one page at a time: above all the rest of a tool result too long to show whole (its notice gives the path and offset to pass). Each page ends with a line saying which bytes it holds and the input for the next page.",
    args: ReadFileArgs,
    effect: "read",
    execute: async (_state: unknown, args: z.output<typeof ReadFileArgs>): Promise<ToolResult> => {
      try {
        // As a reader fetches it: the thread's files brought up to its secrets, and its bytes redacted too.
        const file = servedFileAt(engine.store.files, args.path, engine.redactor());
        if (!file) throw new WeftError("not_found", `path: no file ${JSON.stringify(args.path)} in this thread; pass the path a notice gives`, { path: ["path"] });
        if (file.encoding !== "utf-8") {
          throw new WeftError("unsupported_media_type", `path: ${JSON.stringify(args.path)} is binary (${file.mimeType}); ${READ_FILE_TOOL} reads text files`, { path: ["path"] });
        }
        // Paged as the model would see it whole: a secret is replaced before any edge can split it.
        const page = pageOf(engine.redact(file.data), args.path, args.offset, args.length, resultCapBytes(engine.workerEnv));
        return { status: "success", result: page.text };
      } catch (e) {
        // The model reads the code too, as it does for a refused input.
        if (e instanceof WeftError) throw new WeftError(e.code, `${e.code}: ${e.message}`, e.details);
        throw e;
      }
    },
  } as AnyToolDefinition;
}
