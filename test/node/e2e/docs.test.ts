/**
 * The docs can't rot: every code block marked runnable in docs/*.md and README.md runs here.
 * Blocks whose info string is `ts file=<path>` are written into a copy of the project; the
 * registry build must accept them and your project's smoke test must stay green with them; then
 * a real `wrangler dev` serves the copy and every `bash run` block must exit 0, printing JSON that
 * matches the `json output` block after it, where there is one.
 */
import { execFile } from "node:child_process";
import { readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, startDevServer, type DevServer } from "../../../scripts/lib/dev-server.mjs";
import { copyProject, runBash } from "./support.js";

interface Block {
  page: string;
  info: string;
  body: string;
  /** The block right after this one, if any. */
  next?: Block;
}

/** Every fenced block of a Markdown page, in order. */
function blocksOf(page: string): Block[] {
  const text = readFileSync(join(REPO_ROOT, page), "utf8");
  const blocks: Block[] = [];
  const fence = /^```([^\n`]*)\n([\s\S]*?)^```[ \t]*$/gm;
  for (let m = fence.exec(text); m; m = fence.exec(text)) blocks.push({ page, info: m[1]!.trim(), body: m[2]! });
  blocks.forEach((b, i) => (b.next = blocks[i + 1]));
  return blocks;
}

const PAGES = ["README.md", ...readdirSync(join(REPO_ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
const BLOCKS = PAGES.flatMap(blocksOf);
const FILES = BLOCKS.filter((b) => /^\w+ file=\S+$/.test(b.info)).map((b) => ({ ...b, path: b.info.split("file=")[1]! }));
const RUNS = BLOCKS.filter((b) => b.info === "bash run");

let project: string;
let weft: DevServer | undefined;

function exec(cmd: string, args: string[], cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, env: { ...process.env, NO_COLOR: "1" }, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, out: `${stdout}${stderr}` });
    });
  });
}


beforeAll(() => {
  project = copyProject(Object.fromEntries(FILES.map((f) => [f.path, f.body])));
});
afterAll(async () => {
  await weft?.stop();
  if (project) rmSync(project, { recursive: true, force: true, maxRetries: 3 });
});

describe("runnable blocks of the docs", () => {
  it("include the README's word_count.ts and at least one file and one bash run block per guide", () => {
    expect(FILES.map((f) => f.path)).toContain("agents/tools/word_count.ts");
    for (const page of ["docs/writing-a-tool.md", "docs/prompts-and-agents.md", "docs/thread-state.md"]) {
      expect(FILES.some((f) => f.page === page), page).toBe(true);
      expect(RUNS.some((r) => r.page === page), page).toBe(true);
    }
  });

  it("every file block passes the registry build", async () => {
    const build = await exec(process.execPath, ["scripts/build-registry.mjs"], project);
    expect(build.code, build.out).toBe(0);
    for (const file of FILES.filter((f) => f.path.startsWith("agents/tools/"))) {
      expect(readFileSync(join(project, "src/generated/registry.ts"), "utf8")).toContain(`./${file.path.replace(/\.ts$/, ".js")}`);
    }
  });

  it("the smoke test of agents/ and the example's own tests stay green with every file added", async () => {
    const run = await exec(process.execPath, ["scripts/test-agents.mjs", "--reporter", "verbose"], project);
    expect(run.code, run.out.slice(-3000)).toBe(0);
    expect(run.out).toMatch(/word_count is listed by GET \/v1\/tools/);
  }, 180_000);

  describe("bash run blocks against wrangler dev of the copy", () => {
    beforeAll(async () => {
      weft = await startDevServer({ config: "wrangler.toml", cwd: project, snapshot: false, readyPath: "/v1/tools" });
    });

    RUNS.forEach((block, i) => {
      it(`${block.page} block ${i + 1}`, async () => {
        const result = await runBash(block.body, project, { WEFT_URL: weft!.url });
        const context = `${block.page}:\n${block.body}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
        expect(result.code, context).toBe(0);
        if (block.next?.info === "json output") {
          const last = result.stdout.trim().split("\n").at(-1) ?? "";
          expect(JSON.parse(last), context).toMatchObject(JSON.parse(block.next.body));
        }
      });
    });
  });
});

describe("user-facing text", () => {
  it("cites rules by what they are, never by internal document numbers", () => {
    const files = ["README.md", "src/index.ts", ...walk("docs"), ...walk("agents")];
    const cited = files.filter((f) => /seed-00\d/.test(readFileSync(join(REPO_ROOT, f), "utf8")));
    expect(cited).toEqual([]);
  });
});

function walk(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(`${dir}/${e.name}`) : [`${dir}/${e.name}`],
  );
}
