/**
 * Provenance of tables and frames: the request pipeline attaches a record to every response object it
 * returns; the adapters copy it into `meta.provenance` (a DataFrame's `frameInfo(df).provenance`), the
 * batch helpers and `concatColumns` keep one entry per response, and `provenance(x)` reads it back from
 * whatever a notebook holds.
 */
import type { DataFrame } from "../../vendor/danfo";
import { provenanceOf, type Provenance } from "../client/provenance";
import { isColumnTable, isTypedColumnTable } from "../table/column-table";
import { frameInfo } from "./danfo";

export type { Provenance, ProvenanceSource } from "../client/provenance";
export { provenanceFrom } from "../client/provenance";

// A table's `meta.provenance` holds the client's records: the table room carries them without knowing them.
declare module "../table/column-table" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merges Provenance into the table room's record
  interface TableProvenance extends Provenance {}
}

/**
 * Where the rows of `x` came from, one entry per response: `x` may be a column table, a DataFrame an
 * adapter built, a batch result (`{ table }` / `{ frame }`), a `vol.crossCheck` result or a response
 * object the client returned.
 * `[]` for anything else (a DataFrame derived with danfo operations, hand-made rows, …).
 *
 * @example
 * ```ts
 * frames.provenance(df); // [{ operation: "RateAsset", source: "live", baseUrl: "https://…", … }]
 * ```
 */
export function provenance(x: unknown): Provenance[] {
  if (x === null || typeof x !== "object") return [];
  const own = provenanceOf(x);
  if (own) return [own];
  const info = frameInfo(x as DataFrame);
  if (info) return [...(info.provenance ?? [])];
  if (isColumnTable(x) || isTypedColumnTable(x)) return [...(x.meta?.provenance ?? [])];
  const batch = x as { table?: unknown; frame?: unknown; provenance?: unknown };
  if (isColumnTable(batch.table) || isTypedColumnTable(batch.table)) return provenance(batch.table);
  if (batch.frame !== null && typeof batch.frame === "object") return provenance(batch.frame);
  // Results that gather several responses themselves (`vol.crossCheck`) list them in `provenance`.
  if (Array.isArray(batch.provenance)) return [...(batch.provenance as Provenance[])];
  return [];
}
