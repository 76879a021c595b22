import { definePrompt } from "@standardagents/spec";
import type { DefinePromptOptions } from "@standardagents/spec";

// toolDescription is required; the cast stands in for an author who ignored the type error.
export default definePrompt({ system: "Summarise the thread." } as DefinePromptOptions);
