/**
 * Holiday calendars: business days, rolls and tenor arithmetic with QuantLib 1.29's semantics
 * (`Calendar::adjust`, `Calendar::advance`, `Calendar::businessDaysBetween`) over the holidays of TARGET,
 * the US government bond market, England & Wales, Tokyo and Zurich, 1990–2070. Days are day numbers
 * inside; each calendar marks a year's days the first time one of them is asked about.
 */
import {
  daysInMonth,
  dayNumber,
  civil,
  describe,
  easterMonday,
  isoDay,
  parseDay,
  weekday,
  type DateInput,
} from "./calendars/day-number";
import { CALENDARS, ROLLS, type CalendarName, type Roll } from "./calendar-names";
import { QUANTLIB_DIFFERENCES } from "./calendars/differences";
import type { HolidayRule } from "./calendars/rules";
import { targetHoliday } from "./calendars/target";
import { usGovtHoliday } from "./calendars/us-govt";
import { ukHoliday } from "./calendars/uk";
import { japanHoliday } from "./calendars/jp";
import { switzerlandHoliday } from "./calendars/ch";
import { CurveError } from "./errors";

export { CALENDARS, ROLLS, type CalendarName, type Roll } from "./calendar-names";
export type { DateInput } from "./calendars/day-number";
export { QUANTLIB_DIFFERENCES } from "./calendars/differences";
export type { QuantLibDifference } from "./calendars/rules";

/** How {@link Calendar.advance} rolls: `roll` default `"modified-following"`, `endOfMonth` default false. */
export interface AdvanceOptions {
  /** How a month/week/year tenor's landing day is adjusted; default `"modified-following"`. Ignored for `D`. */
  roll?: Roll;
  /**
   * End-of-month rule (default off), QuantLib's: for a tenor in months or years, when the day after the
   * start, rolled forward, is in the next month (the start is the month's last business day, or a
   * holiday after it), the result is the last business day of the target month, whatever the roll
   * (`"unadjusted"` too, as in QuantLib 1.29; later QuantLib gives the month's last calendar day there).
   */
  endOfMonth?: boolean;
}

/** A holiday calendar. Every day argument is `"YYYY-MM-DD"` or a `Date` at 00:00 UTC, within 1990–2070. */
export interface Calendar {
  /** The calendar's name, as {@link CALENDARS} lists it. */
  readonly name: CalendarName;
  /** Whether the day is a business day: not a Saturday, Sunday or holiday. */
  isBusinessDay(date: DateInput): boolean;
  /** The day rolled to a business day by `roll`; default `"following"` (QuantLib's default). */
  adjust(date: DateInput, roll?: Roll): string;
  /**
   * The day `tenor` after `date`: `"2D"` counts business days (from a holiday too, and ignores the roll);
   * `"1W"`, `"3M"`, `"10Y"` add calendar weeks/months/years (a month end clamps: 31 Jan + 1M = 28/29 Feb),
   * then roll (default `"modified-following"`). A negative tenor (`"-1M"`) goes back; `"0D"` only rolls.
   */
  advance(date: DateInput, tenor: string, options?: AdvanceOptions): string;
  /** Business days from `from` (counted) to `to` (not counted); negative when `from` is after `to`, as QuantLib's. */
  businessDaysBetween(from: DateInput, to: DateInput): number;
  /** The holidays on weekdays in [from, to] (weekends left out), `"YYYY-MM-DD"`, in order. */
  holidays(from: DateInput, to: DateInput): string[];
}

const FIRST_YEAR = 1990;
const LAST_YEAR = 2070;
const FIRST_DAY = dayNumber(FIRST_YEAR, 1, 1);
const LAST_DAY = dayNumber(LAST_YEAR, 12, 31);
const RANGE = `${FIRST_YEAR}-01-01..${LAST_YEAR}-12-31`;
const UNKNOWN = 0;
const OPEN = 1;
const CLOSED = 2;
const TENOR = /^\s*([+-]?\d+)\s*([DWMY])\s*$/i;

