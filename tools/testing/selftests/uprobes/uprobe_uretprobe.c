// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_uretprobe: return probes through uprobe_events.  Recursion,
 * nesting, longjmp out of probed functions, tail calls, recursion deeper
 * than the kernel keeps return probes for, and exact $retval values.  Each
 * test compares the whole sequence of entry and return events, in order,
 * with the one the program's calls must produce.  The test task is pinned
 * to one CPU so that the trace buffer's order is the order of the events.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "uprobe_util.h"
#include "uprobe_asm.h"

#define GROUP "uret"

/* Recursion that stays recursion: no sibling-call or accumulator rewrite. */
#define NO_TAIL __attribute__((optimize("no-optimize-sibling-calls")))

TARGET NO_TAIL long rec_sum(long n)
{
	if (n <= 0)
		return 0;
	return rec_sum(n - 1) + n;
}

TARGET long nest_g(long x)
{
	return x * 5;
}

TARGET NO_TAIL long nest_f(long x)
{
	return nest_g(x + 1) * 2;
}

static jmp_buf lj_env;

/* Jumps out to lj_env when @n is not negative, else returns n - 1. */
TARGET long lj_inner(long n)
{
	if (n >= 0)
		longjmp(lj_env, (int)n + 1);
	return n - 1;
}

TARGET NO_TAIL long lj_outer(long n)
{
	return lj_inner(n) * 3;
}

/*
 * tail_a(x) tail-calls tail_b(x + 100), which returns 2 * x + 1: written in
 * assembly so that the tail call is a real jmp (b), whatever the compiler.
 */
asm(".pushsection .text\n"
	".globl tail_b\n"
	".type tail_b, @function\n"
	"tail_b:\n"
#ifdef __aarch64__
	"	add x0, x0, x0\n"
	"	add x0, x0, #1\n"
#else
	"	lea 1(%rdi,%rdi), %rax\n"
#endif
	"	ret\n"
	".size tail_b, .-tail_b\n"
	".globl tail_a\n"
	".type tail_a, @function\n"
	"tail_a:\n"
#ifdef __aarch64__
	"	add x0, x0, #100\n"
	"	b tail_b\n"
#else
	"	lea 100(%rdi), %rdi\n"
	"	jmp tail_b\n"
#endif
	".size tail_a, .-tail_a\n"
	".popsection\n");

TARGET long ret_same(long x)
{
	return x;
}

TARGET NO_TAIL long ret_neg(long x)
{
	return -ret_same(x);
}

static pid_t forked;

/* Forks: returns @x in the parent, @x + 1 in the child. */
TARGET NO_TAIL long fork_ret(long x)
{
	forked = fork();
	return forked ? x : x + 1;
}

static int add_probe(const char *kind, const char *event, const void *func, const char *args)
{
	unsigned long off = self_offset(func);

	if (!off)
		return -ENOENT;
	return uprobe_event_add("%s:%s/%s %s:0x%lx %s", kind, GROUP, event, self_path(), off,
				args);
}

/*
 * The events of this task in trace buffer order, as "EVENT ARGS;" each:
 * "rin n=2;rout rv=3;".  Returns a malloc'ed string or NULL.
 */
static char *event_seq(void)
{
	char *trace = trace_read(), *out, *line, *save = NULL, *p, *ev, *args;
	size_t len = 0;
	pid_t pid = getpid();

	if (!trace)
		return NULL;
	out = calloc(1, strlen(trace) + 1);
	for (line = strtok_r(trace, "\n", &save); out && line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		/* "  COMM-PID [CPU] FLAGS TIME: EVENT: (ADDR[ <- ADDR]) ARGS" */
		p = strstr(line, " [");
		if (!p)
			continue;
		while (p > line && p[-1] == ' ')
			p--;
		while (p > line && p[-1] != '-')
			p--;
		if (atoi(p) != pid)
			continue;
		ev = strstr(line, ": ");
		if (!ev)
			continue;
		ev += 2;
		p = strstr(ev, ": (");
		args = p ? strchr(p, ')') : NULL;
		if (!args)
			continue;
		*p = '\0';
		args++;
		while (*args == ' ')
			args++;
		len += sprintf(out + len, "%s%s%s;", ev, *args ? " " : "", args);
	}
	free(trace);
	return out;
}

