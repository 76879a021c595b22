/**
 * `cloudflare:email` for the Agents SDK target: the workerd binary has no email module of its own
 * (wrangler's local simulator supplies one), and the SDK imports it at load time. The benchmark
 * sends no email; sending one through this stand-in fails loudly.
 * @module
 */
export class EmailMessage {
  constructor() {
    throw new Error("bench/compare: no email on a bare workerd");
  }
}
