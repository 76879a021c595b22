/**
 * A call record's stack read over HTTP under `npm start`: the Worker asks `npm start`'s mapper
 * (scripts/lib/stack-map.mjs) to map it through the bundle's source map, and sends it as recorded
 * when there is no loopback mapper or it does not answer.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startStackMapper } from "../../scripts/lib/stack-map.mjs";
import { withSourceStacks } from "../../src/http/source-stacks.js";
import { throwerFrame } from "../scripts/thrower-bundle.js";

const root = mkdtempSync(path.join(tmpdir(), "weft-source-stacks-"));
const TOOL = ["// a tool", "export default {", "  async execute() {", '    throw new Error("boom");', "  },", "};", ""].join("\n");
let frame: string;
let mapper: { url: string; close: () => void };

beforeAll(async () => {
  frame = await throwerFrame(root, TOOL);
  mapper = await startStackMapper(root);
});
afterAll(() => {
  mapper.close();
  rmSync(root, { recursive: true, force: true });
});

const record = (stack: string | undefined) => ({ callId: "c", result: { status: "error" as const, error: "boom", ...(stack ? { stack } : {}) } });

describe("call records' stacks under npm start", () => {
  it("are mapped to the tool's file and line by the loopback mapper; records without a stack are left alone", async () => {
    const stack = `Error: boom\n${frame}\n    at new Promise (<anonymous>)`;
    const [mapped, plain] = await withSourceStacks({ WEFT_DEV_STACK_MAPPER: mapper.url }, [record(stack), record(undefined)]);
    expect(mapped!.result.stack).toBe("Error: boom\n    at Object.execute (agents/tools/thrower.ts:4:5)\n    at new Promise (<anonymous>)");
    expect(plain).toEqual(record(undefined));
  });

  it("map only this project's own bundles: a frame naming another folder's file is left as it is", async () => {
    const elsewhere = "Error: x\n    at f (file:///etc/.wrangler/tmp/dev-1/worker.js:1:1)";
    const [out] = await withSourceStacks({ WEFT_DEV_STACK_MAPPER: mapper.url }, [record(elsewhere)]);
    expect(out!.result.stack).toBe(elsewhere);
  });

  it("are sent as recorded without a loopback mapper, or when it does not answer", async () => {
    const stack = `Error: boom\n${frame}`;
    const fetch = vi.spyOn(globalThis, "fetch");
    for (const env of [{}, { WEFT_DEV_STACK_MAPPER: "https://mapper.example.com/" }, { WEFT_DEV_STACK_MAPPER: "not a url" }]) {
      expect((await withSourceStacks(env, [record(stack)]))[0]!.result.stack).toBe(stack);
    }
    expect(fetch).not.toHaveBeenCalled();
    fetch.mockRestore();
    // A port nothing listens on (the mapper closed): the stack as recorded, no error.
    const gone = await startStackMapper(root);
    gone.close();
    await new Promise((r) => setTimeout(r, 50));
    expect((await withSourceStacks({ WEFT_DEV_STACK_MAPPER: gone.url }, [record(`${stack}\n    at other`)]))[0]!.result.stack).toBe(`${stack}\n    at other`);
  });
});
