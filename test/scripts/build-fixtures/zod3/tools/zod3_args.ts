import { defineTool } from "@standardagents/spec";
import { z } from "zod/v3";

// zod/v3 is the Zod 3 API shipped inside the zod@4 package: the same objects zod@^3 produces.
export default defineTool({
  description: "A tool whose args are a Zod 3 schema",
  // @ts-expect-error: a Zod 3 schema is not a ToolArgs; the build must refuse it at run time too.
  args: z.object({ name: z.string() }),
  execute: async () => ({ status: "success", result: "ok" }),
});
