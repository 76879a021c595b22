/**
 * The `ThreadState` implementation handed to tools, bound to one call so `uses` can be enforced
 * and queued calls know their parent.
 * @module
 */
import { WeftError } from "../errors.js";
import type { Message, ToolResult } from "../protocol.js";
import { type CodeRunEnd, startCodeExecution } from "../sandbox/run-code.js";
import type { CompiledTool, ToolCatalog } from "../tools/catalog.js";
import type { CallExecution } from "../calls/call.js";
import { Execution } from "./execution.js";
import type {
  CodeExecution,
  CodeExecutionOptions,
  ExecutionState,
  GetMessagesOptions,
  InjectMessageInput,
  MessagesResult,
  ThreadState,
} from "../tools/thread-state.js";
import { type EnvFrom, type EnvSources, type ResolvedEnv, resolveEnv } from "../secrets/env.js";
import { checkContentSize } from "./messages.js";
import { checkInjectedMetadata } from "./message-metadata.js";
import { limitOf } from "../limits.js";
import { checkJsonShape } from "../json-shape.js";
import type { RunWorld } from "./world.js";

/** The call a state is bound to; absent for state used outside a tool. */
export interface BoundCall {
  callId: string;
  tool: CompiledTool;
  turnId?: string;
}

/**
 * Checks `uses` (the Standard Agents tools API): a tool that declares `uses` may only queue or invoke those names. A
 * tool that declares none is unrestricted, as in the Standard Agents tools API's own examples.
 * @throws WeftError `tool_not_allowed` or `unknown_tool`.
 */
export function checkUses(catalog: ToolCatalog, caller: CompiledTool | undefined, target: string, verb: string): void {
  const uses = caller?.def.uses as readonly string[] | undefined;
  if (caller && uses && !uses.includes(target)) {
    throw new WeftError(
      "tool_not_allowed",
      `tool "${caller.name}" may not ${verb} "${target}": it is not in the tool's uses [${uses.join(", ")}]`,
      { tool: caller.name, target },
    );
  }
  if (!catalog.has(target)) catalog.get(target); // throws unknown_tool listing the names
}

/** The id of the `n`th child call a call queues or invokes (none outside a call); no id a model sends takes this form ({@link CHILD_ID}). */
function childIdOf(call: BoundCall | undefined, kind: "queue" | "invoke", n: number): string | undefined {
  return call ? `${call.callId}.${kind}${n}` : undefined;
}

/** The tail of every id {@link childIdOf} makes. */
export const CHILD_ID = /\.(?:queue|invoke)\d+$/;

/** The thread's schedules, for a tool's `state`. @throws WeftError `capability_missing` */
function schedulesOf(host: RunWorld): NonNullable<RunWorld["schedules"]> {
  if (!host.schedules) throw new WeftError("capability_missing", "this thread has no schedules");
  return host.schedules;
}

/** The thread's background runs, for a tool's `state`. @throws WeftError `capability_missing` */
function runsOf(host: RunWorld): NonNullable<NonNullable<RunWorld["schedules"]>["runs"]> {
  const control = host.schedules?.runs;
  if (!control) throw new WeftError("capability_missing", "this thread has no background runs");
  return control;
}

/**
 * Builds the `ThreadState` for one call (or none) under `execution`, the run the call belongs to.
 * Outside any run, `execution` is null and the state gets a `context` of its own.
 */
export function createThreadState(host: RunWorld, call: BoundCall | undefined, execution: CallExecution | null): ThreadState {
  return new CallState(host, call, execution);
}

/**
 * A tool's `state`. Its functions are accessors on the prototype, made together when a tool first
 * reads one (many tools read none, and every run of `execute` gets a state): each answers the same
 * function every time, so one taken off the object (`const { emit } = state`) still works.
 * `context`, `execution` and `runs` are accessors too: in an object literal, accessors give every
 * state a hidden class of its own, which costs microseconds per call to build and makes each
 * member read slow.
 */
class CallState implements ThreadState {
  readonly threadId: string;
  readonly agentId: string;
  readonly userId: string | null;
  readonly createdAt: number;
  readonly arguments: Record<string, unknown>;
  readonly #context: Record<string, unknown>;
  readonly #execution: CallExecution | null;
  readonly #host: RunWorld;
  readonly #call: BoundCall | undefined;
  #members: StateFunctions | undefined = undefined;
  #runs: ThreadState["runs"] | undefined = undefined;

