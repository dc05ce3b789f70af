/** Tradable queries: GetVol (3), GetTradeEventPositionEffects (5), GetTradableBrief (6). */
import { z } from "zod";
import { lazy } from "./lazy";
import {
  BRIEF_QUERY_PARAM,
  PUBLISHED_TRADE_EVENT_KINDS,
  STRIKE_TYPE,
  STRIKE_TYPE_VALUES,
  TRADE_EVENT_GROUP,
  TYPE_NAMES,
  type StrikeType,
  type StrikeTypeName,
  type TradeEventName,
} from "./assumptions";
import { DEFAULT_BRAND, parseTypeName, typeName } from "./brand";
import { issueMessage, refusedIssues } from "./field-messages";
import { auditFields, dateTimeInput, dateTimeOutput, finite, nonBlank, numberArray, positive, typeTag } from "./common";
import { defineOperation } from "./operation";
import type * as wire from "./wire-types";

/** The surface's arrays, one value per benchmark each (in the spec's field order, first in the surface). */
const surfaceArrays = {
  benchmark_fwd_factors: numberArray,
  smiles: numberArray,
  benchmark_maturities: numberArray,
  vols: numberArray,
  call_wings: numberArray,
  put_wings: numberArray,
  skews: numberArray,
};
const SURFACE_ARRAYS = Object.keys(surfaceArrays) as (keyof typeof surfaceArrays)[];

/**
 * The vol surface of `GetVol` (field order as in the spec). Units (A6, A7): maturities in calendar days
 * after `reference_date`, vols decimal. Every array has one value per benchmark. The model's own
 * validity conditions (vol-model.md) are the local model's business; here: shapes and finiteness.
 */
export const volSurface = lazy(() =>
  z
    .strictObject({
      $type: typeTag(TYPE_NAMES.volSurface),
      ...auditFields,
      ...surfaceArrays,
      reference_date: dateTimeInput,
      spot_ref: positive,
    })
    .superRefine((surface, ctx) => {
      const n = surface.benchmark_maturities.length;
      for (const key of SURFACE_ARRAYS) {
        if (surface[key].length !== n) {
          ctx.addIssue({
            code: "custom",
            path: [key],
            message: `has ${surface[key].length} values but benchmark_maturities has ${n}; every surface array needs one value per benchmark`,
          });
        }
      }
    }),
);
export type VolSurfaceInput = wire.VolSurfaceInput;
export type VolSurface = wire.VolSurface;

const STRIKE_TYPE_BY_NAME = new Map(Object.entries(STRIKE_TYPE).map(([name, value]) => [name.toLowerCase(), value]));
const STRIKE_TYPE_HELP = `expected one of ${STRIKE_TYPE_VALUES.join(", ")} (0 Absolute, 1 PercentForward, 2 PercentSpot) or one of those names`;

/**
 * A5: the wire strike conventions, as the integer the older GetVol page sends; a convention's name
 * (`"Absolute"`, `"percent_forward"`, as sibling pages write it) is accepted and sent as its integer.
 */
export const strikeType = lazy(() =>
  z.union([z.number(), z.string()], { error: STRIKE_TYPE_HELP }).transform((value, ctx) => {
    const wire =
      typeof value === "number" ? value : STRIKE_TYPE_BY_NAME.get(value.replace(/[\s_-]/g, "").toLowerCase());
    if (wire === undefined || !(STRIKE_TYPE_VALUES as readonly number[]).includes(wire)) {
      ctx.issues.push({ code: "custom", message: STRIKE_TYPE_HELP, input: value });
      return z.NEVER;
    }
    return wire as StrikeType;
  }),
) as unknown as z.ZodType<StrikeType, StrikeType | StrikeTypeName | (string & {})>;

/** `strike_type` left out is not sent: the service reads Absolute (A5, `DEFAULT_STRIKE_TYPE`). */
export const getVolRequest = lazy(() =>
  z.strictObject({
    $type: typeTag(TYPE_NAMES.getVolRequest),
    surface: volSurface,
    maturity: positive,
    strikes: numberArray.pipe(z.array(z.number().positive({ error: "strikes must be > 0" }))),
    strike_type: strikeType.optional(),
  }),
);
export type GetVolRequest = wire.GetVolRequest;

export const getVolResponse = lazy(() =>
  z.looseObject({
    vols: z.array(finite),
    strike_type: z.number().int(),
  }),
);
export type GetVolResponse = wire.GetVolResponse;

const units = lazy(() => z.number().positive({ error: "must be > 0 (units held or traded)" }));
/**
 * A14: fields of the known trade-event variants. The spec names `BuyEvent (unit_price, quantity)` and the
 * newer page sends a `BuyEvent` with `unit_price` alone (quantity left out: one unit); the other fields
 * are this project's decision, in the same style: `quantity` is the units the event applies to, money
 * amounts are per unit, in the tradable's currency. Variants without fields here pass as they are.
 */
export const TRADE_EVENT_FIELDS = lazy(
  () =>
    ({
      BuyEvent: z.looseObject({ unit_price: finite, quantity: units.optional() }),
      SellEvent: z.looseObject({ unit_price: finite, quantity: units }),
      CouponEvent: z.looseObject({ amount_per_unit: finite, quantity: units }),
      RedemptionEvent: z.looseObject({ redemption_price: finite, quantity: units }),
      DividendEvent: z.looseObject({ amount_per_unit: finite, quantity: units }),
      ExerciseEvent: z.looseObject({ strike: finite, quantity: units, underlying_id: nonBlank }),
      ExpiryEvent: z.looseObject({ quantity: units }),
      StockSplitEvent: z.looseObject({ ratio: z.number().positive(), quantity: units }),
    }) satisfies Partial<Record<TradeEventName, z.ZodObject>>,
);
const KNOWN_EVENT_FIELDS: Record<string, z.ZodObject> = TRADE_EVENT_FIELDS;
const PUBLISHED_KINDS = new Set<string>(PUBLISHED_TRADE_EVENT_KINDS);

