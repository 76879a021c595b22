import { defineAgent } from "@standardagents/spec";

export default defineAgent({ system: "Read the docs.", tools: ["get_current_time", "docs.search", "docs"] });
