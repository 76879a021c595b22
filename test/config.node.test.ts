/**
 * Configuration comes from one place: every `WEFT_*` variable src/ reads is in SETTINGS
 * (src/config.ts), and docs/configuration.md's table is generated from it (`npm run docs`).
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SETTINGS, settingOf } from "../src/config.js";
import { ROOT, sources } from "./sources.node.js";

describe("configuration", () => {
  it("lists every WEFT_* variable src/ reads, once", () => {
    const names = SETTINGS.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    const read = new Set(sources("src").flatMap((f) => readFileSync(path.join(ROOT, f), "utf8").match(/\bWEFT_[A-Z][A-Z_]*[A-Z]\b/g) ?? []));
    expect([...read].filter((n) => !names.includes(n as never)).sort()).toEqual([]);
  });

  it("answers the variable when set and the default otherwise", () => {
    expect(settingOf({}, "WEFT_LOG_FAILED_CALLS")).toBe("on");
    expect(settingOf({ WEFT_LOG_FAILED_CALLS: "off" }, "WEFT_LOG_FAILED_CALLS")).toBe("off");
    expect(settingOf({ WEFT_RESULT_CAP_BYTES: "" }, "WEFT_RESULT_CAP_BYTES")).toBe("32768");
  });

  it("docs/configuration.md shows the generated table", async () => {
    const run = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(process.execPath, ["scripts/docs.mjs", "--check"], { cwd: ROOT }, (error, _stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }),
      ),
    );
    expect(run.code, run.stderr).toBe(0);
  });

  it("every wrangler config weft is bundled with sets keep_names as wrangler.toml does", () => {
    const keepNames = (file: string) => /^keep_names\s*=\s*(\w+)/m.exec(readFileSync(path.join(ROOT, file), "utf8"))?.[1];
    const copies = ["test/wrangler.toml", ...["bare", "chat", "sdk", "weft"].map((t) => `bench/compare/wrangler/${t}.toml`)];
    const source = keepNames("wrangler.toml");
    expect(source).toMatch(/^(true|false)$/);
    expect(Object.fromEntries(copies.map((f) => [f, keepNames(f)]))).toEqual(Object.fromEntries(copies.map((f) => [f, source])));
  });
});
