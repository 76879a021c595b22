/**
 * A request to the provider that got no answer says so: workerd reports a host it cannot resolve
 * only as "internal error; reference = ..." (the cause goes to its log), which a turn showed as
 * "model openai:gpt-4.1-mini failed: internal error; reference = ..." (a new user's trial).
 */
import { APICallError } from "ai";
import { describe, expect, it } from "vitest";
import { toModelError } from "../../src/models/ai-sdk.js";
import { ModelError } from "../../src/models/model.js";

describe("toModelError of a request that got no answer", () => {
  it.each([
    ["workerd's opaque failure (a DNS lookup that failed)", new Error("internal error; reference = atmsvjbqonqhul0rntnbba8i")],
    ["workerd's lost connection", new Error("Network connection lost.")],
    ["Node's fetch", new TypeError("fetch failed")],
  ])("%s: says the provider could not be reached, keeps the words, and retries", (_what, error) => {
    const e = toModelError(error) as ModelError;
    expect(e).toBeInstanceOf(ModelError);
    expect(e.message).toBe(`the provider could not be reached (${error.message}): check its URL and that the network reaches it`);
    expect(e.retryable).toBe(true);
  });

  it("another error keeps its own words and is not retried", () => {
    const e = toModelError(new Error("the provider package could not parse its settings")) as ModelError;
    expect([e.message, e.retryable]).toEqual(["the provider package could not parse its settings", false]);
  });

  it("a provider's answer is not taken for an unreached one", () => {
    const e = toModelError(new APICallError({ message: "Bad Request", url: "https://api.example.test/v1/responses", requestBodyValues: {}, statusCode: 400, responseBody: '{"error":{"message":"bad tool schema"}}' })) as ModelError;
    expect(e.message).toBe("provider answered 400: bad tool schema");
  });
});
