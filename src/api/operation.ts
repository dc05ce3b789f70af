/**
 * An operation is a declaration, not code: method, path, request and response schema, retry class.
 * The client's one request pipeline (and the simulator's router) do the work from it.
 *
 * Both sides read a body the same way ({@link readRequest}): the brand's spelling is turned into the
 * neutral one (`toNeutral`), the request schema validates it (strict: a field neither the spec nor the
 * pages name is refused, with the closest known field named, unless the policy is `send`), and the
 * client then spells what it sends in the brand (`toBrand`).
 */
import { z } from "zod";
import type { RetryClass, UnknownFieldsPolicy } from "./assumptions";
import { DEFAULT_BRAND, brandOf, parseTypeName, toBrand, toNeutral, type Brand } from "./brand";
import { issueMessage, refusedIssues } from "./field-messages";
import { isRecord, jsonShapeIssue } from "./guards";

export { isRecord } from "./guards";

export interface OperationDef<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  /** The spec's name of the operation, as errors and logs show it (`GetVol`). */
  readonly name: string;
  readonly method: "GET" | "POST";
  /** Path under the base URL, starting with `/api`. */
  readonly path: string;
  /** A17: reads may be retried; writes are never re-sent once they may have reached the server. */
  readonly retry: RetryClass;
  /**
   * The answer depends on the request alone (market data, pure computations), so the client's response
   * cache may keep it. Reads of state that moves on its own (report statuses, API keys) are not.
   */
  readonly cacheable?: boolean;
  /** The call changes the service's data (uploads, launcher items): the client's response cache is emptied after it. */
  readonly mutates?: boolean;
  /** Where the request goes: a JSON body, the query string, or nowhere. */
  readonly requestIn: "body" | "query" | "none";
  /** Schema of the caller's input (neutral spelling); its output is the wire form, `$type` first. */
  readonly request: Req;
  /** The body's `$type`, without the brand (`Tradables.ApiGetVolRequest`). */
  readonly requestType?: string;
  /** Schema of the response body. */
  readonly response: Res;
  /** The response carries an operation outcome: `is_success: false` is a failure of the operation. */
  readonly outcome?: boolean;
  /** The `$type` of the success response, without the brand (for the simulator and docs). */
  readonly responseType?: string;
  /**
   * Writes: how a caller can tell whether the server applied a call whose answer was lost, for the
   * error that says the outcome is unknown.
   */
  readonly whenOutcomeUnknown?: string;
  /**
   * The answer is a table that may be large: the client's default size limit for it is 512 MiB (32 MiB
   * for every other answer), and an answer past the limit says how to stream it instead (this text).
   */
  readonly largeAnswer?: { readonly streamInstead: string };
  /** An unknown subject (a tradable) is answered 404 with problem details (the simulator's OpenAPI lists it). */
  readonly answersNotFound?: boolean;
}

export type RequestInput<Op extends OperationDef> = z.input<Op["request"]>;
export type ResponseOf<Op extends OperationDef> = z.output<Op["response"]>;

/**
 * Declares an operation (identity at run time). Keeps the literal types of `name` and `requestIn`, so
 * that the simulator's handler map can require one handler per name and the client can tell a call
 * that takes no input.
 * @example
 * ```ts
 * import { defineOperation } from "risk-portal-lab/api";
 * import { z } from "zod";
 * const ping = defineOperation({ name: "Ping", method: "GET", path: "/api/Ping", retry: "read", requestIn: "query",
 *   request: z.object({}), response: z.object({ ok: z.boolean() }) });
 * // rp.request(ping, {}) sends it through the client's pipeline
 * ```
 */
export function defineOperation<
  Req extends z.ZodType,
  Res extends z.ZodType,
  const Name extends string,
  const In extends OperationDef["requestIn"],
>(
  def: OperationDef<Req, Res> & { readonly name: Name; readonly requestIn: In },
): OperationDef<Req, Res> & { readonly name: Name; readonly requestIn: In } {
  return Object.freeze(def);
}

/** One problem found in a request or response: where (field path) and why. */
export interface FieldIssue {
  readonly path: string;
  readonly message: string;
}

/** How a request is read: the brand, and what to do with unknown fields. */
export interface WireOptions {
  /** Default `Service` (the spec's neutral spelling). */
  brand?: Brand | string;
  /** `refuse` (default): an unknown field is an error. `send`: it goes out (or, on the server, in) as given. */
  unknownFields?: UnknownFieldsPolicy;
  /** Who reads: the client ("this client") or the server ("this service"), for messages. */
  side?: "client" | "server";
}

export type EncodeResult =
  { ok: true; body?: Record<string, unknown>; query?: Record<string, string> } | { ok: false; issues: FieldIssue[] };

/**
 * `["surface", "vols", 3]` → `surface.vols[3]`; the empty path is `(root)`.
 * @example
 * ```ts
 * import { formatPath } from "risk-portal-lab/api";
 * formatPath(["surface", "vols", 3]); // "surface.vols[3]"
 * ```
 */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || "(root)";
}

