import { describe, expect, it } from "vitest";
import { fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { callsOf, createThread, eventsOf, json, messagesOf, request, runTurn, stubOf } from "../helpers.js";

/** test/wrangler.toml's WEFT_RESULT_CAP_BYTES. */
const CAP = 4096;
/** 1-, 2-, 3- and 4-byte characters, so page edges fall inside characters. */
const PATTERN = "aé€😀\n";
const BYTES = 20_000;
const utf8 = (text: string) => new TextEncoder().encode(text);

/** What big_result returns for `pattern` and `bytes` (the fixture's rule, written again to check it). */
function expected(pattern: string, bytes: number): string {
  const all = utf8(pattern.repeat(Math.ceil(bytes / utf8(pattern).byteLength)));
  let end = Math.min(bytes, all.byteLength);
  while (end > 0 && (all[end]! & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(all.subarray(0, end));
}

const CAPPED = /\n\[weft: result truncated to (\d+) of (\d+) bytes; the whole text is the thread's file (\S+); call read_file with (\{.*\}) to read the rest\]$/;
const PAGE = /\n\[weft: bytes (\d+) to (\d+) of (\d+) of (\S+); (?:call read_file with (\{.*\}) for the next page|end of file)\]$/;

async function toolMessage(threadId: string, callId: string): Promise<string> {
  return (await messagesOf(threadId)).find((m) => m.toolCallId === callId)!.content;
}

/** A thread of the guarantees agent holding one capped result of big_result (call id `big`). */
async function cappedThread(pattern = PATTERN): Promise<{ id: string; content: string }> {
  const id = await createThread({ agent: "guarantees" });
  await runTurn(id, "go", [{ toolCalls: [{ id: "big", name: "big_result", arguments: { bytes: BYTES, pattern, attach: true } }] }]);
  return { id, content: await toolMessage(id, "big") };
}

/** Runs one model step calling read_file with `input` and returns its call record and what the model got. */
async function readFile(id: string, callId: string, input: unknown) {
  await runTurn(id, "read", [{ toolCalls: [{ id: callId, name: "read_file", arguments: input }] }]);
  const call = (await callsOf(id)).find((c) => c.callId === callId)! as Awaited<ReturnType<typeof callsOf>>[number] & { errorCode?: string; errorDetails?: { path?: unknown[] } };
  return { call, content: await toolMessage(id, callId) };
}

describe("read_file: the model reads a capped result in pages", () => {
  it("the notice's input, paged to the end, gives back the exact text, multi-byte characters at page edges included", async () => {
    const { id, content } = await cappedThread();
    const original = expected(PATTERN, BYTES);
    const capped = CAPPED.exec(content);
    expect(capped, content.slice(-300)).not.toBeNull();
    const shown = content.slice(0, capped!.index);
    expect(Number(capped![1])).toBe(utf8(shown).byteLength);
    expect(Number(capped![2])).toBe(utf8(original).byteLength);
    expect(capped![3]).toBe("calls/big/result.txt");

    let text = shown;
    let input: unknown = JSON.parse(capped![4]!);
    expect(input).toEqual({ path: "calls/big/result.txt", offset: utf8(shown).byteLength });
    const lengths: number[] = [];
    for (let page = 0; input !== undefined; page++) {
      expect(page, "pages").toBeLessThan(20);
      const read = await readFile(id, `r${page}`, input);
      expect(read.call).toMatchObject({ toolName: "read_file", source: "model", status: "succeeded" });
      // A page with its notice fits under the cap, so it is never capped again.
      expect(utf8(read.content).byteLength).toBeLessThanOrEqual(CAP);
      expect(read.call.fullResultPath).toBeUndefined();
      const notice = PAGE.exec(read.content);
      expect(notice, read.content.slice(-300)).not.toBeNull();
      const body = read.content.slice(0, notice!.index);
      const [offset, end, size] = [Number(notice![1]), Number(notice![2]), Number(notice![3])];
      expect(offset).toBe(utf8(text).byteLength);
      expect(end - offset).toBe(utf8(body).byteLength);
      expect(size).toBe(utf8(original).byteLength);
      lengths.push(end - offset);
      text += body;
      input = notice![5] === undefined ? undefined : JSON.parse(notice![5]);
      if (input !== undefined) expect(input).toEqual({ path: "calls/big/result.txt", offset: end });
    }
    expect(text).toBe(original);
    expect(utf8(text)).toEqual(utf8(original));
    expect(lengths.length).toBeGreaterThan(3);
    // Some edge fell inside a character and was moved back to its start.
    const full = Math.max(...lengths);
    expect(lengths.slice(0, -1).some((n) => n < full)).toBe(true);

    // Each page went through the pipeline: started and finished events, a journal record.
    const events = (await eventsOf(id)).filter((e) => (e.data as { toolName?: string }).toolName === "read_file");
    expect(events.filter((e) => e.type === "tool_call_started")).toHaveLength(lengths.length);
    expect(events.filter((e) => e.type === "tool_call_finished")).toHaveLength(lengths.length);
  });

  it("bad input gets an error result with a code and the offending path", async () => {
    const { id } = await cappedThread();
    const attachment = (await callsOf(id)).find((c) => c.callId === "big")!.result!.attachments![0] as { path: string };
    const cases: Array<[unknown, string, unknown[], RegExp]> = [
      [{ path: "calls/nope/result.txt" }, "not_found", ["path"], /^not_found: path: no file "calls\/nope\/result.txt" in this thread/],
      [{ path: "calls/big/result.txt", offset: 1_000_000 }, "invalid_tool_input", ["offset"], /^invalid_tool_input: offset: 1000000 is past the end of calls\/big\/result.txt \(\d+ bytes\)/],
      // Byte 2 is the second byte of "é".
      [{ path: "calls/big/result.txt", offset: 2 }, "invalid_tool_input", ["offset"], /^invalid_tool_input: offset: byte 2 of calls\/big\/result.txt is inside a character; start at 1/],
      // Byte 6 starts "😀", 4 bytes.
      [{ path: "calls/big/result.txt", offset: 6, length: 2 }, "invalid_tool_input", ["length"], /^invalid_tool_input: length: 2 byte\(s\) cannot hold the character at byte 6/],
      [{ path: attachment.path }, "unsupported_media_type", ["path"], /^unsupported_media_type: path: .* is binary \(image\/png\)/],
      [{ path: 5 }, "invalid_tool_input", ["path"], /^invalid_tool_input: path: /],
      [{ path: "calls/big/result.txt", offset: -1 }, "invalid_tool_input", ["offset"], /^invalid_tool_input: offset: /],
      [{ path: "calls/big/result.txt", length: 0 }, "invalid_tool_input", ["length"], /^invalid_tool_input: length: /],
    ];
    for (const [i, [input, code, path, message]] of cases.entries()) {
      const { call, content } = await readFile(id, `bad${i}`, input);
      expect(call.status, JSON.stringify(input)).toBe("failed");
      expect(call.errorCode, JSON.stringify(input)).toBe(code);
      expect(call.errorDetails?.path, JSON.stringify(input)).toEqual(path);
      expect(call.result!.error, JSON.stringify(input)).toMatch(message);
      expect(content).toBe(call.result!.error);
    }
    // A good read after them still works: nothing above broke the thread.
    const ok = await readFile(id, "ok", { path: "calls/big/result.txt", offset: 0, length: 11 });
    expect(ok.content).toBe(`aé€😀\n\n[weft: bytes 0 to 11 of ${utf8(expected(PATTERN, BYTES)).byteLength} of calls/big/result.txt; call read_file with {"path":"calls/big/result.txt","offset":11} for the next page]`);
  });
});

describe("read_file and secrets", () => {
  it("a secret across the cut or a page's edge is replaced whole, never shown in halves", async () => {
    const secret = "sekrit-value-0123456789abcdef";
    const id = await createThread({ agent: "guarantees", env: { PAGE_SECRET: { value: secret, type: "secret" } } });
    // The secret starts 10 bytes before the cut: cut first and redacted after, its first 10 bytes would show.
    await runTurn(id, "go", [{ toolCalls: [{ id: "big", name: "big_result", arguments: { bytes: 12_000, secretAt: { env: "PAGE_SECRET", byte: CAP - 10 } } }] }]);
    const content = await toolMessage(id, "big");
    expect(content).not.toContain(secret.slice(0, 10));
    const input = JSON.parse(CAPPED.exec(content)![4]!) as { path: string; offset: number };
    let text = content.slice(0, CAPPED.exec(content)!.index);
    let next: unknown = input;
    for (let page = 0; next !== undefined && page < 10; page++) {
      const read = await readFile(id, `s${page}`, next);
      const notice = PAGE.exec(read.content)!;
      text += read.content.slice(0, notice.index);
      next = notice[5] === undefined ? undefined : JSON.parse(notice[5]);
    }
    expect(next).toBeUndefined();
    expect(text).not.toContain(secret.slice(0, 10));
    expect(text).not.toContain(secret.slice(-10));
    expect(text).toContain("[redacted]");
    // Joined, the pages are the whole text as the model sees it: the secret replaced where it stood.
    const whole = "abcdefghij".repeat(1200);
    expect(text).toBe(`${whole.slice(0, CAP - 10)}[redacted]${whole.slice(CAP - 10 + secret.length)}`);
  });
});

describe("read_file reads the calling thread's own files only", () => {
  it("another thread's model gets not_found for the same path, and another user gets 404 from every route", async () => {
    const { id: mine } = await cappedThread("secret of thread A ");
    const other = await createThread({ agent: "guarantees" });
    // A thread with no file of its own is offered no read_file at all.
    const early = await readFile(other, "early", { path: "calls/big/result.txt" });
    expect(early.call).toMatchObject({ status: "failed", errorCode: "unknown_tool" });
    // With a capped result of its own (another call id), its read_file finds only its own files.
    await runTurn(other, "go", [{ toolCalls: [{ id: "own", name: "big_result", arguments: { bytes: 5000 } }] }]);
    const read = await readFile(other, "peek", { path: "calls/big/result.txt" });
    expect(read.call).toMatchObject({ status: "failed", errorCode: "not_found" });
    expect(read.content).not.toContain("secret of thread A");
    // Paths name a file inside the calling thread; a thread id or route in them names nothing.
    for (const path of [`/threads/${mine}/files/calls/big/result.txt`, `${mine}/calls/big/result.txt`, "../calls/big/result.txt"]) {
      const tried = await readFile(other, `peek${path.length}`, { path });
      expect(tried.call).toMatchObject({ status: "failed", errorCode: "not_found" });
    }

    // The thread's owner reads it; bob reads nothing of it, by route or by a direct call.
    expect((await request(`/threads/${mine}/files/calls/big/result.txt`)).status).toBe(200);
    const byRoute = await request(`/threads/${mine}/files/calls/big/result.txt`, undefined, "bob");
    expect(byRoute.status).toBe(404);
    expect(await byRoute.text()).not.toContain("secret of thread A");
    const direct = await json("POST", "/v1/tools/read_file", { input: { path: "calls/big/result.txt" }, sessionId: mine }, "bob");
    expect(direct.status).toBe(404);
    expect(JSON.stringify(direct.body)).not.toContain("secret of thread A");
  });

  it("is offered to a provider's model from the step after the thread first stores a file, in the provider's wire format", async () => {
    const key = fakeKey("openai");
    await scriptFake(key, [
      { toolCalls: [{ id: "b1", name: "big_result", arguments: '{"bytes":10000}' }] },
      { toolCalls: [{ id: "r1", name: "read_file", arguments: '{"path":"calls/b1/result.txt","offset":4096}' }] },
      { text: "read it" },
    ]);
    const id = await createThread({ agent: "guarantees", env: fakeEnv("openai:gpt-4.1-mini", key) });
    expect((await json("POST", `/threads/${id}/messages`, { content: "go" })).status).toBe(202);
    await stubOf(id).waitIdle();
    const requests = await fakeRequests(key);
    expect(requests).toHaveLength(3);
    const names = requests.map((r) => (r.body.tools as Array<{ name?: string }>).map((t) => t.name));
    // Before the thread holds a file the model sees the project's tools alone (recordings stay valid).
    expect(names[0]).not.toContain("read_file");
    expect(names[1]).toContain("read_file");
    expect(names[1]!.filter((n) => n !== "read_file")).toEqual(names[0]);
    const tool = (requests[1]!.body.tools as Array<{ name: string; parameters: { properties: Record<string, unknown>; required?: string[] } }>).find((t) => t.name === "read_file")!;
    expect(Object.keys(tool.parameters.properties).sort()).toEqual(["length", "offset", "path"]);
    const [call] = (await callsOf(id)).filter((c) => c.callId === "r1");
    expect(call).toMatchObject({ status: "succeeded", source: "model" });
    expect(call!.result!.result).toMatch(/^ghijabcdef[\s\S]*\n\[weft: bytes 4096 to \d+ of 10000 of calls\/b1\/result\.txt; call read_file with /);
  });

  it("is offered to a model's place, not to direct calls at rest, which get full results", async () => {
    const listed = (await json<{ tools: Array<{ name: string }> }>("GET", "/v1/tools")).body.tools.map((t) => t.name);
    expect(listed).not.toContain("read_file");
    const id = await createThread({ agent: "guarantees" });
    const direct = await json("POST", "/v1/tools/read_file", { input: { path: "x" }, sessionId: id });
    expect(direct.status).toBe(404);
    expect(direct.body.error.code).toBe("unknown_tool");
  });
});
