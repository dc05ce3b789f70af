#!/usr/bin/python3
"""QuantLib's calendars as reference data for test/curves/calendar.test.ts.

Run with Debian's Python, which has QuantLib-Python 1.29 (not pyenv's python3):

    /usr/bin/python3 scripts/reference/quantlib-calendars.py

Writes test/curves/fixtures/quantlib-calendars.json (deterministic: the same file on every run), for
TARGET(), UnitedStates(GovernmentBond), UnitedKingdom(Settlement), Japan() and Switzerland(), 1990-01-01 to
2070-12-31. Day numbers count days since 1970-01-01.

- holidays: QuantLib 1.29's weekday holidays, as is, delta-encoded (first day number, then differences).
- corrections: the days where the library differs from QuantLib 1.29 (src/curves/calendars/differences.ts;
  copied here by hand, the test checks the two lists agree). Everything below is computed by QuantLib
  on the calendar WITH these corrections applied (addHoliday/removeHoliday), so rolls, advances and
  day counts around a corrected day are QuantLib's arithmetic on the library's holidays.
- rolls: for each roll and each non-business day (weekends and holidays, in order), the adjusted day
  minus the day (-16..13), as one character: chr(113 + offset).
- advance: [calendar, start, tenor index, roll index, endOfMonth, result - start] per case, flattened; starts
  random, on month ends, on the last business day of a month and on days before holidays.
- between: [calendar, from, to, businessDaysBetween(from, to, True, False)] per case, flattened; from > to too.
"""
import json
import os
import random

import QuantLib as ql

FIRST = (1990, 1, 1)
LAST = (2070, 12, 31)
EPOCH = ql.Date(1, 1, 1970)
CALENDARS = {
    "TARGET": lambda: ql.TARGET(),
    "US-GOVT": lambda: ql.UnitedStates(ql.UnitedStates.GovernmentBond),
    "UK": lambda: ql.UnitedKingdom(ql.UnitedKingdom.Settlement),
    "JP": lambda: ql.Japan(),
    "CH": lambda: ql.Switzerland(),
}
# The library's corrections (src/curves/calendars/differences.ts): (day, what QuantLib 1.29 says).
CORRECTIONS = {
    "US-GOVT": [
        ("1994-04-27", "business day"),
        ("1994-04-01", "holiday"),
        ("1996-04-05", "holiday"),
        ("1999-04-02", "holiday"),
        ("2001-09-11", "business day"),
        ("2001-09-12", "business day"),
        ("2007-04-06", "holiday"),
        ("2010-04-02", "holiday"),
        ("2012-04-06", "holiday"),
        ("2021-04-02", "holiday"),
        ("2023-04-07", "holiday"),
        ("2026-04-03", "holiday"),
        ("2034-04-07", "holiday"),
        ("2037-04-03", "holiday"),
        ("2042-04-04", "holiday"),
        ("2045-04-07", "holiday"),
        ("2048-04-03", "holiday"),
        ("2053-04-04", "holiday"),
        ("2064-04-04", "holiday"),
        ("2067-04-01", "holiday"),
    ],
    "JP": [
        ("1990-03-21", "business day"),
        ("1990-03-20", "holiday"),
        ("1990-09-24", "business day"),
        ("1991-03-21", "business day"),
        ("1991-03-20", "holiday"),
        ("1992-05-06", "holiday"),
        ("1993-03-19", "holiday"),
        ("1993-09-23", "business day"),
        ("1993-09-22", "holiday"),
        ("1994-09-23", "business day"),
        ("1994-09-22", "holiday"),
        ("1995-03-21", "business day"),
        ("1995-03-20", "holiday"),
        ("1995-09-22", "holiday"),
        ("1997-03-20", "business day"),
        ("1997-03-19", "holiday"),
        ("1997-05-06", "holiday"),
        ("1997-09-23", "business day"),
        ("1997-09-22", "holiday"),
        ("1998-03-20", "holiday"),
        ("1998-05-06", "holiday"),
        ("1998-09-23", "business day"),
        ("1998-09-22", "holiday"),
        ("1999-03-22", "business day"),
        ("1999-09-23", "business day"),
        ("1999-09-22", "holiday"),
        ("2003-05-06", "holiday"),
    ],
}
ROLLS = [
    ("following", ql.Following),
    ("modified-following", ql.ModifiedFollowing),
    ("preceding", ql.Preceding),
    ("modified-preceding", ql.ModifiedPreceding),
    ("unadjusted", ql.Unadjusted),
]
TENORS = ["1D", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "10D", "1W", "2W", "1M", "2M", "3M", "6M", "9M",
          "1Y", "2Y", "5Y", "10Y", "30Y", "-1D", "-2D", "-1W", "-1M", "-3M", "-1Y", "0D", "0M"]
