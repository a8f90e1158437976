#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-table.py HEADER RATIOS COLUMN=TSV...

Prints the benchmark table: for each case, the number of rounds of each
column, then for each column the median of its rounds with the spread
((max - min) / median), then each ratio of RATIOS, a comma-separated list
of A/B column pairs (below 1.00: A is faster or smaller than B).

A line of a TSV is CASE, UNIT, VALUE and an optional note.  A note
"calibration=NS" gives the time of a fixed loop run around the
measurement: the host runs the emulator at speeds that differ by some 45%
and change every few seconds, so such a value is scaled by REF / NS, REF
being the fastest calibration of the whole run (all columns): every time
is then one at the fastest speed.  A note "projected" marks a total
extrapolated from part of the work; its cell says so with a leading ~, and
so does a ratio computed from it.  A line of two fields, CASE and
"refused ERRNO", says the kernel refused the case's probe: its cell says
so, and its ratios are "-".

After the table, for each pair of cases NAME.1 and NAME.2 (one thread, two
threads), the scaling: the hits per second of two threads over one's.
"""
import statistics
import sys


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) in (3, 4):
                rows.append(fields + [""] * (4 - len(fields)))
            elif len(fields) == 2 and fields[1].startswith("refused"):
                rows.append([fields[0], "", "", fields[1]])
    return rows


def calibrations(rows):
    return [int(note.split("=")[1]) for *_, note in rows if note.startswith("calibration=")]


class Case:
    """The rounds of one case on one column, calibrated values scaled to ref."""

    def __init__(self, unit):
        self.unit, self.values, self.projected, self.refused = unit, [], False, ""

    def add(self, value, note, ref):
        if note.startswith("calibration="):
            value *= ref / int(note.split("=")[1])
        self.values.append(value)
        self.projected |= note == "projected"

    def median(self):
        return statistics.median(self.values) if self.values else 0.0

    def mark(self):
        return "~" if self.projected else ""

    def cell(self):
        if not self.values:
            return self.refused
        median = self.median()
        spread = (max(self.values) - min(self.values)) / median * 100 if median else 0.0
        return f"{self.mark()}{median:.1f} ±{spread:.0f}%"


def cases(rows, ref):
    out = {}
    for name, unit, value, note in rows:
        case = out.setdefault(name, Case(unit))
        if note.startswith("refused"):
            case.refused = note
        else:
            case.add(float(value), note, ref)
    return out


def ratio(a, b):
    if not a or not b or not a.values or not b.median():
        return "-"
    mark = "~" if a.projected or b.projected else ""
    return f"{mark}{a.median() / b.median():.2f}"


def scaling(column, name):
    one, two = column.get(name + ".1"), column.get(name + ".2")
    return f"{one.median() / two.median():.2f}" if one and two and two.median() else "-"


def print_scaling(columns, names):
    for name in names:
        if name.endswith(".2") and name[:-2] + ".1" in names:
            base = name[:-2]
            each = ", ".join(f"{label} {scaling(column, base)}" for label, column in columns.items())
            print(f"scaling, hits/s of {base}.2 over {base}.1: {each}")


def main():
    header, ratio_list = sys.argv[1:3]
    tables = dict(arg.split("=", 1) for arg in sys.argv[3:])
    rows = {label: load(path) for label, path in tables.items()}
    ref = min((c for r in rows.values() for c in calibrations(r)), default=1)
    columns = {label: cases(r, ref) for label, r in rows.items()}
    ratios = [pair.split("/") for pair in ratio_list.split(",")]
    names = []
    for column in columns.values():
        names += [name for name in column if name not in names]
    print(header)
    fmt = "{:<18} {:<8} {:>9}" + " {:>18}" * len(columns) + " {:>16}" * len(ratios)
    print(fmt.format("case", "unit", "n", *columns, *(f"{a}/{b}" for a, b in ratios)))
    for name in names:
        here = [column.get(name) for column in columns.values()]
        unit = next((case.unit for case in here if case and case.unit), "")
        rounds = "/".join(str(len(case.values)) if case else "0" for case in here)
        cells = [case.cell() if case else "-" for case in here]
        quotients = [ratio(columns[a].get(name), columns[b].get(name)) for a, b in ratios]
        print(fmt.format(name, unit, rounds, *cells, *quotients))
    print_scaling(columns, names)


if __name__ == "__main__":
    main()
