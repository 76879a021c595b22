/**
 * A scripted step that streams its text in pieces (`chunks`, paced by `chunkDelayMs`;
 * src/models/scripted.ts): its pieces come out as `text_delta` events the way a provider's
 * stream does, through the same coalescing and redaction, kept with the stored step across a
 * restart; a stop mid-stream ends the turn at once; a malformed field is refused with its path.
 */
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { EventFrame } from "../../src/protocol.js";
import { createThread, eventsOf, inThread, json, messagesOf, rawStub, runTurn, stubOf, subscribe, until } from "../helpers.js";

/** Past weft's 100 ms coalescing window, so each piece is its own `text_delta` however loaded the machine. */
const PACE_MS = 150;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const of = (frames: EventFrame[], type: string) => frames.filter((f) => f.type === type) as Array<EventFrame & { data: any }>;
const deltasOf = (frames: EventFrame[]) => of(frames, "text_delta").map((f) => f.data.delta as string);

describe("a scripted step streamed in pieces", () => {
  it("sends one text_delta per piece, in order, and stores their concatenation as the answer", async () => {
    const id = await createThread();
    const pieces = ["The ", "quick ", "brown ", "fox."];
    await runTurn(id, "go", [{ chunks: pieces, chunkDelayMs: PACE_MS }]);
    const frames = await eventsOf(id);
    // The last piece has no whitespace after it: redaction holds a trailing word back until the
    // step ends, so it arrives with the step's model_step, as it would from a provider.
    expect(deltasOf(frames)).toEqual(["The ", "quick ", "brown "]);
    const step = of(frames, "model_step");
    expect(step).toHaveLength(1);
    expect(step[0]!.data.text).toBe("The quick brown fox.");
    expect(of(frames, "text_delta").every((d) => d.seq < step[0]!.seq)).toBe(true);
    expect(of(frames, "model_step_discarded")).toEqual([]);
    expect((await messagesOf(id)).map((m) => [m.role, m.content])).toEqual([
      ["user", "go"],
      ["assistant", "The quick brown fox."],
    ]);
  });

  it("hides a secret split across pieces: no delta shows any part of it", async () => {
    const secret = "sk-7f3a9c2e41b8d6";
    const id = await createThread({ env: { API_TOKEN: { value: secret, type: "secret" } } });
    await runTurn(id, "go", [{ chunks: ["Your key is sk-7f3a", "9c2e41b8d6 and ", "nothing else. "], chunkDelayMs: PACE_MS }]);
    const frames = await eventsOf(id);
    expect(deltasOf(frames)).toEqual(["Your key is ", "[redacted] and ", "nothing else. "]);
    expect(JSON.stringify(frames)).not.toContain("sk-7f3a");
    expect(of(frames, "model_step")[0]!.data.text).toBe("Your key is [redacted] and nothing else. ");
  });

  it("keeps its pieces with the stored step: held by waitFor across a restart, it streams them when played", async () => {
    const id = await createThread();
    const pieces = ["Report: ", "all ", "done. "];
    await runTurn(id, "first", [{ waitFor: "[ready]", chunks: pieces, chunkDelayMs: PACE_MS }]);
    await evictDurableObject(rawStub(id));
    const since = (await json("GET", `/threads/${id}`)).body.lastSeq as number;
    await runTurn(id, "[ready]", []);
    expect(deltasOf(await eventsOf(id, since))).toEqual(pieces);
    expect((await messagesOf(id)).at(-1)).toMatchObject({ role: "assistant", content: "Report: all done. " });
  });

  it("cut by a restart mid-stream, streams the same pieces again from the start, and is played once", async () => {
    const id = await createThread();
    const pieces = ["Once ", "upon ", "a ", "time. "];
    const sub = await subscribe(id, 0);
    expect((await json("POST", `/threads/${id}/messages`, { content: "go", script: [{ chunks: pieces, chunkDelayMs: PACE_MS }, { text: "The next step." }] })).status).toBe(202);
    await sub.until((frames) => frames.some((f) => f.type === "text_delta"), 20_000);
    sub.close();
    await inThread(id, (instance) => instance.ctx.abort("restart mid-stream")).catch(() => undefined);
    await until(async () => (await json("GET", `/threads/${id}`)).body.lastTurn?.status !== "running", "the resumed turn to end");
    await stubOf(id).waitIdle();
    const frames = await eventsOf(id);
    const discarded = of(frames, "model_step_discarded");
    expect(discarded).toHaveLength(1);
    expect(deltasOf(frames.filter((f) => f.seq > discarded[0]!.seq))).toEqual(pieces);
    expect((await json("GET", `/threads/${id}`)).body.lastTurn.status).toBe("completed");
    expect((await messagesOf(id)).map((m) => m.content)).toEqual(["go", "Once upon a time. "]);
    // Played once: the next request plays the step after it.
    await runTurn(id, "more", []);
    expect((await messagesOf(id)).at(-1)!.content).toBe("The next step.");
  });

  it("a stop mid-stream ends the turn at once, not after the pace: stopped, no model_step, the thread takes the next message", async () => {
    const id = await createThread();
    // 20 s between pieces: a stop that waited out the pace (or the part after it) would take that long.
    const sub = await subscribe(id, 0);
    expect((await json("POST", `/threads/${id}/messages`, { content: "go", script: [{ chunks: ["first ", "second "], chunkDelayMs: 20_000 }] })).status).toBe(202);
    await sub.until((frames) => frames.some((f) => f.type === "turn_started"), 20_000);
    sub.close();
    // In the wait after the first piece.
    await sleep(300);
    const stoppedAt = Date.now();
    expect((await json("POST", `/threads/${id}/stop`)).body).toEqual({ stopped: true });
    await stubOf(id).waitIdle();
    expect(Date.now() - stoppedAt).toBeLessThan(5_000);
    const info = (await json("GET", `/threads/${id}`)).body;
    expect(info.lastTurn.status).toBe("stopped");
    expect(info.lastTurn.errorCode).toBeUndefined();
    const frames = await eventsOf(id);
    expect(of(frames, "model_step")).toEqual([]);
    expect(deltasOf(frames)).toEqual([]);
    expect(of(frames, "turn_finished").map((f) => f.data.status)).toEqual(["stopped"]);
    // The cut step was played: the next message plays its own step, not the rest of the pieces.
    await runTurn(id, "again", [{ text: "again done" }]);
    expect((await messagesOf(id)).at(-1)!.content).toBe("again done");
  });

  it("refuses malformed chunks or chunkDelayMs, naming the path, and stores nothing", async () => {
    const id = await createThread();
    const cases: Array<[Record<string, unknown>, (string | number)[]]> = [
      [{ chunks: "The quick" }, ["script", 1, "chunks"]],
      [{ chunks: ["The ", 7] }, ["script", 1, "chunks", 1]],
      [{ text: "The quick", chunks: ["The ", "quick"] }, ["script", 1, "chunks"]],
      [{ chunks: ["a"], chunkDelayMs: -1 }, ["script", 1, "chunkDelayMs"]],
      [{ chunks: ["a"], chunkDelayMs: 1.5 }, ["script", 1, "chunkDelayMs"]],
      [{ chunks: ["a"], chunkDelayMs: "100" }, ["script", 1, "chunkDelayMs"]],
      [{ chunks: ["a"], chunkDelayMs: 60_001 }, ["script", 1, "chunkDelayMs"]],
      [{ text: "a", chunkDelayMs: 100 }, ["script", 1, "chunkDelayMs"]],
    ];
    for (const [step, path] of cases) {
      const res = await json("POST", `/threads/${id}/messages`, { content: "hi", script: [{ text: "ok" }, step] });
      expect(res.status, JSON.stringify(step)).toBe(400);
      expect(res.body.error, JSON.stringify(step)).toMatchObject({ code: "invalid_request", details: { path } });
      expect(res.body.error.message).toContain(path.join("."));
    }
    expect(await messagesOf(id)).toEqual([]);
  });
});
