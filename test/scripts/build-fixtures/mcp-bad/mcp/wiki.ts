import { defineMcpServer } from "@standardagents/spec";

export default defineMcpServer({ url: "https://wiki.example.com/mcp", tools: ["search"] });