  constructor(host: RunWorld, call: BoundCall | undefined, execution: CallExecution | null) {
    const { meta } = host;
    // The Standard Agents tools API: context lives for the current execution only; at rest each call gets its own.
    this.#context = execution?.context ?? {};
    this.#execution = execution;
    this.#host = host;
    this.#call = call;
    this.threadId = meta.threadId;
    this.agentId = meta.agentId;
    this.userId = meta.userId;
    this.createdAt = meta.createdAt;
    this.arguments = meta.arguments;
  }

  #fns(): StateFunctions {
    return (this.#members ??= new StateFunctions(this.#host, this.#call, this.#execution));
  }

  get getMessages(): ThreadState["getMessages"] {
    return this.#fns().getMessages;
  }
  get injectMessage(): ThreadState["injectMessage"] {
    return this.#fns().injectMessage;
  }
  get loadAgent(): ThreadState["loadAgent"] {
    return this.#fns().loadAgent;
  }
  get queueTool(): ThreadState["queueTool"] {
    return this.#fns().queueTool;
  }
  get invokeTool(): ThreadState["invokeTool"] {
    return this.#fns().invokeTool;
  }
  get emit(): ThreadState["emit"] {
    return this.#fns().emit;
  }
  get getValue(): ThreadState["getValue"] {
    return this.#fns().getValue;
  }
  get setValue(): ThreadState["setValue"] {
    return this.#fns().setValue;
  }
  get env(): ThreadState["env"] {
    return this.#fns().env;
  }
  get envType(): ThreadState["envType"] {
    return this.#fns().envType;
  }
  get setEnv(): ThreadState["setEnv"] {
    return this.#fns().setEnv;
  }
  get runCode(): ThreadState["runCode"] {
    return this.#fns().runCode;
  }
  get schedule(): ThreadState["schedule"] {
    return this.#fns().schedule;
  }
  get cancelSchedule(): ThreadState["cancelSchedule"] {
    return this.#fns().cancelSchedule;
  }
  get listSchedules(): ThreadState["listSchedules"] {
    return this.#fns().listSchedules;
  }

  /** The run `state` was built under (see {@link runOf}). */
  static runOf(state: CallState): CallExecution | null {
    return state.#execution;
  }

  /** `runs` is made when first read (few tools use it; each call's state would pay for it). */
  get runs(): ThreadState["runs"] {
    const host = this.#host;
    this.#runs ??= {
      list: async () => runsOf(host).list(),
      get: async (runId) => runsOf(host).get(runId),
      wait: async (runIds, options) => runsOf(host).wait(runIds, options?.timeoutMs),
      stop: async (runId) => runsOf(host).stop(runId),
    };
    return this.#runs;
  }

  get context(): Record<string, unknown> {
    return this.#context;
  }
  set context(_value) {
    // Mutate the object instead; replacing it would not reach the other calls of the turn.
  }
  get execution(): ExecutionState | null {
    return this.#execution?.state ?? null;
  }
  set execution(_value) {
    // Read-only in practice; the Standard Agents tools API types it as a plain property.
  }
}

/** The functions of one {@link CallState}, bound to its call and run. */
class StateFunctions {
  readonly getMessages: ThreadState["getMessages"];
  readonly injectMessage: ThreadState["injectMessage"];
  readonly loadAgent: ThreadState["loadAgent"];
  readonly queueTool: ThreadState["queueTool"];
  readonly invokeTool: ThreadState["invokeTool"];
  readonly emit: ThreadState["emit"];
  readonly getValue: ThreadState["getValue"];
  readonly setValue: ThreadState["setValue"];
  readonly env: ThreadState["env"];
  readonly envType: ThreadState["envType"];
  readonly setEnv: ThreadState["setEnv"];
  readonly runCode: ThreadState["runCode"];
  readonly schedule: ThreadState["schedule"];
  readonly cancelSchedule: ThreadState["cancelSchedule"];
  readonly listSchedules: ThreadState["listSchedules"];

