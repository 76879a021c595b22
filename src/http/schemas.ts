/**
 * Every route's request schema, in one place: bodies and query strings, as zod schemas that the
 * validator middleware (validate.ts) applies. A mismatch is `invalid_request` naming the path.
 * @module
 */
import * as z from "zod";
import { MAX_ENV_NAME_CHARS, MAX_THREAD_ENV_VALUES, NOT_A_CURSOR, type PagedList, isPageSize, pageSizeRule } from "../limits.js";
import { CALL_STATUSES } from "../protocol.js";
import { turnSettingsSchema } from "../models/settings.js";
import { messageContentSchema } from "../content/parts.js";

const EnvValue = z.union([z.string(), z.object({ value: z.string(), type: z.enum(["text", "secret"]).optional() })], {
  error: 'expected a string, or { "value": string, "type"?: "text" | "secret" }',
});
/** A thread's env (`POST /threads`): at most {@link MAX_THREAD_ENV_VALUES} values, names of at most {@link MAX_ENV_NAME_CHARS} characters (never echoed). */
const ThreadEnv = z.record(z.string(), EnvValue).superRefine((env, ctx) => {
  const names = Object.keys(env);
  if (names.length > MAX_THREAD_ENV_VALUES) ctx.addIssue({ code: "custom", message: `${names.length} values, over the ${MAX_THREAD_ENV_VALUES} a thread may be made with` });
  const long = names.find((name) => name.length > MAX_ENV_NAME_CHARS);
  if (long !== undefined) ctx.addIssue({ code: "custom", message: `a name of ${long.length} characters, over the ${MAX_ENV_NAME_CHARS} a name may have` });
});
const Token = z.string().regex(/^[^:]+:.+$/, "expected <channelId>:<key>");
// The validator puts the parameter's name before each message, so the messages here leave it out.
const WholeNumber = z
  .string()
  .regex(/^\d{1,15}$/, "expected a whole number (0 or more)")
  .transform(Number);
const Int = WholeNumber.optional();

/** Fields naming a person: accepted and dropped, since who acts is always the verified caller. */
const PERSON_FIELDS = ["userId"];

/**
 * `z.object(fields)` that refuses any other top-level key by name with `message`, instead of
 * dropping it: a misspelt field (`agnet`, `scirpt`) would otherwise pass and its default apply.
 * The keys in `ignored` are accepted and dropped.
 */
export function closedObject<T extends z.ZodRawShape>(fields: T, message: string, ignored: readonly string[] = PERSON_FIELDS) {
  const known = new Set([...Object.keys(fields), ...ignored]);
  return z.preprocess((value, ctx) => {
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      for (const key of Object.keys(value)) if (!known.has(key)) ctx.issues.push({ code: "custom", path: [key], message, input: value });
    }
    return value;
  }, z.object(fields));
}

/** One message of an earlier conversation a thread starts from (`POST /threads` `history`). */
const HistoryMessage = closedObject(
  {
    role: z.enum(["user", "assistant", "system", "tool"]),
    content: z.string(),
    toolCalls: z.array(z.object({ id: z.string().min(1), name: z.string().min(1), arguments: z.string() })).optional(),
    toolCallId: z.string().min(1).optional(),
    name: z.string().min(1).optional(),
    isError: z.boolean().optional(),
  },
  "unknown field; a history message's fields are role, content, toolCalls, toolCallId, name and isError",
  [],
);

/** Body of `POST /threads`. The owner is the verified caller; a `userId` field is ignored. */
export const CreateThreadBody = closedObject(
  {
    agent: z.string().min(1).optional(),
    arguments: z.record(z.string(), z.unknown()).optional(),
    script: z.array(z.unknown()).optional(),
    env: ThreadEnv.optional(),
    dryRun: z.boolean().optional(),
    asOf: z.iso.datetime({ offset: true }).optional(),
    history: z.array(HistoryMessage).optional(),
    continuationToken: Token.optional(),
  },
  "unknown field; the fields are agent, arguments, script, env, dryRun, asOf, history and continuationToken",
);

/** Body of `POST /threads/:id/messages`. */
export const PostMessageBody = closedObject(
  {
    content: messageContentSchema,
    role: z.enum(["user", "system"]).optional(),
    script: z.array(z.unknown()).optional(),
    modelSettings: turnSettingsSchema.optional(),
  },
  "unknown field; the fields are content, role, script and modelSettings",
);

/** Body of `POST .../approve`; who approves is the verified caller, never a field. */
export const ApproveBody = z.object({ argsHash: z.string().optional() });

/** Body of `POST .../deny`. */
export const DenyBody = z.object({ reason: z.string().optional() });

/** Body of `POST .../settle`. */
export const SettleBody = z.discriminatedUnion("outcome", [
  z.object({ outcome: z.literal("succeeded"), result: z.string() }),
  z.object({ outcome: z.literal("failed"), error: z.string().min(1) }),
  z.object({ outcome: z.literal("retry") }),
]);

/**
 * Body of `POST .../result`: a client tool's result (any JSON value; a string is taken as the
 * result text, anything else as its JSON text) or an `error` the model sees; exactly one.
 */
export const AnswerBody = z
  .strictObject({ result: z.json().optional(), error: z.string().min(1).optional() })
  .refine((b) => ("result" in b) !== ("error" in b), { message: "give exactly one of result or error" });

/**
 * Body of `POST /v1/tools/:name`: `sessionId` and `continuationToken` are mutually exclusive.
 * Any other top-level key is refused by name: it is almost always a tool argument that belongs
 * inside `input`.
 */
export const DirectCallBody = closedObject(
  {
    input: z.unknown().optional(),
    sessionId: z.string().min(1).optional(),
    continuationToken: z.string().optional(),
  },
  'unknown field; did you mean {"input": {...}}?',
  [],
);

