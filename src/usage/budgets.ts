/**
 * Budgets: ceilings on tokens and on cost, per thread, per user (all the user's threads) or per
 * agent (the user's threads of one agent), over a turn, a UTC day, a UTC month or for ever. They
 * come from three places: an agent definition's `budgets`, the deployment's `WEFT_BUDGETS`, and
 * each user's own through `PUT /account/budgets`. Every budget that applies to a request must
 * hold; the reservations that enforce them are kept in the user's account (reservations.ts).
 * @module
 */
import { WeftError } from "../errors.js";
import { jsonSetting } from "../config.js";
import { TOOL_NAME_PATTERN } from "../tools/define.js";

/** Where a budget counts: one thread, all of one user's threads, or one user's threads of one agent. */
export type BudgetScope = "thread" | "user" | "agent";
/**
 * The window a budget counts over; `day` and `month` are UTC calendar periods; `turn` is one
 * thread's turn (an agent called as a tool runs in a child thread whose turns count on their own).
 */
export type BudgetPeriod = "turn" | "day" | "month" | "lifetime";

/**
 * A ceiling. `tokens` counts input and output tokens together; `costUsd` is dollars at the price
 * table in force (a cost budget refuses a model with no price, whose cost would be unknown). At least
 * one of the two is set.
 */
export interface Budget {
  scope: BudgetScope;
  period: BudgetPeriod;
  tokens?: number;
  costUsd?: number;
  /** For `scope: "agent"` set by the deployment or a user: the agent it limits; absent, each agent. */
  agent?: string;
}

const DEPLOYMENT = "deployment";

/**
 * Whether a budget is the deployment's (`WEFT_BUDGETS`): it caps what the deployment pays, so it
 * neither limits nor counts requests the user pays for (made with a key the user supplied, or to an
 * endpoint the user named, at a thread or user env level). An agent's budgets and the user's own
 * count every request.
 */
export function isDeploymentBudget(budget: NamedBudget): boolean {
  return budget.id.startsWith(`${DEPLOYMENT}#`);
}

/** A budget with where it was set (`agent:<id>`, `deployment`, `user`) and its place there, as refusals name it. */
export interface NamedBudget extends Budget {
  /** `<source>#<index>`, for example `deployment#0`. */
  id: string;
}

const SCOPES: readonly BudgetScope[] = ["thread", "user", "agent"];
const PERIODS: readonly BudgetPeriod[] = ["turn", "day", "month", "lifetime"];

/** Budgets a user may set on their account, at most. */
export const MAX_BUDGETS = 32;

/**
 * Checks a list of budgets.
 * @throws WeftError `code` (default `invalid_request`) naming the offending path (`[...path, i, key]`).
 */
export function checkBudgets(value: unknown, path: (string | number)[], code: "invalid_request" | "invalid_config" = "invalid_request"): Budget[] {
  const fail = (at: (string | number)[], rule: string): never => {
    throw new WeftError(code, `${[...path, ...at].join(".")}: ${rule}`, { path: [...path, ...at] });
  };
  if (!Array.isArray(value)) fail([], "expected an array of budgets");
  const list = value as unknown[];
  if (list.length > MAX_BUDGETS) fail([], `at most ${MAX_BUDGETS} budgets`);
  return list.map((raw, i) => {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) fail([i], "expected { scope, period, tokens?, costUsd?, agent? }");
    const b = raw as Record<string, unknown>;
    for (const key of Object.keys(b)) if (!["scope", "period", "tokens", "costUsd", "agent"].includes(key)) fail([i, key], "unknown key");
    if (!SCOPES.includes(b.scope as BudgetScope)) fail([i, "scope"], `expected one of ${SCOPES.join(", ")}`);
    if (!PERIODS.includes(b.period as BudgetPeriod)) fail([i, "period"], `expected one of ${PERIODS.join(", ")}`);
    if (b.tokens !== undefined && !(Number.isSafeInteger(b.tokens) && (b.tokens as number) >= 0)) fail([i, "tokens"], "expected a whole number of tokens, at least 0");
    if (b.costUsd !== undefined && !(typeof b.costUsd === "number" && Number.isFinite(b.costUsd) && b.costUsd >= 0)) fail([i, "costUsd"], "expected dollars, at least 0");
    if (b.tokens === undefined && b.costUsd === undefined) fail([i], "set tokens, costUsd or both");
    if (b.agent !== undefined && (typeof b.agent !== "string" || b.scope !== "agent")) fail([i, "agent"], 'a string, only with scope "agent"');
    // Agents are named by the tools' rule: a name no agent can have is refused, not stored.
    if (typeof b.agent === "string" && !TOOL_NAME_PATTERN.test(b.agent)) fail([i, "agent"], `an agent's name (${TOOL_NAME_PATTERN.source})`);
    return b as unknown as Budget;
  });
}


/**
 * The deployment's budgets: `WEFT_BUDGETS`, a JSON array of {@link Budget}; unset, none.
 * @throws WeftError `invalid_config` for a value that is not such an array.
 */
export function deploymentBudgets(env: Readonly<Record<string, unknown>>): Budget[] {
  return jsonSetting(env, "WEFT_BUDGETS", (value) => checkBudgets(value, ["WEFT_BUDGETS"], "invalid_config")) ?? [];
}

/**
 * The budgets a request of a thread of `agentId` must hold, from the agent and the deployment
 * (the account adds the user's own): an agent's `scope: "agent"` budget limits that agent, and a
 * deployment's agent budget naming another agent does not apply. A request the user pays for
 * (`userPaid`: their own key or endpoint) is not limited by the deployment's budgets, which cap
 * what the deployment spends (see {@link isDeploymentBudget}).
 */
export function budgetsFor(agentId: string, agentBudgets: readonly Budget[] | undefined, env: Readonly<Record<string, unknown>>, userPaid = false): NamedBudget[] {
  const fromAgent = (agentBudgets ?? []).map((b, i) => ({ ...b, ...(b.scope === "agent" ? { agent: agentId } : {}), id: `agent:${agentId}#${i}` }));
  const fromDeployment = userPaid ? [] : deploymentBudgets(env).map((b, i) => ({ ...b, id: `${DEPLOYMENT}#${i}` }));
  return [...fromAgent, ...fromDeployment].filter((b) => b.scope !== "agent" || b.agent === undefined || b.agent === agentId);
}
