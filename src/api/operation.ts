/**
 * An operation is a declaration, not code: method, path, request and response schema, retry class.
 * The client's one request pipeline (and the simulator's router) do the work from it.
 */
import { z } from "zod";
import { typeName, type RetryClass } from "./assumptions";

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
  /** Where the request goes: a JSON body, the query string, or nowhere. */
  readonly requestIn: "body" | "query" | "none";
  /** Schema of the caller's input; its output is the wire form (without `$type`). */
  readonly request: Req;
  /** The body's `$type`, without the namespace (`Tradables.ApiGetVolRequest`), if the spec gives one. */
  readonly requestType?: string;
  /** Schema of the response body. */
  readonly response: Res;
  /** The response is an operation outcome: `is_success: false` is a failure of the operation. */
  readonly outcome?: boolean;
  /** The `$type` of the success response, without the namespace (for the simulator and docs). */
  readonly responseType?: string;
  /** Rewrites a validated wire body for a namespace (nested `$type` values). */
  readonly encode?: (body: Record<string, unknown>, namespace: string) => Record<string, unknown>;
}

export type RequestInput<Op extends OperationDef> = z.input<Op["request"]>;
export type ResponseOf<Op extends OperationDef> = z.output<Op["response"]>;

/** Declares an operation (identity at run time; keeps the literal types). */
export function defineOperation<Req extends z.ZodType, Res extends z.ZodType>(def: OperationDef<Req, Res>): OperationDef<Req, Res> {
  return Object.freeze(def);
}

/** One problem found in a request or response: where (field path) and why. */
export interface FieldIssue {
  readonly path: string;
  readonly message: string;
}

export type EncodeResult =
  | { ok: true; body?: Record<string, unknown>; query?: Record<string, string> }
  | { ok: false; issues: FieldIssue[] };

/** `["surface", "vols", 3]` → `surface.vols[3]`; the empty path is `(root)`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || "(root)";
}

/** zod issues → field issues, one per leaf problem (union branches flattened to their first failure). */
export function toFieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.map((issue) => {
    let message = issue.message;
    if (issue.code === "unrecognized_keys") message = `unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
    return { path: formatPath(issue.path), message };
  });
}

/**
 * Validates the caller's input for `op` and returns what goes on the wire: the body (with `$type` first
 * when the operation has one) or the query parameters. A `$type` the caller passes must be the one this
 * namespace expects; it is not required.
 */
export function encodeRequest(op: OperationDef, input: unknown, namespace: string): EncodeResult {
  if (op.requestIn === "none") {
    const parsed = op.request.safeParse(input ?? {});
    return parsed.success ? { ok: true } : { ok: false, issues: toFieldIssues(parsed.error) };
  }
  let candidate = input ?? {};
  const expectedType = op.requestType ? typeName(namespace, op.requestType) : undefined;
  if (expectedType && isRecord(candidate) && "$type" in candidate) {
    const { $type: given, ...rest } = candidate;
    if (given !== expectedType) {
      return { ok: false, issues: [{ path: "$type", message: `expected "${expectedType}", got ${JSON.stringify(given)}` }] };
    }
    candidate = rest;
  }
  const parsed = op.request.safeParse(candidate);
  if (!parsed.success) return { ok: false, issues: toFieldIssues(parsed.error) };
  const value = parsed.data as Record<string, unknown>;
  if (op.requestIn === "query") {
    const query: Record<string, string> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) query[k] = String(v);
    return { ok: true, query };
  }
  const body = op.encode ? op.encode(value, namespace) : value;
  return { ok: true, body: expectedType ? { $type: expectedType, ...body } : body };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export type DecodeResult = { ok: true; value: Record<string, unknown> } | { ok: false; issues: FieldIssue[] };

/**
 * The server side of {@link encodeRequest}: validates what arrived on the wire (a parsed JSON body or
 * the query parameters) against the same schema. A body's `$type`, when present, must be the one this
 * namespace expects.
 */
export function decodeRequest(op: OperationDef, received: unknown, namespace: string): DecodeResult {
  if (op.requestIn === "body") {
    if (!isRecord(received)) return { ok: false, issues: [{ path: "(root)", message: `expected a JSON object, got ${received === null ? "null" : Array.isArray(received) ? "an array" : typeof received}` }] };
    if ("$type" in received) {
      const expected = op.requestType ? typeName(namespace, op.requestType) : undefined;
      const { $type: given, ...rest } = received;
      if (given !== expected) {
        return { ok: false, issues: [{ path: "$type", message: expected ? `expected "${expected}", got ${JSON.stringify(given)}` : "this operation takes no $type" }] };
      }
      received = rest;
    }
  }
  const parsed = op.request.safeParse(op.requestIn === "none" ? {} : received);
  return parsed.success ? { ok: true, value: parsed.data as Record<string, unknown> } : { ok: false, issues: toFieldIssues(parsed.error) };
}