const RULES: Record<CalendarName, HolidayRule> = {
  TARGET: targetHoliday,
  "US-GOVT": usGovtHoliday,
  UK: ukHoliday,
  JP: japanHoliday,
  CH: switzerlandHoliday,
};

/** Checks a day number is within the years the rules cover, naming `argument` and the day otherwise. */
function inRange(n: number, argument: string, name: CalendarName, how = ""): number {
  if (n < FIRST_DAY || n > LAST_DAY) {
    throw new CurveError(
      `${argument} ${JSON.stringify(isoDay(n))}${how} is outside ${RANGE}, where the ${name} calendar's holiday rules are valid`,
      argument,
    );
  }
  return n;
}

function checkRoll(roll: unknown, argument: string): Roll {
  if ((ROLLS as readonly unknown[]).includes(roll)) return roll as Roll;
  throw new CurveError(
    `${argument} ${describe(roll)} is not a roll: expected one of ${ROLLS.map((r) => JSON.stringify(r)).join(", ")}`,
    argument,
  );
}

/** A calendar over a holiday rule and its corrections; the days' states are filled a year at a time. */
class BusinessCalendar implements Calendar {
  readonly name: CalendarName;
  readonly #rule: HolidayRule;
  readonly #state = new Uint8Array(LAST_DAY - FIRST_DAY + 1);
  readonly #overrides = new Map<number, boolean>();

  constructor(name: CalendarName) {
    this.name = name;
    this.#rule = RULES[name];
    for (const diff of QUANTLIB_DIFFERENCES[name])
      this.#overrides.set(parseDay(diff.date, "date"), diff.quantlib !== "holiday");
  }

