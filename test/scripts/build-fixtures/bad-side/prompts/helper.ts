import { definePrompt } from "@standardagents/spec";

export default definePrompt({ toolDescription: "Helps.", system: "Help.", tools: ["get_current_time"] });
