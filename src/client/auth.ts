/**
 * Auth providers: a static bearer token, an API key (A2: `x-api-key`), OAuth2 client credentials (A3),
 * or a `getToken` callback for tokens obtained elsewhere (SSO in a browser: the service's pages name AWS
 * Cognito as the identity provider). The last two share one cached bearer token refreshed shortly
 * before expiry, ONE in-flight refresh for concurrent calls, and a refresh on demand after a 401.
 */
import { z } from "zod";
import { lazy } from "../api/lazy";
import { HEADERS, OAUTH } from "../api/assumptions";
import {
  AuthenticationError,
  ConfigurationError,
  NetworkError,
  ProtocolError,
  RedirectError,
  ResponseValidationError,
  RiskPortalError,
  TimeoutError,
  errorFromResponse,
} from "./errors";
import { fingerprint } from "../record/cache";
import type { Redactor } from "../record/redact";
import { decodeForDisplay, decodeUtf8, InvalidUtf8, readBody } from "./body";
import { protocolViolation, violationText } from "./retry";
import { followSameOrigin, RedirectRefused, redirectMessage, type Hop } from "./redirect";

/** A token from {@link GetToken}, with its expiry when known (never known: it is used until a 401). */
export interface TokenInfo {
  token: string;
  /** When it expires: a `Date` or epoch milliseconds. */
  expiresAt?: Date | number;
  /** Or its lifetime from now, seconds. */
  expiresInSeconds?: number;
}

/**
 * Gets an access token from wherever the caller has one (an SSO session, AWS Cognito's hosted UI, a
 * company token broker). `reason`: `initial` (first call), `expired` (the last one reached its expiry),
 * `unauthorized` (the service answered 401 with the last one). Concurrent calls share one invocation.
 */
export type GetToken = (context: {
  reason: "initial" | "expired" | "unauthorized";
  signal: AbortSignal;
}) => string | TokenInfo | Promise<string | TokenInfo>;

/** How the client authenticates. Exactly one of the four forms. */
export type AuthOptions =
  | { token: string }
  | { apiKey: string }
  | { clientId: string; clientSecret: string; tokenUrl: string; scope?: string }
  | { getToken: GetToken };

export interface AuthProvider {
  /** A short description without secrets, for `console.log(client)`. */
  readonly description: string;
  /** Who is calling, for cache keys: a fingerprint of a static credential, the client id of OAuth2. Never a secret. */
  readonly identity: string;
  /**
   * Sets the credential header (lower-case name) and returns the credential used, so a 401 can tell
   * whether it is stale. Synchronous when the credential is at hand (static ones, a cached token).
   * `deadlineAtMs` is the calling request's own deadline (clock of `now`): a shared token request lasts as
   * long as the latest deadline of the calls waiting for it.
   */
  apply(headers: Record<string, string>, signal: AbortSignal, deadlineAtMs?: number): string | Promise<string>;
  /** After a 401: get a fresh credential if that can help. True when the request should be re-sent once. */
  refreshAfterUnauthorized(used: string, signal: AbortSignal, deadlineAtMs?: number): Promise<boolean>;
}

export interface AuthContext {
  fetch: typeof fetch;
  redactor: Redactor;
  timeoutMs: number;
  now: () => number;
}

export function createAuthProvider(options: AuthOptions, context: AuthContext): AuthProvider {
  if (!options || typeof options !== "object")
    throw new ConfigurationError(
      "auth is required: { token } | { apiKey } | { clientId, clientSecret, tokenUrl } | { getToken }",
      { operation: "configure" },
    );
  const given = ["token", "apiKey", "clientId", "getToken"].filter((k) => k in options);
  if (given.length !== 1) {
    throw new ConfigurationError(
      `auth needs exactly one of token, apiKey, clientId/clientSecret/tokenUrl or getToken; got ${given.length ? given.join(" and ") : "none"}`,
      {
        operation: "configure",
      },
    );
  }
  if ("token" in options)
    return staticHeader(
      HEADERS.authorization,
      "Bearer ",
      requireText(options.token, "auth.token"),
      "bearer token",
      context,
    );
  if ("apiKey" in options)
    return staticHeader(HEADERS.apiKey, "", requireText(options.apiKey, "auth.apiKey"), "API key", context);
  if ("getToken" in options) {
    if (typeof options.getToken !== "function")
      throw new ConfigurationError(`auth.getToken must be a function, got ${typeof options.getToken}`, {
        operation: "configure",
      });
    return new TokenCallback(options.getToken, context);
  }
  return new ClientCredentials(options, context);
}

