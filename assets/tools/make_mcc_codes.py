"""Writes assets/mcc_codes.csv from the PyPI package iso18245 (ISO 18245 merchant category codes).

Run: python3 -m venv /tmp/v && /tmp/v/bin/pip install iso18245==1.4.1 && /tmp/v/bin/python assets/tools/make_mcc_codes.py
The CSV is committed; nothing is downloaded when the service builds or runs.
"""
import csv
import pathlib

import iso18245

rows = []
for mcc in iso18245.get_all_mccs():
    if mcc.range.reserved:
        continue  # airline, car-rental and hotel chains (3000-3999): one code per brand
    description = (mcc.stripe_description or mcc.usda_description or mcc.visa_description
                   or mcc.mastercard_description or mcc.iso_description).strip()
    if not description:
        continue
    rows.append((mcc.mcc, description))

out = pathlib.Path(__file__).resolve().parent.parent / "mcc_codes.csv"
with out.open("w", newline="") as handle:
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(["code", "description"])
    writer.writerows(sorted(rows))
print(f"{len(rows)} codes -> {out}")
