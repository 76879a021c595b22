/**
 * The rules of sides: which side takes the next model step, when a text answer hands the turn to
 * the other side or ends it, and how each side sees the conversation. One-sided agents run side
 * a only, and a text answer ends their turn.
 * @module
 */
import type { Message } from "../protocol.js";
import type { CallOutcome } from "../calls/call.js";
import type { Execution, Side, StepCounts } from "./execution.js";

/** What the loop needs to know about one side. */
export interface SideRules {
  side: Side;
  /** Upper bound on this side's model steps in one execution. */
  maxSteps?: number;
  /** A tool whose successful call stops the execution, `stoppedBy` this side. */
  stopTool?: string;
  /** A text answer of this side ends the execution. */
  endsTurn: boolean;
}

/** The rules of a one-sided run: side a, whose text answer ends it. */
export const ONE_SIDE: readonly SideRules[] = [{ side: "a", endsTurn: true }];

const other = (side: Side): Side => (side === "a" ? "b" : "a");

const rulesOf = (sides: readonly SideRules[], side: Side): SideRules | undefined => sides.find((s) => s.side === side);

/**
 * Picks the side for the next step: a side forced by `forceTurn` first, then the current side,
 * then the other side when the current one used up its `maxSteps`.
 * @returns null when it may go on; otherwise why the run ends.
 */
export function sideForStep(execution: Execution, sides: readonly SideRules[]): string | null {
  const forced = execution.takeForcedSide();
  if (forced && rulesOf(sides, forced)) execution.currentSide = forced;
  const spent = (side: Side) => {
    const max = rulesOf(sides, side)?.maxSteps;
    return max !== undefined && execution.steps[side] >= max;
  };
  if (!spent(execution.currentSide)) return null;
  const next = other(execution.currentSide);
  if (rulesOf(sides, next) && !spent(next)) {
    execution.currentSide = next;
    return null;
  }
  const max = (side: Side) => rulesOf(sides, side)?.maxSteps;
  if (!rulesOf(sides, next)) return `side ${execution.currentSide} reached its maxSteps (${max(execution.currentSide)}) model steps`;
  return `both sides reached their maxSteps (a ${max("a") ?? "unbounded"}, b ${max("b") ?? "unbounded"} model steps)`;
}

/**
 * After a text answer (a step with no calls): true when the turn goes on with the other side.
 * A side with `endsTurn` ends it, and in a two-sided run that side is `stoppedBy`.
 */
export function handOver(execution: Execution, sides: readonly SideRules[]): boolean {
  const rules = rulesOf(sides, execution.currentSide);
  if (sides.length < 2 || !rules || rules.endsTurn) {
    if (sides.length >= 2) execution.requestStop();
    return false;
  }
  execution.currentSide = other(execution.currentSide);
  return true;
}

/** After a step's calls: a successful call of the current side's stop tool stops the run. */
export function checkStopTool(execution: Execution, sides: readonly SideRules[], outcomes: readonly CallOutcome[]): void {
  const stopTool = rulesOf(sides, execution.currentSide)?.stopTool;
  if (stopTool !== undefined && outcomes.some((o) => o.toolName === stopTool && o.status === "succeeded")) execution.requestStop();
}

/**
 * The conversation as `side` sees it. With one side, the history as stored. With two, each side
 * is the assistant of its own messages: the other side's text answers arrive as user messages,
 * and the other side's tool calls and results stay out of view.
 */
export function historyFor(side: Side, twoSided: boolean, messages: readonly Message[]): Message[] {
  if (!twoSided) return [...messages];
  const out: Message[] = [];
  for (const m of messages) {
    if (m.side === undefined || m.side === side) {
      out.push(m);
    } else if (m.role === "assistant" && m.content !== "") {
      out.push({ id: m.id, role: "user", content: m.content, silent: m.silent, createdAt: m.createdAt, side: m.side });
    }
  }
  return out;
}

/**
 * Where a turn that resumes (after a restart or a person's decision) stands: its step counts,
 * overall (`total`, as stored) and per side (from the records of the steps it took), and the side that takes the next
 * step. That is the side of the last step, or the other side when the last step was a text answer
 * of a side that hands the turn over (`lastMessage` is the newest top-level message).
 */
export function resumePoint(
  sides: readonly SideRules[],
  total: number,
  records: ReadonlyArray<{ side?: Side }>,
  lastMessage: Pick<Message, "role" | "toolCalls" | "side"> | undefined,
): { steps: StepCounts; side: Side } {
  const b = records.filter((r) => r.side === "b").length;
  const steps = { total, a: total - b, b };
  const last = records.at(-1)?.side ?? "a";
  if (sides.length < 2) return { steps, side: "a" };
  const handedOver =
    lastMessage?.role === "assistant" && (lastMessage.toolCalls ?? []).length === 0 && lastMessage.side === last && rulesOf(sides, last)?.endsTurn === false;
  return { steps, side: handedOver ? other(last) : last };
}