/** For a client that only replays a cassette: no credentials, and a clear error should a request ever need them. */
export const replayOnlyAuth: AuthProvider = {
  description: "none (replaying a cassette)",
  identity: "none",
  apply() {
    throw new ConfigurationError("this client has no credentials: it only replays a cassette", {
      operation: "configure",
    });
  },
  async refreshAfterUnauthorized() {
    return false;
  },
};

function requireText(value: unknown, field: string): string {
  if (typeof value !== "string" || value.trim() === "")
    throw new ConfigurationError(`${field} must be a non-empty string`, { operation: "configure" });
  return value;
}

function staticHeader(
  name: string,
  prefix: string,
  secret: string,
  description: string,
  context: AuthContext,
): AuthProvider {
  context.redactor.add(secret);
  // Spelled once: a fresh concatenation per request is flattened again by every header check it meets.
  const value = prefix + secret;
  return {
    description,
    identity: `${description} ${fingerprint(secret)}`,
    apply(headers) {
      headers[name] = value;
      return secret;
    },
    async refreshAfterUnauthorized() {
      return false; // a static credential cannot get better by asking again
    },
  };
}

const tokenReply = lazy(() =>
  z.looseObject({
    access_token: z.string().min(1),
    token_type: z.string().refine((t) => t.toLowerCase() === OAUTH.tokenType.toLowerCase(), {
      error: `expected token_type "${OAUTH.tokenType}"`,
    }),
    expires_in: z.coerce.number().positive().optional(),
  }),
);

/** The most of a token endpoint's reply that is read. */
const TOKEN_REPLY_BYTES = 2 ** 20;

/** Lifetime assumed when the token endpoint does not say (`expires_in` is optional in RFC 6749). */
const DEFAULT_LIFETIME_MS = 3_600_000;

type RefreshReason = "initial" | "expired" | "unauthorized";

/**
 * A bearer token kept until shortly before its expiry: one shared in-flight request for concurrent
 * callers, a new token on demand after a 401. Subclasses say how a token is obtained.
 *
 * The shared request belongs to no single caller: it is aborted at the latest deadline of the calls
 * waiting for it (each joining call moves it later if its own deadline is later), never at the first
 * caller's; each caller stops waiting at its own deadline.
 */
abstract class CachedBearer implements AuthProvider {
  abstract readonly description: string;
  abstract readonly identity: string;
  #token?: { value: string; refreshAtMs: number };
  #inFlight?: { promise: Promise<string>; deadline: SharedDeadline };
  #obtained = false;

  constructor(protected readonly context: AuthContext) {}

  /**
   * A new token and its lifetime (ms; undefined: unknown). Runs once for all concurrent callers; `signal`
   * aborts when the last waiting caller's deadline has passed (then throw a TimeoutError).
   */
  protected abstract obtain(
    reason: RefreshReason,
    signal: AbortSignal,
  ): Promise<{ value: string; lifetimeMs?: number }>;