/* Appends a printf-formatted piece to @buf (of @size). */
static void seq_add(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);
static void seq_add(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

FIXTURE(uret) {
	char *seq;
};

FIXTURE_SETUP(uret)
{
	ASSERT_EQ(0, pin_to_cpu(0));
	tracing_reset();
	self->seq = NULL;
}

FIXTURE_TEARDOWN(uret)
{
	tracing_reset();
	free(self->seq);
}

/* Depth D: D + 1 entries, then D + 1 returns, innermost first. */
TEST_F(uret, recursion)
{
	char want[4096] = "";
	long n;

	ASSERT_EQ(0, add_probe("p", "rin", rec_sum, "n=" ARG0_REG ":s64"));
	ASSERT_EQ(0, add_probe("r", "rout", rec_sum, "rv=$retval:s64"));
	ASSERT_EQ(0, tfs_write("events/" GROUP "/enable", "1"));
	ASSERT_EQ(55, rec_sum(10));
	ASSERT_EQ(0, tfs_write("events/" GROUP "/enable", "0"));
	for (n = 10; n >= 0; n--)
		seq_add(want, sizeof(want), "rin n=%ld;", n);
	for (n = 0; n <= 10; n++)
		seq_add(want, sizeof(want), "rout rv=%ld;", n * (n + 1) / 2);
	self->seq = event_seq();
	ASSERT_NE(NULL, self->seq);
	EXPECT_STREQ(want, self->seq);
	EXPECT_EQ(11, profile_hits("rin"));
	EXPECT_EQ(11, profile_hits("rout"));
}

/* f calls g, both probed at entry and return. */
TEST_F(uret, nesting)
{
	char want[1024] = "";
	long x;

	ASSERT_EQ(0, add_probe("p", "fin", nest_f, "x=" ARG0_REG ":s64"));
	ASSERT_EQ(0, add_probe("r", "fout", nest_f, "rv=$retval:s64"));
	ASSERT_EQ(0, add_probe("p", "gin", nest_g, "x=" ARG0_REG ":s64"));
	ASSERT_EQ(0, add_probe("r", "gout", nest_g, "rv=$retval:s64"));
	ASSERT_EQ(0, tfs_write("events/" GROUP "/enable", "1"));
	for (x = 1; x <= 3; x++) {
		ASSERT_EQ((x + 1) * 10, nest_f(x));
		seq_add(want, sizeof(want), "fin x=%ld;gin x=%ld;gout rv=%ld;fout rv=%ld;",
			x, x + 1, (x + 1) * 5, (x + 1) * 10);
	}
	ASSERT_EQ(35, nest_g(7));
	seq_add(want, sizeof(want), "gin x=7;gout rv=35;");
	ASSERT_EQ(0, tfs_write("events/" GROUP "/enable", "0"));
	self->seq = event_seq();
	ASSERT_NE(NULL, self->seq);
	EXPECT_STREQ(want, self->seq);
}

#define LJ_JUMPS 100

/*
 * longjmp out of two probed functions, many more times than the kernel
 * keeps return probes for one task: the skipped returns are never reported
 * and leave nothing that stops later returns from being reported.
 */
TEST_F(uret, longjmp)
{
	char want[16384] = "";
	static long i;	/* not a register: kept across longjmp() */
	long got;
	int v;

	ASSERT_EQ(0, add_probe("p", "oin", lj_outer, "n=" ARG0_REG ":s64"));
	ASSERT_EQ(0, add_probe("r", "oout", lj_outer, "rv=$retval:s64"));
	ASSERT_EQ(0, add_probe("p", "iin", lj_inner, "n=" ARG0_REG ":s64"));
	ASSERT_EQ(0, add_probe("r", "iout", lj_inner, "rv=$retval:s64"));
	ASSERT_EQ(0, tfs_write("events/" GROUP "/enable", "1"));
	for (i = 0; i < LJ_JUMPS; i++) {
		v = setjmp(lj_env);
		if (v == 0) {
			lj_outer(i);
			break;	/* not reached */
		}
		ASSERT_EQ(i + 1, v);
		seq_add(want, sizeof(want), "oin n=%ld;iin n=%ld;", i, i);
	}
	ASSERT_EQ(LJ_JUMPS, i);
	got = lj_outer(-5);
	ASSERT_EQ(-18, got);
	seq_add(want, sizeof(want), "oin n=-5;iin n=-5;iout rv=-6;oout rv=-18;");
	ASSERT_EQ(0, tfs_write("events/" GROUP "/enable", "0"));
	self->seq = event_seq();
	ASSERT_NE(NULL, self->seq);
	EXPECT_STREQ(want, self->seq);
	/* uprobe_profile counts a return probe's hits at the function entry. */
	EXPECT_EQ(LJ_JUMPS + 1, profile_hits("oout"));
	EXPECT_EQ(LJ_JUMPS + 1, profile_hits("iout"));
}

/*
 * tail_a jumps into tail_b: one return, to tail_a's caller, ends both.  The
 * kernel reports both returns there, tail_b's first, each with the value
 * that actually comes back (tail_b's).
 */
TEST_F(uret, tail_call)
{
	char want[1024] = "";
	long x;

	ASSERT_EQ(0, add_probe("p", "ain", tail_a, "x=" ARG0_REG ":s64"));
	ASSERT_EQ(0, add_probe("r", "aout", tail_a, "rv=$retval:s64"));
	ASSERT_EQ(0, add_probe("p", "bin", tail_b, "x=" ARG0_REG ":s64"));
	ASSERT_EQ(0, add_probe("r", "bout", tail_b, "rv=$retval:s64"));
	ASSERT_EQ(0, tfs_write("events/" GROUP "/enable", "1"));
	for (x = 1; x <= 2; x++) {
		ASSERT_EQ(2 * (x + 100) + 1, tail_a(x));
		seq_add(want, sizeof(want), "ain x=%ld;bin x=%ld;bout rv=%ld;aout rv=%ld;",
			x, x + 100, 2 * (x + 100) + 1, 2 * (x + 100) + 1);
	}
	/* tail_b called directly: its own return only. */
	ASSERT_EQ(7, tail_b(3));
	seq_add(want, sizeof(want), "bin x=3;bout rv=7;");
	ASSERT_EQ(0, tfs_write("events/" GROUP "/enable", "0"));
	self->seq = event_seq();
	ASSERT_NE(NULL, self->seq);
	EXPECT_STREQ(want, self->seq);
}

/*
 * The kernel keeps at most URET_DEPTH_CAP pending return probes per task
 * (found by experiment: recursion of depth 200 reports exactly 64 returns,
 * those of the 64 outermost frames; it is MAX_URETPROBE_DEPTH of
 * <linux/uprobes.h>, and the kernel logs a warning for the frames it
 * drops).  Deeper frames get their entry events but no return event; the
 * program returns correctly everywhere and the next shallow call has all
 * of its returns reported again.
 */
#define URET_DEPTH_CAP 64
#define DEEP 200

TEST_F(uret, deeper_than_cap)
{
	char *want = calloc(1, 65536);
	long n;

	ASSERT_NE(NULL, want);
	ASSERT_EQ(0, add_probe("p", "rin", rec_sum, "n=" ARG0_REG ":s64"));
	ASSERT_EQ(0, add_probe("r", "rout", rec_sum, "rv=$retval:s64"));
	ASSERT_EQ(0, tfs_write("events/" GROUP "/enable", "1"));
	ASSERT_EQ(DEEP * (DEEP + 1) / 2, rec_sum(DEEP));
	ASSERT_EQ(6, rec_sum(3));
	ASSERT_EQ(0, tfs_write("events/" GROUP "/enable", "0"));
	for (n = DEEP; n >= 0; n--)
		seq_add(want, 65536, "rin n=%ld;", n);
	for (n = DEEP - URET_DEPTH_CAP + 1; n <= DEEP; n++)
		seq_add(want, 65536, "rout rv=%ld;", n * (n + 1) / 2);
	for (n = 3; n >= 0; n--)
		seq_add(want, 65536, "rin n=%ld;", n);
	for (n = 0; n <= 3; n++)
		seq_add(want, 65536, "rout rv=%ld;", n * (n + 1) / 2);
	self->seq = event_seq();
	ASSERT_NE(NULL, self->seq);
	EXPECT_STREQ(want, self->seq);
	EXPECT_EQ(DEEP + 1 + 4, profile_hits("rin"));
	/* uprobe_profile counts a return probe's hits at the entry, all of them. */
	EXPECT_EQ(DEEP + 1 + 4, profile_hits("rout"));
	free(want);
}

/* $retval is all 64 bits of %rax (x0) at the return, in every type. */
TEST_F(uret, retval_exact)
{
	static const long values[] = {
		0, 1, -1, 42, -123456789012L, LONG_MAX, LONG_MIN, 0x0123456789abcdefL,
	};
	char want[4096] = "";
	unsigned int i;

	ASSERT_EQ(0, add_probe("r", "same", ret_same,
			       "s=$retval:s64 u=$retval:u64 x=$retval:x64 l=$retval:s32"));
	ASSERT_EQ(0, add_probe("r", "neg", ret_neg, "s=$retval:s64"));
	ASSERT_EQ(0, tfs_write("events/" GROUP "/enable", "1"));
	for (i = 0; i < ARRAY_SIZE(values); i++) {
		long v = values[i];

		ASSERT_EQ(v, ret_same(v));
		seq_add(want, sizeof(want), "same s=%ld u=%lu x=0x%lx l=%d;",
			v, (unsigned long)v, (unsigned long)v, (int)v);
		ASSERT_EQ((long)(0UL - (unsigned long)v), ret_neg(v));
		seq_add(want, sizeof(want), "same s=%ld u=%lu x=0x%lx l=%d;neg s=%ld;",
			v, (unsigned long)v, (unsigned long)v, (int)v,
			(long)(0UL - (unsigned long)v));
	}
	ASSERT_EQ(0, tfs_write("events/" GROUP "/enable", "0"));
	self->seq = event_seq();
	ASSERT_NE(NULL, self->seq);
	EXPECT_STREQ(want, self->seq);
}

/*
 * A function with a return probe forks: it returns twice, in the parent
 * and in the child, whose copy of the stack leads to the trampoline too.
 * The child has the parent's pending return: it returns to the right place
 * (no SIGILL), and each return is reported once, with its pid and value.
 */
TEST_F(uret, fork_returns_twice)
{
	char *trace;
	int status;
	long got;

	ASSERT_EQ(0, add_probe("r", "frk", fork_ret, "rv=$retval:s64"));
	ASSERT_EQ(0, tfs_write("events/" GROUP "/enable", "1"));
	got = fork_ret(40);
	if (!forked)
		_exit(got == 41 ? 0 : 1);
	ASSERT_LT(0, forked);
	EXPECT_EQ(40, got);
	ASSERT_EQ(forked, waitpid(forked, &status, 0));
	EXPECT_TRUE(WIFEXITED(status)) TH_LOG("child killed by signal %d", WTERMSIG(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, tfs_write("events/" GROUP "/enable", "0"));
	trace = trace_read();
	ASSERT_NE(NULL, trace);
	EXPECT_EQ(1, trace_count_pid(trace, "frk", getpid()));
	EXPECT_EQ(1, trace_count_pid(trace, "frk", forked));
	EXPECT_NE(NULL, strstr(trace, "rv=40"));
	EXPECT_NE(NULL, strstr(trace, "rv=41"));
	free(trace);
}

TEST_HARNESS_MAIN
