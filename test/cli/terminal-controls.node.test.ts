/**
 * What the CLI prints for people carries no terminal control characters: a model's or a tool's
 * text (a message, a step's text, a result, an error) reaches the operator's terminal through
 * `weft thread tail`, `weft messages` and refusals, and an escape sequence in it could erase and
 * rewrite lines (hide "waits for approval", fake a finished turn) or set the clipboard (OSC 52).
 * Found by a hostile review; each is written out as `\xNN` instead.
 */
import { describe, expect, it, vi } from "vitest";
import { note, say } from "../../bin/cli/command.ts";
import { frameLine, jsonText, messageLine, printable } from "../../bin/cli/format.ts";

const ESC = "\u001b";
const hostile = `ok${ESC}[2K${ESC}[1A\r   9 turn completed${ESC}]52;c;cm0gLXJmIH4=\u0007\u009b2J\u202edevorppa\u2066`;
const at = "2025-01-01T00:00:00.000Z";
// eslint-disable-next-line no-control-regex
const controls = (line: string) => [...line.matchAll(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g)].map((m) => m[0].charCodeAt(0));

describe("lines for people", () => {
  it.each([
    ["message_created", { seq: 5, type: "message_created", at, data: { message: { id: 3, role: "assistant", content: hostile } } }],
    ["tool_call_finished", { seq: 6, type: "tool_call_finished", at, data: { callId: "c1", toolName: "fetch_page", status: "succeeded", isError: false, durationMs: 3, result: hostile } }],
    ["model_step", { seq: 7, type: "model_step", at, data: { turnId: "t", step: 1, text: hostile, toolCalls: [] } }],
  ])("a %s frame prints its text with every control character written out", (_type, frame) => {
    const line = printable(frameLine(frame as never)!);
    expect(controls(line)).toEqual([]);
    expect(line).toContain("ok\\x1b[2K\\x1b[1A");
    expect(line).toContain("\\x07\\x9b2J");
  });

  it("a message line, and any text: tab and newline stay, every other control is written out", () => {
    expect(controls(printable(messageLine({ id: 1, role: "assistant", content: hostile } as never)))).toEqual([]);
    expect(printable("a\tb\nc\u0000d\u007fe")).toBe("a\tb\nc\\x00d\\x7fe");
  });

  it("a line or paragraph separator and an Arabic letter mark are written out, in a line and in JSON", () => {
    const text = "done\u2028   9 turn completed\u2029\u061c";
    expect(printable(text)).toBe("done\\u2028   9 turn completed\\u2029\\u061c");
    expect(controls(jsonText({ text }))).toEqual([]);
    expect(JSON.parse(jsonText({ text }))).toEqual({ text });
  });

  it("JSON for a terminal escapes DEL and the C1 controls too, and reads back as the same value", () => {
    const value = { content: hostile, nested: ["\u009d52;c;x\u009c", "\u007f"] };
    for (const text of [jsonText(value), jsonText(value, 2)]) {
      expect(controls(text)).toEqual([]);
      expect(JSON.parse(text)).toEqual(value);
    }
  });

  it("what the commands write for people, on stdout and stderr alike (eval's notes, a call's hints), goes through it (review 22e: eval's notes wrote a server's text raw)", () => {
    const written: string[] = [];
    const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => (written.push(String(chunk)), true));
    const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => (written.push(String(chunk)), true));
    try {
      say(`said ${hostile}`);
      note(`weft eval: ${hostile}`);
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    expect(written).toHaveLength(2);
    for (const line of written) expect(controls(line.replace(/\n$/, ""))).toEqual([]);
  });
});

