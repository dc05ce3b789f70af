/**
 * Equity vol curves from rows — one row per asset and maturity — to one validated curve per asset
 * (and reference date), every invalid row reported before anything is sent. Validation is the wire
 * schema's (`identifier`, `equityVolCurve`), so the rules live in one place.
 */
import { z } from "zod";
import { lazy } from "../api/lazy";
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
  isXlsxSource,
  loadSheet,
  placeInSheet,
  issueToRowError,
  refuseBeforeSending,
  readRows,
  unknownColumnErrors,
  withoutTypeTags,
  type FieldType,
  type RecordsFromRowsOptions,
  type RowSource,
  type SheetSource,
  type SourceRows,
  type XlsxSource,
} from "./upload-rows";
import { rowPlace, type RowError } from "./errors";
import { rejectionsTable, type Rejection } from "./rejections";
import type { ColumnTable } from "../table/column-table";

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

const number = lazy(() => z.number());
const spotRef = lazy(() => equityVolCurve.shape.spot_ref);

export interface EquityVolCurvesResult {
  /** One curve per asset and reference date, maturities ascending, in wire form. */
  curves: EquityVolCurve[];
  /** Every problem, by row; empty when all rows are valid. */
  errors: RowError[];
  /** Every curve left out whole (one bad row leaves out its curve), named, with the row that did it. */
  leftOut: LeftOutCurve[];
  /** Rows that repeat an earlier row of the same curve exactly (asset, reference date, maturity, vol): sent once. */
  duplicates: RowError[];
  /** For each curve, the rows it was built from (in maturity order). */
  rows: number[][];
  /** Rows read from the source (valid or not). */
  rowsRead: number;
  /** CSV sources: the line each row starts on, by row; a workbook: each row's sheet row. */
  lines?: number[];
  /** A workbook source: the sheet read (errors name its cells: `Vols!E7`). */
  sheet?: string;
}

/** A curve {@link equityVolCurveRecords} left out: which, its rows, and why. */
export interface LeftOutCurve {
  /** The asset's code. */
  asset: string;
  /** `YYYY-MM-DD` (or the date-time as written, when it is not midnight UTC). */
  reference_date: string;
  /** Every row of the curve, valid or not. */
  rows: number[];
  /** `SAP curve of 2026-11-20 left out: line 9 (row 7), vol -0.12: must be > 0 (decimal, 0.2 = 20%)`. */
  message: string;
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
  /** Every row of the curve, valid or not. */
  rows: number[];
  /** The curve's problems, with the value at fault when one cell is. */
  problems: { error: RowError; value?: unknown }[];
}

/**
 * Vol-curve rows → `equity_vol_curves`. Columns: `code, market_identification_code, identifier_type`
 * (or `asset_id.code` …, or an `asset_id` object), `reference_date`, `maturity` (days), `vol` (decimal),
 * optional `spot_ref` (one value per curve). Rows of one asset and reference date form one curve,
 * sorted by maturity. A row may also be a whole curve (`maturities` and `vols` arrays). Every row is checked.
 * One bad row leaves its whole curve out: `leftOut` names each such curve and the row that did it. A row
 * repeating another of its curve exactly is left out and listed in `duplicates` (sent once); one maturity
 * with two vols refuses the curve. A workbook sheet (`{ xlsxFile, sheet }`) is read first, so the answer
 * is then a Promise; its errors name their cells.
 * @example
 * ```ts
 * const { curves, errors, leftOut } = frames.equityVolCurveRecords({ csvFile: "vols.csv" }); // one curve per asset
 * ```
 */
export function equityVolCurveRecords(
  source: XlsxSource,
  options?: RecordsFromRowsOptions,
): Promise<EquityVolCurvesResult>;
export function equityVolCurveRecords(
  source: RowSource | SheetSource,
  options?: RecordsFromRowsOptions,
): EquityVolCurvesResult;
export function equityVolCurveRecords(
  source: RowSource | SheetSource | XlsxSource,
  options: RecordsFromRowsOptions = {},
): EquityVolCurvesResult | Promise<EquityVolCurvesResult> {
  if (isXlsxSource(source))
    return loadSheet(source, "frames.equityVolCurveRecords").then((sheet) => equityVolCurveRecords(sheet, options));
  return curvesOfRows(readRows(source), options);
}

