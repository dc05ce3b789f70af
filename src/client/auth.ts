/**
 * Auth providers: a static bearer token, an API key (A2: `x-api-key`), or OAuth2 client credentials
 * (A3) with a cached token refreshed shortly before expiry, ONE shared in-flight refresh for concurrent
 * calls, and a refresh on demand after a 401.
 */
import { z } from "zod";
import { HEADERS, OAUTH } from "../api/assumptions";
import { AuthenticationError, ConfigurationError, NetworkError, RiskPortalError, TimeoutError, errorFromResponse } from "./errors";
import { fingerprint } from "./cache";
import type { Redactor } from "./redact";

/** How the client authenticates. Exactly one of the three forms. */
export type AuthOptions =
  | { token: string }
  | { apiKey: string }
  | { clientId: string; clientSecret: string; tokenUrl: string; scope?: string };

export interface AuthProvider {
  /** A short description without secrets, for `console.log(client)`. */
  readonly description: string;
  /** Who is calling, for cache keys: a fingerprint of a static credential, the client id of OAuth2. Never a secret. */
  readonly identity: string;
  /**
   * Sets the credential header (lower-case name) and returns the credential used, so a 401 can tell
   * whether it is stale. Synchronous when the credential is at hand (static ones, a cached token).
   */
  apply(headers: Record<string, string>, signal: AbortSignal): string | Promise<string>;
  /** After a 401: get a fresh credential if that can help. True when the request should be re-sent once. */
  refreshAfterUnauthorized(used: string, signal: AbortSignal): Promise<boolean>;
}

export interface AuthContext {
  fetch: typeof fetch;
  redactor: Redactor;
  timeoutMs: number;
  now: () => number;
}

export function createAuthProvider(options: AuthOptions, context: AuthContext): AuthProvider {
  if (!options || typeof options !== "object") throw new ConfigurationError("auth is required: { token } | { apiKey } | { clientId, clientSecret, tokenUrl }", { operation: "configure" });
  const given = ["token", "apiKey", "clientId"].filter((k) => k in options);
  if (given.length !== 1) {
    throw new ConfigurationError(`auth needs exactly one of token, apiKey or clientId/clientSecret/tokenUrl; got ${given.length ? given.join(" and ") : "none"}`, {
      operation: "configure",
    });
  }
  if ("token" in options) return staticHeader(HEADERS.authorization, "Bearer ", requireText(options.token, "auth.token"), "bearer token", context);
  if ("apiKey" in options) return staticHeader(HEADERS.apiKey, "", requireText(options.apiKey, "auth.apiKey"), "API key", context);
  return new ClientCredentials(options, context);
}

/** For a client that only replays a cassette: no credentials, and a clear error should a request ever need them. */
export const replayOnlyAuth: AuthProvider = {
  description: "none (replaying a cassette)",
  identity: "none",
  apply() {
    throw new ConfigurationError("this client has no credentials: it only replays a cassette", { operation: "configure" });
  },
  async refreshAfterUnauthorized() {
    return false;
  },
};

function requireText(value: unknown, field: string): string {
  if (typeof value !== "string" || value.trim() === "") throw new ConfigurationError(`${field} must be a non-empty string`, { operation: "configure" });
  return value;
}

function staticHeader(name: string, prefix: string, secret: string, description: string, context: AuthContext): AuthProvider {
  context.redactor.add(secret);
  return {
    description,
    identity: `${description} ${fingerprint(secret)}`,
    apply(headers) {
      headers[name] = prefix + secret;
      return secret;
    },
    async refreshAfterUnauthorized() {
      return false; // a static credential cannot get better by asking again
    },
  };
}

const tokenReply = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string().refine((t) => t.toLowerCase() === OAUTH.tokenType.toLowerCase(), { error: `expected token_type "${OAUTH.tokenType}"` }),
  expires_in: z.coerce.number().positive().optional(),
});

/** Lifetime assumed when the token endpoint does not say (`expires_in` is optional in RFC 6749). */
const DEFAULT_LIFETIME_MS = 3_600_000;

class ClientCredentials implements AuthProvider {
  readonly description: string;
  readonly identity: string;
  readonly #clientId: string;
  readonly #clientSecret: string;
  readonly #tokenUrl: string;
  readonly #scope?: string;
  readonly #context: AuthContext;
  #token?: { value: string; refreshAtMs: number };
  #inFlight?: Promise<string>;
  /** Token requests made so far (visible for tests and diagnostics). */
  tokenRequests = 0;

