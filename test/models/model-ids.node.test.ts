import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { declaredKeys, render } from "../../scripts/model-ids.mjs";

describe("known model ids", () => {
  it("src/models/known-models.ts matches the installed provider packages", async () => {
    expect(await readFile(new URL("../../src/models/known-models.ts", import.meta.url), "utf8")).toBe(await render());
  });

  it("reads the keys of a declared definitions object", () => {
    const dts = "declare const defs: {\n  readonly 'a-1': {\n    x: 1;\n  };\n  'b': {\n  };\n};\n";
    expect(declaredKeys(dts, "defs")).toEqual(["a-1", "b"]);
  });
});
