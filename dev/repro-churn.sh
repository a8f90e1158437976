#!/usr/bin/env bash
# repro-churn.sh [N]   (in the guest)
#
# Runs uprobe_jump's nop5 churn test N times (default 40) from a tmpfs
# copy of the test programs and counts the failures.  Boot it with
#   dev/boot.sh --multi-thread IMAGE RESULTS 1200 -- "$PWD/dev/repro-churn.sh" 20
# (boot.sh maps only absolute paths in the project into the guest)
# to reproduce the lost hits seen under multi-threaded TCG (issue 10).
set -uo pipefail

n=${1:-40}
tests=$(cd "$(dirname "$0")/.." && pwd)/out/tests/uprobes
rm -rf /tmp/u && cp -a "$tests" /tmp/u && cd /tmp/u || exit 1
failed=0
for _ in $(seq "$n"); do
	if ! ./uprobe_jump -r jump.nop5.churn_while_threads_hit >/tmp/churn.out 2>&1; then
		failed=$((failed + 1))
		tail -25 /tmp/churn.out
	fi
done
echo "CHURN: $failed of $n failed"
