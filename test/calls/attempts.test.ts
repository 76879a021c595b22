import { describe, expect, it } from "vitest";
import { Attempt, type AttemptEnd, Deadlines } from "../../src/calls/attempt.js";

const never = () => new Promise<unknown>(() => undefined);
const late = (ms: number) => () => new Error(`late after ${ms} ms`);

describe("attempts of execute on one thread's deadline timer", () => {
  it("each attempt ends at its own deadline, in deadline order, whatever order they started in", async () => {
    const deadlines = new Deadlines();
    const order: number[] = [];
    const run = (ms: number) =>
      new Attempt(null, deadlines).run(never, ms, late(ms)).then((end) => {
        order.push(ms);
        return end;
      });
    const ends = await Promise.all([run(60), run(20), run(40)]);
    expect(order).toEqual([20, 40, 60]);
    for (const [i, ms] of [60, 20, 40].entries()) {
      const end = ends[i]!;
      expect(end.aborted).toBe(true);
      expect((end as { reason: Error }).reason.message).toBe(`late after ${ms} ms`);
    }
  });

  it("an attempt whose execute answers without I/O sets no timer; one still running a few microtask turns later gets it, for its deadline", async () => {
    const deadlines = new Deadlines();
    const watch = deadlines as unknown as { timer: unknown; pending: Set<unknown> };
    expect(await new Attempt(null, deadlines).run(async () => "done", 60_000, late(60_000))).toEqual({ ok: true, value: "done" });
    expect({ timer: watch.timer, pending: watch.pending.size }).toEqual({ timer: undefined, pending: 0 });
    const slow = new Attempt(null, deadlines).run(never, 30, late(30));
    await new Promise((r) => setTimeout(r, 5));
    expect(watch.timer).not.toBe(undefined);
    expect(((await slow) as { reason: Error }).reason.message).toBe("late after 30 ms");
  });

  it("stops counting turns once no attempt is open, and a later attempt waits its own turns", async () => {
    const deadlines = new Deadlines();
    const watch = deadlines as unknown as { timer: unknown; turnsLeft: number };
    await new Attempt(null, deadlines).run(async () => "done", 60_000, late(60_000));
    await Promise.resolve();
    await Promise.resolve();
    expect(watch.turnsLeft).toBe(0);
    const slow = new Attempt(null, deadlines).run(never, 20, late(20));
    expect(watch.turnsLeft).toBeGreaterThan(0);
    expect(((await slow) as { reason: Error }).reason.message).toBe("late after 20 ms");
  });

  it("an attempt that settles first keeps its value, and a later deadline of another still fires", async () => {
    const deadlines = new Deadlines();
    const quick = new Attempt(null, deadlines).run(async () => "done", 10, late(10));
    const slow = new Attempt(null, deadlines).run(never, 30, late(30));
    expect(await quick).toEqual({ ok: true, value: "done" });
    expect(((await slow) as { reason: Error }).reason.message).toBe("late after 30 ms");
  });

  it("a stop ends the attempt before its deadline and aborts the signal the tool read", async () => {
    const stop = new AbortController();
    const attempt = new Attempt(stop.signal, new Deadlines());
    let seen: AbortSignal | undefined;
    const ended: Promise<AttemptEnd> = attempt.run(
      () => {
        seen = attempt.signal;
        return never();
      },
      60_000,
      late(60_000),
    );
    stop.abort(new Error("stopped"));
    const end = await ended;
    expect(end).toMatchObject({ aborted: true });
    expect((end as { reason: Error }).reason.message).toBe("stopped");
    expect(seen?.aborted).toBe(true);
  });

  it("a signal read after the deadline passed is already aborted with the deadline's error", async () => {
    const attempt = new Attempt(null, new Deadlines());
    await attempt.run(never, 5, late(5));
    expect(attempt.signal.aborted).toBe(true);
    expect((attempt.signal.reason as Error).message).toBe("late after 5 ms");
  });
});
