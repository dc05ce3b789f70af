/**
 * Holiday calendars against QuantLib 1.29 (test/curves/fixtures/quantlib-calendars.json, written by
 * scripts/reference/quantlib-calendars.py): every day 1990–2070 of the five calendars, every roll of every
 * non-business day, samples of advance and businessDaysBetween; the errors; a few famous days by hand.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  calendar,
  calendarFor,
  CALENDARS,
  CurveError,
  QUANTLIB_DIFFERENCES,
  ROLLS,
  type CalendarName,
  type Roll,
} from "../../src/curves";

interface Reference {
  quantlib: string;
  first: number;
  last: number;
  tenors: string[];
  rolls: Roll[];
  calendars: CalendarName[];
  corrections: Record<CalendarName, string[]>;
  holidays: Record<CalendarName, number[]>;
  closedDays: Record<CalendarName, number>;
  rollOffsets: Record<CalendarName, Record<string, string>>;
  advance: number[];
  between: number[];
}

const ref = JSON.parse(readFileSync(join(__dirname, "fixtures", "quantlib-calendars.json"), "utf8")) as Reference;

const DAY_MS = 86_400_000;
const iso = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);
const undelta = (xs: number[]) => {
  let acc = 0;
  return xs.map((x) => (acc += x));
};

/**
 * Every day where the library differs from QuantLib 1.29 on purpose, written here apart from the code's
 * table (src/curves/calendars/differences.ts) so that a change to either shows: [calendar, day, QuantLib 1.29].
 */
const EXPECTED_DIFFERENCES: [CalendarName, string, "holiday" | "business day"][] = [
  ["US-GOVT", "1994-04-27", "business day"], // Nixon's funeral: bond market closed
  ["US-GOVT", "1994-04-01", "holiday"], // Good Friday on payrolls day: the market traded (early close)
  ["US-GOVT", "1996-04-05", "holiday"], // Good Friday on payrolls day: SIFMA early close, not a full close
  ["US-GOVT", "1999-04-02", "holiday"],
  ["US-GOVT", "2001-09-11", "business day"], // 9/11: bond market closed the 11th and 12th
  ["US-GOVT", "2001-09-12", "business day"],
  ["US-GOVT", "2007-04-06", "holiday"],
  ["US-GOVT", "2010-04-02", "holiday"],
  ["US-GOVT", "2012-04-06", "holiday"],
  ["US-GOVT", "2021-04-02", "holiday"],
  ["US-GOVT", "2023-04-07", "holiday"],
  ["US-GOVT", "2026-04-03", "holiday"],
  ["US-GOVT", "2034-04-07", "holiday"],
  ["US-GOVT", "2037-04-03", "holiday"],
  ["US-GOVT", "2042-04-04", "holiday"],
  ["US-GOVT", "2045-04-07", "holiday"],
  ["US-GOVT", "2048-04-03", "holiday"],
  ["US-GOVT", "2053-04-04", "holiday"],
  ["US-GOVT", "2064-04-04", "holiday"],
  ["US-GOVT", "2067-04-01", "holiday"],
  ["JP", "1990-03-21", "business day"], // the equinoxes before 2000: QuantLib's formula is a day off
  ["JP", "1990-03-20", "holiday"],
  ["JP", "1990-09-24", "business day"],
  ["JP", "1991-03-21", "business day"],
  ["JP", "1991-03-20", "holiday"],
  ["JP", "1992-05-06", "holiday"], // before 2007 no substitute holiday on 6 May
  ["JP", "1993-03-19", "holiday"],
  ["JP", "1993-09-23", "business day"],
  ["JP", "1993-09-22", "holiday"],
  ["JP", "1994-09-23", "business day"],
  ["JP", "1994-09-22", "holiday"],
  ["JP", "1995-03-21", "business day"],
  ["JP", "1995-03-20", "holiday"],
  ["JP", "1995-09-22", "holiday"],
  ["JP", "1997-03-20", "business day"],
  ["JP", "1997-03-19", "holiday"],
  ["JP", "1997-05-06", "holiday"],
  ["JP", "1997-09-23", "business day"],
  ["JP", "1997-09-22", "holiday"],
  ["JP", "1998-03-20", "holiday"],
  ["JP", "1998-05-06", "holiday"],
  ["JP", "1998-09-23", "business day"],
  ["JP", "1998-09-22", "holiday"],
  ["JP", "1999-03-22", "business day"],
  ["JP", "1999-09-23", "business day"],
  ["JP", "1999-09-22", "holiday"],
  ["JP", "2003-05-06", "holiday"],
];

