#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-table.py HEADER UPSTREAM_TSV OURS_TSV

Prints the benchmark table: for each case, the median of its rounds on each
kernel with the spread ((max - min) / median), and the ratio ours/upstream
(below 1.00: ours is faster or smaller).

A line is CASE, UNIT, VALUE and an optional note.  A note "calibration=NS"
gives the time of a fixed loop run around the measurement: the host runs
the emulator at speeds that differ by some 45% and change every few
seconds, so such a value is scaled by REF / NS, REF being the fastest
calibration of the whole run (both kernels): every time is then one at the
fastest speed.  A note "projected" marks a total extrapolated from part of
the work; its cell says so with a leading ~.

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
    return rows


def calibrations(rows):
    return [int(note.split("=")[1]) for *_, note in rows if note.startswith("calibration=")]


def cases(rows, ref):
    """{name: (unit, values, projected)} with calibrated values scaled to ref."""
    out = {}
    for name, unit, value, note in rows:
        value = float(value)
        if note.startswith("calibration="):
            value *= ref / int(note.split("=")[1])
        case = out.setdefault(name, (unit, [], []))
        case[1].append(value)
        case[2].append(note == "projected")
    return out


def cell(case):
    if not case:
        return "-", None
    _, values, projected = case
    median = statistics.median(values)
    spread = (max(values) - min(values)) / median * 100 if median else 0.0
    mark = "~" if any(projected) else ""
    return f"{mark}{median:.1f} ±{spread:.0f}%", median


def median(case):
    return statistics.median(case[1]) if case else None


def scaling(kernel, name):
    one, two = median(kernel.get(name + ".1")), median(kernel.get(name + ".2"))
    return f"{one / two:.2f}" if one and two else "-"


def print_scaling(upstream, ours, names):
    for name in names:
        if name.endswith(".2") and name[:-2] + ".1" in names:
            base = name[:-2]
            print(f"scaling, hits/s of {base}.2 over {base}.1:"
                  f" upstream {scaling(upstream, base)}, ours {scaling(ours, base)}")


def main():
    header, upstream_tsv, ours_tsv = sys.argv[1:4]
    up_rows, our_rows = load(upstream_tsv), load(ours_tsv)
    ref = min(calibrations(up_rows) + calibrations(our_rows), default=1)
    upstream, ours = cases(up_rows, ref), cases(our_rows, ref)
    names = list(upstream) + [n for n in ours if n not in upstream]
    print(header)
    row = "{:<18} {:<8} {:>18} {:>18} {:>14}"
    print(row.format("case", "unit", "upstream", "ours", "ours/upstream"))
    for name in names:
        unit = (upstream.get(name) or ours.get(name))[0]
        up, up_median = cell(upstream.get(name))
        our, our_median = cell(ours.get(name))
        ratio = f"{our_median / up_median:.2f}" if up_median and our_median else "-"
        print(row.format(name, unit, up, our, ratio))
    print_scaling(upstream, ours, names)


if __name__ == "__main__":
    main()
