#!/usr/bin/env bash
# bench.sh BENCH_BINARY RESULTS [CASES [ROUND_NS]]   (runs inside the guest)
#
# CASES is a comma-separated list of case groups (base,hit,...; default
# all): the kernel command line that carries it splits words at spaces.
# ROUND_NS is how long one measurement lasts (default: the program's).
# Runs the benchmark program from a tmpfs copy (a probe is keyed by inode;
# see check.sh) and leaves its measurements in RESULTS/bench.tsv.
set -euo pipefail

binary=${1:?usage: bench.sh BENCH_BINARY RESULTS [CASES [ROUND_NS]]}
results=${2:?usage: bench.sh BENCH_BINARY RESULTS [CASES [ROUND_NS]]}
cases=${3:-}
round=${4:-}

cp "$binary" /tmp/uprobe_bench
echo "bench on $(uname -r), $(nproc) CPUs"
/tmp/uprobe_bench "$cases" ${round:+"$round"} | tee "$results/bench.tsv"