  constructor(host: RunWorld, call: BoundCall | undefined, execution: CallExecution | null) {
    const { meta, store } = host;
    // A call's children get ids from its own id and their order, so a parent run again (a retry, or
    // recovery after a restart) reaches the same child calls: their recorded results, never a second
    // execution of a write. Each run of `execute` gets a fresh state, so the order restarts at 1.
    let children = 0;

    this.getMessages = async (options?: GetMessagesOptions): Promise<MessagesResult> => store.messages.list(options);
    this.injectMessage = async (input: InjectMessageInput): Promise<Message> => {
      // Read once: what is checked is what is stored.
      const { role, content, silent, metadata: given } = input ?? ({} as Partial<InjectMessageInput>);
      if (!role || !["user", "assistant", "system"].includes(role) || typeof content !== "string") {
        throw new WeftError("invalid_request", 'injectMessage: expected { role: "user" | "assistant" | "system", content: string }');
      }
      if (silent !== undefined && typeof silent !== "boolean") throw new WeftError("invalid_request", "injectMessage: silent must be true or false", { path: ["silent"] });
      checkContentSize(content, ["content"]);
      checkJsonShape(content, 1, ["content"]);
      // null, like undefined, is none (a plain-JS tool may pass it).
      // The tool's own data, as stored: its numbers are searched too (the message's `value` leaves them).
      const metadata = given === undefined || given === null ? undefined : host.redactor().content(checkInjectedMetadata(given, content, limitOf(host.workerEnv, "jsonDepth")));
      // Inside a nested prompt run the message joins that run's conversation, at its depth.
      const depth = execution?.depth ?? 0;
      const [stored] = await host.createMessages(execution, [
        { role, content, ...(silent !== undefined ? { silent } : {}), ...(metadata !== undefined ? { metadata } : {}), ...(depth > 0 ? { depth } : {}) },
      ]);
      return stored!;
    };
    this.loadAgent = async <T>(name: string): Promise<T> => {
      const agent = Object.hasOwn(host.registry.agents, name) ? host.registry.agents[name] : undefined;
      if (!agent) throw new WeftError("agent_not_found", `no agent "${name}"; agents: ${Object.keys(host.registry.agents).join(", ")}`);
      return agent as T;
    };

    this.queueTool = (toolName: string, args: Record<string, unknown>): void => {
      checkUses(host.catalogFor(execution), call?.tool, toolName, "queue");
      host.calls.queue(call?.callId, toolName, args, call?.turnId, childIdOf(call, "queue", ++children));
    };
    this.invokeTool = async (toolName: string, args: Record<string, unknown>): Promise<ToolResult> => {
      checkUses(host.catalogFor(execution), call?.tool, toolName, "invoke");
      return host.calls.invoke(call?.callId, toolName, args, execution, call?.turnId, childIdOf(call, "invoke", ++children));
    };
    this.emit = (event: string, data: unknown): void => {
      host.emitCustom(event, data);
    };

    this.getValue = async <T>(key: string): Promise<T | null> => store.kv.get<T>(key);
    this.setValue = async (key: string, value: unknown): Promise<void> => {
      store.kv.set(key, value);
    };

    this.env = async (name: string, options?: { from?: "deployment" }): Promise<string> => receiveEnv(host, name, execution, envFromOf(options));
    this.envType = async (name: string, options?: { from?: "deployment" }): Promise<"text" | "secret"> => (await resolveThreadEnv(host, name, execution, envFromOf(options)))?.type ?? "secret";
    this.setEnv = async (name: string, value: string, options?: { type?: "text" | "secret" }): Promise<void> => {
      if (typeof name !== "string" || name === "" || typeof value !== "string") {
        throw new WeftError("invalid_request", "setEnv: expected a non-empty name and a string value");
      }
      store.env.set(name, value, options?.type);
    };

    this.runCode = (source: string, options?: CodeExecutionOptions): CodeExecution =>
      startCodeExecution(source, options, {
        // One lifetime of the thread: code of a deleted thread shares no module state with one made again on its id.
        scope: `${meta.threadId}:${meta.createdAt}`,
        // Its user's runs take turns with other users' on a shared engine (src/sandbox/turns.ts).
        ...(meta.userId ? { owner: meta.userId } : {}),
        ...(call ? { callId: call.callId } : {}),
        workerEnv: host.workerEnv,
        // A stopped run cancels its code.
        ...(execution ? { signal: execution.signal } : {}),
        checkTool: (toolName) => checkUses(host.catalogFor(execution), call?.tool, toolName, "invoke"),
        // Numbered with the call's other children: a parent run again finds what its code invoked before.
        // The code is untrusted: it gets a result as its readers do, without the thread's secrets
        // (raw, it could hand one out in a form redaction does not look for).
        invokeTool: async (toolName, args) => host.redact(await host.calls.invoke(call?.callId, toolName, args, execution, call?.turnId, childIdOf(call, "invoke", ++children))),
        // Code still running once its thread is removed has nowhere to log: its events are dropped.
        emit: (type, data) => void (host.removed || host.emit(type, data)),
        ...(host.traceCode ? { finished: (run: CodeRunEnd) => host.traceCode!(run) } : {}),
      });

    // Schedules (src/schedules/) are made for the thread's owner.
    this.schedule = async (options) => schedulesOf(host).create(options, meta.userId);
    this.cancelSchedule = async (scheduleId) => schedulesOf(host).cancel(scheduleId);
    this.listSchedules = async (options) => schedulesOf(host).page(options);
  }
}

