/**
 * `GET /threads/:id` says which model each side of the thread talks to and what chose it: a
 * definition file, the env level of `WEFT_MODEL`, or nothing (the scripted model).
 */
import { expect, it } from "vitest";
import { createThread, json } from "../helpers.js";

const modelsOf = async (id: string) => (await json("GET", `/threads/${id}`)).body.models;

it("a thread with no model configured talks to the scripted model, and says so", async () => {
  const id = await createThread({});
  expect(await modelsOf(id)).toEqual([{ side: "a", spec: "scripted", where: "no model in agents/agents/default.ts and no WEFT_MODEL" }]);
});

it("WEFT_MODEL given to the thread names the thread level", async () => {
  const id = await createThread({ env: { WEFT_MODEL: { value: "openai:gpt-4.1-mini", type: "text" }, OPENAI_API_KEY: "sk-models-in-force-1" } });
  expect(await modelsOf(id)).toEqual([{ side: "a", spec: "openai:gpt-4.1-mini", where: "env WEFT_MODEL (thread level)" }]);
});

it("a two-sided agent lists both sides, each with the file that named its model", async () => {
  const id = await createThread({ agent: "duo", env: { OPENAI_API_KEY: "sk-models-in-force-2" } });
  const models = await modelsOf(id);
  expect(models.map((m: { side: string }) => m.side)).toEqual(["a", "b"]);
  expect(models[0]).toMatchObject({ spec: "scripted" });
  expect(models[1]).toMatchObject({ spec: expect.stringMatching(/^openai/), where: "agents/prompts/duo_customer.ts" });
});
