/** Stacks column tables (the batch helpers' one long frame from many responses). */
import {
  levelsOf,
  ownEntry,
  plainValue,
  TableBuilder,
  type ColumnHint,
  type ColumnKind,
  type ColumnTable,
  type TypedColumnTable,
} from "./column-table";

/** The hint that keeps a column's kind when its parts are stacked (auto when the parts disagree). */
function hintFor(kinds: ColumnKind[]): ColumnHint {
  const present = kinds.filter((k) => k !== "empty");
  if (present.length === 0) return "auto";
  const first = present[0]!;
  if (first === "mixed" || !present.every((k) => k === first)) return "auto";
  return first;
}

/**
 * The tables one under another: columns are the union in first-seen order, a column a table lacks is
 * missing in its rows, kinds and category levels carry over, warnings and provenance are concatenated.
 * Typed tables' numbers and dates are stacked as numbers and `Date`s (the result is a plain table).
 * @example
 * ```ts
 * import { concatColumns } from "risk-portal-lab/frames";
 * const eur = frames.yieldCurveColumns(await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" }));
 * const usd = frames.yieldCurveColumns(await rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" }));
 * const both = concatColumns([eur, usd], "RateAsset"); // columns: the union, in order first seen
 * ```
 */
export function concatColumns(tables: readonly (ColumnTable | TypedColumnTable)[], source: string): ColumnTable {
  const names: string[] = [];
  for (const t of tables) for (const c of t.columns) if (!names.includes(c)) names.push(c);
  const n = tables.reduce((sum, t) => sum + t.rowCount, 0);
  const builder = new TableBuilder(
    n,
    source,
    {},
    tables.flatMap((t) => t.meta.provenance ?? []),
  );
  for (const t of tables) for (const w of t.meta.warnings) builder.warn(w);
  for (const name of names) {
    const raw = new Array<unknown>(n);
    let at = 0;
    const kinds: ColumnKind[] = [];
    let known: string[] = [];
    for (const t of tables) {
      const values = ownEntry(t.data, name);
      if (values) {
        const kind = t.kinds[name]!;
        kinds.push(kind);
        for (let i = 0; i < t.rowCount; i++) raw[at + i] = plainValue(kind, values, i);
        const levels = ownEntry(t.meta.categories, name);
        if (levels) known = levelsOf(levels, known);
      }
      at += t.rowCount;
    }
    const hint = hintFor(kinds);
    builder.add(name, raw, { hint, owned: true, levels: known, detectDates: false });
  }
  return builder.build();
}
