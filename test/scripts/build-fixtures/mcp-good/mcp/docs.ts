import { defineMcpServer } from "@standardagents/spec";

// A remote server whose tools agents list as docs.<tool>.
export default defineMcpServer({ url: "https://docs.example.com/mcp", tools: ["search", "fetch_page"], effects: { search: "read" } });
