/**
 * The keys of a user's MCP connections, from the Worker secret `WEFT_MCP_OAUTH_KEY` (HKDF-SHA-256,
 * one key per use): AES-GCM seals every stored token, client secret and PKCE verifier (bound to
 * the user and the row it belongs to, so a sealed value copied elsewhere does not open), and
 * HMAC-SHA-256 signs the OAuth `state` (bound to the user, the thread and one pending
 * authorization). WebCrypto only.
 * @module
 */
import { WeftError } from "../errors.js";

/** The Worker secret the keys derive from (any string of 32 characters or more). */
export const VAULT_SECRET = "WEFT_MCP_OAUTH_KEY";

const text = new TextEncoder();

function b64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function unb64url(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** Sealing and signing under keys derived from one secret. */
export class Vault {
  private constructor(
    private readonly seal_: CryptoKey,
    private readonly sign_: CryptoKey,
  ) {}

  /** The vault of `env`'s {@link VAULT_SECRET}. @throws WeftError `capability_missing` when it is unset or shorter than 32 characters. */
  static async of(env: Readonly<Record<string, unknown>>): Promise<Vault> {
    const secret = env[VAULT_SECRET];
    if (typeof secret !== "string" || secret.length < 32) {
      throw new WeftError("capability_missing", `OAuth connections to MCP servers need the Worker secret ${VAULT_SECRET} (32 characters or more): tokens are stored encrypted under it`);
    }
    const base = await crypto.subtle.importKey("raw", text.encode(secret), "HKDF", false, ["deriveKey"]);
    const derive = (info: string, algorithm: { name: string; length: number; hash?: string }, usages: Array<"encrypt" | "decrypt" | "sign" | "verify">) =>
      crypto.subtle.deriveKey({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: text.encode(info) }, base, algorithm, false, usages);
    return new Vault(await derive("weft mcp connections: seal", { name: "AES-GCM", length: 256 }, ["encrypt", "decrypt"]), await derive("weft mcp connections: state", { name: "HMAC", hash: "SHA-256", length: 256 }, ["sign", "verify"]));
  }

  /** `value` as JSON, encrypted with a fresh 96-bit IV; `context` (user and row) is its additional data. */
  async seal(value: unknown, context: string): Promise<string> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: text.encode(context) }, this.seal_, text.encode(JSON.stringify(value))));
    return `${b64url(iv)}.${b64url(sealed)}`;
  }

  /** What {@link seal} sealed under the same `context`. @throws Error when it was sealed elsewhere or altered. */
  async open<T>(sealed: string, context: string): Promise<T> {
    const [iv, body] = sealed.split(".");
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: unb64url(iv ?? ""), additionalData: text.encode(context) }, this.seal_, unb64url(body ?? ""));
    return JSON.parse(new TextDecoder().decode(plain)) as T;
  }

  /** `payload` as a signed, URL-safe token (`<payload>.<HMAC>`). */
  async sign(payload: Record<string, string>): Promise<string> {
    const body = b64url(text.encode(JSON.stringify(payload)));
    return `${body}.${b64url(new Uint8Array(await crypto.subtle.sign("HMAC", this.sign_, text.encode(body))))}`;
  }

  /** The payload of a token {@link sign} made, or null for anything else (altered, forged, malformed). */
  async verify(token: string): Promise<Record<string, string> | null> {
    const [body, mac, extra] = token.split(".");
    if (!body || !mac || extra !== undefined || token.length > 2048) return null;
    try {
      if (!(await crypto.subtle.verify("HMAC", this.sign_, unb64url(mac), text.encode(body)))) return null;
      const payload = JSON.parse(new TextDecoder().decode(unb64url(body))) as unknown;
      if (typeof payload !== "object" || payload === null || Object.values(payload).some((v) => typeof v !== "string")) return null;
      return payload as Record<string, string>;
    } catch {
      return null;
    }
  }
}