/**
 * zod issues → field issues, one per leaf problem. An unknown field names the closest known one at its
 * place when `schema` is given ("did you mean `market_date`?"); a `$type` of another brand says which
 * brand to set.
 * @example
 * ```ts
 * import { getRateAsset, toFieldIssues } from "risk-portal-lab/api";
 * const parsed = getRateAsset.request.safeParse({ currency: "eur", market_dat: "2026-11-20" });
 * if (!parsed.success) toFieldIssues(parsed.error, getRateAsset.request); // [{ path, message }, …] with "did you mean"
 * ```
 */
export function toFieldIssues(
  error: z.ZodError,
  schema?: z.ZodType,
  brand: Brand = brandOf(DEFAULT_BRAND),
  side: WireOptions["side"] = "client",
): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      const known = schema ? knownKeysAt(schema, issue.path) : [];
      for (const key of issue.keys) {
        const guess = closest(key, known);
        out.push({
          path: formatPath([...issue.path, key]),
          message: `unknown field${guess ? ` (did you mean "${guess}"?)` : ""}; neither the spec nor the service's pages name it${side === "client" ? ' (to send it anyway: unknownFields: "send")' : ""}`,
        });
      }
      continue;
    }
    const params = (issue as { params?: { expectedType?: string; given?: unknown } }).params;
    out.push({
      path: formatPath(issue.path),
      message:
        params && typeof params.given === "string"
          ? typeMessage(params.given, params.expectedType, brand, side)
          : issueMessage(issue),
    });
  }
  return out;
}

function typeMessage(given: string, expectedType: string | undefined, brand: Brand, side: WireOptions["side"]): string {
  const parsed = parseTypeName(given);
  const expected = expectedType ? ` "${brand.type(expectedType)}"` : ` a $type of brand ${brand.name}`;
  if (
    parsed &&
    parsed.brand !== brand.name &&
    parsed.brand !== DEFAULT_BRAND &&
    (!expectedType || parsed.name === expectedType)
  ) {
    return side === "client"
      ? `"${given}" is spelled for the brand "${parsed.brand}", but this client's brand is "${brand.name}": set brand: "${parsed.brand}" (or RISK_PORTAL_BRAND=${parsed.brand}), or leave $type out`
      : `"${given}" is spelled for the brand "${parsed.brand}", but this service's brand is "${brand.name}"; expected${expected}`;
  }
  return `expected${expected}, got ${JSON.stringify(given)}`;
}

/**
 * Validates the caller's input for `op` and returns what goes on the wire: the body (neutral input in,
 * the brand's spelling out, `$type` first) or the query parameters.
 * @example
 * ```ts
 * import { encodeRequest, getRateAsset } from "risk-portal-lab/api";
 * const wire = encodeRequest(getRateAsset, { currency: "EUR", market_date: "2026-11-20" }, { brand: "Derivitec" });
 * if (wire.ok) wire.body; // $type first, in the brand's spelling
 * ```
 */
export function encodeRequest(op: OperationDef, input: unknown, options: WireOptions = {}): EncodeResult {
  const brand =
    typeof options.brand === "string" || options.brand === undefined ? brandOf(options.brand) : options.brand;
  // Before anything recursive: a value nested thousands deep must be an issue, not a stack overflow.
  const tooDeep = jsonShapeIssue(input, { finite: false });
  if (tooDeep) return { ok: false, issues: [tooDeep] };
  const read = readRequest(op, input ?? {}, { ...options, brand, side: "client" });
  if (!read.ok) return read;
  if (op.requestIn === "none") return { ok: true };
  // Fields the schema lets through as they are (unknown trade-event variants, `unknownFields: "send"`)
  // must not turn NaN or Infinity into a silent null on the wire.
  const notJson = jsonShapeIssue(read.value);
  if (notJson) return { ok: false, issues: [notJson] };
  if (op.requestIn === "query") {
    const query: Record<string, string> = {};
    for (const [k, v] of Object.entries(read.value)) if (v !== undefined && v !== null) query[k] = String(v);
    return { ok: true, query };
  }
  return { ok: true, body: toBrand(read.value, brand) };
}

export type DecodeResult = { ok: true; value: Record<string, unknown> } | { ok: false; issues: FieldIssue[] };

/**
 * The server side of {@link encodeRequest}: validates what arrived on the wire (a parsed JSON body or
 * the query parameters) against the same schema and returns the neutral value.
 * @example
 * ```ts
 * import { decodeRequest, encodeRequest, getRateAsset } from "risk-portal-lab/api";
 * const sent = encodeRequest(getRateAsset, { currency: "EUR", market_date: "2026-11-20" });
 * if (sent.ok) decodeRequest(getRateAsset, sent.body); // { ok: true, value: the neutral request }
 * ```
 */
