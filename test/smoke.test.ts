import { env, SELF } from "cloudflare:workers";
import { it, expect } from "vitest";
it("works", async () => { const r = await (env as any).THREAD.get((env as any).THREAD.newUniqueId()).hello(); expect(r).toBe("hi"); });
