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
import { REPO_ROOT, startDevServer, type DevServer } from "../../scripts/lib/dev-server.mjs";
import { AUTHOR_FILES, authorTestFiles, copyProject, ranFiles, runBash } from "./support.js";

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
/** The copy's wrangler dev, started at once so its start overlaps the build and npm run test:agents. */
let starting: Promise<DevServer> | undefined;

function exec(cmd: string, args: string[], cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, env: { ...process.env, NO_COLOR: "1" }, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, out: `${stdout}${stderr}` });
    });
  });
}


beforeAll(() => {
  // The copy is also the author's project of author-project.node.test.ts's first case (a sub-agent and
  // a prompt in an agent's tools, a model in .dev.vars), so npm test runs the author's suite in a
  // copy once, not twice; .dev.vars goes before wrangler dev serves the copy for the bash blocks.
  project = copyProject({ ...Object.fromEntries(FILES.map((f) => [f.path, f.body])), ...AUTHOR_FILES });
  // The bash blocks run as the docs show them, on the scripted model: the server serves a snapshot
  // of the copy taken now, which leaves the author's .dev.vars (and its model) out, while the
  // author's suite below runs in the copy with it. (The blocks only call the server; none edits files.)
  starting = startDevServer({ config: "wrangler.toml", cwd: project, readyPath: "/v1/tools" });
  starting.catch(() => undefined); // awaited, and so reported, by the bash blocks' beforeAll
});
afterAll(async () => {
  await (weft ?? (await starting?.catch(() => undefined)))?.stop();
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

  it("the smoke test of agents/ and the example's own tests stay green with every file added, a sub-agent in an agent's tools and a model in .dev.vars: npm run test:agents passes, and its wall time is printed", async () => {
    const started = Date.now();
    const run = await exec(process.execPath, ["scripts/test-agents.mjs", "--reporter", "verbose"], project);
    expect(run.code, run.out.slice(-3000)).toBe(0);
    expect(run.out).toMatch(/word_count is listed by GET \/v1\/tools/);
    // The smoke test of agents/ saw the new agent, and the author's own tests ran.
    expect(run.out).toMatch(/helpdesk is a valid defineAgent and gets a thread/);
    expect(run.out).toMatch(/agents\/tests\/support\.test\.ts/);
    const wall = /test:agents: passed in ([\d.]+) s wall time/.exec(run.out);
    expect(wall, run.out.slice(-2000)).not.toBeNull();
    console.log(`author project: npm run test:agents took ${wall![1]} s wall time (${((Date.now() - started) / 1000).toFixed(1)} s with the process start)`);
    // Only the author's files ran, not weft's own 800+ tests: counted, not timed (a bound of 120 s
    // was a claim about the machine's load, outlasted beside a second npm test).
    expect(ranFiles(run.out), run.out.slice(-2000)).toBe(authorTestFiles(project).length);
  }, 900_000);

  describe("bash run blocks against wrangler dev of the copy", () => {
    beforeAll(async () => {
      weft = await starting;
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
