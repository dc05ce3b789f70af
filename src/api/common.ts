/**
 * Shared pieces of the wire model: date-times, identifiers, the operation outcome, problem details.
 * Request-side schemas are strict (an unknown key is a typo, reported with its path) and normalise
 * caller input to the wire form; response-side schemas are loose (unknown fields a newer server adds
 * are kept) and check only what the client relies on.
 */
import { z } from "zod";
import { DEFAULT_IDENTIFIER_TYPE, PORTFOLIO_TYPES } from "./assumptions";

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const HAS_TIME = /T\d{2}:\d{2}/;
const HAS_OFFSET = /(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * A date-time the caller gives: a `Date`, an ISO 8601 string with an offset (kept as given), or a
 * date-only `YYYY-MM-DD` (sent as midnight UTC). A date-time without an offset is rejected: its
 * meaning would depend on the machine's time zone.
 */
export const dateTimeInput = z
  .union([z.date(), z.string()], { error: "expected a Date or an ISO 8601 date-time string" })
  .transform((value, ctx) => {
    if (value instanceof Date) {
      if (Number.isNaN(value.getTime())) {
        ctx.issues.push({ code: "custom", message: "Invalid Date", input: value });
        return z.NEVER;
      }
      return value.toISOString();
    }
    const text = value.trim();
    if (DATE_ONLY.test(text)) return `${text}T00:00:00Z`;
    if (HAS_TIME.test(text) && !HAS_OFFSET.test(text)) {
      ctx.issues.push({
        code: "custom",
        message: `date-time "${text}" has no offset; add "Z" or "+hh:mm" (its meaning would depend on the local time zone)`,
        input: value,
      });
      return z.NEVER;
    }
    return text;
  })
  .pipe(z.iso.datetime({ offset: true, error: "expected an ISO 8601 date-time with an offset, e.g. 2026-11-20T00:00:00Z" }));

/** A date-time the server sends: ISO 8601, with an offset or (leniently) without one. Kept as a string. */
export const dateTimeOutput = z.iso.datetime({ offset: true, local: true });

/** A finite number (zod rejects NaN and ±Infinity). */
export const finite = z.number();

/** A string with at least one non-blank character (kept as given, never trimmed silently). */
export const nonBlank = z.string().refine((s) => s.trim().length > 0, { error: "must not be empty or blank" });

/** Portfolio type of launcher and report requests (closed on the way out). */
export const portfolioTypeInput = z.enum(PORTFOLIO_TYPES);

/** Portfolio type as the server sends it: the known values, or any string a newer server adds. */
export const portfolioTypeOutput = z.union([z.enum(PORTFOLIO_TYPES), z.string()]);

/** Asset / bond identifier. `identifier_type` is an open enum (A9), default `Provider`. */
export const identifier = z.strictObject({
  code: nonBlank,
  market_identification_code: z.string(),
  identifier_type: nonBlank.default(DEFAULT_IDENTIFIER_TYPE),
});
export type IdentifierInput = z.input<typeof identifier>;
export type Identifier = z.output<typeof identifier>;

/** Operation outcome of uploads and launcher creates. */
export const operationOutcome = z.looseObject({
  $type: z.string().optional(),
  is_success: z.boolean(),
  error_messages: z.array(z.string()).nullish().transform((m) => m ?? []),
});
export type OperationOutcome = z.output<typeof operationOutcome>;

/** RFC 9457 problem details, as `GetTradableBrief` (and the simulator) send on errors. */
export const problemDetails = z.looseObject({
  type: z.string().nullish(),
  title: z.string().nullish(),
  status: z.number().int().nullish(),
  detail: z.string().nullish(),
  instance: z.string().nullish(),
});
export type ProblemDetails = z.output<typeof problemDetails>;

/** An empty request (the GETs without parameters). */
export const noInput = z.strictObject({});

/** An ISO 4217 currency code (three upper-case letters). */
export const currencyCode = z.string().regex(/^[A-Z]{3}$/, { error: "expected a 3-letter ISO 4217 currency code such as USD" });

/** A non-empty array of finite numbers; a `Float64Array` (or any typed array) is accepted and sent as a plain array. */
export const numberArray = z
  .custom<readonly number[] | Float64Array>((v) => Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView)), {
    error: "expected an array of numbers (or a Float64Array)",
  })
  .transform((v) => (Array.isArray(v) ? (v as number[]) : Array.from(v as ArrayLike<number>)))
  .pipe(z.array(z.number()).min(1, { error: "must hold at least one number" }));

/** A strictly positive finite number. */
export const positive = z.number().positive();
