// Fails on purpose: test/scripts/agents-run-output.node.test.ts runs it under the author's
// test config and reads where the failures are reported. Moving a line here moves the expectation.
import { expect, it } from "vitest";
import { createTestThread, scripted } from "weft/testing";

it("fails in its first statement", () => {
  expect(1 + 1).toBe(3);
});

it("fails after a turn", async () => {
  const thread = await createTestThread({ agent: "example", model: scripted([{ text: "hello" }]) });
  const turn = await thread.post("hi");
  expect(turn.text).toBe("goodbye");
});
