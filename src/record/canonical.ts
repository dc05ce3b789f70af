/**
 * The canonical form of a request, shared by cassettes, the response cache and provenance: object keys
 * sorted, every ISO 8601 date or date-time string turned into the same UTC instant spelling
 * (`2026-11-20`, `2026-11-20T00:00:00.000Z` and `2026-11-20T01:00:00+01:00` are all
 * `2026-11-20T00:00:00Z`), query parameters sorted. Two requests the server cannot tell apart have one
 * key; `describeDifferences` says where two requests differ, field by field.
 */
import { setOwn } from "./redact";

export interface CanonicalRequest {
  readonly method: string;
  /** Path under the base URL (`/api/RateAsset/GetRateAsset`). */
  readonly path: string;
  /** Query parameters, sorted by name (absent when there are none). */
  readonly query?: Readonly<Record<string, string>>;
  /** JSON body in canonical form (absent for GET). */
  readonly body?: unknown;
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})$/;

/** An ISO 8601 date (`YYYY-MM-DD`, read as midnight UTC, as the wire model sends it) or date-time with an offset, as one UTC spelling; other strings unchanged. */
export function canonicalString(text: string): string {
  let ms: number;
  if (DATE_ONLY.test(text)) ms = Date.parse(`${text}T00:00:00Z`);
  else if (DATE_TIME.test(text)) ms = Date.parse(text.replace(" ", "T"));
  else return text;
  if (Number.isNaN(ms)) return text;
  return new Date(ms).toISOString().replace(/\.000Z$/, "Z");
}

/**
 * A deep copy with object keys sorted and date strings canonical (see `canonicalString`).
 * @example
 * ```ts
 * import { canonicalValue } from "risk-portal-lab/internals";
 * canonicalValue({ market_date: "2026-11-20", currency: "EUR" }); // keys sorted, the date as one canonical instant
 * ```
 */
export function canonicalValue(value: unknown): unknown {
  if (typeof value === "string") return canonicalString(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : canonicalString(value.toISOString());
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(canonicalValue);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) setOwn(out, key, canonicalValue(v));
  }
  return out;
}

/**
 * A request in the form cassettes and the cache match on: the method upper-cased, the query and the body
 * with keys sorted and date strings canonical (see {@link canonicalValue}).
 *
 * @example
 * ```ts
 * import { canonicalRequest } from "risk-portal-lab/internals";
 * const a = canonicalRequest("post", "/api/RateAsset", undefined, { currency: "EUR", market_date: "2026-11-20" });
 * ```
 */
export function canonicalRequest(
  method: string,
  path: string,
  query?: Record<string, string>,
  body?: unknown,
): CanonicalRequest {
  const out: { method: string; path: string; query?: Record<string, string>; body?: unknown } = {
    method: method.toUpperCase(),
    path,
  };
  if (query && Object.keys(query).length) out.query = canonicalValue(query) as Record<string, string>;
  if (body !== undefined) out.body = canonicalValue(body);
  return out;
}

/**
 * One string per canonical request: equal strings ⇔ requests the server cannot tell apart.
 * @example
 * ```ts
 * import { canonicalRequest, requestKey } from "risk-portal-lab/internals";
 * const body = { currency: "EUR", market_date: "2026-11-20" };
 * requestKey(canonicalRequest("POST", "/api/RateAsset", undefined, body)) ===
 *   requestKey(canonicalRequest("POST", "/api/RateAsset", undefined, { ...body, market_date: "2026-11-20T00:00:00Z" })); // true
 * ```
 */
export function requestKey(request: CanonicalRequest): string {
  const query = request.query ? `?${new URLSearchParams(request.query).toString()}` : "";
  return `${request.method} ${request.path}${query}${request.body === undefined ? "" : ` ${JSON.stringify(request.body)}`}`;
}

function show(value: unknown): string {
  if (value === undefined) return "(absent)";
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/**
 * Where `now` differs from `recorded`, one line per differing leaf (`body.market_date: recorded
 * "2026-11-20T00:00:00Z", now "2026-11-21T00:00:00Z"`), at most `max` lines.
 * @example
 * ```ts
 * import { canonicalRequest, describeDifferences } from "risk-portal-lab/internals";
 * describeDifferences(
 *   canonicalRequest("POST", "/api/RateAsset", undefined, { currency: "USD" }),
 *   canonicalRequest("POST", "/api/RateAsset", undefined, { currency: "SEK" }),
 * ); // ['body.currency: recorded "USD", now "SEK"']
 * ```
 */
export function describeDifferences(recorded: CanonicalRequest, now: CanonicalRequest, max = 8): string[] {
  const lines: string[] = [];
  let total = 0;
  const add = (line: string) => {
    if (total++ < max) lines.push(line);
  };
  if (recorded.method !== now.method) add(`method: recorded ${recorded.method}, now ${now.method}`);
  if (recorded.path !== now.path) add(`path: recorded ${recorded.path}, now ${now.path}`);
  const walk = (a: unknown, b: unknown, at: string) => {
    if (a === b) return;
    const aObj = a !== null && typeof a === "object";
    const bObj = b !== null && typeof b === "object";
    if (Array.isArray(a) && Array.isArray(b)) {
      if (a.length !== b.length) add(`${at}: ${a.length} values recorded, ${b.length} now`);
      for (let i = 0; i < Math.min(a.length, b.length); i++) walk(a[i], b[i], `${at}[${i}]`);
      return;
    }
    if (aObj && bObj && !Array.isArray(a) && !Array.isArray(b)) {
      const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
      for (const k of keys)
        walk((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], at ? `${at}.${k}` : k);
      return;
    }
    if (JSON.stringify(a) !== JSON.stringify(b)) add(`${at}: recorded ${show(a)}, now ${show(b)}`);
  };
  walk(recorded.query ?? {}, now.query ?? {}, "query");
  walk(recorded.body, now.body, "body");
  if (total > max) lines.push(`… and ${total - max} more`);
  return lines;
}

/** How far apart two requests are, for picking the closest recorded one: path and method first, then differing leaves. */
export function requestDistance(recorded: CanonicalRequest, now: CanonicalRequest): number {
  const structural = (recorded.method !== now.method ? 1e6 : 0) + (recorded.path !== now.path ? 1e5 : 0);
  return structural + describeDifferences(recorded, now, 1e4).length;
}
