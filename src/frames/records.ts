/**
 * The shared builder of the small adapters: response records (report infos, curve points, API keys …)
 * → a column table. Known fields come first, in the spec's order, with the kind the spec gives them;
 * fields a newer server adds are kept after them (kind inferred), in the order first seen.
 */
import { isRecord } from "../api/operation";
import type { Provenance } from "../client/provenance";
import { preview, TableBuilder, type ColumnHint, type ColumnTable } from "../table/column-table";

/** One known column of an adapter. */
export interface FieldSpec {
  /** Column name (the wire field name, unless `get` computes it). */
  name: string;
  hint?: ColumnHint;
  /** Known category levels, in their natural order. */
  levels?: readonly string[];
  /** Computes the value from the record (default: `record[name]`). */
  get?: (record: Record<string, unknown>) => unknown;
}

export interface RecordsOptions {
  /** `meta.source` of the table. */
  source: string;
  /** Response fields that are not columns (`meta.fields`). */
  fields?: Record<string, unknown>;
  /** Record fields that are neither known columns nor to be kept as extra columns (e.g. a flattened object). */
  exclude?: readonly string[];
  /** `meta.provenance` of the table (see `provenanceFrom`). Default none. */
  provenance?: readonly Provenance[];
}

/** A column table of `records`: the `specs` columns, then every other field seen (unless excluded). */
export function tableFromRecords(
  records: readonly unknown[],
  specs: readonly FieldSpec[],
  options: RecordsOptions,
): ColumnTable {
  const n = records.length;
  const builder = new TableBuilder(n, options.source, options.fields ?? {}, options.provenance);
  const rows: Record<string, unknown>[] = new Array(n);
  let notObjects = 0;
  for (let i = 0; i < n; i++) {
    const r = records[i];
    if (isRecord(r)) rows[i] = r;
    else {
      rows[i] = {};
      if (notObjects++ === 0)
        builder.warn({ row: i, message: `record ${i} is not an object (${preview(r)}); its cells are missing` });
    }
  }
  if (notObjects > 1) builder.warn(`${notObjects} records in all are not objects`);

  const known = new Set([...specs.map((s) => s.name), ...(options.exclude ?? [])]);
  for (const spec of specs) {
    const raw = new Array<unknown>(n);
    const get = spec.get;
    for (let i = 0; i < n; i++) raw[i] = get ? get(rows[i]!) : rows[i]![spec.name];
    builder.add(spec.name, raw, { hint: spec.hint ?? "auto", levels: spec.levels, owned: true });
  }

  const extras = new Map<string, unknown[]>();
  for (let i = 0; i < n; i++) {
    for (const key of Object.keys(rows[i]!)) {
      if (known.has(key)) continue;
      let raw = extras.get(key);
      if (!raw) {
        raw = new Array(n);
        extras.set(key, raw);
      }
      raw[i] = rows[i]![key];
    }
  }
  for (const [name, raw] of extras) {
    if (builder.has(name)) continue;
    builder.add(name, raw, { owned: true });
  }
  return builder.build();
}

/** The fields of a response object other than `skip` (they go to `meta.fields`). */
export function otherFields(response: unknown, skip: readonly string[]): Record<string, unknown> {
  if (!isRecord(response)) return {};
  // fromEntries defines each key: a field named `__proto__` stays a field, as JSON.parse made it.
  return Object.fromEntries(Object.entries(response).filter(([k]) => !skip.includes(k)));
}
