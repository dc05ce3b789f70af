/** Dates for the simulator: UTC calendar days as `YYYY-MM-DD`, business days Monday to Friday. */

const DAY_MS = 86_400_000;

/** `2026-11-20` → milliseconds at 00:00 UTC. */
export function dayMs(isoDate: string): number {
  return Date.parse(`${isoDate.slice(0, 10)}T00:00:00Z`);
}

/** Milliseconds → `YYYY-MM-DD` (UTC). */
export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The UTC date part of any ISO date-time, e.g. `2026-11-20T23:00:00-05:00` → `2026-11-21`. */
export function utcDateOf(dateTime: string): string {
  return isoDate(Date.parse(dateTime));
}

/** Midnight UTC of a date as the wire's date-time with offset. */
export function wireDate(isoDay: string): string {
  return `${isoDay}T00:00:00+00:00`;
}

export function isBusinessDay(ms: number): boolean {
  const dow = new Date(ms).getUTCDay();
  return dow !== 0 && dow !== 6;
}

/** Adds calendar days. */
export function addDays(isoDay: string, days: number): string {
  return isoDate(dayMs(isoDay) + days * DAY_MS);
}

/** Adds calendar months, clamping to the month's end (31 Jan + 1M = 28/29 Feb). */
export function addMonths(isoDay: string, months: number): string {
  const d = new Date(dayMs(isoDay));
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + months;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return isoDate(Date.UTC(y, m, Math.min(d.getUTCDate(), last)));
}

/** The business day on or after `isoDay` (modified-following is more than the simulator needs). */
export function nextBusinessDay(isoDay: string): string {
  let ms = dayMs(isoDay);
  while (!isBusinessDay(ms)) ms += DAY_MS;
  return isoDate(ms);
}

/** The business day on or before `isoDay`. */
export function previousBusinessDay(isoDay: string): string {
  let ms = dayMs(isoDay);
  while (!isBusinessDay(ms)) ms -= DAY_MS;
  return isoDate(ms);
}

/** Adds business days (negative to go back). */
export function addBusinessDays(isoDay: string, n: number): string {
  let ms = dayMs(isoDay);
  const step = n >= 0 ? DAY_MS : -DAY_MS;
  for (let left = Math.abs(n); left > 0;) {
    ms += step;
    if (isBusinessDay(ms)) left--;
  }
  return isoDate(ms);
}

/** Business days from `start` to `end`, both included, ascending. */
export function businessDays(start: string, end: string): string[] {
  const out: string[] = [];
  for (let ms = dayMs(start), last = dayMs(end); ms <= last; ms += DAY_MS) if (isBusinessDay(ms)) out.push(isoDate(ms));
  return out;
}

/** ACT/365 year fraction between two dates. */
export function yearFraction(from: string, to: string): number {
  return (dayMs(to) - dayMs(from)) / (365 * DAY_MS);
}

/** Calendar days between two dates. */
export function daysBetween(from: string, to: string): number {
  return Math.round((dayMs(to) - dayMs(from)) / DAY_MS);
}
