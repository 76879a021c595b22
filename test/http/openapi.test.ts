/**
 * `GET /openapi.json` against the router it describes: the same set of `METHOD /path` pairs as
 * the app's own routes (read from Hono's `app.routes`), every operation with a summary, the one
 * error body and a described body for each status, and the request bodies and query strings of
 * the validators' schemas. Real answers are checked against it in openapi-responses.test.ts.
 */
import { describe, expect, it } from "vitest";
import { createApp, routeList } from "../../src/http/app.js";
import { registry } from "../generated/registry.js";
import { json } from "../helpers.js";

type Operation = { summary?: string; responses: Record<string, any>; requestBody?: any; parameters?: Array<{ in: string; name: string }> };
type Document = { openapi: string; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, any> } };

/** `/threads/{id}/files/{path}` -> `/threads/:id/files/*`: the router's spelling of a path. */
const routerPath = (path: string) => path.replace(/\/\{path\}$/, "/*").replace(/\{([^}]+)\}/g, ":$1");

describe("GET /openapi.json", () => {
  it("lists exactly the routes the app serves", async () => {
    const { status, body } = await json<Document>("GET", "/openapi.json");
    expect(status).toBe(200);
    expect(body.openapi).toBe("3.1.0");
    const described = Object.entries(body.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${routerPath(path)}`));
    expect(described.sort()).toEqual(routeList(createApp(registry)).sort());
  });

  it("gives every operation a summary and the one error body; bodies and queries come from the validators", async () => {
    const { body } = await json<Document>("GET", "/openapi.json");
    const error = body.components.schemas.Error;
    expect(error.properties.error.properties.code.enum).toContain("invalid_tool_input");
    for (const [path, item] of Object.entries(body.paths)) {
      for (const [method, op] of Object.entries(item)) {
        expect(op.summary, `${method} ${path}`).toBeTruthy();
        expect(op.responses.default.content["application/json"].schema, `${method} ${path}`).toEqual({ $ref: "#/components/schemas/Error" });
        // Every answer but a protocol switch or an empty 202 has a body, described by a named schema or a media type.
        for (const [status, answer] of Object.entries(op.responses)) {
          if (status === "101" || (status === "202" && path === "/mcp")) continue;
          const json = answer.content?.["application/json"]?.schema?.$ref as string | undefined;
          expect(json ?? Object.keys(answer.content ?? {})[0], `${method} ${path} ${status}`).toBeTruthy();
          if (json) expect(body.components.schemas, `${method} ${path} ${status}`).toHaveProperty(json.replace("#/components/schemas/", ""));
        }
      }
    }
    // An error status lists only the codes that answer with it.
    expect(body.components.schemas.Error409.properties.error.properties.code.enum).toEqual(expect.arrayContaining(["call_not_waiting", "thread_exists"]));
    expect(body.components.schemas.Error409.properties.error.properties.code.enum).not.toContain("thread_not_found");
    // The MCP server answers GET and DELETE with 405, and says so.
    expect(Object.keys(body.paths["/mcp"]!.get!.responses).sort()).toEqual(["405", "default"]);
    expect(Object.keys(body.paths["/mcp"]!.delete!.responses).sort()).toEqual(["405", "default"]);
    const create = body.paths["/threads"]!.post!;
    expect(Object.keys(create.requestBody.content["application/json"].schema.properties)).toEqual(
      expect.arrayContaining(["agent", "arguments", "script", "env", "dryRun", "asOf", "continuationToken"]),
    );
    expect(body.paths["/v1/tools/{name}"]!.post!.requestBody.content["application/json"].schema.properties).toHaveProperty("input");
    const page = body.paths["/threads/{id}/messages"]!.get!.parameters!.map((p) => `${p.in} ${p.name}`);
    expect(page).toEqual(expect.arrayContaining(["path id", "query limit", "query offset", "query order"]));
    expect(body.paths["/threads/{id}/files/{path}"]!.get!.parameters!.map((p) => p.name)).toEqual(["id", "path"]);
  });

  it("declares the Idempotency-Key header on exactly the requests that honour it (docs/http.md's list), so a generated client can send it", async () => {
    const { body } = await json<Document>("GET", "/openapi.json");
    const keyed = Object.entries(body.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => op.parameters?.some((p) => p.in === "header" && p.name === "Idempotency-Key"))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(keyed.sort()).toEqual(
      [
        "POST /threads",
        "POST /threads/{id}/messages",
        "POST /threads/{id}/calls/{callId}/approve",
        "POST /threads/{id}/calls/{callId}/deny",
        "POST /threads/{id}/calls/{callId}/settle",
        "POST /threads/{id}/calls/{callId}/result",
        "POST /threads/{id}/schedules",
        "POST /schedules/files/{name}/run",
        "POST /v1/tools/{name}",
      ].sort(),
    );
    const header = body.paths["/threads"]!.post!.parameters!.find((p) => p.name === "Idempotency-Key") as unknown as { required: boolean; schema: { maxLength: number } };
    expect(header.required).toBe(false);
    expect(header.schema.maxLength).toBe(255);
  });
});