  /** Marks every day of `year`: weekends, the rule's holidays, then the corrections. */
  #fillYear(year: number): void {
    const first = dayNumber(year, 1, 1);
    const em = easterMonday(year);
    let n = first;
    for (let m = 1; m <= 12; m++) {
      const days = daysInMonth(year, m);
      for (let d = 1; d <= days; d++, n++) {
        const w = weekday(n);
        let closed = w === 0 || w === 6 || this.#rule({ y: year, m, d, w, dd: n - first + 1, em });
        const fix = this.#overrides.get(n);
        if (fix !== undefined && w !== 0 && w !== 6) closed = fix;
        this.#state[n - FIRST_DAY] = closed ? CLOSED : OPEN;
      }
    }
  }

  /** Whether day number `n` is a business day; `n` must be in range (the callers check). */
  open(n: number): boolean {
    const i = n - FIRST_DAY;
    let s = this.#state[i]!;
    if (s === UNKNOWN) {
      this.#fillYear(civil(n).year);
      s = this.#state[i]!;
    }
    return s === OPEN;
  }

  /** The error for a walk (`what`: a roll or a count of business days) that left the covered years at `n`. */
  #walkedOut(n: number, argument: string, what: string): CurveError {
    return new CurveError(
      `${what} walks to ${isoDay(n)}, outside ${RANGE}, where the ${this.name} calendar's holiday rules are valid`,
      argument,
    );
  }

  #day(value: unknown, argument: string): number {
    return inRange(parseDay(value, argument), argument, this.name);
  }

  isBusinessDay(date: DateInput): boolean {
    return this.open(this.#day(date, "date"));
  }

  adjust(date: DateInput, roll: Roll = "following"): string {
    return isoDay(this.adjustDay(this.#day(date, "date"), checkRoll(roll, "roll")));
  }

  /** QuantLib's `Calendar::adjust` on a day number. */
  adjustDay(n: number, roll: Roll): number {
    if (roll === "unadjusted") return n;
    const forward = roll === "following" || roll === "modified-following";
    const modified = roll === "modified-following" || roll === "modified-preceding";
    const back = (): number => this.adjustDay(n, forward ? "preceding" : "following");
    let d = n;
    for (; ; d += forward ? 1 : -1) {
      if (d < FIRST_DAY || d > LAST_DAY) {
        // past the covered years the walk has left the month: a modified roll turns back, the others cannot end
        if (modified) return back();
        throw this.#walkedOut(d, "date", `date ${JSON.stringify(isoDay(n))} rolled ${JSON.stringify(roll)}`);
      }
      if (this.open(d)) break;
    }
    return modified && civil(d).month !== civil(n).month ? back() : d;
  }

  advance(date: DateInput, tenor: string, options: AdvanceOptions = {}): string {
    const start = this.#day(date, "date");
    const { count, unit } = parseCalendarTenor(tenor);
    if (options === null || typeof options !== "object")
      throw new CurveError(`options ${describe(options)} is not an object: expected { roll?, endOfMonth? }`, "options");
    const roll = checkRoll(options.roll ?? "modified-following", "options.roll");
    const eom = options.endOfMonth ?? false;
    if (typeof eom !== "boolean")
      throw new CurveError(`options.endOfMonth ${describe(eom)} is not true or false`, "options.endOfMonth");
    return isoDay(this.advanceDay(start, count, unit, roll, eom));
  }

  /** QuantLib 1.29's `Calendar::advance` on a day number. */
  advanceDay(start: number, count: number, unit: "D" | "W" | "M" | "Y", roll: Roll, endOfMonth: boolean): number {
    if (count === 0) return this.adjustDay(start, roll);
    if (unit === "D") {
      const step = count > 0 ? 1 : -1;
      let d = start;
      // each step: the next day, then on past holidays (QuantLib: ++d; while (isHoliday(d)) ++d;)
      for (let left = Math.abs(count); left > 0; left--) {
        do {
          d += step;
          if (d < FIRST_DAY || d > LAST_DAY)
            throw this.#walkedOut(d, "tenor", `tenor "${count}D" from ${isoDay(start)}`);
        } while (!this.open(d));
      }
      return d;
    }
    const tenor = `${count}${unit}`;
    if (unit === "W") return this.adjustDay(this.#landing(start + 7 * count, start, tenor), roll);
    const landed = this.#landing(addMonths(start, unit === "Y" ? 12 * count : count), start, tenor);
    if (endOfMonth && this.#isEndOfMonth(start)) {
      const { year, month } = civil(landed);
      return this.adjustDay(dayNumber(year, month, daysInMonth(year, month)), "preceding");
    }
    return this.adjustDay(landed, roll);
  }

  /** The day a tenor lands on, before any roll; an error naming the tenor when it is past the covered years. */
  #landing(n: number, start: number, tenor: string): number {
    if (n >= FIRST_DAY && n <= LAST_DAY) return n;
    throw new CurveError(
      `tenor ${JSON.stringify(tenor)} from ${isoDay(start)} lands on ${isoDay(n)}, outside ${RANGE}, where the ${this.name} calendar's holiday rules are valid`,
      "tenor",
    );
  }

  /** QuantLib's `Calendar::isEndOfMonth`: the next day, rolled forward, is in another month. */
  #isEndOfMonth(n: number): boolean {
    // the last covered day is 31 December: the day after is in January whatever it rolls to
    if (n === LAST_DAY) return true;
    return civil(this.adjustDay(n + 1, "following")).month !== civil(n).month;
  }

  businessDaysBetween(from: DateInput, to: DateInput): number {
    const a = this.#day(from, "from");
    const b = this.#day(to, "to");
    // from < to counts [from, to); from > to counts (to, from], negated, as QuantLib 1.29
    const [lo, hi, sign] = a <= b ? [a, b, 1] : [b + 1, a + 1, -1];
    let count = 0;
    for (let n = lo; n < hi; n++) if (this.open(n)) count++;
    return sign * count;
  }

  holidays(from: DateInput, to: DateInput): string[] {
    const a = this.#day(from, "from");
    const b = this.#day(to, "to");
    if (a > b) throw new CurveError(`from ${isoDay(a)} is after to ${isoDay(b)}: expected from <= to`, "from");
    const out: string[] = [];
    for (let n = a; n <= b; n++) {
      const w = weekday(n);
      if (w !== 0 && w !== 6 && !this.open(n)) out.push(isoDay(n));
    }
    return out;
  }
}

/** Calendar months added to a day number as QuantLib's `Date + Period` does: the day clamps to the month's end. */
function addMonths(n: number, months: number): number {
  const { year, month, day } = civil(n);
  const total = year * 12 + (month - 1) + months;
  const y = Math.floor(total / 12);
  const m = total - 12 * y + 1;
  return dayNumber(y, m, Math.min(day, daysInMonth(y, m)));
}

type CalendarTenor = { count: number; unit: "D" | "W" | "M" | "Y" };
/** Tenors read so far (a notebook uses a handful: "2D", "3M", "10Y"), so a loop does not re-read each. */
const TENORS = new Map<string, CalendarTenor>();

/** Reads a calendar tenor: a signed whole number and D (business days), W, M or Y. */
export function parseCalendarTenor(tenor: unknown): CalendarTenor {
  const known = typeof tenor === "string" ? TENORS.get(tenor) : undefined;
  if (known) return known;
  const m = typeof tenor === "string" ? TENOR.exec(tenor) : null;
  if (!m) {
    throw new CurveError(
      `tenor ${describe(tenor)} is not a calendar tenor: expected a whole number followed by D (business days), W, M or Y (e.g. "2D", "1W", "3M", "10Y")`,
      "tenor",
    );
  }
  const count = Number(m[1]);
  if (!Number.isSafeInteger(count) || Math.abs(count) > 1200)
    throw new CurveError(`tenor ${JSON.stringify(tenor)} is too long`, "tenor");
  const parsed = Object.freeze({ count, unit: m[2]!.toUpperCase() as CalendarTenor["unit"] });
  if (TENORS.size < 1000) TENORS.set(tenor as string, parsed);
  return parsed;
}

const INSTANCES = new Map<CalendarName, BusinessCalendar>();
const ALIASES: Record<string, CalendarName> = {
  "US-GOVT": "US-GOVT",
  USGOVT: "US-GOVT",
  GB: "UK",
  JAPAN: "JP",
  TOKYO: "JP",
  ZURICH: "CH",
  SWITZERLAND: "CH",
};
const CURRENCIES: Record<string, CalendarName> = { EUR: "TARGET", USD: "US-GOVT", GBP: "UK", JPY: "JP", CHF: "CH" };

/**
 * The calendar of that name: `"TARGET"`, `"US-GOVT"`, `"UK"`, `"JP"`, `"CH"` (any case; also `"GB"`,
 * `"Japan"`, `"Tokyo"`, `"Zurich"`, `"Switzerland"`). Throws a {@link CurveError} naming the value and the
 * choices for any other name. One instance per calendar, shared.
 * @example
 * ```ts
 * const target = curves.calendar("TARGET");
 * target.isBusinessDay("2026-12-25"); // false
 * ```
 */
export function calendar(name: CalendarName | string): Calendar {
  const key = typeof name === "string" ? name.trim().toUpperCase() : "";
  const found = (CALENDARS as readonly string[]).includes(key) ? (key as CalendarName) : ALIASES[key];
  if (!found) {
    throw new CurveError(
      `name ${describe(name)} is not a calendar: expected one of ${CALENDARS.map((c) => JSON.stringify(c)).join(", ")}`,
      "name",
    );
  }
  let instance = INSTANCES.get(found);
  if (!instance) INSTANCES.set(found, (instance = new BusinessCalendar(found)));
  return instance;
}

/**
 * The calendar of a currency (any case): EUR → TARGET, USD → US-GOVT, GBP → UK, JPY → JP, CHF → CH.
 * @example
 * ```ts
 * const usd = curves.calendarFor("USD"); // US-GOVT (SIFMA)
 * usd.adjust("2026-07-04", "modified-following"); // "2026-07-06"
 * ```
 */
export function calendarFor(currency: string): Calendar {
  const key = typeof currency === "string" ? currency.trim().toUpperCase() : "";
  const found = Object.hasOwn(CURRENCIES, key) ? CURRENCIES[key] : undefined;
  if (!found) {
    throw new CurveError(
      `currency ${describe(currency)} has no calendar: expected one of ${Object.keys(CURRENCIES).join(", ")}`,
      "currency",
    );
  }
  return calendar(found);
}
