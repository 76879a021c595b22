/**
 * What a user's account answers over the API, as types only: weft/client's declarations reach
 * them without the account's Durable Object code (src/account/api.ts, src/account/mcp-servers.ts).
 * @module
 */
import type { AccountEntry } from "../ports/threads.js";
import type { McpServerDefinition } from "../remote/define.js";
import type { PersonWaitStatus } from "../records.js";

/** A page of `GET /threads`: newest first; `nextCursor` is null on the last page. */
export interface ThreadPage {
  threads: AccountEntry[];
  nextCursor: string | null;
}

/** A server as `GET /mcp-servers` shows it. */
export interface UserMcpServer {
  /** The server's name (`^[a-z][a-z0-9_]{0,31}$`); its tools are offered as `<name>__<tool>`. */
  name: string;
  /** The options as `defineMcpServer` returns them (`kind: "mcp"`). */
  definition: McpServerDefinition;
  /** When it was added or last replaced (epoch ms). */
  createdAt: number;
}

/** A call that waits for a person, as `GET /account/waiting` lists it: what names it and why it waits (never its input). */
export interface WaitingCall {
  /** The thread it waits in (a direct call's kept scratch thread: its `sessionId`). */
  threadId: string;
  /** The agent that thread runs. */
  agentId: string;
  /** The call's id in its thread: what `approve`, `deny`, `settle` and `answerCall` name. */
  callId: string;
  /** The tool it calls. */
  toolName: string;
  /** `awaiting_approval`: approve or deny it; `parked`: settle it, or answer it (a client tool's call). */
  status: PersonWaitStatus;
  /** Why it is parked (a client tool's call: waiting for the client's answer); absent for an approval. */
  reason?: string;
  /** When the call was made (epoch ms): its record keeps no separate time its wait began. */
  since: number;
}

/** A thread of the page that answered nothing: gone, or failing (its calls show on a later ask). */
export interface WaitingProblem {
  /** The thread that did not answer. */
  threadId: string;
  /** weft's error code (`thread_not_found`, `internal_error`, ...). */
  code: string;
  /** What went wrong, for people. */
  message: string;
}

/**
 * A page of `GET /account/waiting`: the waiting calls of one page of the caller's threads (newest
 * thread first; in a thread, oldest call first). `nextCursor` pages on over the threads, null on the last.
 */
export interface WaitingPage {
  /** The waiting calls of this page's threads. */
  calls: WaitingCall[];
  /** Threads of this page that could not be read. */
  problems: WaitingProblem[];
  /** Threads with more waiting calls than this page shows (the oldest are): `GET /threads/:id/calls?status=` lists the rest. */
  more: string[];
  /** Pass it back as `cursor` for the next page of threads; null on the last. */
  nextCursor: string | null;
}

/**
 * What a user's account's own console lines are cleaned of besides the Worker's secrets: read by
 * its log owner (src/secrets/account-logs.ts) through `UserAccount.logLevels`.
 */
export interface AccountLogLevels {
  /** The Worker's env as the account has it (its secrets and weft's credentials). */
  workerEnv: Readonly<Record<string, unknown>>;
  /** Changes with every write of the account's env values (and so of its retired ones). */
  version(): number;
  /** The env rows and the retired secret values, read from the account's storage now. */
  read(): { values: Array<[string, { value: string; type: string }]>; retired: string[] };
}