/** {@link equityVolCurveRecords} of the rows read. */
function curvesOfRows(read: SourceRows, options: RecordsFromRowsOptions): EquityVolCurvesResult {
  const place = placer(read);
  const errors: RowError[] = [
    ...unknownColumnErrors(read, CURVE_COLUMNS, [ID], options.unknownColumns),
    ...read.errors,
  ];
  const groups = new Map<string, Group>();
  const leftOut: LeftOutCurve[] = [];
  const duplicates: RowError[] = [];
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
      const made = wholeCurve(row, cell, idInput, i, line, place);
      if ("curve" in made) whole.push({ curve: made.curve, row: i });
      else {
        errors.push(...made.errors);
        leftOut.push(made.leftOut);
      }
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
      group = { assetId: id.data, referenceDate: date.data, points: [], invalid: false, rows: [], problems: [] };
      groups.set(key, group);
    }
    group.rows.push(i);
    if (rowErrors.length > 0) {
      group.invalid = true;
      group.problems.push(...rowErrors.map((error) => ({ error })));
      return;
    }
    const point: Point = { row: i, maturity: maturity.data!, vol: vol.data!, spotRef: spot.data };
    if (line !== undefined) point.line = line;
    group.points.push(point);
  });

  const { curves, rows } = buildCurves(groups.values(), errors, leftOut, duplicates, place);
  for (const { curve, row } of whole) {
    curves.push(curve);
    rows.push([row]);
  }
  place(errors);
  place(duplicates);
  return {
    curves: withoutTypeTags(curves),
    errors: byRow(errors),
    leftOut,
    duplicates: byRow(duplicates),
    rows,
    rowsRead: read.rows.length,
    ...(read.lines ? { lines: read.lines } : {}),
    ...(read.sheet ? { sheet: read.sheet.name } : {}),
  };
}

/** Puts errors at their cells when the rows are a workbook sheet's (see placeInSheet); returns them. */
type Placer = <T extends Iterable<RowError>>(errors: T) => T;

function placer(read: SourceRows): Placer {
  return (errors) => {
    placeInSheet(read, errors, ID);
    return errors;
  };
}

/** Each group's curve; the groups with a problem are left out, and named in `leftOut`. */
function buildCurves(
  groups: Iterable<Group>,
  errors: RowError[],
  leftOut: LeftOutCurve[],
  duplicates: RowError[],
  place: Placer,
): { curves: EquityVolCurve[]; rows: number[][] } {
  const curves: EquityVolCurve[] = [];
  const rows: number[][] = [];
  for (const group of groups) {
    const before = group.problems.length;
    const built = buildCurve(group, duplicates);
    errors.push(...group.problems.slice(before).map((p) => p.error));
    if (built && !group.invalid) {
      curves.push(built);
      rows.push(group.points.map((p) => p.row));
    } else if (group.problems.length > 0) {
      leftOut.push(leftOutCurve(group.assetId.code, group.referenceDate, group.rows, group.problems, place));
    }
  }
  return { curves, rows };
}

/** A row that is a whole curve (`maturities` and `vols` arrays): the curve, or its errors and why it is left out. */
function wholeCurve(
  row: Record<string, unknown>,
  cell: (name: string) => unknown,
  idInput: Record<string, unknown>,
  i: number,
  line: number | undefined,
  place: Placer,
): { curve: EquityVolCurve } | { errors: RowError[]; leftOut: LeftOutCurve } {
  const candidate: Record<string, unknown> = {
    asset_id: idInput,
    reference_date: cell("reference_date"),
    maturities: row.maturities,
    vols: row.vols,
  };
  const spot = cell("spot_ref");
  if (spot !== undefined) candidate.spot_ref = spot;
  const parsed = equityVolCurve.safeParse(candidate, { reportInput: true });
  if (parsed.success) return { curve: parsed.data };
  const problems = parsed.error.issues.map((issue) => ({ error: issueToRowError(issue, i, line) }));
  const asset = typeof idInput.code === "string" ? idInput.code : "a curve with no asset code";
  const date = typeof candidate.reference_date === "string" ? candidate.reference_date : "(no reference_date)";
  return { errors: problems.map((p) => p.error), leftOut: leftOutCurve(asset, date, [i], problems, place) };
}

