/**
 * One connection to a remote MCP server, through the MCP SDK's client over Streamable HTTP (or
 * the older HTTP+SSE), as
 * the Durable Object holds it: initialized on first use, re-initialized when the server forgot
 * the session (or after the object was evicted, when there is none to forget), listing tools a
 * page at a time within bounds of the whole list (tools, bytes, pages, one deadline), and
 * turning every failure into a weft error with an `mcp_*` code.
 * The declaration's literal header values are secrets the server gets and may say back: every
 * answer (tool list, result, error) is cleaned of them before anything else in weft sees it.
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, ErrorCode, ListToolsResultSchema, McpError, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import { byteLength } from "../bytes.js";
import { WeftError, errorMessage } from "../errors.js";
import { DEFAULT_CALL_TIMEOUT_MS } from "../calls/execute.js";
import { Redactor } from "../secrets/redact.js";
import type { McpServerDefinition } from "./define.js";
import { MAX_ANSWER_BYTES, failingOnCut, guardedFetch } from "./fetch.js";
import { type RemoteToolInfo, keptOf } from "./kept-tool.js";

/** `_meta` key and capability name of weft's effect-key extension (docs/remote-mcp.md; served by src/mcp/server.ts). */
export const EFFECT_KEY_META = "weft/effectKey";

/** Most tools weft takes from one server; a longer list is refused whole (`mcp_protocol_error`). */
export const MAX_REMOTE_TOOLS = 256;

/**
 * Deadline of a whole listing of a server's tools, all its pages and connecting included, in
 * milliseconds (a server's `timeoutMs` when shorter); past it the listing fails `mcp_unreachable`.
 */
export const LIST_TIMEOUT_MS = 10_000;

/**
 * Most bytes of a server's whole tool list, all its pages together (each answer as JSON text);
 * past it the listing fails `mcp_protocol_error` and nothing more is read. Each page is also an
 * answer, under {@link MAX_ANSWER_BYTES}.
 */
export const MAX_LIST_BYTES = 2 * 1024 * 1024;

/** Most pages of a server's tool list; a server still giving a next cursor after them fails `mcp_protocol_error`. */
export const MAX_LIST_PAGES = 32;

/**
 * Most time the `DELETE` that ends a Streamable HTTP session at its server is given, in
 * milliseconds (MCP's session termination: a client done with a session should send it). It goes
 * out beside whatever comes next, which never waits for it; unanswered by then it is cut, and
 * any answer (405: the server keeps no sessions to end) changes nothing.
 */
export const SESSION_END_MS = 2_000;

/** What a session is opened with: its request headers, and when they are to be read again (epoch ms). */
export interface SessionHeaders {
  headers: Record<string, string>;
  until?: number;
}

/** A JSON-RPC error the server answered a call with: its outcome is known (it says it failed). */
export class RemoteToolError extends Error {
  override readonly name = "RemoteToolError";
  /** @param code the JSON-RPC error code the server answered */
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

/** A connection to one declared server, shared by the calls of one thread. */
export class RemoteConnection {
  private client: Promise<Client> | null = null;
  /** The connected client of {@link client}, once connected. */
  private live: Client | null = null;
  /**
   * The window of weft's effect-key extension when the server announced it at its last
   * initialization (`experimental["weft/effectKey"]`), in milliseconds; null when it did not.
   */
  effectKeyWindowMs: number | null = null;
  private readonly url: URL;
  /**
   * The declaration's literal header values (src/secrets/redact.ts: 6 characters or more), and
   * the session's token (OAuth, or a bearer env value), cleaned out of every answer.
   */
  private redactor: Redactor;
  /** The `Authorization` value the session was opened with (an OAuth token), if any. */
  private sentAuthorization: string | undefined;
  /** The token the server refused (401): the next session asks for another (src/remote/authorizer.ts). */
  private rejected: string | undefined;
  /** When the session's token is to be renewed (epoch ms), if it expires. */
  private sessionUntil: number | undefined;

