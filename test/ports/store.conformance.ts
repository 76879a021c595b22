/**
 * The store port's contract, as behaviour checks any implementation must pass: each table's
 * reads give back what was written (as copies), its rules (page options, JSON forms, ids,
 * counters, the newest turn), and `atomically` landing all writes or none.
 * @module
 */
import { describe, expect, it } from "vitest";
import { isWeftError } from "../../src/errors.js";
import type { ThreadMeta, ThreadTables } from "../../src/ports/store.js";

/** Runs `fn` over fresh, empty tables. */
export type WithTables = (fn: (tables: ThreadTables) => Promise<void>) => Promise<void>;

const META: ThreadMeta = { threadId: "t".repeat(64), agentId: "a", userId: "u", createdAt: 1, arguments: { x: [1] }, dryRun: false, ephemeral: false };

/** The WeftError code `fn` throws (fails the test when it throws none). */
function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isWeftError(e)) return e.code;
    throw e;
  }
  throw new Error("expected a WeftError");
}

/** Registers the store contract's tests for implementation `impl`. */
export function storeConformance(impl: string, withTables: WithTables): void {
  const run = (fn: (t: ThreadTables) => void | Promise<void>) => withTables(async (t) => void (await fn(t)));

  describe(`store port: ${impl}`, () => {
    it("meta: no record before creation, the record as written after; counters start at 0", () =>
      run(({ meta }) => {
        expect(meta.read()).toBeUndefined();
        meta.write(META);
        const read = meta.read()!;
        expect(read).toEqual(META);
        read.arguments.x = [];
        expect(meta.read()!.arguments).toEqual({ x: [1] });
        expect(meta.counter("n")).toBe(0);
        meta.bump("n", 2);
        meta.bump("n", -1);
        expect(meta.counter("n")).toBe(1);
      }));

    it("meta: a secret is drawn once (64 hex digits), kept under its name and never in the record", () =>
      run(({ meta }) => {
        const key = meta.secret("k");
        expect(key).toMatch(/^[0-9a-f]{64}$/);
        expect(meta.secret("k")).toBe(key);
        expect(meta.secret("other")).not.toBe(key);
        expect(meta.read()).toBeUndefined();
      }));

    it("messages: increasing ids, totals and pages from either end, cursors, depth and silent filters", () =>
      run(({ messages }) => {
        const ids = ["one", "two", "three", "four"].map((content, i) => messages.append({ role: i % 2 ? "assistant" : "user", content, silent: i === 2 }).id);
        expect(ids[1]! > ids[0]! && ids[2]! > ids[1]! && ids[3]! > ids[2]!).toBe(true);
        messages.append({ role: "assistant", content: "nested", depth: 1, metadata: { promptCall: "pc1" } });
        expect(messages.count()).toBe(5);
        const visible = messages.list({ limit: 2 });
        expect(visible).toMatchObject({ total: 4, hasMore: true });
        expect(visible.messages.map((m) => m.content)).toEqual(["one", "two"]);
        expect(messages.list({ includeSilent: true, maxDepth: 0, order: "desc", limit: 10 }).messages.map((m) => m.content)).toEqual(["four", "three", "two", "one"]);
        const back = messages.list({ before: ids[3], order: "desc", limit: 1, includeSilent: true });
        expect(back).toMatchObject({ total: 4 + 1, hasMore: true });
        expect(back.messages.map((m) => m.content)).toEqual(["three"]);
        expect(messages.list({ after: ids[1], includeSilent: true, maxDepth: 0 }).messages.map((m) => m.content)).toEqual(["three", "four"]);
        expect(messages.list({ after: ids[1], includeSilent: true, maxDepth: 0 }).hasMore).toBe(false);
        expect(messages.list({ offset: 1, limit: 1 })).toMatchObject({ total: 4, hasMore: true, messages: [{ content: "two" }] });
        expect(messages.list({ offset: 3, limit: 5 })).toMatchObject({ total: 4, hasMore: false, messages: [{ content: "nested" }] });
      }));

    it("messages: bad page options are refused with invalid_request naming nothing read", () =>
      run(({ messages }) => {
        messages.append({ role: "user", content: "x" });
        expect(codeOf(() => messages.list({ limit: 0 }))).toBe("invalid_request");
        expect(codeOf(() => messages.list({ offset: -1 }))).toBe("invalid_request");
        expect(codeOf(() => messages.list({ before: 1.5 }))).toBe("invalid_request");
        expect(codeOf(() => messages.list({ order: "up" as "asc" }))).toBe("invalid_request");
      }));

    it("messages: windows by depth, a prompt call's run, its steps, and the last answer of side a", () =>
      run(({ messages }) => {
        const a = messages.append({ role: "assistant", content: "a-answer", side: "a" });
        messages.append({ role: "assistant", content: "b-answer", side: "b" });
        const n1 = messages.append({ role: "user", content: "n1", depth: 1, metadata: { promptCall: "pc" } });
        messages.append({ role: "assistant", content: "n2", depth: 1, metadata: { promptCall: "pc" } });
        messages.append({ role: "assistant", content: "n3", depth: 1, metadata: { promptCall: "pc", queued: true } });
        messages.append({ role: "assistant", content: "", depth: 0 });
        expect(messages.lastAnswer()).toBe("a-answer");
        expect(messages.promptCallSteps("pc")).toBe(1);
        expect(messages.ofPromptCall("pc", 0, 1e9, 2, "desc").map((m) => m.content)).toEqual(["n3", "n2"]);
        expect(messages.newestFirst(0, 1e9, 0, 2).map((m) => m.content)).toEqual(["", "b-answer"]);
        expect(messages.oldestFirst(1, n1.id, 1e9, 5).map((m) => m.content)).toEqual(["n2", "n3"]);
        expect(messages.newestFirst(0, 1e9, a.id, 10)).toHaveLength(2);
        expect(n1).toMatchObject({ depth: 1, silent: false, metadata: { promptCall: "pc" } });
      }));

    it("kv: null when absent, a copy of the value when set, the old value kept when a value has no JSON form", () =>
      run(({ kv }) => {
        expect(kv.get("k")).toBeNull();
        kv.set("k", { deep: [1, 2] });
        const got = kv.get<{ deep: number[] }>("k")!;
        got.deep.push(3);
        expect(kv.get("k")).toEqual({ deep: [1, 2] });
        expect(codeOf(() => kv.set("k", undefined))).toBe("invalid_request");
        const cycle: Record<string, unknown> = {};
        cycle.self = cycle;
        expect(codeOf(() => kv.set("k", cycle))).toBe("invalid_request");
        expect(kv.get("k")).toEqual({ deep: [1, 2] });
      }));

    it("env: a new name is secret, an omitted type keeps the old, writes bump the version, a received pair is kept once", () =>
      run(({ env }) => {
        const v0 = env.version;
        env.set("A", "1");
        expect(env.get("A")).toEqual({ value: "1", type: "secret" });
        env.set("A", "2", "text");
        env.set("A", "3");
        expect(env.get("A")).toEqual({ value: "3", type: "text" });
        expect(env.all()).toEqual([["A", { value: "3", type: "text" }]]);
        expect(env.version).toBeGreaterThan(v0);
        const v1 = env.version;
        env.receive("S", "worker");
        env.receive("S", "worker");
        env.receive("S", "prompt:p");
        expect(env.version).toBeGreaterThan(v1);
        expect(env.received().map((r) => `${r.name}@${r.level}`).sort()).toEqual(["S@prompt:p", "S@worker"]);
        expect(codeOf(() => env.set("BIG", "x".repeat(3 * 1024 * 1024)))).toBe("payload_too_large");
        expect(env.get("BIG")).toBeUndefined();
      }));

    it("files: written whole and replaced whole, listed by path, a text attachment decoded, deleted once, any known without a listing", () =>
      run(({ files }) => {
        expect(files.info("/x")).toBeUndefined();
        expect(files.any()).toBe(false);
        files.write("/b.txt", "old", "text/plain", 3, 10);
        files.write("/b.txt", "new text", "text/plain", 8, 20);
        files.write("/a/attachments/n.txt", btoa("hello"), "text/plain", 5, 30);
        expect(files.read("/b.txt")).toBe("new text");
        expect(files.info("/b.txt")).toEqual({ path: "/b.txt", mimeType: "text/plain", size: 8, createdAt: 20 });
        expect([...files.list()].map((f) => f.path)).toEqual(["/a/attachments/n.txt", "/b.txt"]);
        expect([...files.list(1)].map((f) => f.path)).toEqual(["/a/attachments/n.txt"]);
        expect([...files.list(undefined, "/a/attachments/n.txt")].map((f) => f.path)).toEqual(["/b.txt"]);
        expect([...files.list(1, "/b.txt")]).toEqual([]);
        expect(files.content("/a/attachments/n.txt")).toMatchObject({ data: "hello", encoding: "utf-8" });
        expect(files.content("/b.txt")).toMatchObject({ data: "new text", encoding: "utf-8" });
        expect(files.any()).toBe(true);
        expect(files.delete("/b.txt")).toBe(true);
        expect(files.delete("/b.txt")).toBe(false);
        expect(files.read("/b.txt")).toBeUndefined();
        expect(files.delete("/a/attachments/n.txt")).toBe(true);
        expect(files.any()).toBe(false);
      }));

    it("turns: the newest is the current one; status, steps, end with an error, model steps with summed usage", () =>
      run(({ turns }) => {
        expect(turns.latest()).toBeUndefined();
        turns.begin("t1", 100, { temperature: 0.5, toolChoice: { tool: "x" } });
        expect(turns.latest()).toMatchObject({ turnId: "t1", modelSettings: { temperature: 0.5, toolChoice: { tool: "x" } } });
        turns.end("t1", "completed");
        turns.begin("t2", 200);
        expect(turns.latest()).not.toHaveProperty("modelSettings");
        expect(() => turns.begin("t2")).toThrow();
        expect(turns.latestStatus()).toBe("running");
        turns.setStatus("t2", "waiting");
        turns.step("t2", 2);
        turns.setForcedSide("t2", "b");
        expect(turns.forcedSide("t2")).toBe("b");
        turns.recordModelStep("t2", { model: "m", finishReason: "stop", usage: { inputTokens: 3 }, attempts: 1 } as never);
        // With a count: the step count is set in the same write.
        const usage = turns.recordModelStep("t2", { model: "m", finishReason: "stop", usage: { inputTokens: 4, outputTokens: 1 }, attempts: 1 } as never, 3);
        expect(usage).toEqual({ inputTokens: 7, outputTokens: 1 });
        expect(turns.stepUsage("t2")).toEqual({ inputTokens: 7, outputTokens: 1 });
        expect(turns.forcedSide("t2")).toBeNull();
        // With the open step: set (or cleared) in the same write; without, left as it was.
        turns.recordModelStep("t2", { model: "m", finishReason: "tool_calls", usage: {}, attempts: 1 } as never, 3, [{ id: "c" }]);
        expect(turns.pendingStep("t2")).toEqual([{ id: "c" }]);
        turns.recordModelStep("t2", { model: "m", finishReason: "stop", usage: {}, attempts: 1 } as never);
        expect(turns.pendingStep("t2")).toEqual([{ id: "c" }]);
        turns.recordModelStep("t2", { model: "m", finishReason: "stop", usage: {}, attempts: 1 } as never, 3, null);
        expect(turns.pendingStep("t2")).toBeNull();
        turns.end("t2", "failed", "it broke", "model_error" as never);
        expect(turns.latest()).toMatchObject({ turnId: "t2", status: "failed", steps: 3, startedAt: 200, error: "it broke", errorCode: "model_error", usage: { inputTokens: 7, outputTokens: 1 } });
        expect(turns.latest()!.modelSteps).toHaveLength(5);
        expect(turns.statusOf("t1")).toBe("completed");
        expect(turns.statusOf("none")).toBeUndefined();
      }));

    it("turns: the first turn and its own messages, bounded by the next turn's start", () =>
      run(({ turns, messages }) => {
        expect(turns.first()).toBeUndefined();
        messages.append({ role: "user", content: "opening" });
        turns.begin("t1", 1);
        messages.append({ role: "assistant", content: "first answer" });
        expect(turns.first()).toEqual({ turnId: "t1", status: "running", messages: { after: 1, until: null } });
        turns.end("t1", "stopped", "cut");
        messages.append({ role: "user", content: "the owner's" });
        turns.begin("t2", 2);
        messages.append({ role: "assistant", content: "second answer" });
        expect(turns.first()).toEqual({ turnId: "t1", status: "stopped", error: "cut", messages: { after: 1, until: 3 } });
        expect(messages.lastAnswer(turns.first()!.messages)).toBe("first answer");
        expect(messages.lastAnswer({ after: 3, until: null })).toBe("second answer");
        expect(messages.lastAnswer({ after: 0, until: 1 })).toBe("");
        expect(messages.lastAnswer()).toBe("second answer");
        // A stop asked of an unfinished turn is kept with it.
        expect(turns.stopRequested("t2")).toBeUndefined();
        turns.requestStop("t2", "thread stopped");
        expect([turns.stopRequested("t2"), turns.stopRequested("t1"), turns.stopRequested("none")]).toEqual(["thread stopped", undefined, undefined]);
      }));

    it("turns: the pending step and request counts survive as written; the inbox keeps arrival order", () =>
      run(({ turns }) => {
        turns.begin("t", 1);
        expect(turns.pendingStep("t")).toBeNull();
        turns.setPendingStep("t", [{ id: "c1" }]);
        expect(turns.pendingStep("t")).toEqual([{ id: "c1" }]);
        turns.setPendingStep("t", null);
        expect(turns.pendingStep("t")).toBeNull();
        expect([turns.countModelRequest("t", 1), turns.countModelRequest("t", 1), turns.countModelRequest("t", 2)]).toEqual([1, 2, 1]);
        const a = turns.enqueue({ role: "user", content: "a" });
        const b = turns.enqueue({ role: "system", content: "b", metadata: { m: 1 } });
        expect(b).toBeGreaterThan(a);
        expect(turns.inbox()).toEqual([
          { id: a, role: "user", content: "a" },
          { id: b, role: "system", content: "b", metadata: { m: 1 } },
        ]);
        // A stop asked of the turn rows being admitted will begin is kept with them.
        turns.stopAdmission([a], "thread stopped");
        expect(turns.inbox().map((m) => m.stopRequested)).toEqual(["thread stopped", undefined]);
        // Dropped, the rows hand their stop on (to the turn their admission begins).
        expect(turns.dropInbox([a, 999])).toEqual({ dropped: 1, stopAsked: "thread stopped" });
        expect(turns.inboxSize()).toBe(1);
        expect(turns.inbox().map((m) => m.content)).toEqual(["b"]);
        // An id is never given again, even once the newest row is gone.
        expect(turns.dropInbox([b])).toEqual({ dropped: 1 });
        expect(turns.enqueue({ role: "user", content: "c" })).toBeGreaterThan(b);
      }));

    it("atomically: every write lands, or on a throw none does (counters included) and the throw comes through", () =>
      run((t) => {
        const { messages, kv, meta } = t;
        expect(t.atomically(() => (messages.append({ role: "user", content: "kept" }), 42))).toBe(42);
        const boom = new Error("boom");
        expect(() =>
          t.atomically(() => {
            messages.append({ role: "user", content: "gone" });
            kv.set("k", 1);
            meta.bump("c", 5);
            throw boom;
          }),
        ).toThrow(boom);
        expect(messages.count()).toBe(1);
        expect(messages.list({ includeSilent: true }).messages.map((m) => m.content)).toEqual(["kept"]);
        expect(kv.get("k")).toBeNull();
        expect(meta.counter("c")).toBe(0);
      }));
  });
}
