import { DurableObject } from "cloudflare:workers";
export class Thread extends DurableObject {
  async hello() { return "hi"; }
}
export default { fetch() { return new Response("ok"); } };
