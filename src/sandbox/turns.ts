/**
 * Turns on the QuickJS engine: the runs of one isolate (every thread's Durable Object in it) share
 * one WebAssembly instance of QuickJS, and they take turns on it, round robin over users, so one
 * run's memory can never fail another's and one user's runs cannot keep another's from it.
 *
 * Why turns: the instance's heap has a fixed maximum (heap.ts) and QuickJS's own per-run memory
 * limit does not hold in this build (it counts no usable size per allocation: measured, an 8 MiB
 * limit let arrays of numbers take 240 MB), so two runs at once share one bound, and a run that
 * fills the heap and awaits fails every run started meanwhile. A fresh instance per run would
 * isolate them but costs 16 MiB at least and about 9 ms to start (against 1.5 ms for a runtime in
 * the shared instance, measured on Node 22), and two 64 MiB heaps pass the isolate's 128 MB.
 *
 * Rules: a run waits until the runs ahead of it have ended and their runtimes are freed; its
 * deadline counts from when it gets the engine; its wait is bounded (`MAX_TIMEOUT_MS`, the longest
 * deadline of the run ahead) and a cancel ends it at once. A run started by a host call of the run
 * that holds the engine (a tool that runs code, imported by code) is part of that run's work and
 * runs at once on the same engine: waiting would deadlock until the holder's deadline. Only while
 * that run is open, and it ends by that run's deadline, so a turn lasts one deadline.
 *
 * Order: a run's user is its thread's owner (`SandboxRequest.owner`; a thread without one is a
 * user of its own). A run holds its turn even while it only waits (a timer, a slow tool), so in
 * order of arrival one user's runs queued ahead could make another's wait pass its bound. Instead
 * the users with waiting runs get the engine in rotation, each its earliest waiting run (in order
 * of arrival within a user); a user joins the rotation last, but ahead of the user whose run holds
 * the engine, which has just had its turn. So no user's second run goes ahead of another user's
 * first: a run of a user with no other run holding or waiting waits for the turn in progress and
 * one turn of each other user already waiting, at most. With two users that is the turn in
 * progress only, one deadline, within the wait's bound.
 *
 * A waiter is never woken by the run that lets go: that run is another thread's, and in workerd a
 * promise resolved from one Durable Object's I/O context continues in that context, not its own (a
 * waiter's run then did its thread's I/O as the other thread, which threw "Cannot perform I/O on
 * behalf of a different Durable Object", and its thread's request never completed). The release
 * only marks the next waiter's turn; each waiter looks for its turn on timers of its own context
 * (the next in line every {@link TURN_POLL_MS}), and ends its wait at once when its run ends
 * (cancelled, or its wait passed its bound: both come from its own context).
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { RunSession } from "./session.js";

/** The right to run on the engine; `release` once the run's runtime is freed. */
export interface EngineTurn {
  release(): void;
  /**
   * For a nested run's share: when the run that holds the turn expires (ms since the epoch). The
   * nested run ends by then too, so a turn lasts one deadline however late a run nests.
   */
  readonly until?: number;
}

/**
 * How often the next waiting run in line looks whether its turn came, in milliseconds: the most the
 * engine stays idle between one run letting go and the next starting.
 */
export const TURN_POLL_MS = 5;

/** How often a run further back in the queue looks (it can be next only once those ahead left). */
const QUEUED_POLL_MS = 50;

/**
 * How long past the deadline of every run on the holder's turn the engine waits for the turn to be
 * let go before it takes the turn as lost, in milliseconds: its thread's Durable Object was aborted
 * mid-run (a restart, a deletion), so nothing of it runs again and it never lets go. A run alive that
 * long past its deadline has been ended by it long since.
 */
export const LOST_AFTER_MS = 10_000;

interface Waiter {
  readonly session: RunSession;
  readonly user: string;
  /** Set by `next` (in the releasing run's context); the waiter finds it in its own. */
  turn: EngineTurn | null;
}

/** The turn a run's host calls happen under (so a nested run finds its holder). */
const holding = new AsyncLocalStorage<EngineTurn>();

/** The holder's turn of each nested run's share: runs nested deeper share it too. */
const rootOf = new WeakMap<EngineTurn, EngineTurn>();

/** The user a run takes turns as (see the module's note on order); the prefixes keep an owner from naming a scope. */
function userOf(session: RunSession): string {
  const { owner, scope } = session.request;
  return owner ? `owner:${owner}` : `scope:${scope}`;
}

/**
 * The runs waiting for the QuickJS engine, in the order they get it (round robin over users, see
 * the module's note), and the turn that holds it.
 */
export class EngineTurns {
  private holder: EngineTurn | null = null;
  /** In the order they came. */
  private readonly waiting: Waiter[] = [];
  /** The users with waiting runs, in the order they get the engine. */
  private rotation: string[] = [];
  /** The user of the holder's turn: the last to have had the engine. */
  private holderUser: string | null = null;
  /** The runs on the holder's turn: the one that took it first, then the nested ones. */
  private sessions: RunSession[] = [];
  /** Counts the turns granted: a release of a turn taken as lost ({@link LOST_AFTER_MS}) is a no-op. */
  private granted = 0;