/** A wire date as a person wrote it: the day alone when it is midnight UTC. */
function shownDate(date: string): string {
  return date.endsWith("T00:00:00Z") ? date.slice(0, 10) : date;
}

/** A left-out curve, named by its first problem (the row, the field and its value) and how many more. */
function leftOutCurve(
  asset: string,
  referenceDate: string,
  rows: number[],
  problems: readonly { error: RowError; value?: unknown }[],
  place: Placer,
): LeftOutCurve {
  place(problems.map((p) => p.error));
  const sorted = [...problems].sort((a, b) => (a.error.row ?? -1) - (b.error.row ?? -1));
  const { error, value } = sorted[0]!;
  const field = error.field ? `, ${error.field}${value === undefined ? "" : ` ${preview(value)}`}` : "";
  const more = sorted.length > 1 ? ` (and ${sorted.length - 1} more problem${sorted.length === 2 ? "" : "s"})` : "";
  const date = shownDate(referenceDate);
  return {
    asset,
    reference_date: date,
    rows: [...rows].sort((a, b) => a - b),
    message: `${asset} curve of ${date} left out: ${rowPlace(error)}${field}: ${error.message}${more}`,
  };
}

/**
 * Sorts a group's points, drops exact repeats (into `duplicates`), checks for one vol per maturity and
 * one spot_ref, then validates the curve with the wire schema (without the repeats, so each problem is
 * reported once) and maps its issues back to rows. Problems go to `group.problems`; `undefined` when
 * anything is wrong.
 */
