import { defineMcpServer } from "@standardagents/spec";

// Not an http(s) URL.
export default defineMcpServer({ url: "ftp://files.example.com/mcp" });
