/**
 * Wire and storage shapes shared by every layer, from this one module: messages, tool results and
 * call records (src/records.ts), and the events on the WebSocket with the model-step records they
 * carry (src/events.ts). Field names follow the Standard Agents tools API (`ToolResult`,
 * `ToolAttachment`, `Message`).
 * @module
 */
/** Messages, tool results and call records (src/records.ts). */
export * from "./records.js";
/** The events on the wire and the model-step records they carry (src/events.ts). */
export * from "./events.js";

/** The client's answer to a client tool's call: its result (a string, or any JSON value, which the model gets as JSON text), or an error the model sees. */
export type ClientAnswer = { result: unknown } | { error: string };
