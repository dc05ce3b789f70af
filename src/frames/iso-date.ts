/**
 * Moved to table/iso-date.ts (issue 31: dates belong to the table room, which curves/ may import and
 * frames/ may not be imported by). Kept only for frames/column-table.ts and plot/input.ts, which are being
 * changed elsewhere; delete this file once they import "../table/iso-date".
 */
export { parseIsoDate, isIsoDate, toDate, dateLabel } from "../table/iso-date";