describe("the reference and the differences", () => {
  it("is QuantLib 1.29's, 1990-01-01..2070-12-31, for the five calendars", () => {
    expect(ref.quantlib).toBe("1.29");
    expect([iso(ref.first), iso(ref.last)]).toEqual(["1990-01-01", "2070-12-31"]);
    expect(ref.calendars).toEqual([...CALENDARS]);
    expect(ref.rolls).toEqual([...ROLLS]);
  });

  it("lists the same differences in the code's table, in this test and in the reference's corrections", () => {
    const inCode = CALENDARS.flatMap((name) =>
      QUANTLIB_DIFFERENCES[name].map((d) => [name, d.date, d.quantlib] as const),
    );
    expect(inCode).toEqual(EXPECTED_DIFFERENCES);
    for (const name of CALENDARS)
      expect(ref.corrections[name]).toEqual(EXPECTED_DIFFERENCES.filter(([c]) => c === name).map(([, d]) => d));
    for (const name of CALENDARS)
      for (const d of QUANTLIB_DIFFERENCES[name]) expect(d.reason.length).toBeGreaterThan(40);
  });
});

describe.each(CALENDARS.map((name) => [name]))("calendar(%j) against QuantLib 1.29", (name) => {
  const cal = calendar(name);

  it("agrees on every day 1990–2070 but the listed differences", () => {
    const quantlib = new Set(undelta(ref.holidays[name]));
    const expected = new Map(EXPECTED_DIFFERENCES.filter(([c]) => c === name).map(([, d, q]) => [d, q]));
    const wrong: string[] = [];
    for (let n = ref.first; n <= ref.last; n++) {
      const day = iso(n);
      const w = (n + 4) % 7;
      const qlOpen = w !== 0 && w !== 6 && !quantlib.has(n);
      const diff = expected.get(day);
      const want = diff === undefined ? qlOpen : diff === "holiday";
      if (cal.isBusinessDay(day) !== want) wrong.push(day);
      if (diff !== undefined && (diff === "business day") !== qlOpen) wrong.push(`${day} (not as listed in QuantLib)`);
    }
    expect(wrong).toEqual([]);
  });

  it("lists the weekday holidays of 1990–2070 as QuantLib's holidayList, corrected", () => {
    const corrected = new Set(undelta(ref.holidays[name]).map(iso));
    for (const [c, day, q] of EXPECTED_DIFFERENCES)
      if (c === name) void (q === "holiday" ? corrected.delete(day) : corrected.add(day));
    expect(cal.holidays("1990-01-01", "2070-12-31")).toEqual([...corrected].sort());
  });

  it("rolls every non-business day as QuantLib does, under each roll", () => {
    const closed: number[] = [];
    for (let n = ref.first; n <= ref.last; n++) if (!cal.isBusinessDay(iso(n))) closed.push(n);
    expect(closed.length).toBe(ref.closedDays[name]);
    for (const roll of ROLLS.filter((r) => r !== "unadjusted")) {
      const offsets = ref.rollOffsets[name][roll]!;
      const target = (i: number) => closed[i]! + offsets.charCodeAt(i) - 113;
      const inside = (n: number) => n >= ref.first && n <= ref.last;
      const wrong = closed.filter((n, i) => inside(target(i)) && cal.adjust(iso(n), roll) !== iso(target(i)));
      expect(wrong.map(iso), roll).toEqual([]);
      // where QuantLib's answer is outside 1990–2070, an error says so instead of a day nobody checked
      const outside = closed.filter((_, i) => !inside(target(i)));
      for (const n of outside)
        expect(() => cal.adjust(iso(n), roll), iso(n)).toThrow(/walks to .*, outside 1990-01-01..2070-12-31/);
    }
    expect(closed.every((n) => cal.adjust(iso(n), "unadjusted") === iso(n))).toBe(true);
  });
});