function buildCurve(group: Group, duplicates: RowError[]): EquityVolCurve | undefined {
  const sorted = group.points.sort((a, b) => a.maturity - b.maturity);
  const at = (p: Point, field: string, message: string): RowError => ({
    row: p.row,
    ...(p.line !== undefined ? { line: p.line } : {}),
    field,
    message,
  });
  const problem = (p: Point, field: "maturity" | "vol" | "spot_ref", message: string) =>
    group.problems.push({
      error: at(p, field, message),
      value: field === "maturity" ? p.maturity : field === "vol" ? p.vol : p.spotRef,
    });
  let ok = true;
  let spot: Point | undefined;
  const points: Point[] = [];
  for (const p of sorted) {
    const previous = points[points.length - 1];
    if (previous && p.maturity === previous.maturity) {
      if (p.vol === previous.vol && p.spotRef === previous.spotRef) {
        const { code } = group.assetId;
        duplicates.push({
          row: p.row,
          ...(p.line !== undefined ? { line: p.line } : {}),
          message: `exact duplicate of row ${previous.row} (${code}, reference_date ${shownDate(group.referenceDate)}, maturity ${p.maturity}): sent once`,
        });
        continue;
      }
      if (p.vol !== previous.vol)
        problem(
          p,
          "maturity",
          `maturity ${p.maturity} repeats for this asset and reference date with another vol (${preview(previous.vol)} on row ${previous.row}, ${preview(p.vol)} here); one row per maturity`,
        );
      ok = false;
    } else {
      points.push(p);
    }
    if (p.spotRef !== undefined) {
      if (spot && spot.spotRef !== p.spotRef) {
        problem(
          p,
          "spot_ref",
          `${preview(p.spotRef)} differs from ${preview(spot.spotRef)} on row ${spot.row}; one spot_ref per curve`,
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
    if (issue.code === "custom" && (field === "maturity" || field === "vol")) problem(member, field, issue.message);
    else if (issue.code === "custom") group.problems.push({ error: at(member, field, issue.message) });
    else group.problems.push({ error: issueToRowError(issue, member.row, member.line) });
  }
  return undefined;
}

export interface UploadEquityVolCurvesOptions extends RecordsFromRowsOptions, Omit<CallOptions, "throwOnFailure"> {
  /** A18; default false (all-or-nothing). */
  use_best_effort?: boolean;
  /** Throw `OperationFailedError` when the service answers `is_success: false` (default) or return the outcome. */
  throwOnFailure?: boolean;
  /**
   * Default false: any invalid row refuses the whole source (nothing sent). True: send the valid curves
   * and answer with one table of every row not stored and why, local and service (the rows of a curve
   * left out whole included); with `use_best_effort: true` the service too stores what it can.
   */
  skipInvalid?: boolean;
}

/**
 * Validates vol-curve rows, groups them into curves and uploads them. By default, when any row is
 * invalid, throws {@link RowValidationError} listing every bad row and sends nothing. With
 * `skipInvalid: true`, sends the valid curves and returns one table of the rows not stored, local and
 * service (columns `row, line, field, reason, source`; counts in `meta.fields`).
 *
 * @example
 * ```ts
 * const outcome = await frames.uploadEquityVolCurves(rp, { csvFile: "vols.csv" });
 * await frames.uploadEquityVolCurves(rp, { xlsxFile: "vols.xlsx", sheet: "SAP" }); // errors name cells: SAP!E7
 * const rejected = await frames.uploadEquityVolCurves(rp, { csvFile: "vols.csv" }, { use_best_effort: true, skipInvalid: true });
 * ```
 */
export async function uploadEquityVolCurves(
  rp: RiskPortalClient,
  source: RowSource | XlsxSource,
  options: UploadEquityVolCurvesOptions & { skipInvalid: true },
): Promise<ColumnTable>;
export async function uploadEquityVolCurves(
  rp: RiskPortalClient,
  source: RowSource | XlsxSource,
  options?: UploadEquityVolCurvesOptions,
): Promise<OperationOutcome>;
export async function uploadEquityVolCurves(
  rp: RiskPortalClient,
  source: RowSource | XlsxSource,
  options: UploadEquityVolCurvesOptions = {},
): Promise<OperationOutcome | ColumnTable> {
  const { unknownColumns, use_best_effort, skipInvalid, ...callOptions } = options;
  const loaded = isXlsxSource(source) ? await loadSheet(source, "frames.uploadEquityVolCurves") : source;
  const result = equityVolCurveRecords(loaded, { unknownColumns });
  const { curves, errors, rows, lines } = result;
  const body = { ...(use_best_effort === undefined ? {} : { use_best_effort }), equity_vol_curves: curves };
  if (skipInvalid) {
    const outcome =
      curves.length === 0
        ? undefined
        : await rp.marketData.uploadEquityVolCurves(body, { ...callOptions, throwOnFailure: false });
    return rejectionsTable({
      operation: "UploadEquityVolCurves",
      field: "equity_vol_curves",
      rowsRead: result.rowsRead,
      errors,
      notSent: notSentRows(result),
      duplicates: result.duplicates,
      recordRows: rows,
      ...(lines ? { lines } : {}),
      ...(outcome ? { outcome } : {}),
      ...(use_best_effort === undefined ? {} : { useBestEffort: use_best_effort }),
    });
  }
  refuseBeforeSending("UploadEquityVolCurves", errors, curves.length);
  return rp.marketData.uploadEquityVolCurves(body, callOptions).catch((error: unknown) => {
    throw inSourceTerms(error, source, rows, lines, result.sheet);
  });
}

/** The valid rows of the curves left out whole: not sent, because of another row of their curve. */
function notSentRows(result: EquityVolCurvesResult): Rejection[] {
  const bad = new Set(result.errors.map((e) => e.row));
  return result.leftOut.flatMap((curve) =>
    curve.rows
      .filter((row) => !bad.has(row))
      .map((row) => ({
        row,
        line: result.lines?.[row] ?? null,
        field: null,
        reason: `not sent: ${curve.message}`,
        source: "local" as const,
      })),
  );
}
