"""QuantLib's day counts on a few thousand date pairs: the reference of test/curves/day-count.test.ts.

Run: /usr/bin/python3 scripts/reference/quantlib-daycounts.py   (Debian's python3-quantlib 1.29; ~1 s)
Writes test/curves/fixtures/quantlib-daycounts.json (deterministic: a fixed seed). CI has no QuantLib: the
test reads only that file.

Dates: "start" a day number (days since 1970-01-01), "days" the actual days to the end (negative: the start is
after the end), which is Actual365Fixed's and Actual360's day count (checked here). Per pair, QuantLib's day
count (an integer) for
- "30/360": Thirty360(BondBasis) (ISDA 2006 4.16(f), our "30/360"),
- "30E/360": Thirty360(EurobondBasis) (ISDA 2006 4.16(g), our "30E/360"),
- "30/360 US": Thirty360(USA) (with the end-of-February rules; not one of ours, kept to show where it differs),
and "ACT/ACT ISDA": ActualActual(ISDA)'s year fraction (a float, repr'd exactly). QuantLib's year fraction of
the others is the day count / 365 or / 360. Pairs: month ends, 30ths, Feb 28/29, 1sts, in leap and common
years (2000 and 2100 too), same day, spans of days to 40 years, each in both orders (start after end).
"""
import datetime
import json
import os
import random

import QuantLib as ql

EPOCH = datetime.date(1970, 1, 1)
OUT = os.path.join(os.path.dirname(__file__), "..", "..", "test", "curves", "fixtures", "quantlib-daycounts.json")


def special_days(year):
    """Days of `year` where day counts have rules: month ends, 30ths, 1sts, Feb 28 (and 29)."""
    out = []
    for month in range(1, 13):
        nxt = datetime.date(year + (month == 12), month % 12 + 1, 1)
        last = nxt - datetime.timedelta(days=1)
        out += [datetime.date(year, month, 1), last]
        if last.day >= 30:
            out.append(datetime.date(year, month, 30))
    out.append(datetime.date(year, 2, 28))
    return sorted(set(out))


def pairs(rng):
    years = [1990, 1999, 2000, 2003, 2023, 2024, 2025, 2026, 2027, 2028, 2040, 2069, 2070, 2099, 2100]
    special = [d for y in years for d in special_days(y)]
    lo, hi = datetime.date(1990, 1, 1).toordinal(), datetime.date(2070, 12, 31).toordinal()
    out = set()
    # special to special within a few years, and to special days of later years
    while len(out) < 900:
        a = rng.choice(special)
        b = rng.choice([d for d in special if abs(d.year - a.year) <= rng.choice([0, 1, 3, 40])])
        out.add((a, b))
    # any day to any day: short spans (days, months) and long ones (to 40 years)
    while len(out) < 1500:
        a = datetime.date.fromordinal(rng.randint(lo, hi))
        span = rng.choice([rng.randint(0, 10), rng.randint(0, 100), rng.randint(0, 800), rng.randint(0, 14610)])
        b = a + datetime.timedelta(days=span)
        out.add((a, b))
    # same day, and every pair also reversed (start after end)
    out |= {(d, d) for d in special[::7]}
    out |= {(b, a) for a, b in list(out)}
    return sorted(out)


def qd(d):
    return ql.Date(d.day, d.month, d.year)


def main():
    rng = random.Random(45)
    for a, b in [(datetime.date(2024, 2, 29), datetime.date(2023, 1, 31)), (datetime.date(2026, 1, 1),) * 2]:
        for dc in [ql.Actual365Fixed(), ql.Actual360()]:
            assert dc.dayCount(qd(a), qd(b)) == (b - a).days
    counters = {
        "30/360": ql.Thirty360(ql.Thirty360.BondBasis),
        "30E/360": ql.Thirty360(ql.Thirty360.EurobondBasis),
        "30/360 US": ql.Thirty360(ql.Thirty360.USA),
    }
    isda = ql.ActualActual(ql.ActualActual.ISDA)
    ps = pairs(rng)
    data = {
        "quantlib": ql.__version__,
        "start": [(a - EPOCH).days for a, _ in ps],
        "days": [(b - a).days for a, b in ps],
        "counts": {name: [dc.dayCount(qd(a), qd(b)) for a, b in ps] for name, dc in counters.items()},
        "ACT/ACT ISDA": [isda.yearFraction(qd(a), qd(b)) for a, b in ps],
    }
    with open(OUT, "w") as f:
        # json writes floats with repr: the shortest text that reads back as the same double
        json.dump(data, f, separators=(",", ":"))
        f.write("\n")
    print(f"{len(ps)} pairs -> {os.path.normpath(OUT)}")


if __name__ == "__main__":
    main()
