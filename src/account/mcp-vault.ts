/**
 * The keys of a user's MCP connections, from the Worker secret `WEFT_MCP_OAUTH_KEY` (HKDF-SHA-256,
 * one key per use): AES-GCM seals every stored token, client secret and PKCE verifier (bound to
 * the user and the row it belongs to, so a sealed value copied elsewhere does not open) and the
 * OAuth `state` (naming the user, the thread and one pending authorization: the authorization
 * server, which may be one a user chose, reads none of it). WebCrypto only.
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

/** The additional data of a sealed OAuth `state`: it opens as nothing else, nothing else opens as it. */
const STATE_CONTEXT = "oauth state";

/** Sealing under a key derived from one secret. */
export class Vault {
  private constructor(private readonly seal_: CryptoKey) {}

  /** The vault of `env`'s {@link VAULT_SECRET}. @throws WeftError `capability_missing` when it is unset or shorter than 32 characters. */
  static async of(env: Readonly<Record<string, unknown>>): Promise<Vault> {
    const secret = env[VAULT_SECRET];
    if (typeof secret !== "string" || secret.length < 32) {
      throw new WeftError("capability_missing", `OAuth connections to MCP servers need the Worker secret ${VAULT_SECRET} (32 characters or more): tokens are stored encrypted under it`);
    }
    const base = await crypto.subtle.importKey("raw", text.encode(secret), "HKDF", false, ["deriveKey"]);
    const derive = (info: string, algorithm: { name: string; length: number; hash?: string }, usages: Array<"encrypt" | "decrypt" | "sign" | "verify">) =>
      crypto.subtle.deriveKey({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: text.encode(info) }, base, algorithm, false, usages);
    return new Vault(await derive("weft mcp connections: seal", { name: "AES-GCM", length: 256 }, ["encrypt", "decrypt"]));
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

  /** `payload` as a sealed, URL-safe OAuth `state` (`<iv>.<ciphertext>`): unreadable and unalterable without the secret. */
  stateOf(payload: Record<string, string>): Promise<string> {
    return this.seal(payload, STATE_CONTEXT);
  }

  /** The payload of a state {@link stateOf} made, or null for anything else (altered, forged, malformed). */
  async readState(token: string): Promise<Record<string, string> | null> {
    // Bounded, yet long enough for a state naming any user id a JWT may carry (about 6,000 bytes).
    if (token.length > 8192 || token.split(".").length !== 2) return null;
    try {
      const payload = await this.open<unknown>(token, STATE_CONTEXT);
      if (typeof payload !== "object" || payload === null || Object.values(payload).some((v) => typeof v !== "string")) return null;
      return payload as Record<string, string>;
    } catch {
      return null;
    }
  }
}
