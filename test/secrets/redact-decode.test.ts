/**
 * Redaction before any decode: a secret that reaches a tool result in an escaped form (JSON escapes
 * of quotes and backslashes, `\u00e9`, `\/`) must not come out raw from a read path that decodes
 * the result (the chat route's UI messages and stream, call records, messages, events).
 */
import { describe, expect, it } from "vitest";
import { createThread, eventsOf, json, request, runTurn } from "../helpers.js";

/** A secret with every kind of character JSON escapes or may escape. */
const SECRET = 'pä"ss\\wörd/9-🔑-tail';

/** Every string in a value, and in any string that is itself JSON, decoded as a reader would. */
function decodedStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") {
    out.push(value);
    try {
      const inner = JSON.parse(value) as unknown;
      if (inner !== null && typeof inner === "object") decodedStrings(inner, out);
      else if (typeof inner === "string") out.push(inner);
    } catch {
      // not JSON: the string itself is what a reader sees
    }
  } else if (Array.isArray(value)) for (const v of value) decodedStrings(v, out);
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      decodedStrings(v, out);
    }
  }
  return out;
}

const leaks = (value: unknown) => decodedStrings(value).filter((s) => s.includes(SECRET));

describe("redaction before decoding", () => {
  const script = [
    {
      toolCalls: [
        { id: "obj", name: "env_as_json", arguments: { name: "ESCAPED_SECRET", mode: "object" } },
        { id: "ascii", name: "env_as_json", arguments: { name: "ESCAPED_SECRET", mode: "ascii" } },
      ],
    },
    { text: "done" },
  ];

  it("a JSON tool result read back through every read path never shows the secret decoded", async () => {
    const id = await createThread({ agent: "json_results", env: { ESCAPED_SECRET: { value: SECRET, type: "secret" } } });
    await runTurn(id, "go", script);
    expect(leaks(await eventsOf(id)), "events").toEqual([]);
    for (const path of ["/chat", "/messages?limit=100&includeSilent=true", "/calls"]) {
      const answer = await json("GET", `/threads/${id}${path}`);
      expect(answer.status, path).toBe(200);
      expect(leaks(answer.body), path).toEqual([]);
    }
    // The results were found, redacted, and are still JSON a reader can decode.
    const chat = (await json("GET", `/threads/${id}/chat`)).body;
    const outputs = chat.messages.flatMap((m: any) => m.parts.filter((p: any) => p.state === "output-available").map((p: any) => p.output));
    expect(outputs).toEqual([{ value: "[redacted]" }, { value: "[redacted]" }]);
  });

  it("the chat stream of a turn decodes tool results after redaction too", async () => {
    const id = await createThread({ agent: "json_results", env: { ESCAPED_SECRET: { value: SECRET, type: "secret" } } });
    const res = await request(`/threads/${id}/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "go" }] }], script }),
    });
    expect(res.status).toBe(200);
    const chunks = (await res.text())
      .split("\n")
      .filter((l) => l.startsWith("data: ") && l !== "data: [DONE]")
      .map((l) => JSON.parse(l.slice(6)) as { type: string; output?: unknown });
    expect(leaks(chunks)).toEqual([]);
    expect(chunks.filter((c) => c.type === "tool-output-available").map((c) => c.output)).toEqual([{ value: "[redacted]" }, { value: "[redacted]" }]);
  });
});