/**
 * {@link DirectCallBody}'s output for the body agents send, found without zod: an object with no
 * other key than `input`, a non-empty `sessionId` string and a `continuationToken` string gives the
 * fields it has, in the schema's order, as zod does. Null for any other body, which goes to
 * `DirectCallBody` to be refused in its words (test/http/direct-lane.test.ts compares the two).
 */
export function plainDirectCallBody(value: unknown): z.output<typeof DirectCallBody> | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const given = value as Record<string, unknown>;
  const body: z.output<typeof DirectCallBody> = {};
  let fields = 0;
  if ("input" in given) {
    body.input = given.input;
    fields++;
  }
  if ("sessionId" in given) {
    if (typeof given.sessionId !== "string" || given.sessionId === "") return null;
    body.sessionId = given.sessionId;
    fields++;
  }
  if ("continuationToken" in given) {
    if (typeof given.continuationToken !== "string") return null;
    body.continuationToken = given.continuationToken;
    fields++;
  }
  return Object.keys(given).length === fields ? body : null;
}

/** Body of `PUT /account/env/:name`; a value is a secret unless `type` says `text`. */
export const AccountEnvBody = z.object({ value: z.string(), type: z.enum(["text", "secret"]).optional() });

/** Query of `GET /account/usage`: UTC days `from`..`to` (`YYYY-MM-DD`, inclusive) and the grouping. */
export const AccountUsageQuery = z.object({
  from: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "expected a UTC day as YYYY-MM-DD").optional(),
  to: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "expected a UTC day as YYYY-MM-DD").optional(),
  groupBy: z.enum(["agent", "model", "day"]).optional(),
  limit: pageLimit("usageGroups"),
  cursor: z.string().min(1, NOT_A_CURSOR).optional(),
});

/** Body of `PUT /account/budgets`: the caller's own budgets, replacing those set before (checked by the account: src/usage/budgets.ts). */
export const BudgetsBody = z.object({ budgets: z.array(z.record(z.string(), z.unknown())) });

/**
 * Body of `POST /mcp-servers`: a server's `name` and the options of `defineMcpServer` (their rules
 * are src/remote/define.ts `checkUserMcpServer`, one source with the build's).
 */
export const UserMcpServerBody = closedObject(
  {
    name: z.string(),
    url: z.string(),
    transport: z.unknown().optional(),
    auth: z.unknown().optional(),
    tools: z.unknown().optional(),
    effects: z.unknown().optional(),
    needsApproval: z.unknown().optional(),
    headers: z.unknown().optional(),
    timeoutMs: z.unknown().optional(),
  },
  "unknown field; the fields are name, url, transport, auth, tools, effects, needsApproval and timeoutMs",
  [],
);

/**
 * Body of `POST /mcp-oauth/complete`: the `state`, `code` and `iss` (RFC 9207) the authorization
 * server sent back to `GET /mcp-oauth/callback`, as its page hands them over. No user field: who
 * completes is the verified caller.
 */
export const McpAuthorizationBody = closedObject(
  { state: z.string().min(1).max(8192), code: z.string().min(1).max(4096), iss: z.string().max(2048).optional() },
  "unknown field; the fields are state, code and iss",
  [],
);

/**
 * `?limit=` of a paged list: a whole number within the list's page sizes (src/limits.ts). Every
 * refusal, text that is no number included, states the range.
 */
function pageLimit(list: PagedList) {
  const rule = pageSizeRule(list);
  return z
    .string()
    .regex(/^\d{1,15}$/, rule)
    .transform(Number)
    .refine((n) => isPageSize(list, n), rule)
    .optional();
}

/** Query of `GET /threads/:id/messages`. */
export const MessagesQuery = z.object({
  limit: pageLimit("messages"),
  offset: Int,
  maxDepth: Int,
  before: Int,
  after: Int,
  order: z.enum(["asc", "desc"]).optional(),
  includeSilent: z.enum(["true", "false", "1", "0"]).optional(),
});

/** Query of `GET /threads/:id/calls`: `offset` pages on past a page that `hasMore` says was cut. */
export const CallsQuery = z.object({ status: z.enum(CALL_STATUSES).optional(), limit: pageLimit("calls"), offset: Int });

/** Query of `GET /threads/:id/files`: by path, `cursor` from the previous page's `nextCursor`. */
export const FilesQuery = z.object({ limit: pageLimit("files"), cursor: z.string().min(1, NOT_A_CURSOR).optional() });

/** Query of `GET /threads`: newest first, `cursor` from the previous page's `nextCursor`. */
export const ThreadsQuery = z.object({
  limit: pageLimit("threads"),
  cursor: z.string().min(1, NOT_A_CURSOR).optional(),
});

/** Query of `GET /account/waiting`: `limit` threads of the caller's index, `cursor` from the previous page's `nextCursor`. */
export const WaitingQuery = z.object({
  limit: pageLimit("waiting"),
  cursor: z.string().min(1, NOT_A_CURSOR).optional(),
});

/** Query of `GET /threads/:id/schedules`: creation order, `cursor` from the previous page's `nextCursor`. */
export const SchedulesQuery = z.object({
  limit: pageLimit("schedules"),
  cursor: z.string().min(1, NOT_A_CURSOR).optional(),
});

/**
 * Query of `GET /threads/:id/ws`, each parameter once. The thread checks the values (a `since`
 * above its newest seq, a `batch` other than 0 or 1), since only it knows its newest seq.
 */
export const WsQuery = z.object({
  since: z.string().optional(),
  createdAt: z.string().optional(),
  batch: z.string().optional(),
  access_token: z.string().optional(),
});
