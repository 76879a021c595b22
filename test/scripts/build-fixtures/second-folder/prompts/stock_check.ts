import { definePrompt } from "@standardagents/spec";

// A prompt of the second folder that offers a tool of the first (agents/tools/).
export default definePrompt({ toolDescription: "Check stock and the time", tools: ["check_stock", "get_current_time"] });