/**
 * The run a tool's `state` was built under, for the runtime tools that nest a run inside it (a
 * prompt or agent called as a tool); undefined at rest, or for a state weft did not build. The
 * pipeline builds each call's state with the call's execution, so the state carries it: no table
 * maps a `state.execution` view back to its run.
 */
export function runOf(state: ThreadState): Execution | undefined {
  const run = state instanceof CallState ? CallState.runOf(state) : null;
  return run instanceof Execution ? run : undefined;
}

/**
 * The env sources of a thread: its own values, its agent's and prompt's defaults, its user, its
 * Worker. The prompt level is the prompt `execution` runs (side a's prompt at rest).
 */
export function envSources(host: RunWorld, execution: CallExecution | null = null): EnvSources {
  return {
    thread: (name) => host.store.env.get(name),
    agent: host.agent.env,
    prompt: host.promptEnv(execution?.state),
    userId: host.meta.userId,
    user: host.userEnv,
    worker: host.workerEnv,
  };
}

/**
 * Records, durably and before the value is handed out, that thread code received the secret
 * `name` of `level`. The thread's own values and its owner's account are always redacted (the
 * owner set them); a secret of any other level is redacted only once received, so a guess of one
 * thread code never saw is no oracle (`ThreadSecrets` in guard.ts).
 */
function recordReceived(host: RunWorld, sources: EnvSources, name: string, level: ResolvedEnv["level"]): void {
  if (level === "thread" || level === "user") return;
  if (level === "prompt") {
    const prompt = Object.entries(host.registry.prompts ?? {}).find(([, p]) => p.env === sources.prompt)?.[0];
    if (prompt === undefined) throw new WeftError("internal_error", `env "${name}": the prompt whose default answered is not in the registry`);
    host.store.env.receive(name, `prompt:${prompt}`);
    return;
  }
  host.store.env.receive(name, level);
}

/**
 * The value of env `name` as thread code receives it (`state.env`, a remote MCP server's token):
 * a secret is recorded as received first, so from then on the thread's redactor holds it.
 * @throws WeftError `env_not_found` when no level sets it.
 */
export async function receiveEnv(host: RunWorld, name: string, execution: CallExecution | null = null, from?: EnvFrom): Promise<string> {
  const sources = envSources(host, execution);
  const resolved = await resolveEnv(sources, name, from ? { from } : {});
  if (!resolved) throw new WeftError("env_not_found", `environment value "${name}" is not set ${from ? "by the deployment (its agents, prompts or Worker)" : "for this thread"}`, { name });
  if (resolved.type === "secret") recordReceived(host, sources, name, resolved.level);
  return resolved.value;
}

/** `state.env`'s options, checked: tool code may pass anything. @throws WeftError `invalid_request` */
function envFromOf(options: unknown): EnvFrom | undefined {
  const from = typeof options === "object" && options !== null ? (options as { from?: unknown }).from : undefined;
  if (from === undefined) return undefined;
  if (from === "deployment") return from;
  throw new WeftError("invalid_request", `state.env, state.envType: options.from must be "deployment", got ${JSON.stringify(from)}`);
}

/** Resolves `name` for a thread through every level (src/secrets/env.ts `ENV_LEVELS`), or with `from` only the deployment's. */
export function resolveThreadEnv(host: RunWorld, name: string, execution: CallExecution | null = null, from?: EnvFrom): Promise<ResolvedEnv | undefined> {
  return resolveEnv(envSources(host, execution), name, from ? { from } : {});
}
