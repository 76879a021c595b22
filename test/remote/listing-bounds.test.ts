/**
 * A remote server's whole tool listing is bounded (a hostile review, issue 26): its bytes over all
 * pages, its pages, and one deadline for the whole listing. Past any bound the server's listing
 * fails as a problem naming the server and the bound, its tools are not offered, and the other
 * servers listed beside it are not affected. What is kept of a listing is only the fields weft
 * reads, a tool's outputSchema among them (its results are checked against it), each schema
 * within MAX_REMOTE_SCHEMA_CHARS, and counted in the bytes kept. Servers: `fat.mcp.test` (scripts/lib/fake-mcp.mjs), shaped by its URL's query; each test
 * has its own `tag`, so the bytes served to it are its own.
 */
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { LIST_TIMEOUT_MS, MAX_LIST_BYTES, MAX_LIST_PAGES, RemoteConnection } from "../../src/remote/connection.js";
import { defineMcpServer } from "../../src/remote/define.js";
import { MAX_REMOTE_SCHEMA_CHARS, RemoteServers } from "../../src/remote/servers.js";
import { request } from "../helpers.js";

const fat = (query: string, timeoutMs?: number) => defineMcpServer({ url: `https://fat.mcp.test/mcp?${query}`, ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
const good = defineMcpServer({ url: "https://tools.mcp.test/mcp" });
const served = async (tag: string) => ((await (await fetch(`http://fat.mcp.test/__fat?tag=${tag}`)).json()) as { served: number }).served;

/** Sends JSON as the JWT user `sub` (a subject of this file alone). */
async function as<T = any>(sub: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const now = Math.floor(Date.now() / 1000);
  const secret = new TextEncoder().encode("weft-test-jwt-secret-not-for-production");
  const token = await new SignJWT({ name: sub, roles: [] }).setProtectedHeader({ alg: "HS256" }).setSubject(sub).setIssuer("weft-tests").setAudience("weft-test").setIssuedAt(now - 60).setExpirationTime(now + 3600).sign(secret);
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) };
  const res = await request(path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }, null);
  return { status: res.status, body: (await res.json()) as T };
}

/** Lists `fat` beside the good server; its problems, what each offers, and how long it took. */
async function listBeside(def: ReturnType<typeof fat>) {
  const servers = new RemoteServers({ fat: def, good }, () => false);
  const started = Date.now();
  await servers.refresh(["fat", "good"]);
  return { ms: Date.now() - started, problems: servers.problems(), fat: Object.keys(servers.definitionsFor("fat")), good: Object.keys(servers.definitionsFor("good")) };
}

