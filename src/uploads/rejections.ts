/**
 * `frames.upload*(…, { skipInvalid: true })`: the valid rows are sent, and the answer is one table of
 * every row that was not stored and why — refused here (`source: "local"`) or by the service
 * (`source: "service"`) — so a best-effort upload from a file is one call, and nothing is left unsaid.
 */
import type { OperationOutcome } from "../api/common";
import { TableBuilder, type ColumnTable } from "../table/column-table";
import { formatRowError, type RowError } from "./errors";

/** One row of the rejections table. */
export interface Rejection {
  /** 0-based row of the source; `null` for the whole table (an unknown column) or a message naming no record. */
  row: number | null;
  /** CSV: the line the row starts on; a workbook: the row in its sheet (1-based, as Excel shows it); else `null`. */
  line: number | null;
  /** The field at fault, when one is (local: the wire field; service: the path after the record). */
  field: string | null;
  reason: string;
  source: "local" | "service";
}

/** What a skip-invalid upload worked with: the local result and what it sent. */
export interface SkippedUpload {
  /** The operation (`UploadBondPriceData`). */
  operation: string;
  /** The request's array of records (`bond_data`), as the service's messages name it. */
  field: string;
  rowsRead: number;
  /** Local problems (rows refused before sending). */
  errors: readonly RowError[];
  /** Rows not sent although valid, with why (a vol curve left out whole by another of its rows). */
  notSent: readonly Rejection[];
  /** Exact duplicates sent once (reported as warnings). */
  duplicates: readonly RowError[];
  /** For each record sent, the rows it was built from. */
  recordRows: readonly (readonly number[])[];
  lines?: readonly number[];
  /** What the service answered, `undefined` when nothing was sent (no valid row). */
  outcome?: OperationOutcome;
  /** The `use_best_effort` sent (undefined: the service's default, false). */
  useBestEffort?: boolean;
}

/** `bond_data[3].traded_price: …` → index 3, field `traded_price`, the rest. */
function recordMessage(
  field: string,
  message: string,
): { index: number; path: string | null; said: string } | undefined {
  const m = new RegExp(`^\\s*${field}\\[(\\d+)\\](?:\\.([^:\\s]+))?:?\\s*([\\s\\S]*)$`).exec(message);
  return m ? { index: Number(m[1]), path: m[2] ?? null, said: m[3]! } : undefined;
}

/** The service's messages as rejections, mapped back to the rows of each record; and the records it named. */
function serviceRejections(upload: SkippedUpload): { rejections: Rejection[]; named: Set<number>; unnamed: number } {
  const rejections: Rejection[] = [];
  const named = new Set<number>();
  let unnamed = 0;
  for (const message of upload.outcome?.error_messages ?? []) {
    const m = recordMessage(upload.field, message);
    const rows = m ? upload.recordRows[m.index] : undefined;
    if (!m || !rows) {
      unnamed++;
      rejections.push({ row: null, line: null, field: null, reason: message, source: "service" });
      continue;
    }
    named.add(m.index);
    for (const row of rows)
      rejections.push({ row, line: upload.lines?.[row] ?? null, field: m.path, reason: m.said, source: "service" });
  }
  return { rejections, named, unnamed };
}

/**
 * How many records the service stored: all on success; none without best effort (all or nothing);
 * with best effort, those its messages do not name, when every message names one; else not known (`null`).
 */
function storedCount(upload: SkippedUpload, sent: number, named: Set<number>, unnamed: number): number | null {
  if (!upload.outcome) return 0;
  if (upload.outcome.is_success) return sent;
  if (upload.useBestEffort !== true) return 0;
  return unnamed === 0 ? sent - named.size : null;
}

/**
 * The rejections table: columns `row, line, field, reason, source` (`local` | `service`), by row, local
 * before service. `meta.fields` holds the counts (`rows_read`, `sent`, `stored` — `null` when the
 * answer does not say —, `rejected_local`, `rejected_service`, `duplicates_sent_once`, `is_success`);
 * `meta.warnings` the exact duplicates sent once and the service's notes on a success (what its
 * bootstrap does with the prices).
 */
export function rejectionsTable(upload: SkippedUpload): ColumnTable {
  const local: Rejection[] = [
    ...upload.errors.map((e) => ({
      row: e.row,
      line: e.line ?? null,
      field: e.field ?? null,
      reason: e.message,
      source: "local" as const,
    })),
    ...upload.notSent,
  ];
  const success = upload.outcome?.is_success === true;
  const service = success ? { rejections: [], named: new Set<number>(), unnamed: 0 } : serviceRejections(upload);
  const all = [...local, ...service.rejections].sort(
    (a, b) => (a.row ?? -1) - (b.row ?? -1) || (a.source === b.source ? 0 : a.source === "local" ? -1 : 1),
  );
  const sent = upload.recordRows.length;
  const stored = storedCount(upload, sent, service.named, service.unnamed);
  const fields = {
    operation: upload.operation,
    rows_read: upload.rowsRead,
    sent,
    stored,
    rejected_local: new Set(local.map((r) => r.row)).size,
    rejected_service: service.named.size,
    duplicates_sent_once: upload.duplicates.length,
    is_success: upload.outcome?.is_success ?? false,
  };
  const builder = new TableBuilder(all.length, `${upload.operation} rejections`, fields)
    .add(
      "row",
      all.map((r) => r.row),
      { hint: "number", owned: true },
    )
    .add(
      "line",
      all.map((r) => r.line),
      { hint: "number", owned: true },
    )
    .add(
      "field",
      all.map((r) => r.field),
      { hint: "string", owned: true },
    )
    .add(
      "reason",
      all.map((r) => r.reason),
      { hint: "string", owned: true },
    )
    .add(
      "source",
      all.map((r) => r.source),
      { hint: "category", owned: true, levels: ["local", "service"] },
    );
  for (const d of upload.duplicates)
    builder.warn({ ...(d.row === null ? {} : { row: d.row }), message: formatRowError(d) });
  if (success) for (const note of upload.outcome!.error_messages) builder.warn(`${upload.operation}: ${note}`);
  if (!upload.outcome) builder.warn(`${upload.operation}: nothing was sent: no row is valid`);
  else if (stored === null)
    builder.warn(
      `${upload.operation}: the service's answer does not say which records it stored (a message names none)`,
    );
  return builder.build();
}
