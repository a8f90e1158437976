#!/usr/bin/env bash
# engine-tap.sh: whether the kernel runs the uprobes engine the host
# built ($UPROBE_HOST_ENGINE: base or ours), as TAP.  The tests detect the
# features they need and skip without them, and dev/expected-skips and
# dev/expected-failures say what each engine must pass: a kernel that lost
# a feature would pass for the base's, unless the host's word is checked
# against the kernel's.  Only ours has uprobe_register_pid().
set -euo pipefail

engine=${UPROBE_HOST_ENGINE:?the host names no engine}
if grep -qw uprobe_register_pid /proc/kallsyms; then
	kernel=ours
else
	kernel=base
fi
echo "1..1"
if [ "$kernel" = "$engine" ]; then
	echo "ok 1 engine: the host built $engine, the kernel runs $kernel"
else
	echo "not ok 1 engine: the host built $engine, the kernel runs $kernel"
fi