/**
 * The neutral `$type` of a trade event the caller names: a full `$type` (kept), a variant name
 * (`"BuyEvent"`) or a published event kind (`"CouponPayment"` → `CouponPaymentEvent`, the names
 * `GetNextTradeEvents` answers with). The wire spells it in the client's brand.
 * @example
 * ```ts
 * import { tradeEventType } from "risk-portal-lab/api";
 * tradeEventType("CouponPayment", "Derivitec"); // "Derivitec.Web.Core.TradeEvents.CouponPaymentEvent, Derivitec.Web.Core"
 * ```
 */
export function tradeEventType(nameOrType: string, namespace: string = DEFAULT_BRAND): string {
  const text = nameOrType.trim();
  if (/[.,]/.test(text)) return text;
  const name = PUBLISHED_KINDS.has(text) ? `${text}Event` : text;
  return typeName(namespace, `${TRADE_EVENT_GROUP}.${name}`);
}

/**
 * A trade event (`next_trade_event`): an open union on `$type`. The caller may give the full `$type`,
 * a variant name (`"BuyEvent"`) or a published event kind (`"Buy"`); the known variants' fields are
 * checked, unknown variants pass as they are.
 */
export const tradeEvent = lazy(() =>
  z.looseObject({ $type: nonBlank }).transform((event, ctx) => {
    const $type = tradeEventType(event.$type);
    const parsed = parseTypeName($type);
    if (parsed && parsed.brand !== DEFAULT_BRAND) {
      ctx.issues.push({
        code: "custom",
        path: ["$type"],
        message: `a trade event of brand ${parsed.brand}`,
        params: { given: event.$type },
        input: event.$type,
      });
      return z.NEVER;
    }
    const name = parsed ? parsed.name.slice(parsed.name.lastIndexOf(".") + 1) : $type;
    const fields = KNOWN_EVENT_FIELDS[name];
    const check = fields?.safeParse(event);
    if (fields && check && !check.success) {
      for (const issue of refusedIssues(fields, event, check.error))
        ctx.issues.push({
          ...issue,
          input: undefined,
          code: "custom",
          message: `${name}: ${issueMessage(issue)}`,
        } as never);
      return z.NEVER;
    }
    return { ...event, $type };
  }),
);
export type TradeEventInput = wire.TradeEventInput;

export const positionEffectsRequest = lazy(() =>
  z.strictObject({
    $type: typeTag(TYPE_NAMES.positionEffectsRequest),
    next_trade_event: tradeEvent,
    pricing_date: dateTimeInput,
    tradable_id: nonBlank,
  }),
);
export type PositionEffectsRequest = wire.PositionEffectsRequest;

export const positionEffect = lazy(() =>
  z.looseObject({
    quantity: finite,
    contract: z.looseObject({ identifier: z.string() }),
  }),
);
export const positionEffectsResponse = lazy(() =>
  z.looseObject({
    position_effects: z.array(positionEffect),
    pricing_date: dateTimeOutput,
  }),
);
export type PositionEffectsResponse = wire.PositionEffectsResponse;

/** A4: one query parameter, the tradable id. */
export const tradableBriefQuery = lazy(() => z.strictObject({ [BRIEF_QUERY_PARAM]: nonBlank }));
export type TradableBriefQuery = wire.TradableBriefQuery;
/**
 * The brief, in the envelope the newer page shows (`$type`, `is_success`, `error_messages`): "the brief
 * or an unsuccessful payload with lookup errors". `brief` is null on failure.
 */
export const tradableBriefResponse = lazy(() =>
  z.looseObject({
    $type: z.string().optional(),
    is_success: z.boolean().optional(),
    error_messages: z.array(z.string()).nullish(),
    brief: z.string().nullish(),
  }),
);
export type TradableBriefResponse = wire.TradableBriefResponse;

/** 3. POST /api/Tradable/GetVol (A15: the base request variant, with its `$type`). */
export const getVol = defineOperation({
  name: "GetVol",
  method: "POST",
  path: "/api/Tradable/GetVol",
  retry: "read",
  cacheable: true,
  requestIn: "body",
  request: getVolRequest,
  requestType: TYPE_NAMES.getVolRequest,
  response: getVolResponse,
});

/** 5. POST /api/Tradable/GetTradeEventPositionEffects */
export const getTradeEventPositionEffects = defineOperation({
  name: "GetTradeEventPositionEffects",
  method: "POST",
  path: "/api/Tradable/GetTradeEventPositionEffects",
  retry: "read",
  cacheable: true,
  requestIn: "body",
  request: positionEffectsRequest,
  requestType: TYPE_NAMES.positionEffectsRequest,
  response: positionEffectsResponse,
});

/** 6. GET /api/Tradable/GetTradableBrief?tradableId=… (errors come as problem details). */
export const getTradableBrief = defineOperation({
  name: "GetTradableBrief",
  method: "GET",
  path: "/api/Tradable/GetTradableBrief",
  retry: "read",
  cacheable: true,
  requestIn: "query",
  request: tradableBriefQuery,
  response: tradableBriefResponse,
  outcome: true,
  responseType: TYPE_NAMES.tradableBriefResponse,
  answersNotFound: true,
});
