# expected.awk: the lines of dev/expected-skips (fields=5) or
# dev/expected-failures (fields=6) that apply to one suite, for
# dev/summary.sh and guest/check.sh:
#
#   awk -f expected.awk -v fields=N -v engine=E -v arch=A -v suite=S FILE
#
# prints, for each line of engine E (or *), architecture A (or *) and
# suite S, its fields from the TEST on, the WHY left out, tab-separated
# and trimmed.  A line of the wrong number of fields, or of a RESULT that
# is none of "fails", "may fail" and "not run", is reported, and the exit
# status is 1.
function field(i,    s) {
	s = $i
	gsub(/^[ \t]+|[ \t]+$/, "", s)
	return s
}

BEGIN { FS = "|" }
/^[ \t]*(#|$)/ { next }
NF != fields || (NF == 6 && field(5) !~ /^(fails|may fail|not run)$/) {
	print FILENAME ": bad line: " $0 > "/dev/stderr"
	exit 1
}
(field(1) == engine || field(1) == "*") && (field(2) == arch || field(2) == "*") &&
    field(3) == suite {
	out = field(4)
	for (i = 5; i < NF; i++)
		out = out "\t" field(i)
	print out
}