export function decodeRequest(op: OperationDef, received: unknown, options: WireOptions = {}): DecodeResult {
  if (op.requestIn === "body" && !isRecord(received)) {
    return {
      ok: false,
      issues: [
        {
          path: "(root)",
          message: `expected a JSON object, got ${received === null ? "null" : Array.isArray(received) ? "an array" : typeof received}`,
        },
      ],
    };
  }
  return readRequest(op, op.requestIn === "none" ? {} : received, { ...options, side: "server" });
}

/** Both sides: neutral spelling → schema (with the unknown-field policy) → the neutral value. */
function readRequest(op: OperationDef, input: unknown, options: WireOptions): DecodeResult {
  const brand =
    typeof options.brand === "string" || options.brand === undefined ? brandOf(options.brand) : options.brand;
  const neutral = op.requestIn === "body" ? toNeutral(input, brand) : input;
  const parsed = op.request.safeParse(neutral);
  if (parsed.success) return { ok: true, value: parsed.data as Record<string, unknown> };
  // Refused: the issues again with their inputs, so that a field left out is called missing.
  const issues = refusedIssues(op.request, neutral, parsed.error);
  if (options.unknownFields === "send") {
    const unknown = issues.filter((i) => i.code === "unrecognized_keys");
    if (unknown.length === issues.length) return sendUnknown(op, neutral, unknown);
    // Unknown fields are no error under this policy: only the others are reported.
    const rest = new z.ZodError(issues.filter((i) => i.code !== "unrecognized_keys"));
    return { ok: false, issues: toFieldIssues(rest, op.request, brand, options.side) };
  }
  return { ok: false, issues: toFieldIssues(new z.ZodError(issues), op.request, brand, options.side) };
}

/** `unknownFields: "send"`: validate without the unknown fields, then put them back where they were. */
function sendUnknown(op: OperationDef, input: unknown, issues: z.core.$ZodIssueUnrecognizedKeys[]): DecodeResult {
  const stripped = structuredClone(input) as Record<string, unknown>;
  const extras: { path: PropertyKey[]; key: string; value: unknown }[] = [];
  for (const issue of issues) {
    const holder = at(stripped, issue.path);
    if (!isRecord(holder)) continue;
    for (const key of issue.keys) {
      extras.push({ path: issue.path, key, value: holder[key] });
      delete holder[key];
    }
  }
  const parsed = op.request.safeParse(stripped);
  if (!parsed.success)
    return {
      ok: false,
      issues: toFieldIssues(new z.ZodError(refusedIssues(op.request, stripped, parsed.error)), op.request),
    };
  const value = parsed.data as Record<string, unknown>;
  for (const extra of extras) {
    // The nearest object that still exists (a nested `parameters` object is flattened into the body).
    let path = extra.path;
    while (path.length && !isRecord(at(value, path))) path = path.slice(0, -1);
    const holder = at(value, path) as Record<string, unknown>;
    if (holder[extra.key] === undefined) holder[extra.key] = extra.value;
  }
  return { ok: true, value };
}

function at(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const k of path) v = isRecord(v) || Array.isArray(v) ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/**
 * The field names an object schema knows at `path` (through arrays, optionals, pipes and unions).
 * @example
 * ```ts
 * import { getRateAsset, knownKeysAt } from "risk-portal-lab/api";
 * knownKeysAt(getRateAsset.request, []); // the field names RateAsset's request knows: currency, market_date, …
 * ```
 */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let nodes: z.ZodType[] = [schema];
  for (const key of [...path, undefined]) {
    const next: z.ZodType[] = [];
    for (const node of nodes.flatMap(unwrap)) {
      if (key === undefined) {
        if (node instanceof z.ZodObject) return Object.keys(node.shape);
        continue;
      }
      if (typeof key === "number" && node instanceof z.ZodArray) next.push(node.element as z.ZodType);
      else if (typeof key === "string" && node instanceof z.ZodObject && node.shape[key])
        next.push(node.shape[key] as z.ZodType);
    }
    nodes = next;
    if (!nodes.length) return [];
  }
  return [];
}

/** The schemas a wrapper stands for: optional, nullable, default, pipe (its input side), union members. */
function unwrap(node: z.ZodType): z.ZodType[] {
  const out: z.ZodType[] = [];
  const stack = [node];
  while (stack.length) {
    const n = stack.pop()!;
    if (n instanceof z.ZodOptional || n instanceof z.ZodNullable || n instanceof z.ZodDefault)
      stack.push(n.unwrap() as z.ZodType);
    else if (n instanceof z.ZodPipe) stack.push(n.in as z.ZodType);
    else if (n instanceof z.ZodUnion) stack.push(...(n.options as z.ZodType[]));
    else out.push(n);
  }
  return out;
}

/**
 * The known name closest to `key` (case-insensitive edit distance ≤ max(2, a third of its length)), if any.
 * @example
 * ```ts
 * import { closest } from "risk-portal-lab/api";
 * closest("market_dat", ["currency", "market_date"]); // "market_date"
 * ```
 */
export function closest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const k = key.toLowerCase();
  for (const name of known) {
    const d = distance(k, name.toLowerCase());
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(key.length / 3)) ? best : undefined;
}

/** Levenshtein distance, with a transposition counted as one edit. */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
