/**
 * A strict ISO 8601 date / date-time reader for frames: `YYYY-MM-DD`, and `YYYY-MM-DDThh:mm[:ss[.fff…]]`
 * with `Z`, `±hh:mm` or `±hhmm`. Anything else is not a date (NaN), so a text column never turns into
 * dates by accident (`Date.parse` would read `"1"` or `"March 7"`).
 */
import { daysInMonth, digits } from "../api/date-text";

/**
 * Milliseconds since the epoch of an ISO 8601 date or date-time string, or `NaN` when `text` is not one.
 * A date alone is midnight UTC; a date-time without an offset is read as UTC (never in the machine's
 * time zone, so a frame is the same on every machine). Digits past milliseconds are truncated.
 * @example
 * ```ts
 * import { parseIsoDate } from "risk-portal-lab/frames";
 * parseIsoDate("2026-11-20"); // milliseconds since the epoch (midnight UTC); NaN when it is not a date
 * ```
 */
export function parseIsoDate(text: string): number {
  const len = text.length;
  if (len < 10 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return NaN;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  if (year < 0 || month < 1 || month > 12 || day < 1) return NaN;
  if (day > daysInMonth(year, month)) return NaN;
  if (len === 10) return utc(year, month, day, 0, 0, 0, 0);

  const sep = text.charCodeAt(10);
  if ((sep !== 84 && sep !== 116) || len < 16 || text.charCodeAt(13) !== 58) return NaN; // "T"/"t", ":"
  const hour = digits(text, 11, 13);
  const minute = digits(text, 14, 16);
  let pos = 16;
  let second = 0;
  let ms = 0;
  if (pos < len && text.charCodeAt(pos) === 58) {
    second = digits(text, 17, 19);
    if (second < 0 || len < 19) return NaN;
    pos = 19;
    if (pos < len && (text.charCodeAt(pos) === 46 || text.charCodeAt(pos) === 44)) {
      let scale = 100;
      let end = pos + 1;
      for (; end < len; end++) {
        const d = text.charCodeAt(end) - 48;
        if (d < 0 || d > 9) break;
        ms += d * scale;
        scale /= 10;
      }
      if (end === pos + 1) return NaN;
      ms = Math.floor(ms);
      pos = end;
    }
  }
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second > 59) return NaN;

  let offsetMinutes = 0;
  if (pos < len) {
    const sign = text.charCodeAt(pos);
    if (sign === 90 || sign === 122) {
      if (pos + 1 !== len) return NaN; // "Z"
    } else if (sign === 43 || sign === 45) {
      const oh = digits(text, pos + 1, pos + 3);
      let om: number;
      if (text.charCodeAt(pos + 3) === 58) {
        om = digits(text, pos + 4, pos + 6);
        if (pos + 6 !== len) return NaN;
      } else {
        om = digits(text, pos + 3, pos + 5);
        if (pos + 5 !== len) return NaN;
      }
      if (oh < 0 || oh > 23 || om < 0 || om > 59) return NaN;
      offsetMinutes = (sign === 43 ? 1 : -1) * (oh * 60 + om);
    } else {
      return NaN;
    }
  }
  return utc(year, month, day, hour, minute, second, ms) - offsetMinutes * 60_000;
}

/** 400 Gregorian years, in milliseconds (the calendar repeats exactly). */
const FOUR_CENTURIES_MS = 146_097 * 86_400_000;

function utc(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
): number {
  // Date.UTC reads years 0–99 as 1900–1999; shift by a whole 400-year cycle to keep them literal.
  if (year < 100) return Date.UTC(year + 400, month - 1, day, hour, minute, second, ms) - FOUR_CENTURIES_MS;
  return Date.UTC(year, month - 1, day, hour, minute, second, ms);
}

/** True when `text` reads as an ISO 8601 date or date-time (see {@link parseIsoDate}). */
export function isIsoDate(text: string): boolean {
  return !Number.isNaN(parseIsoDate(text));
}

/**
 * A `Date` from an ISO 8601 string, or `undefined` when it is not one.
 * @example
 * ```ts
 * import { toDate } from "risk-portal-lab/frames";
 * toDate("2026-11-20T09:30:00+01:00"); // a Date; undefined when it is not a date
 * ```
 */
export function toDate(text: string): Date | undefined {
  const ms = parseIsoDate(text);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

/** `2026-11-20` for midnight UTC, else the full ISO string: how dates name pivot columns and failures. */
export function dateLabel(value: Date): string {
  const iso = value.toISOString();
  return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso;
}