  /**
   * `headers`: read when a session begins and sent with each of its requests, only to the
   * server's origin (guardedFetch); a throw fails the connection with `mcp_auth_required`. For an
   * OAuth server it is given the token the server refused (401) once, to get a refreshed one,
   * and its `until` ends the session (the next one reads them again) before the token expires.
   * `callTimeoutMs`: the deployment's call deadline (`WEFT_CALL_TIMEOUT_MS`), for a server
   * without `timeoutMs`: no answer is read past the deadline of the request it answers.
   */
  constructor(
    readonly server: string,
    private readonly def: McpServerDefinition,
    private readonly headers: (rejected?: string) => Promise<SessionHeaders> = async () => ({ headers: {} }),
    private readonly callTimeoutMs = DEFAULT_CALL_TIMEOUT_MS,
  ) {
    this.url = new URL(def.url);
    this.redactor = new Redactor(Object.entries(def.headers ?? {}).map(([name, value]) => ({ name, value })));
  }

  /** The longest any answer is read: the server's call deadline (listing's is shorter). */
  private get answerMs(): number {
    return Math.max(this.def.timeoutMs ?? this.callTimeoutMs, this.listTimeoutMs);
  }

  /** Deadline of connecting, and of a whole listing: {@link LIST_TIMEOUT_MS}, or the server's `timeoutMs` when shorter. */
  private get listTimeoutMs(): number {
    return Math.min(this.def.timeoutMs ?? LIST_TIMEOUT_MS, LIST_TIMEOUT_MS);
  }