describe("a remote server's listing, bounded as a whole", () => {
  it("stops reading past its bytes over all pages: a problem naming the server and the bound, no tools; the other server is listed", async () => {
    // 60 pages of about 1 MB each: every page is under the cap of one answer.
    const listed = await listBeside(fat("pages=60&bytes=1000000&tag=lb-bytes"));
    expect(listed.fat).toEqual([]);
    expect(listed.good).toContain("good__lookup");
    expect(listed.problems).toHaveLength(1);
    expect(listed.problems[0]).toMatchObject({ server: "fat", code: "mcp_protocol_error" });
    expect(listed.problems[0]!.reason).toContain(`mcp server "fat" lists more than ${MAX_LIST_BYTES} bytes of tools over all its pages`);
    // Read no further than the bound and the page that passed it.
    expect(await served("lb-bytes")).toBeLessThanOrEqual(MAX_LIST_BYTES + 1_000_000);
  });

  it("stops past its pages, however small each is", async () => {
    const listed = await listBeside(fat(`pages=${MAX_LIST_PAGES * 3}&bytes=10&tag=lb-pages`));
    expect(listed.fat).toEqual([]);
    expect(listed.good).toContain("good__lookup");
    expect(listed.problems).toEqual([{ server: "fat", code: "mcp_protocol_error", reason: expect.stringContaining(`mcp server "fat" lists its tools in more than ${MAX_LIST_PAGES} pages`) }]);
    expect(await served("lb-pages")).toBe(MAX_LIST_PAGES * 10);
  });

  it("holds the whole listing to one deadline, not one per page", async () => {
    // Each page answers in 300 ms, under the server's 1,000 ms; all 20 would take 6 s.
    const listed = await listBeside(fat("pages=20&bytes=10&ms=300&tag=lb-time", 1000));
    expect(listed.fat).toEqual([]);
    expect(listed.good).toContain("good__lookup");
    expect(listed.problems).toEqual([{ server: "fat", code: "mcp_unreachable", reason: expect.stringContaining('mcp server "fat" timed out: it did not list its tools within 1000 ms (the deadline of a whole listing, all its pages)') }]);
    // Well short of the 6 s the pages take one after the other.
    expect(await served("lb-time")).toBeLessThanOrEqual(5 * 10);
    expect(listed.ms).toBeLessThan(4000);
  });

  it("keeps the deadline of a whole listing at LIST_TIMEOUT_MS for a server whose call deadline is longer", () => {
    expect(LIST_TIMEOUT_MS).toBe(10_000);
  });

  it("keeps only the fields weft reads of each tool; a ~200 KB outputSchema is over MAX_REMOTE_SCHEMA_CHARS, so its tool is refused and nothing of it kept", async () => {
    // Each tool's outputSchema carries 200,000 bytes of padding: read (weft checks results against an outputSchema), and too large.
    const connection = new RemoteConnection("fat", fat("pages=3&bytes=200000&tag=lb-fields"));
    const tools = await connection.listTools();
    await connection.close();
    expect(tools.map((t) => t.name)).toEqual(["t0", "t1", "t2"]);
    for (const tool of tools) expect(Object.keys(tool).sort()).toEqual(["description", "inputSchema", "name", "outputSchema"]);
    // What a thread keeps of the listing: none of these tools, each refused as an oversized inputSchema is.
    const servers = new RemoteServers({ fat: fat("pages=3&bytes=200000&tag=lb-fields") }, () => false);
    await servers.refresh(["fat"]);
    expect(Object.keys(servers.definitionsFor("fat"))).toEqual([]);
    expect(servers.problems()).toEqual(["t0", "t1", "t2"].map((tool) => ({ server: "fat", tool, code: "mcp_protocol_error", reason: `its outputSchema is larger than ${MAX_REMOTE_SCHEMA_CHARS} characters` })));
    expect(servers.keptBytes()).toBe(0);
  });

  it("counts each kept outputSchema in the bytes a listing keeps, and nothing else of the tool beyond the fields weft reads", async () => {
    // 10,000 bytes of padding each: under MAX_REMOTE_SCHEMA_CHARS, so kept (and compiled: weft ignores an unknown keyword).
    const servers = new RemoteServers({ fat: fat("pages=3&bytes=10000&tag=lb-kept") }, () => false);
    await servers.refresh(["fat"]);
    expect(Object.keys(servers.definitionsFor("fat"))).toEqual(["fat__t0", "fat__t1", "fat__t2"]);
    expect(servers.problems()).toEqual([]);
    // The three output schemas' padding, and under 2,000 bytes for the rest (names, descriptions, input schemas).
    expect(servers.keptBytes()).toBeGreaterThan(3 * 10_000);
    expect(servers.keptBytes()).toBeLessThan(3 * 10_000 + 2000);
  });

  it("GET /v1/tools of a user who added a fat server answers the bound as that server's problem", async () => {
    const user = "listing-bounds-user";
    expect((await as(user, "POST", "/mcp-servers", { name: "fatone", url: "https://fat.mcp.test/mcp?pages=60&bytes=3900000&tag=lb-http" })).status).toBe(200);
    try {
      const listed = await as<{ remote: { tools: Array<{ server: string }>; problems: Array<{ server: string; code: string; reason: string }> } }>(user, "GET", "/v1/tools");
      expect(listed.status).toBe(200);
      expect(listed.body.remote.tools.filter((t) => t.server === "fatone")).toEqual([]);
      expect(listed.body.remote.problems.filter((p) => p.server === "fatone")).toEqual([{ server: "fatone", code: "mcp_protocol_error", reason: expect.stringContaining(`more than ${MAX_LIST_BYTES} bytes`) }]);
      expect(await served("lb-http")).toBeLessThanOrEqual(MAX_LIST_BYTES + 3_900_000);
    } finally {
      await as(user, "DELETE", "/mcp-servers/fatone");
    }
  });
});
