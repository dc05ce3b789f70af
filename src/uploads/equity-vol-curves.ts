/**
 * Equity vol curves from rows — one row per asset and maturity — to one validated curve per asset
 * (and reference date), every invalid row reported before anything is sent. Validation is the wire
 * schema's (`identifier`, `equityVolCurve`), so the rules live in one place.
 */
import { z } from "zod";
import { dateTimeInput, identifier, type Identifier, type OperationOutcome } from "../api/common";
import { equityVolCurve, type EquityVolCurve } from "../api/market-data";
import { formatPath, isRecord } from "../api/operation";
import type { CallOptions } from "../client/pipeline";
import type { RiskPortalClient } from "../client/client";
import { preview } from "../table/column-table";
import {
  byRow,
  convertCell,
  inSourceTerms,
  isBlank,
  issueToRowError,
  refuseBeforeSending,
  readRows,
  unknownColumnErrors,
  withoutTypeTags,
  type FieldType,
  type RecordsFromRowsOptions,
  type RowSource,
} from "./upload-rows";
import type { RowError } from "./errors";

const ID = "asset_id";
/** Accepted columns (normalised names) and what they hold. */
const CURVE_COLUMNS: Record<string, FieldType> = {
  code: "string",
  market_identification_code: "string",
  identifier_type: "string",
  reference_date: "date",
  maturity: "number",
  vol: "number",
  spot_ref: "number",
  maturities: "number",
  vols: "number",
};
for (const key of ["code", "market_identification_code", "identifier_type"]) CURVE_COLUMNS[`${ID}.${key}`] = "string";

const number = z.number();
const spotRef = equityVolCurve.shape.spot_ref;

export interface EquityVolCurvesResult {
  /** One curve per asset and reference date, maturities ascending, in wire form. */
  curves: EquityVolCurve[];
  /** Every problem, by row; empty when all rows are valid. */
  errors: RowError[];
  /** For each curve, the rows it was built from (in maturity order). */
  rows: number[][];
  /** CSV sources: the line each row starts on, by row. */
  lines?: number[];
}

interface Point {
  row: number;
  line?: number;
  maturity: number;
  vol: number;
  spotRef?: number;
}

interface Group {
  assetId: Identifier;
  referenceDate: string;
  points: Point[];
  invalid: boolean;
}

/**
 * Vol-curve rows → `equity_vol_curves`. Columns: `code, market_identification_code, identifier_type`
 * (or `asset_id.code` …, or an `asset_id` object), `reference_date`, `maturity` (days), `vol` (decimal),
 * optional `spot_ref` (one value per curve). Rows of one asset and reference date form one curve,
 * sorted by maturity. A row may also be a whole curve (`maturities` and `vols` arrays). Every row is checked.
 */
export function equityVolCurveRecords(source: RowSource, options: RecordsFromRowsOptions = {}): EquityVolCurvesResult {
  const read = readRows(source);
  const errors: RowError[] = [
    ...unknownColumnErrors(read, CURVE_COLUMNS, [ID], options.unknownColumns),
    ...read.errors,
  ];
  const groups = new Map<string, Group>();
  const whole: { curve: EquityVolCurve; row: number }[] = [];

  read.rows.forEach((row, i) => {
    if (read.unreadable.has(i)) return;
    const line = read.lines?.[i];
    const rowErrors: RowError[] = [];
    const cell = (name: string) => convertCell(row[name], CURVE_COLUMNS[name] ?? "string");

    const idInput: Record<string, unknown> = isRecord(row[ID]) ? { ...row[ID] } : {};
    for (const key of ["code", "market_identification_code", "identifier_type"]) {
      const value = cell(key) ?? cell(`${ID}.${key}`);
      if (value !== undefined) idInput[key] = value;
    }
    if (isBlank(idInput.identifier_type)) delete idInput.identifier_type;

    if (Array.isArray(row.maturities) || Array.isArray(row.vols)) {
      // A whole curve in one row.
      const candidate: Record<string, unknown> = {
        asset_id: idInput,
        reference_date: cell("reference_date"),
        maturities: row.maturities,
        vols: row.vols,
      };
      const spot = cell("spot_ref");
      if (spot !== undefined) candidate.spot_ref = spot;
      const parsed = equityVolCurve.safeParse(candidate, { reportInput: true });
      if (parsed.success) whole.push({ curve: parsed.data, row: i });
      else for (const issue of parsed.error.issues) errors.push(issueToRowError(issue, i, line));
      return;
    }

    const id = identifier.safeParse(idInput, { reportInput: true });
    if (!id.success) for (const issue of id.error.issues) rowErrors.push(issueToRowError(issue, i, line, [ID]));
    const date = dateTimeInput.safeParse(cell("reference_date"), { reportInput: true });
    if (!date.success) rowErrors.push(issueToRowError(date.error.issues[0]!, i, line, ["reference_date"]));
    const maturity = number.safeParse(cell("maturity"), { reportInput: true });
    if (!maturity.success) rowErrors.push(issueToRowError(maturity.error.issues[0]!, i, line, ["maturity"]));
    const vol = number.safeParse(cell("vol"), { reportInput: true });
    if (!vol.success) rowErrors.push(issueToRowError(vol.error.issues[0]!, i, line, ["vol"]));
    const spot = spotRef.safeParse(cell("spot_ref"), { reportInput: true });
    if (!spot.success) rowErrors.push(issueToRowError(spot.error.issues[0]!, i, line, ["spot_ref"]));
    errors.push(...rowErrors);
    if (!id.success || !date.success) return; // cannot tell which curve the row belongs to

    const key = [id.data.code, id.data.market_identification_code, id.data.identifier_type, date.data].join("\u0000");
    let group = groups.get(key);
    if (!group) {
      group = { assetId: id.data, referenceDate: date.data, points: [], invalid: false };
      groups.set(key, group);
    }
    if (rowErrors.length > 0) {
      group.invalid = true;
      return;
    }
    const point: Point = { row: i, maturity: maturity.data!, vol: vol.data!, spotRef: spot.data };
    if (line !== undefined) point.line = line;
    group.points.push(point);
  });

  const curves: EquityVolCurve[] = [];
  const rows: number[][] = [];
  for (const group of groups.values()) {
    const built = buildCurve(group, errors);
    if (built && !group.invalid) {
      curves.push(built);
      rows.push(group.points.map((p) => p.row));
    }
  }
  for (const { curve, row } of whole) {
    curves.push(curve);
    rows.push([row]);
  }
  return { curves: withoutTypeTags(curves), errors: byRow(errors), rows, ...(read.lines ? { lines: read.lines } : {}) };
}

