/**
 * What a model may call in each place of a thread: side a's names, side b's, or a running
 * prompt's. A name is a tool of `agents/tools/`, a prompt (run as a nested loop), or an agent with
 * `exposeAsTool` (run in a child thread), or a remote MCP server's tool (`<server>.<tool>`, or a
 * whole `<server>`). One catalog per place, built on first use. Once the thread holds a file (a
 * capped result's full text, an attachment), a place a model calls tools from also offers weft's
 * built-in `read_file` (src/run/read-file.ts), which the cap's notice names; direct calls at rest
 * get full results and are offered only the project's tools.
 * @module
 */
import { type ResolvedSide, findPrompt } from "./agent.js";
import { ToolCatalog, type UnavailableTool } from "../tools/catalog.js";
import type { CallExecution } from "../calls/call.js";
import type { AnyToolDefinition } from "../tools/types.js";
import { agentTool } from "./agent-tool.js";
import type { RunWorld } from "./world.js";
import { promptTool } from "./prompt-tool.js";
import { RemoteServers } from "../remote/servers.js";
import { OwnServers } from "../remote/own-servers.js";
import { serverOfToolName } from "../remote/remote-tools.js";
import { accountOf } from "../account/api.js";
import { accountAuthorizer } from "../remote/authorizer.js";
import { receiveEnv } from "./state.js";
import { integerSetting } from "../config.js";
import { READ_FILE_TOOL } from "../calls/file-pages.js";
import { readFileOffered, readFileTool } from "./read-file.js";

/** Where a model's catalog is offered (an agent's side, or a prompt): the prompt that makes it, if any, and the names it lists. */
type Place = Pick<ResolvedSide, "promptName" | "tools">;

/** The catalogs of one thread. */
export class Callables {
  private readonly catalogs = new Map<string, ToolCatalog>();

  constructor(private readonly engine: RunWorld) {}

  // --- Remote MCP tools (src/remote/): listed before a run builds its catalog. ---
  private remoteServers: RemoteServers | undefined;

  /** The thread's remote MCP servers, made on first use. */
  get remote(): RemoteServers {
    const { registry } = this.engine;
    const callTimeoutMs = integerSetting(this.engine.workerEnv, "WEFT_CALL_TIMEOUT_MS", 1);
    const { meta, workerEnv, store } = this.engine;
    const oauth = { authorizer: accountAuthorizer(workerEnv.ACCOUNT as DurableObjectNamespace | undefined, meta.userId ?? undefined, meta.threadId), parkReason: (callId: string) => store.calls.get(callId)?.parkReason };
    return (this.remoteServers ??= new RemoteServers(registry.mcpServers ?? {}, (name) => this.isLocal(name), (name) => receiveEnv(this.engine, name), Date.now, callTimeoutMs, oauth));
  }

  /**
   * Lists the remote MCP servers the place of `execution` (or `"everywhere"`: every side and prompt) names (those not listed within their
   * TTL) before its catalog is read, and, for a side or everywhere, reads the servers the thread's
   * owner added; a changed list drops the catalogs built from the old one.
   * Never throws: a server that fails to list offers no tools.
   */
  async prepare(execution: CallExecution | null | "everywhere"): Promise<void> {
    let changed = false;
    const own = execution !== null && (execution === "everywhere" || execution.state.promptPath.length === 0) ? this.own : undefined;
    if (own) changed = await own.sync();
    if (this.engine.registry.mcpServers) {
      const servers = this.remote.serversIn(execution === "everywhere" ? this.everyName() : this.namesOfPlace(execution));
      if (servers.length > 0 && (await this.remote.refresh(servers))) changed = true;
    }
    if (changed) {
      this.catalogs.clear();
      this.atRest = undefined;
    }
  }

  private ownServers: OwnServers | null | undefined;

  /**
   * The servers the thread's owner added (`POST /mcp-servers`), offered on every side of the
   * owner's threads (not inside prompts, whose tools are the prompt's, nor to direct calls);
   * undefined for a thread without an owner or accounts.
   */
  get own(): OwnServers | undefined {
    if (this.ownServers === undefined) {
      const { meta, workerEnv, store, registry } = this.engine;
      const ns = workerEnv.ACCOUNT as DurableObjectNamespace | undefined;
      const userId = meta.userId;
      this.ownServers =
        ns && userId
          ? new OwnServers({
              // Read once, then after each change the account tells this thread of (UserEnv's notices).
              list: () => accountOf(ns, userId).userMcpServers(meta.threadId),
              generation: () => this.engine.userEnv.generation,
              declared: registry.mcpServers ?? {},
              taken: (name) => this.isLocal(name),
              // The owner's account values are redacted in every thread of theirs (src/run/state.ts).
              accountEnv: async (name) => (await this.engine.userEnv.get(userId, name))?.value,
              callTimeoutMs: integerSetting(workerEnv, "WEFT_CALL_TIMEOUT_MS", 1),
              oauth: { authorizer: accountAuthorizer(ns, userId, meta.threadId, true, true), parkReason: (callId: string) => store.calls.get(callId)?.parkReason },
            })
          : null;
    }
    return this.ownServers ?? undefined;
  }

