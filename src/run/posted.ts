/**
 * What a client posts to a thread (`POST /threads/:id/messages`, the chat route, the typed
 * client), as the thread's RPC takes it.
 * @module
 */
import type { TurnModelSettings } from "../models/settings.js";
import type { MessageContent } from "../content/parts.js";

/** A posted message: its content, and what it asks of the turn it begins or joins. */
export interface PostMessageInput {
  /** The message's text, or a user message's parts: text, images and files (src/content/parts.ts). */
  content: MessageContent;
  /** `user` (default) or `system`. */
  role?: "user" | "system";
  /** Steps for the scripted model (checked by the thread). */
  script?: unknown;
  /** A W3C traceparent the turn's trace joins. */
  traceparent?: string;
  /** Settings for side a's requests of the turn this message begins, within the agent's `turnSettings`. */
  modelSettings?: TurnModelSettings;
}
