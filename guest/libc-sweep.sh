#!/usr/bin/env bash
# libc-sweep.sh RESULTS   (runs inside the guest, as root)
#
# Probes the entry of every function libc.so.6 exports (one uprobe event
# each, through uprobe_events), runs a workload of commands whose output
# is first taken without the probes, and tells how the probed entries the
# workload hit are entered: from /proc/PID/uprobes of the workload's
# longest process (a python3 that reads it last), each probe's ENTRY and,
# for a breakpoint, why it has no jump.  "Before" counts what jumps
# without punning (instructions of 5 bytes or more), "after" adds the
# punned jumps.  Leaves RESULTS/sweep.txt (the summary), entries.txt (one
# line a hit entry) and workload.diff (empty when every result is right).
# Exits non-zero if a result differs.
set -euo pipefail

results=${1:?usage: libc-sweep.sh RESULTS}
tracing=/sys/kernel/tracing
work=/tmp/sweep
mkdir -p "$work" "$results"

libc=$(ldd /bin/true | awk '$1 == "libc.so.6" { print $3 }')
[ -r "$libc" ] || { echo "libc-sweep: no libc.so.6" >&2; exit 1; }

# "OFFSET NAME" for each exported function, once an address, the file
# offset from the virtual address through its LOAD segment.
entries() {
	python3 - "$libc" <<'EOF'
import subprocess, sys
libc = sys.argv[1]
loads = []
for line in subprocess.run(["readelf", "-lW", libc], capture_output=True, text=True).stdout.splitlines():
	f = line.split()
	if f and f[0] == "LOAD":
		loads.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
seen = set()
for line in subprocess.run(["nm", "-D", "--defined-only", libc], capture_output=True, text=True).stdout.splitlines():
	f = line.split()
	if len(f) != 3 or f[1] not in "TtWi":
		continue
	addr = int(f[0], 16)
	for off, va, size in loads:
		if va <= addr < va + size and addr not in seen:
			seen.add(addr)
			print("0x%x %s" % (addr - va + off, f[2]))
EOF
}

# The workload: each command's output, in one stream.  Its last step
# reads /proc/self/uprobes of the python3 that ran the most of it.
workload() {
	seq 1 30000 | sort -rn | sha256sum
	printf '%.12f %e %s\n' 3.14159265358979 6.02214076e23 "$(date -u -d @1700000000)"
	find /usr/include/linux -name '*.h' | sort | sed -n 1,400p | xargs cat | md5sum
	awk 'BEGIN { s = 0; for (i = 1; i <= 20000; i++) s += sin(i) * log(i); printf "%.9f\n", s }'
	python3 - "$@" <<'EOF'
import hashlib, json, math, re, sys, zlib, random, struct, os
r = random.Random(41)
data = [r.random() for _ in range(50000)]
print(round(sum(math.sqrt(x) for x in data), 9))
print(hashlib.sha1(json.dumps(sorted(data)[:1000]).encode()).hexdigest())
text = " ".join("%08x" % r.getrandbits(32) for _ in range(20000))
print(len(re.findall(r"[0-9]{3}[a-f]", text)), zlib.crc32(zlib.compress(text.encode())))
print(struct.pack("<dq", math.pi, -5).hex(), "%.6f" % float("1e-7"), int("123456789") * 3)
print(os.path.basename("/a/b/c.txt"), sorted(os.listdir("/usr/include/linux"))[:3])
if len(sys.argv) > 1:
	with open("/proc/self/uprobes") as f, open(sys.argv[1], "w") as out:
		out.write(f.read())
EOF
}

echo "libc-sweep on $(uname -r): $libc"
workload >"$work/expected"
entries >"$work/entries"
echo "$(wc -l <"$work/entries") exported function entries"

i=0
while read -r off name; do
	echo "p:sweep/f$i $libc:$off"
	i=$((i + 1))
done <"$work/entries" >"$work/events"
cat "$work/events" >>"$tracing/uprobe_events"
# One at a time: an instruction the kernel refuses fails its own enable only.
refused=0
for enable in "$tracing"/events/sweep/f*/enable; do
	echo 1 2>/dev/null >"$enable" || refused=$((refused + 1))
done
echo "$refused entries refused when enabled (an instruction that cannot be probed)"

workload "$work/uprobes" >"$work/got"
for enable in "$tracing"/events/sweep/f*/enable; do
	echo 0 2>/dev/null >"$enable" || true
done
diff "$work/expected" "$work/got" >"$results/workload.diff" && right=yes || right=no

# Hit entries: those uprobe_profile counts, classified by the python3's
# /proc/PID/uprobes (its own hits; others hit by other commands only).
awk '$2 ~ /^f[0-9]+$/ && $3 > 0 { print substr($2, 2) }' "$tracing/uprobe_profile" |
	sort -n >"$work/hit"
awk 'NR == FNR { off[NR - 1] = $1; name[NR - 1] = $2; next }
	FILENAME ~ /hit$/ { hit[$1] = 1; next }
	/^stub-pages/ { pages = $0; next }
	{ sub(/^0x/, "", $2); split($2, p, "+"); line[p[2]] = $0 }
	END {
		for (i in hit) {
			o = off[i]; sub(/^0x/, "", o); o = "0x" o
			l = line[o]
			if (l == "") { print name[i], "-", "not-in-process"; continue }
			split(l, f, " ")
			print name[i], f[3], f[4], f[5]
		}
		print "# " pages > "/dev/stderr"
	}' "$work/entries" "$work/hit" "$work/uprobes" 2>"$work/pages" | sort >"$results/entries.txt"

awk -v right="$right" -v refused="$refused" -v pages="$(cat "$work/pages")" '
	$3 == "not-in-process" { other++; next }
	# A breakpoint with no reason: the python3 did not hit it.
	$3 == "breakpoint" && $4 == "" { other++; next }
	{ n++ }
	$3 == "jump" { jump++ }
	$3 == "punned-jump" { pun++ }
	$3 == "breakpoint" { trap++; why[$4]++ }
	END {
		printf "entries hit by the workload: %d (%d of them not by the python3)\n", n + other, other
		printf "hit in the python3 process: %d\n", n
		printf "  entered by a jump before punning: %d (%.0f%%)\n", jump, 100 * jump / n
		printf "  entered by a jump now: %d (%.0f%%): %d jumps, %d punned jumps\n",
			jump + pun, 100 * (jump + pun) / n, jump, pun
		printf "  still on the breakpoint: %d\n", trap
		for (w in why) printf "    %-22s %d\n", w, why[w]
		printf "%s\n", pages
		printf "refused when enabled: %s\n", refused
		printf "every result right: %s\n", right
	}' "$results/entries.txt" | tee "$results/sweep.txt"

echo -n >"$tracing/uprobe_events"
[ "$right" = yes ]
