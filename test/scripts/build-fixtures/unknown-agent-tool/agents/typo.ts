import { defineAgent } from "@standardagents/spec";

// "get_curent_time" is a typo for a tool of agents/tools/.
export default defineAgent({ system: "Tell the time.", tools: ["get_current_time", "get_curent_time"] });
