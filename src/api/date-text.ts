/**
 * Reading the digits of the wire's date and date-time texts (`2026-11-20T00:00:00+00:00`): what the frames'
 * date reader (table/iso-date.ts) and the response check's date-time acceptor (client/response-check.ts)
 * both need, written once.
 */

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The value of the decimal digits `s[from..to)`, or -1 when one of them is not a digit (or is past the end). */
export function digits(s: string, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) {
    const d = s.charCodeAt(i) - 48;
    if (!(d >= 0 && d <= 9)) return -1;
    value = value * 10 + d;
  }
  return value;
}

/** The days in `month` (1–12) of `year`, leap years as Gregorian. */
export function daysInMonth(year: number, month: number): number {
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return DAYS_IN_MONTH[month - 1]! + (leap ? 1 : 0);
}