  apply(headers: Record<string, string>, signal: AbortSignal, deadlineAtMs?: number): string | Promise<string> {
    const cached = this.#token;
    if (cached && this.context.now() < cached.refreshAtMs) {
      headers[HEADERS.authorization] = `Bearer ${cached.value}`;
      return cached.value;
    }
    return this.#current(signal, this.#obtained ? "expired" : "initial", deadlineAtMs).then((token) => {
      headers[HEADERS.authorization] = `Bearer ${token}`;
      return token;
    });
  }

  async refreshAfterUnauthorized(used: string, signal: AbortSignal, deadlineAtMs?: number): Promise<boolean> {
    // Only drop the cache if it still holds the rejected token: concurrent 401s share one refresh.
    if (this.#token?.value === used) this.#token = undefined;
    // The same token again cannot fare better: then the 401 stands.
    return (await this.#current(signal, "unauthorized", deadlineAtMs)) !== used;
  }

  #current(
    signal: AbortSignal,
    reason: RefreshReason,
    deadlineAtMs = this.context.now() + this.context.timeoutMs,
  ): Promise<string> {
    const cached = this.#token;
    if (cached && this.context.now() < cached.refreshAtMs) return Promise.resolve(cached.value);
    if (this.#inFlight) {
      this.#inFlight.deadline.extendTo(deadlineAtMs);
      return raceAbort(this.#inFlight.promise, signal);
    }
    const deadline = new SharedDeadline(this.context.now, deadlineAtMs);
    const promise = this.obtain(reason, deadline.signal)
      .then(({ value, lifetimeMs }) => {
        this.context.redactor.add(value);
        this.#obtained = true;
        const life = lifetimeMs ?? Infinity;
        // Refresh a little before expiry: the configured margin, but never more than a tenth of a short lifetime.
        this.#token = { value, refreshAtMs: this.context.now() + life - Math.min(OAUTH.refreshMarginMs, life / 10) };
        return value;
      })
      .finally(() => {
        deadline.dispose();
        this.#inFlight = undefined;
      });
    this.#inFlight = { promise, deadline };
    return raceAbort(promise, signal);
  }
}

/** Longest delay `setTimeout` honours (about 24.8 days); a later deadline is none. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** An abort signal at a deadline that can be moved later (never earlier). */
class SharedDeadline {
  readonly #controller = new AbortController();
  #atMs: number;
  #timer?: ReturnType<typeof setTimeout>;

  constructor(
    readonly now: () => number,
    atMs: number,
  ) {
    this.#atMs = atMs;
    this.#arm();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  extendTo(atMs: number): void {
    if (!(atMs > this.#atMs) || this.#controller.signal.aborted) return;
    this.#atMs = atMs;
    this.#arm();
  }

  dispose(): void {
    if (this.#timer) clearTimeout(this.#timer);
  }

  #arm(): void {
    this.dispose();
    const delay = this.#atMs - this.now();
    if (!Number.isFinite(delay) || delay > MAX_TIMER_MS) return;
    this.#timer = setTimeout(() => this.#controller.abort(), Math.max(0, delay));
  }
}

/** `auth: { getToken }`: tokens from the caller's callback. */
class TokenCallback extends CachedBearer {
  readonly description = "bearer token from getToken()";
  // Constant: cache keys must survive a token refresh, and never depend on a secret.
  readonly identity = "getToken callback";

  constructor(
    readonly getToken: GetToken,
    context: AuthContext,
  ) {
    super(context);
  }

  protected async obtain(reason: RefreshReason, signal: AbortSignal): Promise<{ value: string; lifetimeMs?: number }> {
    const { redactor, now } = this.context;
    const details = { operation: "token", method: "getToken" };
    const started = now();
    let got: unknown;
    try {
      got = await raceAbort(
        Promise.resolve().then(() => this.getToken({ reason, signal })),
        signal,
      );
    } catch (error) {
      if (signal.aborted)
        throw new TimeoutError(`getToken() did not answer within ${now() - started} ms`, details, now() - started);
      // No token, so no call: the caller is unauthenticated (status 401), and the message says nothing was sent.
      throw new AuthenticationError(
        redactor.text(`getToken() failed, nothing was sent: ${String((error as Error)?.message ?? error)}`),
        {
          ...details,
          status: 401,
          cause: redactor.cause(error),
        },
      );
    }
    const info: Partial<TokenInfo> =
      typeof got === "string" ? { token: got } : got !== null && typeof got === "object" ? got : {};
    if (typeof info.token !== "string" || info.token.trim() === "") {
      const what =
        got === null
          ? "null"
          : typeof got === "object"
            ? `an object with ${typeof info.token === "string" ? "an empty token" : `token of type ${typeof info.token}`}`
            : typeof got === "string"
              ? "an empty string"
              : `a ${typeof got}`;
      throw new ConfigurationError(
        `auth.getToken must return a non-empty token string or { token, expiresAt?, expiresInSeconds? }; it returned ${what}`,
        {
          operation: "configure",
        },
      );
    }
    redactor.add(info.token);
    const expiresAt = info.expiresAt instanceof Date ? info.expiresAt.getTime() : info.expiresAt;
    const lifetimeMs =
      typeof expiresAt === "number" && Number.isFinite(expiresAt)
        ? expiresAt - now()
        : typeof info.expiresInSeconds === "number" && info.expiresInSeconds > 0
          ? info.expiresInSeconds * 1000
          : undefined;
    return { value: info.token, lifetimeMs };
  }
}

class ClientCredentials extends CachedBearer {
  readonly description: string;
  readonly identity: string;
  readonly #clientId: string;
  readonly #clientSecret: string;
  readonly #tokenUrl: string;
  readonly #scope?: string;
  /** Token requests made so far (visible for tests and diagnostics). */
  tokenRequests = 0;

  constructor(
    options: { clientId: string; clientSecret: string; tokenUrl: string; scope?: string },
    context: AuthContext,
  ) {
    super(context);
    this.#clientId = requireText(options.clientId, "auth.clientId");
    this.#clientSecret = requireText(options.clientSecret, "auth.clientSecret");
    this.#tokenUrl = requireText(options.tokenUrl, "auth.tokenUrl");
    try {
      new URL(this.#tokenUrl);
    } catch {
      throw new ConfigurationError("auth.tokenUrl must be an absolute URL", { operation: "configure" });
    }
    this.#scope = options.scope;
    context.redactor.add(this.#clientSecret);
    this.description = `OAuth2 client credentials (client id ${this.#clientId})`;
    this.identity = `oauth2 ${this.#tokenUrl} ${this.#clientId}`;
  }

  protected obtain(_reason: RefreshReason, signal: AbortSignal): Promise<{ value: string; lifetimeMs?: number }> {
    return this.#fetchToken(signal);
  }

  async #fetchToken(signal: AbortSignal): Promise<{ value: string; lifetimeMs: number }> {
    this.tokenRequests++;
    const { fetch, redactor, now } = this.context;
    const started = now();
    const form = new URLSearchParams({ grant_type: OAUTH.grantType });
    if (this.#scope) form.set("scope", this.#scope);
    // RFC 6749 §2.3.1: id and secret are form-urlencoded before going into HTTP Basic.
    const basic = Buffer.from(
      `${encodeURIComponent(this.#clientId)}:${encodeURIComponent(this.#clientSecret)}`,
    ).toString("base64");
    redactor.add(basic); // the encoded credentials are as secret as the secret itself
    const details = { operation: "token", method: "POST", url: redactor.text(this.#tokenUrl) };
    try {
      let response: Response;
      try {
        // Redirects are followed within the token URL's origin only, the credentials added again here (never by fetch).
        const send = (hop: Hop) =>
          fetch(hop.url, {
            method: hop.method,
            headers: tokenHeaders(basic, hop.body !== undefined),
            body: hop.body,
            signal,
            redirect: "manual",
          });
        response = (await followSameOrigin({ url: this.#tokenUrl, method: "POST", body: form.toString() }, send))
          .response;
      } catch (error) {
        if (error instanceof RedirectRefused) {
          const location = error.location === undefined ? undefined : redactor.text(error.location);
          throw new RedirectError(
            redirectMessage("token request", error, redactor, "auth.tokenUrl"),
            { ...details, status: error.status },
            location,
          );
        }
        if (signal.aborted)
          throw new TimeoutError(`token request timed out after ${now() - started} ms`, details, now() - started);
        throw tokenTransportFailure(error, this.#tokenUrl, details, redactor);
      }
      return await readTokenReply(response, details, redactor);
    } catch (error) {
      if (error instanceof RiskPortalError) throw error;
      if (signal.aborted)
        throw new TimeoutError(`token request timed out after ${now() - started} ms`, details, now() - started);
      throw tokenTransportFailure(error, this.#tokenUrl, details, redactor);
    }
  }
}

/**
 * A token request that failed on the way: an answer that broke HTTP (oversized headers, a corrupt
 * compressed body, malformed HTTP) is a {@link ProtocolError}, never retried, as an API call's is; anything
 * else a {@link NetworkError}, which a call may retry.
 */
function tokenTransportFailure(
  error: unknown,
  tokenUrl: string,
  details: { operation: string; method: string; url: string },
  redactor: Redactor,
): RiskPortalError {
  const code = protocolViolation(error);
  if (code !== undefined)
    return new ProtocolError(
      `token request: the answer from ${redactor.text(new URL(tokenUrl).origin)} broke HTTP: ${violationText(code)} (${code}); not retried: a proxy or the token endpoint sends what no HTTP client accepts`,
      { ...details, cause: redactor.cause(error) },
      code,
    );
  return new NetworkError(`token request failed: ${redactor.text(String((error as Error)?.message ?? error))}`, {
    ...details,
    cause: redactor.cause(error),
  });
}

/** Reads the token endpoint's reply: the token and its lifetime, or the error it stands for. */
async function readTokenReply(
  response: Response,
  details: { operation: string; method: string; url: string },
  redactor: Redactor,
): Promise<{ value: string; lifetimeMs: number }> {
  // A token reply is small: a body past 1 MiB (a compression bomb, a page) is cut there, and then unusable.
  const { bytes, truncated } = await readBody(response, TOKEN_REPLY_BYTES, true);
  const text =
    response.ok && !truncated ? strictTokenText(bytes, response.status, details) : decodeForDisplay(bytes).text;
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: keep the text */
  }
  if (!response.ok) {
    const failure = errorFromResponse({
      ...details,
      status: response.status,
      statusText: response.statusText,
      body: redactor.value(body),
    });
    if (failure.status === 400 || failure.status === 401) {
      // RFC 6749 §5.2: invalid_client and friends arrive as 400/401; both mean the credentials are wrong.
      throw new AuthenticationError(
        redactor.text(failure.message),
        { ...details, status: failure.status, body: failure.body },
        failure.problem,
      );
    }
    throw failure;
  }
  const parsed = tokenReply.safeParse(body);
  if (!parsed.success) {
    throw new AuthenticationError(
      `token endpoint sent an unusable reply: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`,
      {
        ...details,
        status: response.status,
        body: redactor.value(body),
      },
    );
  }
  const token = parsed.data.access_token;
  redactor.add(token);
  return {
    value: token,
    lifetimeMs: parsed.data.expires_in !== undefined ? parsed.data.expires_in * 1000 : DEFAULT_LIFETIME_MS,
  };
}

/** A token reply's text, as strict as an API answer's: invalid UTF-8 is refused with its offset, never read as U+FFFD. */
function strictTokenText(
  bytes: Uint8Array,
  status: number,
  details: { operation: string; method: string; url: string },
): string {
  try {
    return decodeUtf8(bytes);
  } catch (error) {
    if (!(error instanceof InvalidUtf8)) throw error;
    throw new ResponseValidationError(
      `token request: the token endpoint's reply is not valid UTF-8 at byte ${error.offset}: refused, not read with replacement characters`,
      { ...details, status },
      [],
    );
  }
}

function tokenHeaders(basic: string, hasBody: boolean): Record<string, string> {
  const headers: Record<string, string> = { authorization: `Basic ${basic}`, accept: "application/json" };
  if (hasBody) headers["content-type"] = "application/x-www-form-urlencoded";
  return headers;
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
