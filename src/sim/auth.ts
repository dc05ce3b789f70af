/**
 * Credentials of the simulator (A2, A3): a static bearer token, API keys (`x-api-key`), and an OAuth2
 * client-credentials token endpoint issuing expiring tokens. Each authenticated request is attributed
 * to a principal, the key of its rate limit.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { HEADERS, OAUTH } from "../api/assumptions";
import type { Clock } from "./clock";
import { hash32 } from "./random";

export interface SimulatorCredentials {
  /** A static token for `Authorization: Bearer …`. */
  bearerToken: string;
  /** An API key for `x-api-key: …`. */
  apiKey: string;
  /** OAuth2 client id and secret for the token endpoint. */
  clientId: string;
  clientSecret: string;
  /** The token endpoint (client-credentials grant, HTTP Basic or form credentials). */
  tokenUrl: string;
}

/** Path of the token endpoint. */
export const TOKEN_PATH = "/oauth2/token";

export class Authenticator {
  readonly credentials: Omit<SimulatorCredentials, "tokenUrl">;
  /** A second API key the caller owns (ApiKeys lists both). */
  readonly secondApiKey: string;
  readonly #tokens = new Map<string, number>();

  constructor(
    seed: number,
    readonly clock: Clock,
    readonly tokenTtlSeconds: number,
    /** Random credentials (default) or ones derived from the seed (reproducible recordings). */
    fixedCredentials: boolean,
  ) {
    // `expires_in` is sent as it is: NaN would be null on the wire, and a token that lives no time is no token.
    if (!(Number.isFinite(tokenTtlSeconds) && tokenTtlSeconds > 0))
      throw new RangeError(`tokenTtlSeconds must be a number of seconds > 0, got ${tokenTtlSeconds}`);
    const secret = (label: string, bytes: number) =>
      fixedCredentials
        ? `${hash32(label, seed).toString(16).padStart(8, "0")}${hash32(`${label}/2`, seed).toString(16).padStart(8, "0")}`.slice(
            0,
            bytes * 2,
          )
        : randomBytes(bytes).toString("hex");
    this.credentials = {
      bearerToken: `sim_bt_${secret("bearer", 16)}`,
      apiKey: `rpk_sim_${secret("apikey", 12)}`,
      clientId: "risk-portal-lab-notebook",
      clientSecret: `sim_cs_${secret("secret", 16)}`,
    };
    this.secondApiKey = `rpk_sim_${secret("apikey-2", 12)}`;
  }

  /** Issues a token if the client credentials match (RFC 6749 §4.4). */
  issueToken(
    clientId: string | undefined,
    clientSecret: string | undefined,
  ): { access_token: string; token_type: string; expires_in: number } | undefined {
    if (
      !clientId ||
      !clientSecret ||
      !safeEqual(clientId, this.credentials.clientId) ||
      !safeEqual(clientSecret, this.credentials.clientSecret)
    )
      return undefined;
    const token = `sim_at_${randomBytes(18).toString("hex")}`;
    this.#tokens.set(token, this.clock.now() + this.tokenTtlSeconds * 1000);
    // Forget expired tokens now and then, so the map cannot grow without bound.
    if (this.#tokens.size > 10_000)
      for (const [t, exp] of this.#tokens) if (exp <= this.clock.now()) this.#tokens.delete(t);
    return { access_token: token, token_type: OAUTH.tokenType, expires_in: this.tokenTtlSeconds };
  }

  /**
   * The principal of a request, or why it is refused. Either credential authenticates a call (A2); an
   * `Authorization` header that is present but wrong is refused even when an API key is also sent.
   */
  authenticate(headers: Record<string, string | string[] | undefined>): { principal: string } | { refused: string } {
    const auth = first(headers[HEADERS.authorization]);
    const key = first(headers[HEADERS.apiKey]);
    if (auth !== undefined) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
      if (!m) return { refused: "the Authorization header must be 'Bearer <token>'" };
      const token = m[1]!;
      if (safeEqual(token, this.credentials.bearerToken)) return { principal: "bearer" };
      const expires = this.#tokens.get(token);
      if (expires === undefined) return { refused: "unknown bearer token" };
      if (expires <= this.clock.now()) return { refused: "the access token has expired" };
      return { principal: `oauth:${this.credentials.clientId}` };
    }
    if (key !== undefined) {
      if (safeEqual(key, this.credentials.apiKey)) return { principal: "apikey:1" };
      if (safeEqual(key, this.secondApiKey)) return { principal: "apikey:2" };
      return { refused: "unknown API key" };
    }
    return { refused: "no credentials: send 'Authorization: Bearer <token>' or 'x-api-key: <key>'" };
  }
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
