# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the peer suites: KTAP output and the probed program.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=/dev/null
. "$here/ktap_helpers.sh"

# The program to probe, next to the scripts.
# shellcheck disable=SC2034 # used by the scripts that source this file
target=$here/peer_target

# expect NAME WANT GOT: one test point comparing two values.
expect() {
	if [ "$2" = "$3" ]; then
		ktap_test_pass "$1"
	else
		ktap_print_msg "$1: expected '$2', got '$3'"
		ktap_test_fail "$1"
	fi
}

# nth_sum N: 0 + 1 + ... + (N - 1)
nth_sum() {
	echo $(($1 * ($1 - 1) / 2))
}
