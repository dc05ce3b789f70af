#!/usr/bin/python3
"""A workbook written by another tool (openpyxl) for test/frames/excel-reference.test.ts.

Run with Debian's Python and its openpyxl (`apt-get install -y python3-openpyxl`; not pyenv's python3):

    /usr/bin/python3 scripts/reference/openpyxl-workbook.py

Writes test/frames/fixtures/openpyxl-reference.xlsx (a few KB; the same bytes on every run with the same
openpyxl: fixed document dates, zip entries re-stored with a fixed time) and
test/frames/fixtures/openpyxl-reference.json: what openpyxl itself reads back from that file, cell by cell
(dates as ISO text, floats as written), so the test checks our reader against openpyxl's own reading.

Sheets (in this order):
- "Marks": header in row 1; a date column (date cells, yyyy-mm-dd), text codes (one "0012", kept as text),
  prices (one empty cell), integer quantities, booleans, date-times, notes (one blank), ISO date text, a
  formula with no saved result (openpyxl does not compute) and an error value (#N/A).
- "Curves": a title in A1, a blank row, then a table from B3 (read with { range: "B3" }): tenors as text,
  rates, and a column of numbers and text (mixed).
"""
import datetime as dt
import io
import json
import os
import zipfile

import openpyxl

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "test", "frames", "fixtures")
FIXED = dt.datetime(2026, 1, 1, 0, 0, 0)

MARKS_HEADER = ["date", "code", "price", "qty", "active", "stamp", "note", "iso", "value", "status"]
MARKS = [
    [dt.date(2026, 11, 20), "XS1", 99.5, 10, True, dt.datetime(2026, 11, 20, 13, 45, 7), "first", "2026-11-20", "=C2*D2", "ok"],
    [dt.date(2026, 11, 23), "0012", None, 250, False, dt.datetime(2026, 11, 23, 9, 0, 0), None, "2026-11-23", "=C3*D3", "#N/A"],
    [dt.date(1999, 12, 31), "US9 Ü", -0.125, 0, True, dt.datetime(2000, 1, 1, 0, 0, 0), "last, \"quoted\"", "1999-12-31", "=C4*D4", "ok"],
]
CURVES_HEADER = ["tenor", "rate", "source"]
CURVES = [["1M", 0.0125, 1], ["3M", 0.0131, "broker"], ["1Y", 0.015, 2]]


def workbook() -> bytes:
    wb = openpyxl.Workbook()
    wb.properties.created = FIXED
    wb.properties.modified = FIXED
    ws = wb.active
    ws.title = "Marks"
    ws.append(MARKS_HEADER)
    for row in MARKS:
        ws.append(row)
    for r in range(2, 2 + len(MARKS)):
        ws.cell(row=r, column=1).number_format = "yyyy-mm-dd"
        ws.cell(row=r, column=6).number_format = "yyyy-mm-dd hh:mm:ss"
    cs = wb.create_sheet("Curves")
    cs["A1"] = "Curves as of 2026-11-20"
    for j, name in enumerate(CURVES_HEADER):
        cs.cell(row=3, column=2 + j, value=name)
    for i, row in enumerate(CURVES):
        for j, v in enumerate(row):
            cs.cell(row=4 + i, column=2 + j, value=v)
    buf = io.BytesIO()
    wb.save(buf)
    return restamp(buf.getvalue())


def restamp(data: bytes) -> bytes:
    """The same zip with every entry's time fixed, so the file's bytes do not change from run to run."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=(2026, 1, 1, 0, 0, 0))
            fixed.compress_type = zipfile.ZIP_DEFLATED
            dst.writestr(fixed, src.read(info.filename))
    return out.getvalue()


def as_json(v):
    if isinstance(v, dt.datetime):
        return {"datetime": v.isoformat()}
    if isinstance(v, dt.date):
        return {"date": v.isoformat()}
    return v


def read_back(path: str) -> dict:
    """Each sheet's cells as openpyxl reads them from the written file (values, and openpyxl's data type)."""
    wb = openpyxl.load_workbook(path)
    sheets = {}
    for ws in wb.worksheets:
        sheets[ws.title] = [
            [{"value": as_json(c.value), "type": c.data_type, "cell": c.coordinate} for c in row if c.value is not None]
            for row in ws.iter_rows()
        ]
    return {"openpyxl": openpyxl.__version__, "sheets": sheets}


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "openpyxl-reference.xlsx")
    with open(path, "wb") as f:
        f.write(workbook())
    with open(os.path.join(OUT, "openpyxl-reference.json"), "w") as f:
        json.dump(read_back(path), f, indent=None, separators=(",", ":"), ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