/**
 * Sorts a group's points, checks for one spot_ref and no repeated maturity, then validates the curve
 * with the wire schema (without the repeats, so each problem is reported once) and maps its issues
 * back to rows. `undefined` when anything is wrong.
 */
function buildCurve(group: Group, errors: RowError[]): EquityVolCurve | undefined {
  const sorted = group.points.sort((a, b) => a.maturity - b.maturity);
  const at = (p: Point, field: string, message: string): RowError => ({
    row: p.row,
    ...(p.line !== undefined ? { line: p.line } : {}),
    field,
    message,
  });
  let ok = true;
  let spot: Point | undefined;
  const points: Point[] = [];
  for (const p of sorted) {
    const previous = points[points.length - 1];
    if (previous && p.maturity === previous.maturity) {
      errors.push(
        at(
          p,
          "maturity",
          `maturity ${p.maturity} repeats for this asset and reference date (also row ${previous.row}); one row per maturity`,
        ),
      );
      ok = false;
    } else {
      points.push(p);
    }
    if (p.spotRef !== undefined) {
      if (spot && spot.spotRef !== p.spotRef) {
        errors.push(
          at(
            p,
            "spot_ref",
            `${preview(p.spotRef)} differs from ${preview(spot.spotRef)} on row ${spot.row}; one spot_ref per curve`,
          ),
        );
        ok = false;
      }
      spot ??= p;
    }
  }
  if (points.length === 0) return undefined;
  const candidate: Record<string, unknown> = {
    asset_id: group.assetId,
    reference_date: group.referenceDate,
    maturities: points.map((p) => p.maturity),
    vols: points.map((p) => p.vol),
  };
  if (spot) candidate.spot_ref = spot.spotRef;
  const parsed = equityVolCurve.safeParse(candidate, { reportInput: true });
  if (parsed.success) return ok ? parsed.data : undefined;
  for (const issue of parsed.error.issues) {
    const [head, index] = issue.path;
    const member =
      (head === "maturities" || head === "vols") && typeof index === "number" ? points[index]! : points[0]!;
    const field = head === "maturities" ? "maturity" : head === "vols" ? "vol" : formatPath(issue.path);
    // The schema's curve-level messages (strictly increasing, > 0) name the problem; the whole curve is not worth echoing.
    const e =
      issue.code === "custom" ? at(member, field, issue.message) : issueToRowError(issue, member.row, member.line);
    errors.push(e);
  }
  return undefined;
}

export interface UploadEquityVolCurvesOptions extends RecordsFromRowsOptions, Omit<CallOptions, "throwOnFailure"> {
  /** A18; default false (all-or-nothing). */
  use_best_effort?: boolean;
  /** Throw `OperationFailedError` when the service answers `is_success: false` (default) or return the outcome. */
  throwOnFailure?: boolean;
}

/**
 * Validates vol-curve rows, groups them into curves and uploads them; when any row is invalid, throws
 * {@link RowValidationError} listing every bad row and sends nothing.
 *
 * ```ts
 * const outcome = await frames.uploadEquityVolCurves(rp, { csvFile: "vols.csv" });
 * ```
 */
export async function uploadEquityVolCurves(
  rp: RiskPortalClient,
  source: RowSource,
  options: UploadEquityVolCurvesOptions = {},
): Promise<OperationOutcome> {
  const { unknownColumns, use_best_effort, ...callOptions } = options;
  const { curves, errors, rows, lines } = equityVolCurveRecords(source, { unknownColumns });
  refuseBeforeSending("UploadEquityVolCurves", errors, curves.length);
  return rp.marketData
    .uploadEquityVolCurves(
      { ...(use_best_effort === undefined ? {} : { use_best_effort }), equity_vol_curves: curves },
      callOptions,
    )
    .catch((error: unknown) => {
      throw inSourceTerms(error, source, rows, lines);
    });
}
