/**
 * The thread's columns for model settings a message gave its turn and for messages of more than
 * text (the thread's migration v20 runs it).
 * @module
 */

/** DDL of v20: a turn's settings from its message (`turns.model_settings`), a message's parts (`messages.parts`). */
export const CONTENT_DDL = `
  ALTER TABLE turns ADD COLUMN model_settings TEXT;
  ALTER TABLE messages ADD COLUMN parts TEXT;
`;
