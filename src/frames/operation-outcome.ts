/** Outcomes of uploads and launcher creates as a frame: one row per error message. */
import type { DataFrame } from "../../vendor/danfo";
import { shortTypeName } from "../api/assumptions";
import type { OperationOutcome } from "../api/common";
import { TableBuilder, type ColumnTable } from "../table/column-table";
import { toDataFrame } from "./danfo";
import { provenanceFrom } from "./provenance";
import { otherFields } from "./records";

/**
 * The record a best-effort message is about (A18: each rejected record yields one message naming its
 * index), when the message names one: `bond_data[3]`, `record 3`, `index 3`, `row 3`, `#3`.
 */
const RECORD_INDEX = /(?:\[(\d+)\]|\b(?:record|index|row|item|element)\s*#?\s*(\d+)|#(\d+))/i;

function recordIndex(message: string): number {
  const m = RECORD_INDEX.exec(message);
  const digits = m?.[1] ?? m?.[2] ?? m?.[3];
  return digits === undefined ? NaN : Number(digits);
}

/**
 * An operation outcome as a column table, one row per error message: `message_index` (position in
 * `error_messages`), `record_index` (the record the message names, when it names one; else missing),
 * `error_message`. A success has no rows; `is_success` and the short `$type` are in `meta.fields`
 * (`operation_type`).
 * @example
 * ```ts
 * const outcome = await rp.marketData.uploadBondPrices(body, { throwOnFailure: false });
 * const messages = frames.operationOutcomeColumns(outcome);
 * ```
 */
export function operationOutcomeColumns(outcome: OperationOutcome): ColumnTable {
  const messages = Array.isArray(outcome?.error_messages) ? outcome.error_messages.map(String) : [];
  const fields: Record<string, unknown> = otherFields(outcome, ["error_messages"]);
  if (typeof outcome?.$type === "string") fields.operation_type = shortTypeName(outcome.$type);
  return new TableBuilder(messages.length, "OperationOutcome", fields, provenanceFrom(outcome))
    .add(
      "message_index",
      messages.map((_, i) => i),
      { hint: "number", owned: true },
    )
    .add("record_index", messages.map(recordIndex), { hint: "number", owned: true })
    .add("error_message", messages, { hint: "string", owned: true })
    .build();
}

/**
 * An operation outcome as a danfo DataFrame (see {@link operationOutcomeColumns}).
 *
 * @example
 * ```ts
 * const df = frames.operationOutcome(await rp.marketData.uploadBondPrices(body, { throwOnFailure: false }));
 * ```
 */
export function operationOutcome(outcome: OperationOutcome): DataFrame {
  return toDataFrame(operationOutcomeColumns(outcome));
}
