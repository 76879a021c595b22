/**
 * The registry of response schemas (responses.ts, response-records.ts): each schema is registered
 * under the name it has in the OpenAPI document's `components.schemas`, and turned into JSON Schema
 * there by zod's `z.toJSONSchema`.
 * @module
 */
import * as z from "zod";

/** The body a response schema describes, for a route that builds its answer itself (`c.json(x satisfies Body<typeof Index>)`). */
export type Body<S extends z.ZodType> = z.output<S>;

/** The registry of response schemas: each schema's `id` is its name under `components.schemas`. */
export const responseSchemas = z.registry<{ id: string }>();

/** `schema` (with its `description`), registered in {@link responseSchemas} as `id`. */
export function named<T extends z.ZodType>(id: string, schema: T, description?: string): T {
  const described = description ? (schema.describe(description) as T) : schema;
  responseSchemas.add(described as z.ZodType, { id });
  return described;
}

/** A count: a whole number, 0 or more. */
export const count = z.number().int().nonnegative();
/** A time in milliseconds since the Unix epoch. */
export const epochMs = z.number().describe("Milliseconds since the Unix epoch");
/** A side of a two-sided agent's conversation. */
export const side = z.enum(["a", "b"]);

/** Every registered response schema as JSON Schema, for `components.schemas`; references between them are `#/components/schemas/<id>`. */
export function responseComponents(): Record<string, unknown> {
  const { schemas } = z.toJSONSchema(responseSchemas, { uri: (id) => `#/components/schemas/${id}` });
  // OpenAPI 3.1's dialect is the document's: no `$schema` per component; each is found by its
  // place in the document, so no `$id` either (a `$id` may not be a fragment).
  return Object.fromEntries(Object.entries(schemas).map(([id, { $schema: _s, $id: _i, ...schema }]) => [id, schema]));
}

/** The `$ref` of a registered schema. @throws Error for a schema not registered (a response without a name). */
export function refOf(schema: z.ZodType): { $ref: string } {
  const id = responseSchemas.get(schema)?.id;
  if (!id) throw new Error("response schema not registered in responseSchemas");
  return { $ref: `#/components/schemas/${id}` };
}
