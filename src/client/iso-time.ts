/**
 * An answer's receipt time as `new Date(ms).toISOString()` spells it, in JavaScript. V8's toISOString
 * first works out the local time zone's offset (ICU, in C++), then formats through a string stream:
 * ~0.6 µs in a loop, where this takes ~0.17 µs (a new day's date ~1 µs, once a day). Under
 * bench/throughput.mjs, once a millisecond, perf counted 62 samples in toISOString for 16,500 answers,
 * 35 here. Whole milliseconds from 1970 to 9999 are spelled here (days to a civil date as in Howard
 * Hinnant's `civil_from_days`); anything else is left to toISOString, which also throws for what is not a
 * time. test/client/iso-time.test.ts compares the two.
 */

/** The last millisecond spelled, and how: answers received in the same millisecond share it. */
let last = { ms: NaN, text: "" };

/** 10000-01-01T00:00:00.000Z: the first instant whose year has five digits. */
const YEAR_10000_MS = 253_402_300_800_000;
const DAY_MS = 86_400_000;

/** `new Date(ms).toISOString()` (small, so that the engine inlines it where it is called on every answer). */
export function isoTime(ms: number): string {
  return ms === last.ms ? last.text : spellAndKeep(ms);
}

function spellAndKeep(ms: number): string {
  const text = ms >= 0 && ms < YEAR_10000_MS && Number.isInteger(ms) ? spell(ms) : new Date(ms).toISOString();
  last = { ms, text };
  return text;
}

const TWO = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, "0"));
const THREE = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, "0"));

/** The day last spelled, and its `YYYY-MM-DDT`: it changes once a day. */
let lastDay = { days: NaN, prefix: "" };

function spell(ms: number): string {
  const days = Math.floor(ms / DAY_MS);
  if (days !== lastDay.days) {
    const { year, month, day } = civilFromDays(days);
    lastDay = { days, prefix: `${year}-${TWO[month]}-${TWO[day]}T` };
  }
  let rest = ms - days * DAY_MS;
  const milli = rest % 1000;
  rest = (rest - milli) / 1000;
  const second = rest % 60;
  rest = (rest - second) / 60;
  const minute = rest % 60;
  const hour = (rest - minute) / 60;
  return `${lastDay.prefix}${TWO[hour]}:${TWO[minute]}:${TWO[second]}.${THREE[milli]}Z`;
}

/** The Gregorian date `days` after 1970-01-01 (days ≥ 0; years of four digits). */
function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468; // days since 0000-03-01
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const m = Math.floor((5 * dayOfYear + 2) / 153); // 0 = March
  const month = m < 10 ? m + 3 : m - 9;
  return {
    year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0),
    month,
    day: dayOfYear - Math.floor((153 * m + 2) / 5) + 1,
  };
}
