/**
 * No tool is hidden silently: a dynamically defined tool that cannot compile is named, with the
 * reason, by a `tools_unavailable` event and by `GET /threads/:id`, which also shows what the
 * model is offered.
 */
import { expect, it } from "vitest";
import { createThread, eventsOf, json } from "../helpers.js";

it("lists a dynamic tool that fails to compile as unavailable, with the keyword, and offers the rest unchanged", async () => {
  const good = { type: "object", properties: { v: { type: "string", maxLength: 2 } }, required: ["v"] };
  const id = await createThread({
    agent: "bfcl",
    arguments: {
      functions: [
        { name: "good_tool", description: "fine", parameters: good },
        { name: "remote_tool", description: "refers elsewhere", parameters: { type: "object", properties: { x: { $ref: "https://example.com/x.json" } } } },
      ],
    },
  });
  const events = await eventsOf(id);
  const unavailable = events.find((e) => e.type === "tools_unavailable");
  expect(unavailable?.data).toEqual({ tools: [{ name: "remote_tool", reason: expect.stringMatching(/^invalid_config: .*\$ref "https:\/\/example\.com\/x\.json" refers to a remote document/) }] });
  const info = (await json("GET", `/threads/${id}`)).body;
  expect(info.tools).toEqual([{ name: "good_tool", description: "fine", inputSchema: good }]);
  expect(info.unavailableTools).toEqual((unavailable?.data as { tools: unknown[] }).tools);
});

it("emits no tools_unavailable event when every tool compiles", async () => {
  const id = await createThread({ agent: "bfcl", arguments: { functions: [{ name: "ok", description: "ok", parameters: { type: "object" } }] } });
  expect((await eventsOf(id)).some((e) => e.type === "tools_unavailable")).toBe(false);
  expect((await json("GET", `/threads/${id}`)).body.unavailableTools).toEqual([]);
});
