# SPDX-License-Identifier: GPL-2.0
# Turns "objdump -d --no-show-raw-insn coverage_work.o" into a C table of
# the instructions of the cov_* functions: { function, offset, text }.
# With -v quote=1 the function is a string, its name: for a program that
# is not the one including the table (ia32_work).
function hex(s,    i, n) {
	n = 0
	for (i = 1; i <= length(s); i++)
		n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return n
}
/^[0-9a-f]+ <cov_[a-z0-9_]*>:$/ {
	fn = $2; gsub(/[<>:]/, "", fn); start = hex($1)
	if (quote) fn = "\"" fn "\""
	next
}
/^[0-9a-f]+ </ { fn = ""; next }
fn != "" && /^ *[0-9a-f]+:\t/ {
	n = split($0, part, "\t")
	addr = part[1]; gsub(/[ :]/, "", addr)
	text = part[2]; for (i = 3; i <= n; i++) text = text " " part[i]
	gsub(/[\\"]/, "", text); gsub(/ +/, " ", text); sub(/ *#.*/, "", text)
	if (text ~ /\(bad\)/) next
	printf "\t{ %s, 0x%x, \"%s\" },\n", fn, hex(addr) - start, text
}
