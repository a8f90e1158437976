#!/usr/bin/env bash
# ftracetest-tap.sh: the base tree's ftrace selftests for uprobe events,
# run with the base's own ftracetest in KTAP mode.  UNSUPPORTED and
# UNRESOLVED count as failures: both tests must really run here.
set -euo pipefail

ftrace=${UPROBE_TEST_SRC:?}/tools/testing/selftests/ftrace
cases=(
	test.d/dynevent/add_remove_uprobe.tc
	test.d/kprobe/uprobe_syntax_errors.tc
)
cd "$ftrace"
./ftracetest -K --fail-unsupported --fail-unresolved -l /tmp/ftracetest-logs "${cases[@]}"
