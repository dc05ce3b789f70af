/** Position effects of a trade event (operation 5) as a frame, one row per effect. */
import type { DataFrame } from "../../vendor/danfo";
import { isRecord } from "../api/operation";
import type { PositionEffectsResponse } from "../api/tradable";
import type { ColumnTable } from "../table/column-table";
import { toDataFrame } from "./danfo";
import { parseIsoDate } from "../table/iso-date";
import { provenanceFrom } from "./provenance";
import { withDateWarnings } from "./answered-dates";
import { otherFields, tableFromRecords, type FieldSpec } from "./records";

/**
 * Position effects as a column table: `pricing_date` (the response's, on every row), `quantity`,
 * `contract_identifier` (the contract flattened; other contract fields become `contract_<field>`),
 * then any extra fields of the effects. A `pricing_date` other than the request's carries a warning naming both.
 * @example
 * ```ts
 * const table = frames.positionEffectsColumns(await rp.tradable.positionEffects(request));
 * ```
 */
export function positionEffectsColumns(response: PositionEffectsResponse): ColumnTable {
  const effects: unknown[] = Array.isArray(response?.position_effects) ? response.position_effects : [];
  const pricing = typeof response?.pricing_date === "string" ? parseIsoDate(response.pricing_date) : NaN;
  const pricingDate = Number.isNaN(pricing) ? (response?.pricing_date ?? null) : new Date(pricing);

  // Contract fields other than `identifier`, in the order first seen, flattened as contract_<field>.
  const contractFields: string[] = [];
  for (const e of effects) {
    const contract = isRecord(e) ? e.contract : undefined;
    if (isRecord(contract))
      for (const k of Object.keys(contract))
        if (k !== "identifier" && !contractFields.includes(k)) contractFields.push(k);
  }
  const contractOf = (r: Record<string, unknown>) => (isRecord(r.contract) ? r.contract : undefined);
  const specs: FieldSpec[] = [
    { name: "pricing_date", hint: "date", get: () => pricingDate },
    { name: "quantity", hint: "number" },
    { name: "contract_identifier", hint: "string", get: (r) => contractOf(r)?.identifier ?? null },
    ...contractFields.map((k): FieldSpec => ({ name: `contract_${k}`, get: (r) => contractOf(r)?.[k] ?? null })),
  ];
  const table = tableFromRecords(effects, specs, {
    source: "GetTradeEventPositionEffects",
    fields: otherFields(response, ["position_effects", "pricing_date"]),
    exclude: ["contract"],
    provenance: provenanceFrom(response),
  });
  return withDateWarnings(table, response);
}

/**
 * Position effects as a danfo DataFrame (see {@link positionEffectsColumns}).
 *
 * @example
 * ```ts
 * const df = frames.positionEffects(await rp.tradable.positionEffects(request));
 * ```
 */
export function positionEffects(response: PositionEffectsResponse): DataFrame {
  return toDataFrame(positionEffectsColumns(response));
}