  /**
   * Every tool the server lists (all pages), each cut to the fields weft reads ({@link RemoteToolInfo}):
   * the whole listing within {@link MAX_REMOTE_TOOLS} tools, {@link MAX_LIST_BYTES} bytes,
   * {@link MAX_LIST_PAGES} pages and one deadline ({@link listTimeoutMs}, connecting included).
   * @throws WeftError `mcp_*`: past a bound, `mcp_protocol_error` (tools, bytes, pages) or `mcp_unreachable` (time), naming the server and the bound.
   */
  async listTools(): Promise<RemoteToolInfo[]> {
    const ms = this.listTimeoutMs;
    const deadline = Date.now() + ms;
    const late = () => new WeftError("mcp_unreachable", `mcp server "${this.server}" timed out: it did not list its tools within ${ms} ms (the deadline of a whole listing, all its pages)`, { mcpServer: this.server, limitMs: ms });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = { stopped: false };
    const pages = this.pages(deadline, stop, late);
    // A page still under way at the deadline is dropped: its answer is capped (one answer's bytes and deadline).
    pages.catch(() => undefined);
    this.listings++;
    try {
      return await Promise.race([pages, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(late()), ms)))]);
    } finally {
      stop.stopped = true;
      clearTimeout(timer);
      if (--this.listings === 0 && this.retired && this.inFlight === 0) void this.close();
    }
  }

  /** The pages of {@link listTools}, each asked within what is left of `deadline`; none once `stop.stopped`. */
  private async pages(deadline: number, stop: { stopped: boolean }, late: () => WeftError): Promise<RemoteToolInfo[]> {
    const tools: RemoteToolInfo[] = [];
    const details = { mcpServer: this.server };
    let bytes = 0;
    let cursor: string | undefined;
    for (let page = 1; ; page++) {
      const left = deadline - Date.now();
      if (stop.stopped || left <= 0) throw late();
      const params = cursor === undefined ? {} : { cursor };
      // `request`, not the SDK's `listTools`, which keeps a compiled validator of each tool's outputSchema from the last page.
      const answer = await this.ask((client, cut) => client.request({ method: "tools/list", params }, ListToolsResultSchema, { timeout: left, signal: cut })).catch((e: unknown) => {
        throw Date.now() >= deadline ? late() : e;
      });
      bytes += byteLength(JSON.stringify(answer));
      if (bytes > MAX_LIST_BYTES) {
        throw new WeftError("mcp_protocol_error", `mcp server "${this.server}" lists more than ${MAX_LIST_BYTES} bytes of tools over all its pages (the limit of a whole listing); it was read no further`, { ...details, limit: MAX_LIST_BYTES });
      }
      for (const tool of answer.tools) tools.push(keptOf(tool, this.redactor));
      if (tools.length > MAX_REMOTE_TOOLS) {
        throw new WeftError("mcp_protocol_error", `mcp server "${this.server}" lists more than ${MAX_REMOTE_TOOLS} tools; weft takes at most ${MAX_REMOTE_TOOLS} from one server (name the ones you need in its tools allow-list)`, { ...details, limit: MAX_REMOTE_TOOLS });
      }
      cursor = answer.nextCursor;
      if (cursor === undefined) return tools;
      if (page >= MAX_LIST_PAGES) {
        throw new WeftError("mcp_protocol_error", `mcp server "${this.server}" lists its tools in more than ${MAX_LIST_PAGES} pages (the limit of a whole listing); it was read no further`, { ...details, limit: MAX_LIST_PAGES });
      }
    }
  }

  /**
   * Calls `name` once (a session the server forgot is re-initialized and the call sent again:
   * a 404 for the session means the server never took it).
   * @throws RemoteToolError for a JSON-RPC error answer; WeftError `mcp_*` for anything else.
   */
  async callTool(name: string, args: Record<string, unknown>, signal: AbortSignal, effectKey?: string, keyed = false): Promise<CallToolResult> {
    const answer = await this.ask((client, cut) => {
      // Only to a server whose session announced the extension: another would keep or echo an unknown key.
      const key = effectKey !== undefined && this.effectKeyWindowMs !== null;
      if (keyed && !key) {
        // Retried as a keyed call, it would run again at each try: not sent, and the tools listed again.
        this.onListChanged?.();
        throw new WeftError("mcp_protocol_error", `mcp server "${this.server}" no longer announces weft's effect-key extension, which made ${name} safe to retry; the call was not sent (its tools are listed again before the next one)`);
      }
      const params = { name, arguments: args, ...(key ? { _meta: { [EFFECT_KEY_META]: effectKey } } : {}) };
      // The pipeline's deadline fires `signal`; the SDK's own timeout is only a backstop.
      return client.callTool(params, undefined, { signal: AbortSignal.any([signal, cut]), timeout: 24 * 3600_000 }) as Promise<CallToolResult>;
    });
    const clean = this.redactor.content(answer); // the server's data: a header it says back as a number is found too
    // Bytes (an image, a recording) may hold a header or token too, in any of its encodings.
    for (const part of clean.content ?? []) if (part.type === "image" || part.type === "audio") part.data = this.redactor.base64(part.data);
    return clean;
  }

  /**
   * Drops the session; the next request initializes a new one. A Streamable HTTP session is also ended at its server
   * ({@link SESSION_END_MS}), with the headers it was opened with: not waited for, or with `waited` until that `DELETE` is answered or cut.
   */
  async close(waited = false): Promise<void> {
    const { ended } = await this.drop(true);
    if (waited) await ended;
  }

  /** Closes the connection once no request is under way (at once when none is; a listing is one over all its pages, whose cursors may hold in their session only), and each session a later request opens once it is done: for a holder that lets go of it while another's request may use it. */
  retire(): void {
    this.retired = true;
    if (this.inFlight === 0 && this.listings === 0) void this.close();
  }

  /** Set by {@link retire}; and the listings under way, each one request over its pages. */
  private retired = false;
  private listings = 0;

  /** Drops the session; `end`: and ends it at the server (not for one the server said it forgot), `ended` once the DELETE is answered or cut. */
  private async drop(end: boolean): Promise<{ ended?: Promise<void> }> {
    const pending = this.client;
    this.client = null;
    const client = await pending?.catch(() => undefined);
    if (!client) return {};
    // Its closing is no longer news to a connection that let go of it (see connect's onclose).
    if (this.live === client) this.live = null;
    const transport = client.transport;
    if (!end || !(transport instanceof StreamableHTTPClientTransport) || transport.sessionId === undefined) return client.close().then(() => ({}), () => ({}));
    // Closing the client aborts the DELETE under way: it is closed once the DELETE is answered or cut.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const cut = new Promise<void>((resolve) => (timer = setTimeout(resolve, SESSION_END_MS)));
    const ended = Promise.race([transport.terminateSession().catch(() => undefined), cut]).finally(() => {
      clearTimeout(timer);
      void client.close().catch(() => undefined);
    });
    return { ended };
  }

  /** Called when the server announces `notifications/tools/list_changed`. */
  onListChanged: (() => void) | undefined;

  /** Requests under way; an HTTP+SSE session is closed when none is left. */
  private inFlight = 0;

  private async ask<T>(request: (client: Client, cut: AbortSignal) => Promise<T>): Promise<T> {
    this.inFlight += 1;
    try {
      return await this.askOnce(request);
    } finally {
      // The HTTP+SSE transport holds a stream open for its whole session, which would keep the
      // Durable Object from being evicted: its session lasts only while requests are under way.
      if (--this.inFlight === 0 && (this.def.transport === "sse" || (this.retired && this.listings === 0))) await this.close();
    }
  }

  private async askOnce<T>(request: (client: Client, cut: AbortSignal) => Promise<T>): Promise<T> {
    // A session whose token nears its expiry is renewed, unless other requests still use it (a 401 then renews it).
    if (this.sessionUntil !== undefined && Date.now() >= this.sessionUntil && this.inFlight === 1) await this.close();
    if (this.def.auth?.type === "oauth" && this.client !== null) await this.checkToken();
    for (let tries = 1; ; tries++) {
      try {
        return await failingOnCut(async (cut) => request(await this.session(), cut));
      } catch (e) {
        if (tries === 1 && e instanceof StreamableHTTPError && e.code === 404) {
          // The server forgot the session: there is none to end.
          await this.drop(false);
          continue;
        }
        const failure = this.failure(e);
        // Refused credentials are read again (a rotated token) by the next session.
        if (failure instanceof WeftError && failure.code === "mcp_auth_required") {
          await this.close();
          // An OAuth token refused: once more with a refreshed one (the refusal came before the call was taken).
          if (tries === 1 && this.def.auth?.type === "oauth" && this.sentAuthorization !== undefined && (failure.details as { status?: number } | undefined)?.status === 401) {
            this.rejected = this.sentAuthorization.replace(/^Bearer /, "");
            continue;
          }
        }
        throw failure;
      }
    }
  }

  private session(): Promise<Client> {
    if (!this.client) {
      this.client = this.connect();
      this.client.catch(() => {
        this.client = null;
      });
    }
    return this.client;
  }

  /**
   * An OAuth session's token asked for again before each request: the user's account answers the token it holds now, so a connection revoked there (its tokens deleted) is used for nothing more, even by a session opened before (the request fails `mcp_auth_required` with the URL to authorize again; that session is ended now, its token's last use, not at a later renewal);
   * a token replaced there (refreshed, authorized again) opens a new session unless other requests still use this one.
   */
  private async checkToken(): Promise<void> {
    const read = await this.readHeaders(undefined).catch(async (e: unknown) => {
      if (e instanceof WeftError && e.code === "mcp_auth_required") await this.close();
      throw e;
    });
    if (read.headers.Authorization === this.sentAuthorization || this.inFlight > 1) return;
    await this.close();
    this.fresh = read;
  }

  /** Headers read by {@link checkToken} for the session it closed: the next one opens with them. */
  private fresh: SessionHeaders | undefined;

  /** The session's headers. @throws WeftError `mcp_auth_required` (with the account's URL) or another `mcp_*` as the account answered. */
  private async readHeaders(rejected: string | undefined): Promise<SessionHeaders> {
    try {
      return await this.headers(rejected);
    } catch (e) {
      // The account's answer (an authorization URL, an unreachable authorization server) as it is.
      if (e instanceof WeftError && (e.code.startsWith("mcp_") || e.code === "capability_missing")) throw e;
      throw new WeftError("mcp_auth_required", `mcp server "${this.server}": its credentials could not be read: ${errorMessage(e)}`, { mcpServer: this.server });
    }
  }

  private async connect(): Promise<Client> {
    const fresh = this.rejected === undefined ? this.fresh : undefined;
    this.fresh = undefined;
    const read = fresh ?? (await this.readHeaders(this.rejected));
    const headers = read.headers;
    this.sessionUntil = read.until;
    this.rejected = undefined;
    this.sentAuthorization = this.def.auth?.type === "oauth" ? headers.Authorization : undefined;
    // The session's token (OAuth or bearer) is cleaned from what this server says, here: a listing
    // outside a thread has no thread redactor, and cleaning it of other servers' tokens would let a
    // server that says back what its user chose answer whether a guess is one of them.
    const token = headers.Authorization?.replace(/^Bearer /, "");
    this.redactor = new Redactor([...Object.entries(this.def.headers ?? {}).map(([name, value]) => ({ name, value })), ...(token ? [{ name: "Authorization", value: token }] : [])]);
    const transport =
      this.def.transport === "sse"
        ? new SSEClientTransport(this.url, { fetch: guardedFetch(this.url, MAX_ANSWER_BYTES, true, this.answerMs), requestInit: { headers }, eventSourceInit: { fetch: guardedFetch(this.url, MAX_ANSWER_BYTES, true, this.answerMs) } })
        : new StreamableHTTPClientTransport(this.url, { fetch: guardedFetch(this.url, MAX_ANSWER_BYTES, false, this.answerMs), requestInit: { headers } });
    const client = new Client({ name: "weft", version: "1" }, { capabilities: {}, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
    // `tools/list_changed` reaches weft only on a stream it reads: an answer's event stream (or the
    // HTTP+SSE session's) while a request is under way; the list is taken again before the next step.
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.onListChanged?.());
    // A closed transport (an SSE stream ended, the object's I/O cut) leaves no client behind to reuse.
    client.onclose = () => {
      if (this.live !== client) return;
      this.live = null;
      this.client = null;
    };
    try {
      await client.connect(transport, { timeout: this.listTimeoutMs });
    } catch (e) {
      const opened = transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined;
      await client.close().catch(() => undefined);
      // A 404 once the server gave a session id: it forgot the session it just opened (a
      // restart), which askOnce treats as any forgotten session.
      if (opened && e instanceof StreamableHTTPError && e.code === 404) throw e;
      throw this.failure(e);
    }
    this.live = client;
    const announced = client.getServerCapabilities()?.experimental?.[EFFECT_KEY_META] as { windowMs?: unknown } | undefined;
    const window = announced?.windowMs;
    this.effectKeyWindowMs = typeof window === "number" && Number.isInteger(window) && window > 0 ? window : null;
    return client;
  }

  /**
   * Any failure as a weft error with an `mcp_*` code (or {@link RemoteToolError} for a server's
   * answer), its message and details cleaned of the declaration's header values (a server's
   * error text, a redirect's location or an SDK message may carry them).
   */
  private failure(e: unknown): Error {
    const failure = this.classify(e);
    if (this.redactor.secrets.length === 0) return failure;
    if (failure instanceof RemoteToolError) return new RemoteToolError(this.redactor.text(failure.message), failure.code);
    if (failure instanceof WeftError) return new WeftError(failure.code, this.redactor.text(failure.message), this.redactor.value(failure.details));
    return failure;
  }

  private classify(e: unknown): Error {
    const at = `mcp server "${this.server}" (${this.url.origin})`;
    const details = { mcpServer: this.server };
    if (e instanceof WeftError || e instanceof RemoteToolError) return e;
    if (e instanceof McpError) {
      if (e.code === ErrorCode.RequestTimeout || e.code === ErrorCode.ConnectionClosed) return new WeftError("mcp_unreachable", `${at}: ${e.message}`, details);
      // The SDK prefixes "MCP error <code>: " to the server's own message.
      return new RemoteToolError(`${at} answered JSON-RPC error ${e.code}: ${e.message.replace(/^MCP error -?\d+: /, "")}`, e.code);
    }
    if (e instanceof StreamableHTTPError) {
      const status = e.code ?? -1;
      if (status === 401 || status === 403) return new WeftError("mcp_auth_required", `${at} answered ${status}: it needs credentials weft does not have for it`, { ...details, status });
      if (status === 408 || status === 429 || status >= 500) return new WeftError("mcp_unreachable", `${at} answered HTTP ${status}`, { ...details, status });
      return new WeftError("mcp_protocol_error", `${at}: ${e.message}`, { ...details, status });
    }
    if (e instanceof Error && e.name === "AbortError") return e;
    return new WeftError("mcp_protocol_error", `${at} answered something that is not MCP: ${errorMessage(e)}`, details);
  }
}
