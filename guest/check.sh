#!/usr/bin/env bash
# check.sh KERNEL ENGINE TESTS MODULES RESULTS TORTURE_SECONDS FUZZ_LINES KUNIT_PLAN [FILTER]   (in the guest)
#
# Runs every test suite in turn.  Each suite writes TAP to RESULTS/NAME.tap
# (also shown on the console) and its exit status to RESULTS/NAME.rc; the
# list of suites meant to run goes first to RESULTS/plan, so that the host
# counts a suite that never finished as a failure.  The test programs are
# copied to a tmpfs first: a probe is keyed by inode, and an inode of the 9p
# root may be dropped and looked up anew between two uses of a path.
# ENGINE (base or ours) is the engine the host built: "engine", run
# whatever FILTER selects, fails if the kernel runs the other; the tests
# that dev/expected-failures leaves out on it are left out (-T), and the
# knobs it needs set.  KUNIT_PLAN is the host's count of the KUnit cases
# to expect (dev/kunit-plan.sh).
set -uo pipefail

usage="usage: check.sh KERNEL ENGINE TESTS MODULES RESULTS TORTURE_SECONDS FUZZ_LINES KUNIT_PLAN [FILTER]"
kernel=${1:?$usage}
# The filter goes last: the kernel command line that carries the arguments
# drops an empty one.
engine=$2 tests=$3 modules=$4 results=$5 torture=$6 fuzz_lines=$7 kunit_plan=${8:?$usage}
filter=${9:-}
case $engine in
base | ours) ;;
*) echo "check.sh: ENGINE must be base or ours, not '$engine'" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/uprobes
suite_timeout=900
machine=$(uname -m)
# The architecture as dev/expected-failures names it.
arch=${machine/aarch64/arm64}

# name, the only machine it runs on (uname -m; "-": every one), and the
# command (run in $work with the environment below).  Only on x86_64: the
# suites of what is x86's alone (32-bit programs, x86's jumps to stubs,
# x86 instructions, the analysis KUnit); only on aarch64, arm64's jumps to
# stubs.
suites=(
	"engine             -       $here/engine-tap.sh"
	"kunit              x86_64  $here/kunit-tap.sh"
	"uprobe_events      -       ./uprobe_events"
	"uprobe_perf        -       ./uprobe_perf"
	"uprobe_api         -       ./uprobe_api"
	"uprobe_process     -       ./uprobe_process"
	"uprobe_lifecycle   -       ./uprobe_lifecycle"
	"uprobe_uretprobe   -       ./uprobe_uretprobe"
	"uprobe_refctr      -       ./uprobe_refctr"
	"uprobe_integrity   -       ./uprobe_integrity"
	"uprobe_coverage    x86_64  ./uprobe_coverage"
	"uprobe_badreg      -       ./uprobe_badreg"
	"uprobe_sample      -       ./uprobe_sample"
	"uprobe_signals     -       ./uprobe_signals"
	"uprobe_ia32        x86_64  ./uprobe_ia32"
	"uprobe_jump        x86_64  ./uprobe_jump"
	"uprobe_nojump      x86_64  ./uprobe_nojump"
	"uprobe_jump_arm64  aarch64 ./uprobe_jump_arm64"
	"uprobe_rseq        -       ./uprobe_rseq"
	"uprobe_sandbox     -       ./uprobe_sandbox"
	"uprobe_fuzz        -       ./uprobe_fuzz"
	"uprobe_torture     -       ./uprobe_torture"
	"ftracetest         -       $here/ftracetest-tap.sh"
	"perf_probe         -       ./perf_probe.sh"
	"bpftrace           -       ./bpftrace.sh"
	"bcc                -       ./bcc.sh"
	"test_progs         -       $here/test-progs-tap.sh"
	"stress_ng          -       ./stress_ng.sh"
)

selected() {
	local name=$1 only=$2
	[[ $only == - || $only == "$machine" ]] || return 1
	[ "$name" != engine ] || return 0
	[[ -z $filter || $name =~ $filter ]]
}

# kmemleak reports at KERN_INFO, below the console's level: on a kernel
# with kmemleak the run ends with a scan, whose report goes to the console
# for the host's console check.
report_leaks() {
	local file=/sys/kernel/debug/kmemleak
	[ -w "$file" ] || return 0
	echo scan >"$file"
	cat "$file"
}

# left_out SUITE: "-T TEST" for each test of SUITE that
# dev/expected-failures leaves out on this engine and machine: the
# kselftest harness's -T takes a test's own name, the last part of
# "fixture[.variant].test".
left_out() {
	local test result
	awk -f "$here/../dev/expected.awk" -v fields=6 -v engine="$engine" -v arch="$arch" \
		-v suite="$1" "$here/../dev/expected-failures" |
		while IFS=$'\t' read -r test result; do
			[ "$result" != 'not run' ] || printf -- '-T\n%s\n' "${test##*.}"
		done
}

run_suite() {
	local name=$1 command=$2 limit=$suite_timeout rc
	local -a args
	case $name in
	uprobe_torture) limit=$((torture + suite_timeout)) ;;
	# About 10 ms a line on the debug kernel: 50 leaves room.
	uprobe_fuzz) limit=$((fuzz_lines / 20 + suite_timeout)) ;;
	esac
	mapfile -t args < <(left_out "$name")
	echo "=== $name${args[*]:+ (${args[*]})}"
	(cd "$work" && timeout -k 10 "$limit" "$command" "${args[@]}") 2>&1 |
		tee "$results/$name.tap"
	rc=${PIPESTATUS[0]}
	echo "$rc" >"$results/$name.rc"
}

mkdir -p "$work"
cp -a "$tests/uprobes/." "$work/"
cp -a "$modules/." "$work/" 2>/dev/null || true
export UPROBE_TEST_KERNEL=$kernel
export UPROBE_HOST_ENGINE=$engine
# arm64's 6.12 warns at each step of a task that hit a probe once.
if [ "$engine" = base ] && [ "$arch" = arm64 ]; then
	export UPROBE_TORTURE_NO_PTRACE_STEPS=1
fi
export UPROBE_KUNIT_PLAN=$kunit_plan
export UPROBE_TEST_MODULE=$work/uprobe_test_mod.ko
export UPROBE_SAMPLE_MODULE=$work/uprobe_example.ko
export UPROBE_TORTURE_SECONDS=$torture
export UPROBE_FUZZ_LINES=$fuzz_lines
export UPROBE_BPF_SELFTESTS=$tests/bpf
export UPROBE_BPF_TESTMOD=$modules/bpf_testmod.ko
UPROBE_TEST_SRC=$(dirname "$(readlink -f "$tests")")/src/$kernel
export UPROBE_TEST_SRC

echo "kernel $kernel ($engine engine): $(uname -r), base $(cat "$UPROBE_TEST_SRC/../upstream.version" 2>/dev/null)"
plan=()
for entry in "${suites[@]}"; do
	read -r name only command <<<"$entry"
	selected "$name" "$only" && plan+=("$entry")
done
for entry in "${plan[@]}"; do
	echo "${entry%% *}"
done >"$results/plan"
for entry in "${plan[@]}"; do
	read -r name only command <<<"$entry"
	run_suite "$name" "$command"
done
report_leaks
echo "=== done"