describe("advance and businessDaysBetween against QuantLib 1.29", () => {
  it(`advances ${ref.advance.length / 6} sampled (calendar, start, tenor, roll, end-of-month) cases as QuantLib`, () => {
    const wrong: string[] = [];
    for (let i = 0; i < ref.advance.length; i += 6) {
      const [c, start, t, r, eom, offset] = ref.advance.slice(i, i + 6);
      const cal = calendar(ref.calendars[c!]!);
      const args = [iso(start!), ref.tenors[t!]!, { roll: ref.rolls[r!]!, endOfMonth: eom === 1 }] as const;
      const got = cal.advance(...args);
      if (got !== iso(start! + offset!))
        wrong.push(`${cal.name} ${JSON.stringify(args)}: ${got}, QuantLib ${iso(start! + offset!)}`);
    }
    expect(wrong).toEqual([]);
  });

  it(`counts ${ref.between.length / 4} sampled businessDaysBetween cases as QuantLib, from > to negative`, () => {
    const wrong: string[] = [];
    let negative = 0;
    for (let i = 0; i < ref.between.length; i += 4) {
      const [c, from, to, count] = ref.between.slice(i, i + 4);
      const got = calendar(ref.calendars[c!]!).businessDaysBetween(iso(from!), iso(to!));
      if (got !== count) wrong.push(`${ref.calendars[c!]} ${iso(from!)} → ${iso(to!)}: ${got}, QuantLib ${count}`);
      if (count! < 0) negative++;
    }
    expect(wrong).toEqual([]);
    expect(negative).toBeGreaterThan(100);
  });
});

