/** The state `useChat` keeps, without React: a plain array (for the AI SDK's `AbstractChat` in tests). */
import type { ChatState, ChatStatus, UIMessage } from "ai";

export class PlainState implements ChatState<UIMessage> {
  status: ChatStatus = "ready";
  error: Error | undefined = undefined;
  constructor(public messages: UIMessage[] = []) {}
  pushMessage = (m: UIMessage) => void this.messages.push(m);
  popMessage = () => void this.messages.pop();
  replaceMessage = (i: number, m: UIMessage) => void (this.messages[i] = m);
  snapshot = <T>(thing: T): T => structuredClone(thing);
}
