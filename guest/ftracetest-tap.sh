#!/usr/bin/env bash
# ftracetest-tap.sh: the base tree's ftrace selftests for uprobe events,
# run with the base's own ftracetest in KTAP mode.  UNSUPPORTED and
# UNRESOLVED count as failures: both tests must really run here.
set -euo pipefail

ftrace=${UPROBE_TEST_SRC:?}/tools/testing/selftests/ftrace
cases=(
	test.d/kprobe/uprobe_syntax_errors.tc
)
# add_remove_uprobe.tc probes the start of /bin/sh's first r-xp mapping.
# On arm64, Debian's dash has a single R E segment from file offset 0: the
# probe lands on the ELF header, which no arm64 uprobes can take (the base
# fails it the same way).
if [ "$(uname -m)" = aarch64 ]; then
	echo "# not run on arm64: add_remove_uprobe.tc (it probes dash's ELF header there)"
else
	cases+=(test.d/dynevent/add_remove_uprobe.tc)
fi
cd "$ftrace"
./ftracetest -K --fail-unsupported --fail-unresolved -l /tmp/ftracetest-logs "${cases[@]}"