describe("famous days, by hand", () => {
  it("TARGET closes on Christmas, the 26th and 1 May, and on Good Friday and Easter Monday", () => {
    const target = calendar("TARGET");
    for (const day of ["2026-12-25", "2025-12-26", "2026-05-01", "2026-04-03", "2026-04-06", "2026-01-01"])
      expect(target.isBusinessDay(day), day).toBe(false);
    expect(target.isBusinessDay("2026-12-24")).toBe(true);
    expect(target.isBusinessDay("2026-12-26")).toBe(false); // a Saturday; 2025-12-26 (a Friday) is above
    // 2026-12-25 is a Friday, the 26th a Saturday: the next business day is Monday the 28th
    expect(target.adjust("2026-12-25")).toBe("2026-12-28");
    expect(target.holidays("2026-01-01", "2026-12-31")).toEqual([
      "2026-01-01",
      "2026-04-03",
      "2026-04-06",
      "2026-05-01",
      "2026-12-25",
    ]);
  });

  it("US-GOVT closes on Juneteenth from 2022 and on Columbus Day, not on Good Friday 2026 (payrolls day)", () => {
    const us = calendarFor("USD");
    expect(us.name).toBe("US-GOVT");
    expect(us.isBusinessDay("2021-06-18")).toBe(true);
    expect(us.isBusinessDay("2022-06-20")).toBe(false); // Juneteenth on a Sunday, observed Monday
    expect(us.isBusinessDay("2026-06-19")).toBe(false);
    expect(us.isBusinessDay("2026-10-12")).toBe(false); // second Monday of October
    expect(us.isBusinessDay("2026-04-03")).toBe(true); // SIFMA: early close, not a full close
    expect(us.isBusinessDay("2025-04-18")).toBe(false); // Good Friday, not a payrolls day
    expect(us.isBusinessDay("2001-09-11")).toBe(false);
    expect(us.isBusinessDay("1994-04-27")).toBe(false);
  });

  it("UK closes for the Queen's state funeral and the jubilee; JP for the 2019 enthronement; CH on Ascension and Whit Monday", () => {
    expect(calendar("UK").holidays("2022-06-01", "2022-09-30")).toEqual([
      "2022-06-02",
      "2022-06-03",
      "2022-08-29",
      "2022-09-19",
    ]);
    expect(calendar("JP").holidays("2019-04-27", "2019-05-07")).toEqual([
      "2019-04-29",
      "2019-04-30",
      "2019-05-01",
      "2019-05-02",
      "2019-05-03",
      "2019-05-06",
    ]);
    expect(calendar("JP").isBusinessDay("2019-10-22")).toBe(false);
    // corrected from QuantLib 1.29: the vernal equinox of 1999 was Sunday 21 March (substitute Monday 22),
    // and 6 May 1998 (a Wednesday, May 3 a Sunday) was no holiday before the 2007 substitute law
    expect(calendar("JP").isBusinessDay("1999-03-22")).toBe(false);
    expect(calendar("JP").isBusinessDay("1998-05-06")).toBe(true);
    expect(calendar("JP").isBusinessDay("2009-05-06")).toBe(false); // the same case under the 2007 law
    // Easter 2026 is 5 April: Ascension Thursday 14 May, Whit Monday 25 May
    expect(calendar("CH").holidays("2026-05-01", "2026-05-31")).toEqual(["2026-05-01", "2026-05-14", "2026-05-25"]);
  });

  it("rolls, advances and counts as QuantLib on a worked example (TARGET around Easter 2026)", () => {
    const t = calendar("target");
    expect(t.adjust("2026-04-03", "preceding")).toBe("2026-04-02");
    expect(t.adjust("2026-05-31", "modified-following")).toBe("2026-05-29");
    expect(t.adjust("2026-05-31", "following")).toBe("2026-06-01");
    expect(t.adjust("2026-03-01", "modified-preceding")).toBe("2026-03-02");
    expect(t.advance("2026-04-02", "1D")).toBe("2026-04-07");
    expect(t.advance("2026-01-31", "1M")).toBe("2026-02-27"); // 28 Feb is a Saturday: modified following
    expect(t.advance("2026-02-27", "1M", { endOfMonth: true })).toBe("2026-03-31");
    expect(t.advance("2026-02-27", "1M")).toBe("2026-03-27");
    expect(t.advance(new Date(Date.UTC(2026, 0, 30)), "1W")).toBe("2026-02-06");
    expect(t.businessDaysBetween("2026-04-01", "2026-04-08")).toBe(3);
    expect(t.businessDaysBetween("2026-04-08", "2026-04-01")).toBe(-3);
    expect(t.businessDaysBetween("2026-04-01", "2026-04-01")).toBe(0);
  });
});

describe("docs/curves.md's example", () => {
  it("answers as docs/curves.md says", () => {
    const usd = calendarFor("USD");
    expect(usd.isBusinessDay("2026-06-19")).toBe(false);
    expect(usd.adjust("2026-07-04", "modified-following")).toBe("2026-07-06");
    // the last business day of February, end-of-month: the last business day of May (31st a Sunday)
    expect(usd.advance("2026-02-27", "3M", { endOfMonth: true })).toBe("2026-05-29");
    // 2 Jan–1 Apr 2026: 64 weekdays less MLK day, Presidents' Day
    expect(usd.businessDaysBetween("2026-01-02", "2026-04-02")).toBe(62);
  });
});

