/**
 * Model settings a posted message gives its own turn: checked against the agent's limits when the
 * message is posted, carried in its metadata through the inbox, kept on the turn it begins (so a
 * turn resumed after a restart or a person's decision keeps them), and laid over side a's own
 * settings for that turn's side-a requests only (never side b's, nor a prompt or agent it calls).
 * @module
 */
import type { Message } from "../protocol.js";
import { type ContentPart, type MessageContent, storedContent } from "../content/parts.js";
import { MAX_CONTENT_BYTES, type NewTurnMessage, checkContentSize } from "./messages.js";
import type { PendingMessage } from "../ports/store.js";
import { type ModelSettings, type TurnModelSettings, checkTurnSettings, withTurnSettings } from "../models/settings.js";
import type { RunWorld } from "./world.js";

/** The metadata key of a message that carries settings for its turn. */
export const TURN_SETTINGS_KEY = "modelSettings";

/** The inbox metadata key of a waiting message's parts (they become the message's own `parts`). */
export const PARTS_KEY = "weft:parts";

/**
 * A posted message as it waits in the inbox: its content checked and stored as text, its parts and
 * its turn's settings (checked against the agent) in its metadata. {@link admittedMessage} undoes it.
 * @throws WeftError `payload_too_large` for content over the message limit; `invalid_request` for
 * settings the agent does not allow, or content that is not a message's (see `storedContent`).
 */
export function inboxMessageOf(engine: RunWorld, input: { content: MessageContent; role?: "user" | "system"; modelSettings?: TurnModelSettings }): Omit<PendingMessage, "id"> {
  const role = input.role ?? "user";
  const { content, parts } = storedContent(input.content, role, MAX_CONTENT_BYTES);
  checkContentSize(content, ["content"]);
  const settings = input.modelSettings && Object.keys(input.modelSettings).length > 0 ? input.modelSettings : undefined;
  if (settings) checkPostedSettings(engine, settings);
  const metadata = { ...(settings ? { [TURN_SETTINGS_KEY]: settings } : {}), ...(parts ? { [PARTS_KEY]: parts } : {}) };
  return { role, content, ...(Object.keys(metadata).length > 0 ? { metadata } : {}) };
}

/** A waiting message as it joins the history: its parts out of its metadata into their own field. */
export function admittedMessage(p: { role: "user" | "system"; content: string; metadata?: Record<string, unknown> }): NewTurnMessage {
  const { [PARTS_KEY]: parts, ...metadata } = p.metadata ?? {};
  return {
    role: p.role,
    content: p.content,
    ...(Array.isArray(parts) ? { parts: parts as ContentPart[] } : {}),
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
}

/**
 * Checks a posted message's settings against the thread's agent: its `turnSettings`, side a's own
 * `maxOutputTokens` (a ceiling) and side a's tools (a named `toolChoice`).
 * @throws WeftError `invalid_request` naming `modelSettings.<name>`.
 */
export function checkPostedSettings(world: Pick<RunWorld, "agent" | "side" | "catalog" | "meta">, settings: TurnModelSettings): void {
  const side = world.side("a");
  checkTurnSettings(settings, {
    owner: `agent "${world.meta.agentId}"`,
    allowed: world.agent.turnSettings,
    own: side.modelSettings,
    offers: (tool) => world.catalog.has(tool),
  });
}

/** The settings of the newest of `messages` that carries some: what a turn they begin runs with. */
export function settingsOfMessages(messages: readonly Message[]): TurnModelSettings | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const value = messages[i]!.metadata?.[TURN_SETTINGS_KEY];
    if (value !== null && typeof value === "object") return value as TurnModelSettings;
  }
  return undefined;
}

/** What side `side` of a turn sends: its own settings, with the turn's on top for side a. */
export function sideSettings(own: ModelSettings | undefined, side: "a" | "b", turn: TurnModelSettings | undefined): ModelSettings | undefined {
  return side === "a" ? withTurnSettings(own, turn) : own;
}