  /**
   * Ends every remote MCP session the thread holds, the owner's servers' too, at their servers:
   * for its removal (src/remote/servers.ts `end`: within `SESSION_END_MS`, never rejects).
   */
  async endSessions(): Promise<void> {
    await Promise.all([this.remoteServers?.end(), this.ownServers?.end()]);
  }

  /** The names every side and prompt of the thread lists. */
  private everyName(): string[] {
    return [...this.engine.sides.flatMap((s) => s.tools ?? []), ...Object.values(this.engine.registry.prompts ?? {}).flatMap((p) => p.tools ?? [])];
  }

  /** The names the place of `execution` lists (its prompt's, else its side's). */
  private namesOfPlace(execution: CallExecution | null): readonly string[] | undefined {
    const prompt = execution?.state.promptPath.at(-1);
    if (prompt !== undefined) return findPrompt(this.engine.registry, prompt)?.tools;
    return (this.engine.sides.find((s) => s.side === (execution?.state.currentSide ?? "a")) ?? this.engine.sides[0]!).tools;
  }

  /** Whether `name` is a local tool, prompt or agent (remote tools never shadow one). */
  private isLocal(name: string): boolean {
    const { registry } = this.engine;
    return Object.hasOwn(registry.tools, name) || findPrompt(registry, name) !== undefined || Object.hasOwn(registry.agents, name);
  }
  // --- end remote MCP tools ---

  /**
   * The catalog of the place `execution` runs in: its prompt (the last of `promptPath`), else its
   * current side. Outside any run: side a's, which direct calls and `GET /v1/tools` use.
   */
  catalogFor(execution: CallExecution | null): ToolCatalog {
    // At rest (every direct call asks, twice): side a's catalog, kept without building its key.
    if (execution === null) return (this.atRest ??= this.catalogOfPlace(null));
    return this.catalogOfPlace(execution);
  }

  /** `catalogFor(null)`, once made (catalogs are never rebuilt). */
  private atRest: ToolCatalog | undefined = undefined;

  private catalogOfPlace(execution: CallExecution | null): ToolCatalog {
    const prompt = execution?.state.promptPath.at(-1);
    if (prompt !== undefined) {
      const place = (): Place => ({ promptName: prompt, tools: findPrompt(this.engine.registry, prompt)?.tools });
      return this.cached(`prompt:${prompt}`, () => this.withBuiltIns(this.definitions(place().tools)), place);
    }
    const side = this.engine.sides.find((s) => s.side === (execution?.state.currentSide ?? "a")) ?? this.engine.sides[0]!;
    return this.cached(execution === null ? "rest" : `side:${side.side}`, () => {
      const { agent, meta } = this.engine;
      const own = this.definitions(side.tools);
      // Tools built from the thread's arguments belong to side a.
      const all = side.side === "a" && agent.toolsFromArguments ? { ...own, ...agent.toolsFromArguments(meta.arguments) } : own;
      // The owner's servers, under the project's names (a name the project offers stays the project's).
      return execution === null ? all : this.withBuiltIns({ ...this.own?.definitions(), ...all });
    }, () => side);
  }

  /** `read_file` made once per thread. */
  private readFile: AnyToolDefinition | undefined;
  /** Whether the thread holds a file: read once, then set by {@link filesWritten}. */
  private hasFiles: boolean | undefined;

  /**
   * Says the thread now holds a file (a capped result or an attachment was stored): from the next
   * catalog read on, a model's places offer `read_file`. Until the first file, a model's tool list
   * (and a recorded provider's requests) stay as the project's tools alone.
   */
  filesWritten(): void {
    if (this.hasFiles) return;
    this.hasFiles = true;
    this.catalogs.clear();
    this.atRest = undefined;
  }

  /**
   * A model's place with the built-in `read_file` added: a place with at least one tool (where a
   * result may be capped), in a thread that holds a file, unless the project names something
   * `read_file` itself.
   */
  private withBuiltIns(defs: Record<string, AnyToolDefinition>): Record<string, AnyToolDefinition> {
    if (Object.keys(defs).length === 0 || Object.hasOwn(defs, READ_FILE_TOOL) || !readFileOffered(this.engine.registry)) return defs;
    if (!(this.hasFiles ??= this.engine.store.files.any())) return defs;
    return { ...defs, [READ_FILE_TOOL]: (this.readFile ??= readFileTool(this.engine)) };
  }

