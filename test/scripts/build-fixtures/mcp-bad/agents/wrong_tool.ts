import { defineAgent } from "@standardagents/spec";

// "wiki.edit" is not in the server's allow-list.
export default defineAgent({ system: "Edit the wiki.", tools: ["wiki.search", "wiki.edit"] });
