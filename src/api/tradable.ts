/** Tradable queries: GetVol (3), GetTradeEventPositionEffects (5), GetTradableBrief (6). */
import { z } from "zod";
import {
  BRIEF_QUERY_PARAM,
  STRIKE_TYPE_VALUES,
  TRADE_EVENT_GROUP,
  TRADE_EVENT_NAMES,
  TYPE_NAMES,
  typeName,
  type StrikeType,
} from "./assumptions";
import { dateTimeInput, dateTimeOutput, finite, nonBlank, numberArray, positive } from "./common";
import { defineOperation, isRecord } from "./operation";

const SURFACE_ARRAYS = [
  "benchmark_fwd_factors",
  "smiles",
  "benchmark_maturities",
  "vols",
  "call_wings",
  "put_wings",
  "skews",
] as const;

/**
 * The vol surface of `GetVol` (field order as in the spec). Units (A6, A7): maturities in calendar days
 * after `reference_date`, vols decimal. Every array has one value per benchmark. The model's own
 * validity conditions (vol-model.md) are the local model's business; here: shapes and finiteness.
 */
export const volSurface = z
  .strictObject({
    benchmark_fwd_factors: numberArray,
    smiles: numberArray,
    benchmark_maturities: numberArray,
    vols: numberArray,
    call_wings: numberArray,
    put_wings: numberArray,
    skews: numberArray,
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
  });
export type VolSurfaceInput = z.input<typeof volSurface>;
export type VolSurface = z.output<typeof volSurface>;

/** A5: the wire strike conventions. */
export const strikeType = z.literal(STRIKE_TYPE_VALUES as [StrikeType, ...StrikeType[]], {
  error: `expected one of ${STRIKE_TYPE_VALUES.join(", ")} (0 Absolute, 1 PercentForward, 2 PercentSpot)`,
});

export const getVolRequest = z.strictObject({
  surface: volSurface,
  maturity: positive,
  strikes: numberArray.pipe(z.array(z.number().positive({ error: "strikes must be > 0" }))),
  strike_type: strikeType,
});
export type GetVolRequest = z.input<typeof getVolRequest>;

export const getVolResponse = z.looseObject({
  vols: z.array(finite),
  strike_type: z.number().int(),
});
export type GetVolResponse = z.output<typeof getVolResponse>;

const units = z.number().positive({ error: "must be > 0 (units held or traded)" });
/**
 * A14: fields of the known trade-event variants. The spec names only `BuyEvent (unit_price, quantity)`;
 * the others are this project's decision, in the same style: `quantity` is always the units the event
 * applies to, money amounts are per unit, in the tradable's currency. Unknown variants pass through.
 */
export const TRADE_EVENT_FIELDS = {
  BuyEvent: z.looseObject({ unit_price: finite, quantity: units }),
  SellEvent: z.looseObject({ unit_price: finite, quantity: units }),
  CouponEvent: z.looseObject({ amount_per_unit: finite, quantity: units }),
  RedemptionEvent: z.looseObject({ redemption_price: finite, quantity: units }),
  DividendEvent: z.looseObject({ amount_per_unit: finite, quantity: units }),
  ExerciseEvent: z.looseObject({ strike: finite, quantity: units, underlying_id: nonBlank }),
  ExpiryEvent: z.looseObject({ quantity: units }),
  StockSplitEvent: z.looseObject({ ratio: z.number().positive(), quantity: units }),
} satisfies Record<(typeof TRADE_EVENT_NAMES)[number], z.ZodObject>;
const KNOWN_EVENT_FIELDS: Record<string, z.ZodObject> = TRADE_EVENT_FIELDS;

/**
 * A trade event (`next_trade_event`): an open union on `$type`. The caller may give the full `$type`
 * or just the variant name (`"BuyEvent"`); the client expands a bare name with its namespace.
 */
export const tradeEvent = z
  .looseObject({ $type: nonBlank })
  .superRefine((event, ctx) => {
    const head = event.$type.split(",")[0]!.trim();
    const name = head.slice(head.lastIndexOf(".") + 1);
    const check = KNOWN_EVENT_FIELDS[name]?.safeParse(event);
    if (check && !check.success) {
      for (const issue of check.error.issues) ctx.addIssue({ ...issue, input: undefined, code: "custom", message: `${name}: ${issue.message}` });
    }
  });
export type TradeEventInput = z.input<typeof tradeEvent>;

/** Expands a bare variant name (`BuyEvent`) to `{ns}.Web.Core.TradeEvents.BuyEvent, {ns}.Web.Core`. */
export function tradeEventType(nameOrType: string, namespace: string): string {
  return /[.,]/.test(nameOrType) ? nameOrType : typeName(namespace, `${TRADE_EVENT_GROUP}.${nameOrType}`);
}

export const positionEffectsRequest = z.strictObject({
  next_trade_event: tradeEvent,
  pricing_date: dateTimeInput,
  tradable_id: nonBlank,
});
export type PositionEffectsRequest = z.input<typeof positionEffectsRequest>;

export const positionEffect = z.looseObject({
  quantity: finite,
  contract: z.looseObject({ identifier: z.string() }),
});
export const positionEffectsResponse = z.looseObject({
  position_effects: z.array(positionEffect),
  pricing_date: dateTimeOutput,
});
export type PositionEffectsResponse = z.output<typeof positionEffectsResponse>;

/** A4: one query parameter, the tradable id. */
export const tradableBriefQuery = z.strictObject({ [BRIEF_QUERY_PARAM]: nonBlank } as { [BRIEF_QUERY_PARAM]: typeof nonBlank });
export type TradableBriefQuery = z.input<typeof tradableBriefQuery>;
export const tradableBriefResponse = z.looseObject({ brief: z.string() });
export type TradableBriefResponse = z.output<typeof tradableBriefResponse>;

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
  encode: (body, namespace) => {
    const event = body.next_trade_event;
    if (!isRecord(event) || typeof event.$type !== "string") return body;
    return { ...body, next_trade_event: { ...event, $type: tradeEventType(event.$type, namespace) } };
  },
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
});