  /**
   * Every name any place of the thread offers. A call interrupted by a restart is recovered at
   * rest, with no execution to say where it ran, so recovery looks names up here.
   */
  everything(): ToolCatalog {
    return this.cached("all", () => {
      const sideA = this.catalogFor(null);
      const all: Record<string, AnyToolDefinition> = { ...this.own?.removed(), ...this.own?.definitions(), ...Object.fromEntries(sideA.names().map((n) => [n, sideA.definition(n)])) };
      for (const side of this.engine.sides) Object.assign(all, this.definitions(side.tools));
      for (const [name, prompt] of Object.entries(this.engine.registry.prompts ?? {})) {
        Object.assign(all, this.definitions(prompt.tools), { [name]: promptTool(this.engine, name, prompt) });
      }
      return this.withBuiltIns(all);
    });
  }

  /** The catalog kept under `key`, built once; `place` (the agent's side or the prompt it is for) says where a missing project name would be listed. */
  private cached(key: string, build: () => Record<string, AnyToolDefinition>, place?: () => Place): ToolCatalog {
    let catalog = this.catalogs.get(key);
    if (!catalog) {
      catalog = new ToolCatalog(build(), (name) => this.whyMissing(name) ?? (place && this.notListedHere(name, place())));
      this.catalogs.set(key, catalog);
    }
    return catalog;
  }

  /**
   * Why `<server>__<tool>` is not on offer, when its server (declared, or the owner's) failed to
   * list its tools or refused that one: the server's problem as `GET /v1/tools` says it.
   */
  private whyMissing(name: string): string | undefined {
    const server = serverOfToolName(name);
    const problems = server ? this.remoteProblems(server).filter((p) => nameOfProblem(p) === server || nameOfProblem(p) === name) : [];
    return problems.length > 0 ? problems.map(problemText).join("; ") : undefined;
  }

  /**
   * The remote servers (declared, or the owner's) that offer fewer tools than they list, as
   * unavailable tools: `<server>` for a server that offers none, `<server>__<tool>` for one tool,
   * with the problem as `GET /v1/tools` says it. Read after a listing (`prepare`).
   */
  unavailableRemote(): UnavailableTool[] {
    return this.remoteProblems().map((p) => ({ name: nameOfProblem(p), reason: problemText(p) }));
  }

  /** The problems of the declared servers (only when `server`, if given, is one) and of the owner's. */
  private remoteProblems(server?: string): RemoteProblem[] {
    const servers = this.engine.registry.mcpServers ?? {};
    const declared = server === undefined ? Object.keys(servers).length > 0 : Object.hasOwn(servers, server);
    return [...(declared ? this.remote.problems() : []), ...(this.own?.problems() ?? [])].filter((p) => server === undefined || p.server === server);
  }

  /**
   * Why a tool, prompt or agent of the project is not on offer in `place`: its agent or prompt
   * does not list it. An author who adds a tool and calls it before listing it reads where to list
   * it, not only that the name is unknown.
   */
  private notListedHere(name: string, place: Place): string | undefined {
    if (!Object.hasOwn(this.definitions([name]), name)) return undefined;
    const where = place.promptName === undefined ? `agent "${this.engine.meta.agentId}"` : `prompt "${place.promptName}"`;
    // No list offers every tool of agents/tools/ and nothing else: adding a list narrows it to the list.
    if (place.tools === undefined) return `"${name}" is in the project, but ${where} lists no tools, so it offers only those of agents/tools/: give it a tools list with every name it should offer, this one among them`;
    return `"${name}" is in the project, but ${where} does not offer it: add it to the tools of ${where}`;
  }

  /** Definitions for a list of names; no list means every tool in `agents/tools/`. */
  private definitions(names: readonly string[] | undefined): Record<string, AnyToolDefinition> {
    const { registry } = this.engine;
    const out: Record<string, AnyToolDefinition> = {};
    for (const name of names ?? Object.keys(registry.tools)) {
      if (Object.hasOwn(registry.tools, name)) out[name] = registry.tools[name]!;
      else if (findPrompt(registry, name)) out[name] = promptTool(this.engine, name, findPrompt(registry, name)!);
      else if (Object.hasOwn(registry.agents, name) && registry.agents[name]!.exposeAsTool) out[name] = agentTool(this.engine, name, registry.agents[name]!);
      else if (registry.mcpServers) Object.assign(out, this.remote.definitionsFor(name));
    }
    return out;
  }
}

type RemoteProblem = ReturnType<RemoteServers["problems"]>[number];

/** What a remote problem makes unavailable: the server (`<server>`) or one of its tools (`<server>__<tool>`). */
const nameOfProblem = (p: RemoteProblem): string => ("tool" in p ? `${p.server}__${p.tool}` : p.server);

/** A remote problem as `GET /v1/tools` says it. */
const problemText = (p: RemoteProblem): string => `mcp server "${p.server}": ${p.code}: ${p.reason}`;