ADVANCE_PER_CALENDAR = 1200
BETWEEN_PER_CALENDAR = 300


def num(d):
    return d - EPOCH


def date(n):
    return EPOCH + n


def parse(iso):
    y, m, d = map(int, iso.split("-"))
    return ql.Date(d, m, y)


def delta(values):
    return [values[0]] + [b - a for a, b in zip(values, values[1:])] if values else []


def roll_strings(cal, lo, hi):
    closed = [n for n in range(lo, hi + 1) if not cal.isBusinessDay(date(n))]
    out = {}
    for name, conv in ROLLS[:4]:
        chars = []
        for n in closed:
            off = num(cal.adjust(date(n), conv)) - n
            assert -16 <= off <= 13, (name, n, off)
            chars.append(chr(113 + off))
        out[name] = "".join(chars)
    return len(closed), out


def advance_cases(cal, ci, lo, hi, rng):
    starts = [rng.randint(lo + 400, hi - 11000) for _ in range(ADVANCE_PER_CALENDAR // 3)]
    # month ends (calendar and business) and days before a holiday
    months = [(y, m) for y in range(1991, 2041) for m in range(1, 13)]
    for y, m in rng.sample(months, ADVANCE_PER_CALENDAR // 6):
        end = ql.Date.endOfMonth(ql.Date(1, m, y))
        starts += [num(end), num(cal.endOfMonth(end))]
    hol = [n for n in range(lo + 400, hi - 11000) if not cal.isBusinessDay(date(n)) and date(n).weekday() not in (1, 7)]
    starts += [n - rng.randint(1, 3) for n in rng.sample(hol, min(len(hol), ADVANCE_PER_CALENDAR // 3))]
    cases = []
    for s in starts[:ADVANCE_PER_CALENDAR]:
        t = rng.randrange(len(TENORS))
        r = rng.randrange(len(ROLLS))
        eom = rng.randrange(2)
        res = cal.advance(date(s), ql.Period(TENORS[t]), ROLLS[r][1], bool(eom))
        cases += [ci, s, t, r, eom, num(res) - s]
    return cases


def between_cases(cal, ci, lo, hi, rng):
    cases = []
    for k in range(BETWEEN_PER_CALENDAR):
        a = rng.randint(lo, hi)
        b = a + rng.choice([rng.randint(-40, 40), rng.randint(-4000, 4000)])
        b = min(max(b, lo), hi)
        if k % 10 == 0:
            b = a
        cases += [ci, a, b, cal.businessDaysBetween(date(a), date(b), True, False)]
    return cases


def main():
    lo, hi = num(ql.Date(FIRST[2], FIRST[1], FIRST[0])), num(ql.Date(LAST[2], LAST[1], LAST[0]))
    rng = random.Random(45)
    out = {"quantlib": ql.__version__, "first": lo, "last": hi, "tenors": TENORS, "rolls": [r for r, _ in ROLLS],
           "calendars": list(CALENDARS), "corrections": {}, "holidays": {}, "closedDays": {}, "rollOffsets": {},
           "advance": [], "between": []}
    for ci, (name, make) in enumerate(CALENDARS.items()):
        cal = make()
        out["holidays"][name] = delta([num(d) for d in cal.holidayList(date(lo), date(hi), False)])
        for iso, quantlib in CORRECTIONS.get(name, []):
            assert cal.isBusinessDay(parse(iso)) == (quantlib == "business day"), (name, iso)
            (cal.addHoliday if quantlib == "business day" else cal.removeHoliday)(parse(iso))
        out["corrections"][name] = [iso for iso, _ in CORRECTIONS.get(name, [])]
        out["closedDays"][name], out["rollOffsets"][name] = roll_strings(cal, lo, hi)
        out["advance"] += advance_cases(cal, ci, lo, hi, rng)
        out["between"] += between_cases(cal, ci, lo, hi, rng)
    path = os.path.join(os.path.dirname(__file__), "..", "..", "test", "curves", "fixtures", "quantlib-calendars.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {os.path.normpath(path)}: {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