  /** @param lost called when a holder's turn is taken as lost: its engine may be mid-run, and is not used again. */
  constructor(private readonly lost: () => void = () => undefined) {}

  /**
   * Resolves with a turn once `session` may run, or with null when it ended while waiting
   * (cancelled, or its wait passed its bound: `RunSession` ends it either way).
   */
  take(session: RunSession): Promise<EngineTurn | null> | EngineTurn {
    const inherited = holding.getStore();
    // Only while the run that took the turn is open: a chain of nested runs cannot keep the engine.
    if (inherited && inherited === this.holder && !this.sessions[0]?.closed) return this.share(inherited, session);
    this.takeBackLost();
    // No holder means no one waits: `next` hands the engine on at each release.
    if (!this.holder) return this.grantNew(session);
    const waiter: Waiter = { session, user: userOf(session), turn: null };
    this.waiting.push(waiter);
    this.join(waiter.user);
    return this.wait(waiter);
  }

  /** Puts a user new to the rotation last, but ahead of the holder's user: it has just had its turn. */
  private join(user: string): void {
    if (this.rotation.includes(user)) return;
    const last = this.rotation.length - 1;
    if (last >= 0 && this.rotation[last] === this.holderUser) this.rotation.splice(last, 0, user);
    else this.rotation.push(user);
  }

  /** The run that gets the engine next: the earliest of the first user in the rotation. */
  private upNext(): Waiter | undefined {
    const user = this.rotation[0];
    return user === undefined ? undefined : this.waiting.find((w) => w.user === user);
  }

  /** Takes `waiter` out of the queue; a user left with no waiting run leaves the rotation. */
  private leave(waiter: Waiter): void {
    const at = this.waiting.indexOf(waiter);
    if (at < 0) return;
    this.waiting.splice(at, 1);
    if (!this.waiting.some((w) => w.user === waiter.user)) this.rotation = this.rotation.filter((u) => u !== waiter.user);
  }

  /**
   * Waits in the waiter's own I/O context (see the module's note) until `next` hands it the
   * engine, or its run ends first.
   */
  private async wait(waiter: Waiter): Promise<EngineTurn | null> {
    while (!waiter.turn && !waiter.session.closed) {
      this.takeBackLost();
      if (waiter.turn) break;
      const pause = this.upNext() === waiter ? TURN_POLL_MS : QUEUED_POLL_MS;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([waiter.session.ended, new Promise((resolve) => (timer = setTimeout(resolve, pause)))]);
      clearTimeout(timer);
    }
    if (waiter.turn) return waiter.turn;
    this.leave(waiter);
    return null;
  }

  /** The turn whole that `turn` is a share of (itself when it was granted whole). */
  rootOf(turn: EngineTurn): EngineTurn {
    return rootOf.get(turn) ?? turn;
  }

  /** Runs `fn` as the work of `turn`: runs it starts through host calls share the turn. */
  within<T>(turn: EngineTurn, fn: () => T): T {
    return holding.run(rootOf.get(turn) ?? turn, fn);
  }

  /** Runs on the holder's turn: its own run and the nested ones it started. */
  private holds = 0;


  private grantNew(session: RunSession, user = userOf(session)): EngineTurn {
    this.granted++;
    const turn: EngineTurn = { release: this.releaser() };
    this.holder = turn;
    this.holderUser = user;
    this.sessions = [session];
    this.holds = 1;
    return turn;
  }

  /**
   * A nested run's share of the holder's turn: the engine passes on only once every run on the
   * turn has ended, so a nested run that outlives its starter still runs alone with it.
   */
  private share(holder: EngineTurn, session: RunSession): EngineTurn {
    this.holds++;
    this.sessions.push(session);
    const turn = { release: this.releaser(), until: this.sessions[0]!.deadline };
    rootOf.set(turn, holder);
    return turn;
  }

  private releaser(): () => void {
    const of = this.granted;
    let released = false;
    return () => {
      if (released || of !== this.granted) return;
      released = true;
      if (--this.holds > 0) return;
      this.holder = null;
      this.sessions = [];
      this.next();
    };
  }

  /**
   * Takes the holder's turn as lost once every run on it is {@link LOST_AFTER_MS} past its
   * deadline (see there), and hands the engine on: a fresh one, since the lost run may be mid-run on
   * the old one. A run that waited past its own bound meanwhile ended `timeout`, never started.
   */
  private takeBackLost(): void {
    if (!this.holder) return;
    const now = Date.now();
    if (!this.sessions.every((s) => now > s.deadline + LOST_AFTER_MS)) return;
    this.granted++;
    this.holder = null;
    this.sessions = [];
    this.holds = 0;
    this.lost();
    this.next();
  }

  /** Hands the engine to the next waiter whose run is still open; its user goes last in the rotation. */
  private next(): void {
    while (!this.holder) {
      const waiter = this.upNext();
      if (!waiter) return;
      this.leave(waiter);
      if (waiter.session.closed) continue;
      if (this.rotation[0] === waiter.user) this.rotation.push(this.rotation.shift()!);
      waiter.turn = this.grantNew(waiter.session, waiter.user);
    }
  }
}
