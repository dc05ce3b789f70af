/**
 * Shared pieces of the wire model: date-times, identifiers, the operation outcome, problem details.
 * Request-side schemas are strict (an unknown key is a typo, reported with its path) and normalise
 * caller input to the wire form; response-side schemas are loose (unknown fields a newer server adds
 * are kept) and check only what the client relies on.
 */
import { z } from "zod";
import { lazy } from "./lazy";
import {
  IDENTIFIER_TYPES,
  MARKET_DATA_SELECTORS,
  PORTFOLIO_TYPES,
  PUBLISHED_PORTFOLIO_TYPES,
  TYPE_NAMES,
  type IdentifierType,
  type PortfolioType,
} from "./assumptions";
import { DEFAULT_BRAND, PUBLISHED_BRAND, brandOf, typeName } from "./brand";
import { currencyMessage, dateTimeMessage } from "./field-messages";
import type * as wire from "./wire-types";

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const HAS_TIME = /T\d{2}:\d{2}/;
const HAS_OFFSET = /(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * A date-time the caller gives: a `Date`, an ISO 8601 string with an offset (kept as given), or a
 * date-only `YYYY-MM-DD` (sent as midnight UTC). A date-time without an offset is rejected: its
 * meaning would depend on the machine's time zone.
 */
export const dateTimeInput = lazy(() =>
  z
    // z.date() refuses an Invalid Date, so the union's message names it (and a field left out, and other types).
    .union([z.date(), z.string()], { error: (issue) => dateTimeMessage(issue.input) })
    .transform((value, ctx) => {
      if (value instanceof Date) return value.toISOString();
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
    // A text laid out right but naming no instant (2026-11-31, month 13, hour 24) says which part.
    .pipe(z.iso.datetime({ offset: true, error: (issue) => dateTimeMessage(issue.input) })),
);

/** A date-time the server sends: ISO 8601, with an offset or (leniently) without one. Kept as a string. */
export const dateTimeOutput = lazy(() => z.iso.datetime({ offset: true, local: true }));

/** A finite number (zod rejects NaN and ±Infinity). */
export const finite = lazy(() => z.number());

/** A string with at least one non-blank character (kept as given, never trimmed silently). */
export const nonBlank = lazy(() =>
  z.string().refine((s) => s.trim().length > 0, { error: "must not be empty or blank" }),
);

/**
 * A `$type` tag of a request object: optional for the caller (the neutral or the brand's spelling, after
 * `toNeutral`), always on the wire, first. Its output is the neutral full name; the encoder spells it in
 * the brand. A tag of another type is refused (`params.expectedType` lets the encoder name the brand).
 * @example
 * ```ts
 * import { typeTag } from "risk-portal-lab/api";
 * const tag = typeTag("Tradables.ApiGetVolRequest"); // a zod field for that $type: optional, sent first, another type refused
 * ```
 */
export function typeTag(shortName: string) {
  const expected = typeName(DEFAULT_BRAND, shortName);
  return z
    .string({ error: `expected the $type ${shortName} as a string` })
    .optional()
    .superRefine((given, ctx) => {
      if (given !== undefined && given.trim() !== expected) {
        ctx.addIssue({
          code: "custom",
          message: `expected the $type ${shortName}, got ${JSON.stringify(given)}`,
          params: { expectedType: shortName, given },
        });
      }
    })
    .transform(() => expected);
}

/** An open enum: the known values are typed (for autocompletion), any other non-blank string passes. */
function openEnum<T extends string>(known: readonly T[], what: string) {
  return z
    .string({
      error: `expected ${what} such as ${known
        .slice(0, 3)
        .map((k) => JSON.stringify(k))
        .join(", ")}`,
    })
    .refine((s) => s.trim().length > 0, { error: "must not be empty or blank" }) as unknown as z.ZodType<
    T | (string & {}),
    T | (string & {})
  >;
}

/** Portfolio type of launcher, report and position requests: the neutral or published values, or any other string (A9/A11). */
export const portfolioTypeInput = lazy(() =>
  openEnum<PortfolioType & string>([...PORTFOLIO_TYPES, ...PUBLISHED_PORTFOLIO_TYPES], "a portfolio type"),
);

/** Portfolio type as the server sends it: the known values, or any string a newer server adds. */
export const portfolioTypeOutput = lazy(() => z.string()) as unknown as z.ZodType<PortfolioType, PortfolioType>;

/** `identifier_type`: an open enum (A9); left out, the service reads the brand's own value. */
export const identifierType = lazy(() => openEnum<IdentifierType & string>(IDENTIFIER_TYPES, "an identifier type"));

/**
 * Audit fields the newer pages show on records and surfaces (who uploaded what, when). Accepted and
 * sent as given; the service manages them, the simulator ignores them. The branded names are written
 * `service_*` (neutral) or `derivitec_*` (the pages' brand); the wire carries the client's brand.
 */
const auditText = lazy(() => z.string().nullish());
export const auditFields = {
  provider_id: auditText,
  service_created: auditText,
  service_modified: auditText,
  service_modified_by: auditText,
  uploaded_date_time: auditText,
  uploaded_by: auditText,
  rolled: lazy(() => z.boolean().nullish()),
  // The published brand's spellings, so that a body copied from the pages type-checks; `toNeutral` renames them.
  [`${brandOf(PUBLISHED_BRAND).fieldPrefix}_created` as "derivitec_created"]: auditText,
  [`${brandOf(PUBLISHED_BRAND).fieldPrefix}_modified` as "derivitec_modified"]: auditText,
  [`${brandOf(PUBLISHED_BRAND).fieldPrefix}_modified_by` as "derivitec_modified_by"]: auditText,
};

/**
 * RateAsset's market-data selectors: at most one form, as its page says ("Do not combine this list with
 * the single-name or provider-ID alternatives").
 * @example
 * ```ts
 * import { checkOneSelector } from "risk-portal-lab/api";
 * import { z } from "zod";
 * const request = z.object({ provider_id: z.string().optional(), market_data_environment_name: z.string().optional() })
 *   .superRefine((body, ctx) => checkOneSelector(body, ctx)); // one selector form at a time, as RateAsset's page asks
 * ```
 */
export function checkOneSelector(body: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const given = MARKET_DATA_SELECTORS.filter(
    (k) =>
      body[k] !== undefined && body[k] !== null && !(Array.isArray(body[k]) && (body[k] as unknown[]).length === 0),
  );
  if (given.length > 1) {
    ctx.addIssue({
      code: "custom",
      path: [given[1]!],
      message: `give one market-data selector, not ${given.join(" and ")} together`,
    });
  }
}

/**
 * Asset / bond identifier (`MarketData.InstrumentIdentifier`). `identifier_type` is an open enum (A9);
 * left out it is not sent (the service reads the brand's value). The market code is optional ("an
 * instrument code qualified by an identifier namespace and optional market code").
 */
export const identifier = lazy(() =>
  z.strictObject({
    $type: typeTag(TYPE_NAMES.instrumentIdentifier),
    code: nonBlank,
    market_identification_code: z.string().nullish(),
    identifier_type: identifierType.optional(),
  }),
);
export type IdentifierInput = wire.IdentifierInput;
export type Identifier = wire.Identifier;

/** Operation outcome of uploads and launcher creates. */
export const operationOutcome = lazy(() =>
  z.looseObject({
    $type: z.string().optional(),
    is_success: z.boolean(),
    error_messages: z
      .array(z.string())
      .nullish()
      .transform((m) => m ?? []),
  }),
);
export type OperationOutcome = wire.OperationOutcome;

/** RFC 9457 problem details, as `GetTradableBrief` (and the simulator) send on errors. */
export const problemDetails = lazy(() =>
  z.looseObject({
    type: z.string().nullish(),
    title: z.string().nullish(),
    status: z.number().int().nullish(),
    detail: z.string().nullish(),
    instance: z.string().nullish(),
  }),
);
export type ProblemDetails = wire.ProblemDetails;

/** An empty request (the GETs without parameters). */
export const noInput = lazy(() => z.strictObject({}));

/** An ISO 4217 currency code (three upper-case letters); `eur` is refused with the code to write (`EUR`). */
export const currencyCode = lazy(() =>
  z.string().regex(/^[A-Z]{3}$/, { error: (issue) => currencyMessage(issue.input) }),
);

/** A non-empty array of finite numbers; a `Float64Array` (or any typed array) is accepted and sent as a plain array. */
export const numberArray = lazy(() =>
  z
    .custom<readonly number[] | Float64Array>(
      (v) => Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView)),
      {
        error: "expected an array of numbers (or a Float64Array)",
      },
    )
    .transform((v) => (Array.isArray(v) ? (v as number[]) : Array.from(v as ArrayLike<number>)))
    .pipe(z.array(z.number()).min(1, { error: "must hold at least one number" })),
);

/** A strictly positive finite number. */
export const positive = lazy(() => z.number().positive());