describe("errors name the argument and the value", () => {
  const t = calendar("TARGET");
  const fails = (fn: () => unknown, argument: string, message: RegExp) => {
    let caught: unknown;
    try {
      fn();
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(CurveError);
    expect((caught as CurveError).argument).toBe(argument);
    expect((caught as Error).message).toMatch(message);
  };

  it("refuses an unknown calendar or currency, listing the choices", () => {
    fails(
      () => calendar("NYSE"),
      "name",
      /name "NYSE" is not a calendar: expected one of "TARGET", "US-GOVT", "UK", "JP", "CH"/,
    );
    fails(
      () => calendarFor("AUD"),
      "currency",
      /currency "AUD" has no calendar: expected one of EUR, USD, GBP, JPY, CHF/,
    );
    expect(calendar("us-govt").name).toBe("US-GOVT");
    expect(calendarFor("chf").name).toBe("CH");
  });

  it.each([
    ["2026-02-30", /date "2026-02-30" does not exist: 2026-02 has days 01–28/],
    ["2026-13-01", /date "2026-13-01" has no month 13/],
    ["2026-1-5", /date "2026-1-5" is not a date: expected "YYYY-MM-DD"/],
    ["26/01/2026", /date "26\/01\/2026" is not a date/],
    [
      "1989-12-29",
      /date "1989-12-29" is outside 1990-01-01..2070-12-31, where the TARGET calendar's holiday rules are valid/,
    ],
    ["2071-01-02", /date "2071-01-02" is outside 1990-01-01..2070-12-31/],
  ])("refuses the day %j", (day, message) => {
    fails(() => t.isBusinessDay(day), "date", message);
  });

  it("refuses a Date not at midnight UTC, an invalid Date and a number", () => {
    fails(
      () => t.isBusinessDay(new Date(Date.UTC(2026, 0, 5, 12))),
      "date",
      /2026-01-05T12:00:00.000Z is not at 00:00 UTC/,
    );
    fails(() => t.isBusinessDay(new Date(NaN)), "date", /invalid Date/);
    fails(() => t.isBusinessDay(20260105 as unknown as string), "date", /20260105 \(number\) is not a date/);
    fails(() => t.isBusinessDay(Promise.resolve("2026-01-05") as never), "date", /did you forget `await`/);
  });

  it("refuses an unknown roll, tenor or endOfMonth, and a result past 2070", () => {
    const rolls = /expected one of "following", "modified-following", "preceding", "modified-preceding", "unadjusted"/;
    fails(() => t.adjust("2026-01-03", "nearest" as Roll), "roll", rolls);
    fails(
      () => t.advance("2026-01-03", "3M", { roll: "mf" as Roll }),
      "options.roll",
      /options.roll "mf" is not a roll/,
    );
    fails(() => t.advance("2026-01-03", "3X"), "tenor", /tenor "3X" is not a calendar tenor/);
    fails(
      () => t.advance("2026-01-03", "3M", { endOfMonth: "yes" as unknown as boolean }),
      "options.endOfMonth",
      /"yes"/,
    );
    fails(
      () => t.advance("2060-01-05", "20Y"),
      "tenor",
      /tenor "20Y" from 2060-01-05 lands on 2080-01-05, outside 1990-01-01..2070-12-31, where the TARGET calendar's holiday rules are valid/,
    );
    fails(
      () => t.advance("2070-12-30", "2D"),
      "tenor",
      /tenor "2D" from 2070-12-30 walks to 2071-01-01, outside 1990-01-01..2070-12-31/,
    );
    fails(
      () => calendar("UK").adjust("1990-01-01", "preceding"),
      "date",
      /date "1990-01-01" rolled "preceding" walks to 1989-12-31/,
    );
    // 2070-12-31 is a Wednesday: the last business day of its month, and of the covered years
    expect(t.advance("2070-12-31", "-1M", { endOfMonth: true })).toBe("2070-11-28");
    fails(() => t.holidays("2026-02-01", "2026-01-01"), "from", /from 2026-02-01 is after to 2026-01-01/);
  });
});
