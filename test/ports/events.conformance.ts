/**
 * The event sink port's contract, as behaviour checks any implementation must pass: seqs from 1
 * with no gap, replay after a seq, redaction before anything is stored or sent, broadcast of
 * stored frames only and in order, held events and the settle window.
 * @module
 */
import { describe, expect, it } from "vitest";
import type { EventFrame } from "../../src/protocol.js";
import type { EventBroadcast, EventRedactor, EventSink } from "../../src/ports/events.js";

/** Runs `fn` over a fresh, empty sink made with `redact` and `broadcast`. */
export type WithSink = (redact: EventRedactor, broadcast: EventBroadcast, fn: (sink: EventSink) => Promise<void>) => Promise<void>;

/** One macrotask: every microtask (the settle window) has run. */
const task = () => new Promise((r) => setTimeout(r, 0));

/** Replaces the word "s3cret" anywhere in the data's JSON; keeps back a `hold_me` event. */
const redactor: EventRedactor = (type, data) => (type === "hold_me" ? null : (JSON.parse(JSON.stringify(data ?? null).replaceAll("s3cret", "[REDACTED]")) as unknown));

/** Registers the event sink contract's tests for implementation `impl`. */
export function eventsConformance(impl: string, withSink: WithSink): void {
  /** Runs `fn` with a sink that redacts with {@link redactor} and records what it broadcasts. */
  const run = (fn: (sink: EventSink, sent: EventFrame[]) => Promise<void> | void) => {
    const sent: EventFrame[] = [];
    return withSink(redactor, (frame) => void sent.push(structuredClone(frame)), async (sink) => void (await fn(sink, sent)));
  };

  describe(`event sink port: ${impl}`, () => {
    it("seqs run 1, 2, 3 ... with no gap, and lastSeq is the newest", () =>
      run((sink) => {
        expect(sink.lastSeq()).toBe(0);
        const seqs = [0, 1, 2, 3, 4].map((i) => sink.emit("custom.tick", { i })!.seq);
        expect(seqs).toEqual([1, 2, 3, 4, 5]);
        expect(sink.lastSeq()).toBe(5);
        expect(sink.since(0).map((f) => f.seq)).toEqual([1, 2, 3, 4, 5]);
      }));

    it("replay after a seq returns exactly the later frames, in order, as stored, at most limit", () =>
      run((sink) => {
        for (let i = 1; i <= 6; i++) sink.emit("custom.tick", { i });
        const after = sink.since(3);
        expect(after.map((f) => [f.seq, f.type, (f.data as { i: number }).i])).toEqual([
          [4, "custom.tick", 4],
          [5, "custom.tick", 5],
          [6, "custom.tick", 6],
        ]);
        expect(after.every((f) => typeof f.at === "string" && !Number.isNaN(Date.parse(f.at)))).toBe(true);
        expect(sink.since(6)).toEqual([]);
        expect(sink.since(1, 2).map((f) => f.seq)).toEqual([2, 3]);
      }));

    it("a page by characters: frames until their data's text reaches maxChars, the first always", () =>
      run((sink) => {
        for (let i = 1; i <= 4; i++) sink.emit("custom.blob", { s: "x".repeat(100) }); // data text: 108 characters each
        expect(sink.since(0, 10, 200).map((f) => f.seq)).toEqual([1, 2]);
        expect(sink.since(0, 10, 216).map((f) => f.seq)).toEqual([1, 2]);
        expect(sink.since(0, 10, 217).map((f) => f.seq)).toEqual([1, 2, 3]);
        expect(sink.since(2, 10, 1).map((f) => f.seq)).toEqual([3]);
        expect(sink.since(0, 1, 10_000).map((f) => f.seq)).toEqual([1]);
      }));

    it("replayed frames are copies: changing one changes nothing stored", () =>
      run((sink) => {
        sink.emit("custom.tick", { list: [1] });
        (sink.since(0)[0]!.data as { list: number[] }).list.push(2);
        expect(sink.since(0)[0]!.data).toEqual({ list: [1] });
      }));

    it("redaction is applied before storing and sending: no secret in the frame, the log or the broadcast", () =>
      run((sink, sent) => {
        const frame = sink.emit("custom.note", { text: "key s3cret here", nested: ["s3cret"] })!;
        expect(frame.data).toEqual({ text: "key [REDACTED] here", nested: ["[REDACTED]"] });
        expect(JSON.stringify(sink.since(0))).not.toContain("s3cret");
        expect(JSON.stringify(sent)).not.toContain("s3cret");
        expect(sent.map((f) => f.seq)).toEqual([1]);
      }));

    it("an event the redactor keeps back is not stored, takes no seq and is not sent", () =>
      run((sink, sent) => {
        sink.emit("custom.a", {});
        expect(sink.emit("hold_me", { text: "partial" })).toBeNull();
        expect(sink.emit("custom.b", {})!.seq).toBe(2);
        expect(sink.since(0).map((f) => f.type)).toEqual(["custom.a", "custom.b"]);
        expect(sent.map((f) => f.type)).toEqual(["custom.a", "custom.b"]);
      }));

    it("an event whose data is null is stored and sent with null data (a null is kept back only when the redactor made it)", () =>
      run((sink, sent) => {
        expect(sink.emit("custom.nothing", null)?.seq).toBe(1);
        sink.hold("custom.later", null);
        expect(sink.since(0).map((f) => [f.seq, f.type, f.data])).toEqual([
          [1, "custom.nothing", null],
          [2, "custom.later", null],
        ]);
        expect(sent.map((f) => f.type)).toEqual(["custom.nothing", "custom.later"]);
      }));

    it("each stored frame is broadcast once, in seq order, equal to what replay gives", () =>
      run((sink, sent) => {
        for (let i = 0; i < 4; i++) sink.emit("custom.tick", { i });
        expect(sent.map((f) => f.seq)).toEqual([1, 2, 3, 4]);
        expect(sent.map((f) => [f.seq, f.type, f.data])).toEqual(sink.since(0).map((f) => [f.seq, f.type, f.data]));
      }));

    it("a held event is sent only once stored, and takes its seq before a later emit's", () =>
      run((sink, sent) => {
        sink.emit("custom.a", {});
        sink.hold("custom.held", { text: "s3cret" });
        expect(sent.map((f) => f.type)).toEqual(["custom.a"]);
        const next = sink.emit("custom.b", {})!;
        expect(next.seq).toBe(3);
        expect(sent.map((f) => [f.seq, f.type])).toEqual([
          [1, "custom.a"],
          [2, "custom.held"],
          [3, "custom.b"],
        ]);
        expect(sent[1]!.data).toEqual({ text: "[REDACTED]" });
      }));

    it("a held event is stored as it was when held: a change the tool makes to its data afterwards is not", () =>
      // weft's redactor answers clean data as the same object: this one does too.
      withSink(
        (_type, data) => data,
        () => undefined,
        async (sink) => {
          const data: Record<string, unknown> = { step: 1 };
          sink.hold("custom.progress", data);
          data.step = 2;
          data.token = "s3cret";
          expect(sink.since(0).map((f) => f.data)).toEqual([{ step: 1 }]);
        },
      ));

    it("an event held as redacted already is stored from its text, redacted by nobody again, and sent once stored", () => {
      let redactions = 0;
      const sent: EventFrame[] = [];
      return withSink(
        (_type, data) => (redactions++, data),
        (frame) => void sent.push(structuredClone(frame)),
        async (sink) => {
          const data: Record<string, unknown> = { step: 1, note: "[REDACTED]" };
          sink.holdRedacted("custom.progress", data, JSON.stringify(data));
          data.step = 2;
          expect(sent).toEqual([]);
          sink.emit("custom.after", {});
          expect(sent.map((f) => [f.seq, f.type])).toEqual([
            [1, "custom.progress"],
            [2, "custom.after"],
          ]);
          expect(sink.since(0).map((f) => f.data)).toEqual([{ step: 1, note: "[REDACTED]" }, {}]);
          // Only the emit's data went through the redactor.
          expect(redactions).toBe(1);
        },
      );
    });

    it("held events are stored by a read, and by the settle window before the microtasks drain", () =>
      run(async (sink, sent) => {
        sink.hold("custom.h1", {});
        expect(sink.since(0).map((f) => f.type)).toEqual(["custom.h1"]);
        sink.hold("custom.h2", {});
        sink.hold("custom.h3", {});
        expect(sent.map((f) => f.type)).toEqual(["custom.h1"]);
        await task();
        expect(sent.map((f) => [f.seq, f.type])).toEqual([
          [1, "custom.h1"],
          [2, "custom.h2"],
          [3, "custom.h3"],
        ]);
        expect(sink.lastSeq()).toBe(3);
      }));
  });
}