  constructor(options: { clientId: string; clientSecret: string; tokenUrl: string; scope?: string }, context: AuthContext) {
    this.#clientId = requireText(options.clientId, "auth.clientId");
    this.#clientSecret = requireText(options.clientSecret, "auth.clientSecret");
    this.#tokenUrl = requireText(options.tokenUrl, "auth.tokenUrl");
    try {
      new URL(this.#tokenUrl);
    } catch {
      throw new ConfigurationError("auth.tokenUrl must be an absolute URL", { operation: "configure" });
    }
    this.#scope = options.scope;
    this.#context = context;
    context.redactor.add(this.#clientSecret);
    this.description = `OAuth2 client credentials (client id ${this.#clientId})`;
    this.identity = `oauth2 ${this.#tokenUrl} ${this.#clientId}`;
  }

  apply(headers: Record<string, string>, signal: AbortSignal): string | Promise<string> {
    const cached = this.#token;
    if (cached && this.#context.now() < cached.refreshAtMs) {
      headers[HEADERS.authorization] = `Bearer ${cached.value}`;
      return cached.value;
    }
    return this.#current(signal).then((token) => {
      headers[HEADERS.authorization] = `Bearer ${token}`;
      return token;
    });
  }

  async refreshAfterUnauthorized(used: string, signal: AbortSignal): Promise<boolean> {
    // Only drop the cache if it still holds the rejected token: concurrent 401s share one refresh.
    if (this.#token?.value === used) this.#token = undefined;
    await this.#current(signal);
    return true;
  }

  #current(signal: AbortSignal): Promise<string> {
    const cached = this.#token;
    if (cached && this.#context.now() < cached.refreshAtMs) return Promise.resolve(cached.value);
    this.#inFlight ??= this.#fetchToken().finally(() => {
      this.#inFlight = undefined;
    });
    return raceAbort(this.#inFlight, signal);
  }

  async #fetchToken(): Promise<string> {
    this.tokenRequests++;
    const { fetch, redactor, timeoutMs } = this.#context;
    const form = new URLSearchParams({ grant_type: OAUTH.grantType });
    if (this.#scope) form.set("scope", this.#scope);
    // RFC 6749 §2.3.1: id and secret are form-urlencoded before going into HTTP Basic.
    const basic = Buffer.from(`${encodeURIComponent(this.#clientId)}:${encodeURIComponent(this.#clientSecret)}`).toString("base64");
    redactor.add(basic); // the encoded credentials are as secret as the secret itself
    const details = { operation: "token", method: "POST", url: redactor.text(this.#tokenUrl) };
    // The shared refresh belongs to no single caller, so it has its own timeout, not a caller's signal.
    const controller = new AbortController();
    const timer = Number.isFinite(timeoutMs) ? setTimeout(() => controller.abort(), timeoutMs) : undefined;
    try {
      let response: Response;
      try {
        response = await fetch(this.#tokenUrl, {
          method: "POST",
          headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
          body: form.toString(),
          signal: controller.signal,
        });
      } catch (error) {
        if (controller.signal.aborted) throw new TimeoutError(`token request timed out after ${timeoutMs} ms`, details, timeoutMs);
        throw new NetworkError(`token request failed: ${redactor.text(String((error as Error)?.message ?? error))}`, { ...details, cause: redactor.cause(error) });
      }
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* not JSON: keep the text */
      }
      if (!response.ok) {
        const failure = errorFromResponse({ ...details, status: response.status, statusText: response.statusText, body: redactor.value(body) });
        if (failure.status === 400 || failure.status === 401) {
          // RFC 6749 §5.2: invalid_client and friends arrive as 400/401; both mean the credentials are wrong.
          throw new AuthenticationError(redactor.text(failure.message), { ...details, status: failure.status, body: failure.body }, failure.problem);
        }
        throw failure;
      }
      const parsed = tokenReply.safeParse(body);
      if (!parsed.success) {
        throw new AuthenticationError(`token endpoint sent an unusable reply: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`, {
          ...details,
          status: response.status,
          body: redactor.value(body),
        });
      }
      const token = parsed.data.access_token;
      redactor.add(token);
      const lifetimeMs = parsed.data.expires_in !== undefined ? parsed.data.expires_in * 1000 : DEFAULT_LIFETIME_MS;
      // Refresh a little before expiry: the configured margin, but never more than a tenth of a short lifetime.
      const marginMs = Math.min(OAUTH.refreshMarginMs, lifetimeMs / 10);
      this.#token = { value: token, refreshAtMs: this.#context.now() + lifetimeMs - marginMs };
      return token;
    } catch (error) {
      if (error instanceof RiskPortalError) throw error;
      throw new NetworkError(`token request failed: ${redactor.text(String((error as Error)?.message ?? error))}`, { ...details, cause: redactor.cause(error) });
    } finally {
      if (timer) clearTimeout(timer);
    }
  }
}

/** Resolves with `promise`, or rejects with the signal's reason as soon as `signal` aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
