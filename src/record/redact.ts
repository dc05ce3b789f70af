/**
 * Keeps secrets out of every error, log line and fixture. A redactor knows the secret values in play
 * (tokens, API keys, client secrets — including tokens fetched later) and scrubs them from text, and it
 * masks the values of fields whose names say they are secret, whatever their value.
 */

export const REDACTED = "[REDACTED]";

/** What a masked value starts with. */
export const MASK = "••••";

/**
 * `••••1a2b`: the last 4 characters of a secret; a value of 4 characters or fewer is masked whole.
 * @example
 * ```ts
 * import { maskSecret } from "risk-portal-lab/frames";
 * maskSecret("sk-live-1a2b3c4d"); // "••••3c4d"
 * ```
 */
export function maskSecret(value: string): string {
  return value.length > 4 ? `${MASK}${value.slice(-4)}` : MASK;
}

/** Field names whose values are always masked (headers, token replies, API key entries). */
const SECRET_KEY =
  /^(authorization|x-api-key|api[_-]?key|access[_-]?token|refresh[_-]?token|id[_-]?token|token|client[_-]?secret|password|secret|exposed[_-]?value)$/i;
/**
 * `Bearer xyz…` / `Basic xyz…` anywhere in text, for credentials the redactor was not told about: the
 * credential part goes. 16+ characters, so prose such as "Basic validation failed" is left alone.
 */
const AUTH_SCHEME = /\b(Bearer|Basic)\s+[A-Za-z0-9\-._~+/]{16,}=*/g;
/** `https://user:pass@host` → `https://[REDACTED]@host`. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi;

/**
 * `target[key] = value`, except that a `__proto__` key (which JSON.parse makes an ordinary property)
 * stays an ordinary property instead of replacing `target`'s prototype. Every copy of server JSON goes
 * through here (`constructor` and `prototype` keys are ordinary properties on assignment already).
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

export class Redactor {
  readonly #secrets = new Set<string>();

  constructor(secrets: Iterable<string | undefined> = []) {
    for (const s of secrets) this.add(s);
  }

  /**
   * Registers a secret value; values shorter than 4 characters are ignored (they would mangle text).
   * @example
   * ```ts
   * import { Redactor } from "risk-portal-lab/internals";
   * const redactor = new Redactor();
   * redactor.add("sk-live-1a2b3c4d");
   * redactor.text("key sk-live-1a2b3c4d refused"); // the key scrubbed
   * ```
   */
  add(secret: string | undefined): void {
    if (secret && secret.length >= 4) this.#secrets.add(secret);
  }

  /**
   * Scrubs known secrets, credential schemes and URL user-info from a text.
   * @example
   * ```ts
   * import { Redactor } from "risk-portal-lab/internals";
   * new Redactor(["sk-live-1a2b3c4d"]).text("Authorization: Bearer sk-live-1a2b3c4d"); // "Authorization: Bearer [REDACTED]"
   * ```
   */
  text(input: string): string {
    let out = input;
    for (const secret of this.#secrets) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED);
      // A secret may also appear URL- or base64-encoded (form bodies, Basic credentials).
      const encoded = encodeURIComponent(secret);
      if (encoded !== secret && out.includes(encoded)) out = out.split(encoded).join(REDACTED);
    }
    return out.replace(AUTH_SCHEME, `$1 ${REDACTED}`).replace(URL_USERINFO, `$1${REDACTED}@`);
  }

  /**
   * A deep copy of a parsed body with secret fields masked and secrets scrubbed from every string.
   * @example
   * ```ts
   * import { Redactor } from "risk-portal-lab/internals";
   * new Redactor(["sk-live-1a2b3c4d"]).value({ note: "sk-live-1a2b3c4d", token: "abc12345" }); // { note: "[REDACTED]", token: "[REDACTED]" }
   * ```
   */
  value<T>(input: T): T {
    return this.#value(input, false) as T;
  }

  /**
   * Like {@link value}, but string fields named like a secret keep their last 4 characters (`••••1a2b`,
   * what `frames.apiKeys` shows): for recordings, so that a replayed response makes the same frames.
   * @example
   * ```ts
   * import { Redactor } from "risk-portal-lab/internals";
   * new Redactor().mask({ exposed_value: "sk-live-1a2b3c4d" }); // { exposed_value: "••••3c4d" }
   * ```
   */
  mask<T>(input: T): T {
    return this.#value(input, true) as T;
  }

  /**
   * The deep copy behind {@link value} and {@link mask}: iterative, so nothing is left unscrubbed however
   * deep it is nested (a body nested 10,000 deep included); an object met twice is copied once.
   */
  #value(input: unknown, keepTail: boolean): unknown {
    if (typeof input === "string") return this.text(input);
    if (input === null || typeof input !== "object") return input;
    const copies = new Map<object, unknown>();
    const copyOf = (from: object): Record<string, unknown> | unknown[] => {
      const to = Array.isArray(from) ? new Array<unknown>(from.length) : {};
      copies.set(from, to);
      stack.push([from, to]);
      return to;
    };
    const stack: [object, Record<string, unknown> | unknown[]][] = [];
    const root = copyOf(input);
    const leaf = (v: unknown): unknown => {
      if (typeof v === "string") return this.text(v);
      if (v === null || typeof v !== "object") return v;
      return copies.get(v) ?? copyOf(v);
    };
    while (stack.length) {
      const [from, to] = stack.pop()!;
      if (Array.isArray(from)) {
        for (let i = 0; i < from.length; i++) (to as unknown[])[i] = leaf(from[i]);
        continue;
      }
      const out = to as Record<string, unknown>;
      for (const [key, v] of Object.entries(from)) {
        if (!SECRET_KEY.test(key) || v === null || v === undefined) setOwn(out, key, leaf(v));
        else setOwn(out, key, keepTail && typeof v === "string" ? maskSecret(v) : REDACTED);
      }
    }
    return root;
  }

  /**
   * A safe stand-in for an error thrown by fetch or the platform: same name, code and message (scrubbed),
   * and the same for its own cause, so `error.cause` never carries a secret.
   * @example
   * ```ts
   * import { Redactor } from "risk-portal-lab/internals";
   * const safe = new Redactor(["sk-live-1a2b3c4d"]).cause(new Error("connect failed for sk-live-1a2b3c4d")); // same name and message, scrubbed
   * ```
   */
  cause(error: unknown, depth = 0): unknown {
    if (!(error instanceof Error)) return typeof error === "string" ? this.text(error) : error;
    const copy = new Error(this.text(error.message));
    copy.name = error.name;
    const code = (error as { code?: unknown }).code;
    if (code !== undefined) (copy as Error & { code?: unknown }).code = code;
    if (error.cause !== undefined && depth < 4) copy.cause = this.cause(error.cause, depth + 1);
    copy.stack = `${copy.name}: ${copy.message}`;
    return copy;
  }
}
