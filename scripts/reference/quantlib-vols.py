#!/usr/bin/python3
"""Reference prices for src/vol's Black (shifted) and Bachelier models and their implied vols.

Run from the repository root with Debian's Python (QuantLib-Python 1.29 and mpmath installed there, not
pyenv's python3):

    /usr/bin/python3 scripts/reference/quantlib-vols.py

Writes test/vol/fixtures/quantlib-vols.json. For each option of a grid (forward, strike, maturity, vol,
discount factor, shift, kind):
  - `ql`: QuantLib's price, blackFormula(type, strike, forward, stdDev, discount, displacement) or
    bachelierBlackFormula(type, strike, forward, stdDev, discount). Double precision, and the textbook
    formula: it loses digits out of the money (F·N(d1) − K·N(d2) cancels), so the tests hold it to a
    tolerance scaled by the terms it subtracts;
  - `exact`: the price in mpmath at 60 digits from the same doubles, rounded to the nearest double: the
    truth for the price tests and the "exact" price whose implied vol must give the grid's vol back.
    Black uses forward + shift and strike + shift rounded to double, as QuantLib and the package's black76 do.
  - `qlVol`: QuantLib's blackFormulaImpliedStdDev / bachelierBlackFormulaImpliedVol of the exact price, a
    cross-check only (it is accurate to ~1e-8), null where QuantLib refuses.
Strikes are placed by standardised moneyness z = ln((F + shift)/(K + shift))/(σ√T) (Black) or
(F − K)/(σ√T) (Bachelier), up to |z| = 10.
"""
import json
import math
import os

import QuantLib as ql
from mpmath import mp, mpf, ncdf, npdf, exp, log, sqrt

mp.dps = 60

ZS = [-10, -7, -5, -3, -2, -1, -0.5, -0.1, 0, 0.1, 0.5, 1, 2, 3, 5, 7, 10]
MATURITIES = [1 / 365, 0.25, 1, 5, 30]


def black_exact(F, K, T, vol, DF, call):
    s = mpf(vol) * sqrt(mpf(T))
    d1 = log(mpf(F) / mpf(K)) / s + s / 2
    d2 = d1 - s
    if call:
        v = mpf(F) * ncdf(d1) - mpf(K) * ncdf(d2)
    else:
        v = mpf(K) * ncdf(-d2) - mpf(F) * ncdf(-d1)
    return float(mpf(DF) * v)


def bachelier_exact(F, K, T, vol, DF, call):
    s = mpf(vol) * sqrt(mpf(T))
    d = (mpf(F) - mpf(K)) * (1 if call else -1)
    x = d / s
    return float(mpf(DF) * (d * ncdf(x) + s * npdf(x)))


def ql_type(call):
    return ql.Option.Call if call else ql.Option.Put


def black_rows():
    rows = []
    # (forward, shift, vols): an equity-like forward, a rate, and negative / small rates with a shift.
    groups = [
        (100.0, 0.0, [1e-4, 0.01, 0.2, 1.0, 5.0]),
        (0.03, 0.0, [0.05, 0.4, 2.0]),
        (-0.005, 0.03, [0.01, 0.2, 1.0]),
        (0.001, 0.02, [0.05, 0.3]),
    ]
    i = 0
    for F, shift, vols in groups:
        for vol in vols:
            for T in MATURITIES:
                s = vol * math.sqrt(T)
                for z in ZS:
                    i += 1
                    call = i % 2 == 0
                    DF = 1.0 if i % 3 else 0.93
                    K = (F + shift) * math.exp(-z * s) - shift
                    Fs, Ks = F + shift, K + shift
                    if not (Ks > 0):
                        continue
                    exact = black_exact(Fs, Ks, T, vol, DF, call)
                    ql_price = ql.blackFormula(ql_type(call), K, F, s, DF, shift)
                    try:
                        ql_vol = ql.blackFormulaImpliedStdDev(ql_type(call), K, F, exact, DF, shift) / math.sqrt(T)
                    except RuntimeError:
                        ql_vol = None
                    rows.append([F, K, T, vol, DF, shift, 1 if call else 0, ql_price, exact, ql_vol])
    return rows


def bachelier_rows():
    rows = []
    groups = [
        (0.01, [1e-4, 0.0075, 0.03]),
        (-0.005, [0.0005, 0.01]),
        (0.0, [0.0075]),
        (100.0, [1.0, 20.0, 200.0]),
    ]
    i = 0
    for F, vols in groups:
        for vol in vols:
            for T in MATURITIES:
                s = vol * math.sqrt(T)
                for z in ZS:
                    i += 1
                    call = i % 2 == 1
                    DF = 1.0 if i % 3 else 0.93
                    K = F - z * s
                    exact = bachelier_exact(F, K, T, vol, DF, call)
                    ql_price = ql.bachelierBlackFormula(ql_type(call), K, F, s, DF)
                    try:
                        ql_vol = ql.bachelierBlackFormulaImpliedVol(ql_type(call), K, F, T, exact, DF)
                    except RuntimeError:
                        ql_vol = None
                    rows.append([F, K, T, vol, DF, 0.0, 1 if call else 0, ql_price, exact, ql_vol])
    return rows


def main():
    columns = ["forward", "strike", "maturity", "vol", "discountFactor", "shift", "call", "ql", "exact", "qlVol"]
    data = {
        "generator": "scripts/reference/quantlib-vols.py",
        "quantlib": ql.__version__,
        "mpmathDigits": mp.dps,
        "columns": columns,
        "black": black_rows(),
        "bachelier": bachelier_rows(),
    }
    out = os.path.join("test", "vol", "fixtures", "quantlib-vols.json")
    with open(out, "w") as f:
        # repr of a float is the shortest string that reads back as the same double.
        f.write("{\n")
        head = [f'  "{k}": {json.dumps(data[k])}' for k in ["generator", "quantlib", "mpmathDigits", "columns"]]
        f.write(",\n".join(head) + ",\n")
        for key in ["black", "bachelier"]:
            lines = ",\n".join("    " + json.dumps(r) for r in data[key])
            f.write(f'  "{key}": [\n{lines}\n  ]' + (",\n" if key == "black" else "\n"))
        f.write("}\n")
    print(f"{out}: {len(data['black'])} Black rows, {len(data['bachelier'])} Bachelier rows")


if __name__ == "__main__":
    main()
