#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-table.py HEADER UPSTREAM_TSV OURS_TSV

Prints the benchmark table: for each case, the median of its rounds on each
kernel with the spread ((max - min) / median), and the ratio ours/upstream
(below 1.00: ours is faster or smaller).
"""
import statistics
import sys


def load(path):
    cases = {}
    with open(path) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 3:
                continue
            name, unit, value = fields
            cases.setdefault(name, (unit, []))[1].append(float(value))
    return cases


def cell(values):
    if not values:
        return "-", None
    median = statistics.median(values)
    spread = (max(values) - min(values)) / median * 100 if median else 0.0
    return f"{median:.1f} ±{spread:.0f}%", median


def main():
    header, upstream_tsv, ours_tsv = sys.argv[1:4]
    upstream, ours = load(upstream_tsv), load(ours_tsv)
    names = list(upstream) + [n for n in ours if n not in upstream]
    print(header)
    row = "{:<18} {:<8} {:>18} {:>18} {:>14}"
    print(row.format("case", "unit", "upstream", "ours", "ours/upstream"))
    for name in names:
        unit = (upstream.get(name) or ours.get(name))[0]
        up, up_median = cell(upstream.get(name, (unit, []))[1])
        our, our_median = cell(ours.get(name, (unit, []))[1])
        ratio = f"{our_median / up_median:.2f}" if up_median and our_median else "-"
        print(row.format(name, unit, up, our, ratio))


if __name__ == "__main__":
    main()
