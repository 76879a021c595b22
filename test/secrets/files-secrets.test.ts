/**
 * A thread's files leave without its secrets, in their paths, their bytes and their sizes (review
 * 21a): an attachment's name was made safe (characters outside `[A-Za-z0-9._-]` rewritten) before
 * its path was redacted, so a secret holding one such character passed spelled out; a text
 * attachment that was not UTF-8 was served as base64, unscanned; a file's listed size was its raw
 * content's, telling the length of the secrets its served content hides. Review 21c: text in UTF-16
 * (which decodes as UTF-8 when it is ASCII, NULs between the letters) was not scanned.
 */
import { describe, expect, it } from "vitest";
import { inThread, json, messagesOf, request, runTurn } from "../helpers.js";

// A thread-level secret with characters a safe name rewrites.
const SPELLED = "canary:worker/9b2d+6e7a15";
const OWN = "canary-thread-5c8e2a9f01";

async function thread(): Promise<string> {
  const env = { CANARY_WORKER: { value: SPELLED, type: "secret" }, CANARY_THREAD: { value: OWN, type: "secret" }, CANARY_USER: { value: "canary-user-e04b7d3a96", type: "secret" } };
  const created = await json("POST", "/threads", { agent: "canary", env });
  expect(created.status).toBe(201);
  return created.body.threadId as string;
}

/** The canary tool: an attachment named after a secret, holding every secret. */
async function leak(id: string): Promise<void> {
  const res = await request(`/v1/tools/leak_secrets`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ input: { mode: "echo" }, sessionId: id }) });
  expect(res.status).toBe(200);
}

const served = async (id: string, path: string) => new Uint8Array(await (await request(`/threads/${id}/files/${path}`)).arrayBuffer());

describe("a thread's files", () => {
  it("an attachment's path does not spell out a secret its name holds", async () => {
    const id = await thread();
    await leak(id);
    const listed = await (await request(`/threads/${id}/files`)).text();
    expect(listed).not.toContain(SPELLED.replace(/[^A-Za-z0-9._-]/g, "_"));
    expect(listed).toContain("_redacted_");
  });

  it("an attachment's listed size is the size of what a reader fetches", async () => {
    const id = await thread();
    await leak(id);
    const listed = await json<{ files: Array<{ path: string; size: number }> }>("GET", `/threads/${id}/files`);
    const file = listed.body.files.find((f) => f.path.includes("/attachments/"))!;
    const body = await served(id, file.path);
    expect(new TextDecoder().decode(body)).toContain("[redacted]");
    expect(file.size).toBe(body.byteLength);
  });

  it("a text attachment that is not UTF-8 (a Latin-1 CSV) is served without the secret", async () => {
    const id = await thread();
    const latin1 = `caf\u00e9;${OWN}\n`;
    const path = "calls/c1/attachments/0-export.csv";
    // Stored as it is, as if written before the thread held the secret: the read redacts it.
    await inThread(id, (o) => o.store.files.write(path, btoa(latin1), "text/plain; charset=iso-8859-1", latin1.length));
    const bytes = await served(id, path);
    expect(String.fromCharCode(...bytes)).toBe("caf\u00e9;[redacted]\n");
  });

  it("a binary attachment's bytes are served without the secret's bytes", async () => {
    const id = await thread();
    const path = "calls/c2/attachments/0-blob.bin";
    const raw = `\u0000\u0001${OWN}\u00ff`;
    await inThread(id, (o) => o.store.files.write(path, btoa(raw), "application/octet-stream", raw.length));
    expect(String.fromCharCode(...(await served(id, path)))).toBe("\u0000\u0001[redacted]\u00ff");
  });
});

describe("a text attachment in UTF-16 (review 21c)", () => {
  it("is served without the secret, in either byte order, whether it decodes as UTF-8 or not", async () => {
    const id = await thread();
    const text = `\ufeffkey=${OWN}\r\n`;
    const le = [...text].map((ch) => String.fromCharCode(ch.charCodeAt(0) & 0xff, ch.charCodeAt(0) >> 8)).join("");
    const be = [...text].map((ch) => String.fromCharCode(ch.charCodeAt(0) >> 8, ch.charCodeAt(0) & 0xff)).join("");
    for (const [name, bin, decoding] of [["le", le, "utf-16le"], ["be", be, "utf-16be"]] as const) {
      const path = `calls/c3/attachments/0-${name}.txt`;
      await inThread(id, (o) => o.store.files.write(path, btoa(bin), `text/plain; charset=${decoding}`, bin.length));
      expect(new TextDecoder(decoding).decode(await served(id, path))).not.toContain(OWN);
    }
  });
});

describe("review 21e", () => {
  it("a thread holding a 200 KB secret still lists and serves its files (its byte forms were built in one call: a stack overflow)", async () => {
    const big = `-----BEGIN KEY-----${"A".repeat(200_000)}-----END KEY-----`;
    const created = await json("POST", "/threads", { env: { CERT: { value: big, type: "secret" } } });
    expect(created.status).toBe(201);
    const id = created.body.threadId as string;
    const path = "calls/c1/result.txt";
    await inThread(id, (o) => o.store.files.write(path, `plain text, then ${big}`, "text/plain; charset=utf-8", 0));
    const listed = await json<{ files: Array<{ size: number }> }>("GET", `/threads/${id}/files`);
    const fetched = await request(`/threads/${id}/files/${path}`);
    expect([listed.status, fetched.status, await fetched.text()]).toEqual([200, 200, "plain text, then [redacted]"]);
    expect(listed.body.files[0]!.size).toBe("plain text, then [redacted]".length);
  });

  it("read_file gives the model no secret a file holds in UTF-16 (it read the stored text, not what a reader gets)", async () => {
    const id = await thread();
    const text = `key=${OWN}\n`;
    const le = [...text].map((ch) => String.fromCharCode(ch.charCodeAt(0) & 0xff, ch.charCodeAt(0) >> 8)).join("");
    const path = "calls/c9/attachments/0-wide.txt";
    await inThread(id, (o) => o.store.files.write(path, btoa(le), "text/plain; charset=utf-16le", le.length));
    await runTurn(id, "read", [{ toolCalls: [{ id: "r1", name: "read_file", arguments: { path } }] }]);
    const content = (await messagesOf(id)).find((m) => m.toolCallId === "r1")!.content as string;
    expect(content.replace(/\0/g, "")).not.toContain(OWN);
    expect(content).toContain("[redacted]");
  });
});
