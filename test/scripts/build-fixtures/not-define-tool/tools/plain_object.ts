// Shaped like a tool but not returned by defineTool, so it lacks the definition marker.
export default {
  description: "A plain object posing as a tool",
  execute: async () => ({ status: "success", result: "ok" }),
};
