// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_events: the tracefs interface of the uprobe tracer.  Each test
 * defines probe events on functions of this very program (copied to a
 * tmpfs by the runner), hits them, and checks what uprobe_events and
 * dynamic_events list back, what the trace buffer holds, uprobe_profile's
 * counts, error_log and errnos:
 *
 *  - events: create, list, delete (-:GRP/EVENT, -:EVENT), clear all, the
 *    trace line of entry and return events, uprobe_profile, dynamic_events,
 *    EBUSY while enabled, trace instances;
 *  - listing: a table of definitions and the canonical line listed back;
 *  - fetch: a table of fetch arguments and the exact values traced;
 *  - record: faults while fetching (one that waits holds up no other
 *    hit, nor the event's disable), an event enabled while it grows,
 *    "r10:";
 *  - bad: a table of refused lines, with errno and error_log entry.
 *
 * Templates of the tables name run-time values as ${name}, and registers
 * by their use as ${reg0} (the first argument's) and so on, which makes
 * them good for x86-64 and arm64 alike; see ev_expand() and ev_regs[].
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/userfaultfd.h>

#include "../kselftest_harness.h"
#include "uprobe_util.h"

#define INSTANCE "utest_inst"

/*
 * Fetch-arg lists of the templates below, in the placeholders that
 * ev_expand() fills with this architecture's register names (ev_regs[]).
 */
#define EV_ARGS "${reg0} x=${reg1} ${reg2}:u32 $stack0 y=+8(${reg_sp}):x8"
#define FA_ARGS "a=${reg0} b=${reg1} c=${reg2} d=${reg3} e=${reg4} f=${reg5}"
#define BF_ARGS "a=${reg1}:b8@8/64 b=${reg1}:b4@60/64 c=${reg2}:b2@0/8"
#define RC_ARGS "s=+0(+0(${reg0})):string n=+0(+0(${reg0})):u32"

struct rec {
	long a;
	long *p;
	char name[16];
	unsigned int bits;
};

/* Globals with known contents, read by @ADDR, @+OFFSET and dereferences. */
unsigned long g_u64 = 0x8182838485868788UL;
char g_str[] = "hello-global";
long g_arr[4] = { 11, 22, 33, 44 };
struct rec g_rec = { 42, &g_arr[2], "inner", 0xabcd1234 };
struct rec *g_recp = &g_rec;
const char *g_strp = g_str;

/* The bitfield templates read g_rec.bits at +32. */
static_assert(offsetof(struct rec, bits) == 32, "struct rec layout");

/*
 * What the last call of a target saw of its own frame (frame pointers are
 * on): the return address, the stack pointer at entry (where the return
 * address is), the stack word above it, and the caller's %bp.  On arm64
 * the return address is in the link register: the stack pointer at entry
 * is the frame's CFA, where the caller's words are ($stack0, $stack1),
 * and the caller's x29 is in the frame record.
 */
static unsigned long hit_ret, hit_sp, hit_stack0, hit_stack1, hit_bp;

#ifdef __aarch64__
#define RECORD_FRAME() do {						\
	unsigned long *fp = __builtin_frame_address(0);			\
	unsigned long *cfa = __builtin_dwarf_cfa();			\
									\
	hit_ret = (unsigned long)__builtin_return_address(0);		\
	hit_bp = fp[0];							\
	hit_sp = (unsigned long)cfa;					\
	hit_stack0 = cfa[0];						\
	hit_stack1 = cfa[1];						\
} while (0)
#else
#define RECORD_FRAME() do {						\
	unsigned long *fp = __builtin_frame_address(0);			\
									\
	hit_ret = (unsigned long)__builtin_return_address(0);		\
	hit_bp = fp[0];							\
	hit_sp = (unsigned long)&fp[1];					\
	hit_stack0 = fp[1];						\
	hit_stack1 = fp[2];						\
} while (0)
#endif

TARGET long target_add(long a, long b)
{
	return a + b;
}

TARGET long target_six(long a, long b, long c, long d, long e, long f)
{
	RECORD_FRAME();
	return a + b + c + d + e + f;
}

TARGET long target_rec(struct rec *r, const char *s)
{
	RECORD_FRAME();
	return r->a + s[0];
}

/* Self-contained (no global, no call): it also runs from another mapping. */
TARGET long target_leaf(long a)
{
	return a + 1;
}

enum target { SIX, REC };

/* The calls the fetch table's expectations are written for. */
static long call_target(enum target t)
{
	if (t == SIX)	/* returns 0x8182838485868799 */
		return target_six(-1, 0x8182838485868788L, 3, 4, 5, 6);
	return target_rec(&g_rec, g_str);	/* returns 146 */
}

/*
 * The return address of call_target()'s call of @t.  A function under a
 * return probe sees the kernel's trampoline as its return address, so this
 * is learnt from a call made while no probe is enabled.
 */
static unsigned long call_ret;

static void learn_call_site(enum target t)
{
	call_target(t);
	call_ret = hit_ret;
}

/*
 * The function that the call just before return address @ret calls (a
 * call rel32, e8, on x86; a bl on arm64), or 0 if there is no such call.
 */
static unsigned long call_target_before(unsigned long ret)
{
#ifdef __aarch64__
	unsigned int insn;

	memcpy(&insn, (const void *)(ret - 4), sizeof(insn));
	if ((insn & 0xfc000000) != 0x94000000)
		return 0;
	/* imm26, sign-extended, in instructions */
	return ret - 4 + (long)((int)(insn << 6) >> 6) * 4;
#else
	const unsigned char *site = (const unsigned char *)ret;
	int rel;

	if (site[-5] != 0xe8)
		return 0;
	memcpy(&rel, site - 4, sizeof(rel));
	return ret + rel;
#endif
}

/*
 * @+OFFSET is relative to where the mapping that hit has the probed file:
 * the probe's run-time address minus its file offset.  For this program,
 * hit where it runs, that makes OFFSET the link-time address of a variable.
 */
static unsigned long link_addr(const void *var)
{
	unsigned long bias = (unsigned long)target_six - self_offset(target_six);

	return (unsigned long)var - bias;
}

/*
 * The event name the kernel makes up for "p PATH:OFFSET": "p_", the
 * file's base name up to its first character that is not a letter or a
 * digit, "_0x" and the offset in hex -- also for return probes.
 */
static void default_name(char *buf, size_t len, unsigned long offset)
{
	const char *base = strrchr(self_path(), '/') + 1;
	size_t n = 0;

	while (base[n] && ((base[n] >= 'a' && base[n] <= 'z') ||
			   (base[n] >= 'A' && base[n] <= 'Z') ||
			   (base[n] >= '0' && base[n] <= '9')))
		n++;
	snprintf(buf, len, "p_%.*s_0x%lx", (int)n, base, offset);
}

static void repeat(char *buf, size_t len, char c, int n)
{
	if ((size_t)n >= len)
		n = len - 1;
	memset(buf, c, n);
	buf[n] = '\0';
}

/*
 * A register by its use, ${reg0} .. ${reg5} for the arguments: this
 * architecture's name for it (uprobe_util.h).
 */
static const struct {
	const char *name, *reg;
} ev_regs[] = {
	{ "reg0", ARG0_REG }, { "reg1", ARG1_REG }, { "reg2", ARG2_REG },
	{ "reg3", ARG3_REG }, { "reg4", ARG4_REG }, { "reg5", ARG5_REG },
	{ "reg_ret", RET_REG }, { "reg_ip", IP_REG }, { "reg_sp", SP_REG },
	{ "reg_fp", FP_REG },
};

/* The value of ${name}, into @buf; -1 if there is no such name. */
static int ev_lookup(const char *name, char *buf, size_t len)
{
	unsigned long six = self_offset(target_six), rec = self_offset(target_rec);
	size_t used;
	int i, n;

	for (i = 0; i < ARRAY_SIZE(ev_regs); i++) {
		if (!strcmp(name, ev_regs[i].name)) {
			snprintf(buf, len, "%s", ev_regs[i].reg);
			return 0;
		}
	}
	if (!strcmp(name, "path")) {
		snprintf(buf, len, "%s", self_path());
	} else if (!strcmp(name, "dir")) {
		snprintf(buf, len, "%s", self_path());
		*strrchr(buf, '/') = '\0';
	} else if (!strcmp(name, "comm")) {
		char comm[17] = "";

		prctl(PR_GET_NAME, comm);
		snprintf(buf, len, "%s", comm);
	} else if (!strcmp(name, "six")) {
		snprintf(buf, len, "0x%lx", six);
	} else if (!strcmp(name, "SIX")) {
		snprintf(buf, len, "0X%lX", six);
	} else if (!strcmp(name, "sixdec")) {
		snprintf(buf, len, "%lu", six);
	} else if (!strcmp(name, "six16")) {
		snprintf(buf, len, "%016lx", six);
	} else if (!strcmp(name, "rec")) {
		snprintf(buf, len, "0x%lx", rec);
	} else if (!strcmp(name, "rec16")) {
		snprintf(buf, len, "%016lx", rec);
	} else if (!strcmp(name, "defname")) {
		default_name(buf, len, six);
	} else if (!strcmp(name, "six_addr")) {
		snprintf(buf, len, "%p", target_six);
	} else if (!strcmp(name, "rec_addr")) {
		snprintf(buf, len, "%p", target_rec);
	} else if (!strcmp(name, "ret")) {
		snprintf(buf, len, "0x%lx", call_ret);
	} else if (!strcmp(name, "sp")) {
		snprintf(buf, len, "0x%lx", hit_sp);
	} else if (!strcmp(name, "sp8")) {
		snprintf(buf, len, "0x%lx", hit_sp + 8);
	} else if (!strcmp(name, "stack0")) {
		snprintf(buf, len, "0x%lx", hit_stack0);
	} else if (!strcmp(name, "stack1")) {
		snprintf(buf, len, "0x%lx", hit_stack1);
	} else if (!strcmp(name, "bp")) {
		snprintf(buf, len, "0x%lx", hit_bp);
	} else if (!strcmp(name, "g_u64")) {
		snprintf(buf, len, "%p", &g_u64);
	} else if (!strcmp(name, "g_str")) {
		snprintf(buf, len, "%p", g_str);
	} else if (!strcmp(name, "g_recp")) {
		snprintf(buf, len, "%p", &g_recp);
	} else if (!strcmp(name, "g_arr2")) {
		snprintf(buf, len, "%p", &g_arr[2]);
	} else if (!strcmp(name, "g_u64_link")) {
		snprintf(buf, len, "0x%lx", link_addr(&g_u64));
	} else if (!strcmp(name, "g_str_link")) {
		snprintf(buf, len, "0x%lx", link_addr(g_str));
	} else if (!strcmp(name, "E63") || !strcmp(name, "E64")) {
		repeat(buf, len, 'e', atoi(name + 1));
	} else if (!strcmp(name, "G63") || !strcmp(name, "G64")) {
		repeat(buf, len, 'g', atoi(name + 1));
	} else if (!strcmp(name, "A32") || !strcmp(name, "A33")) {
		repeat(buf, len, 'a', atoi(name + 1));
	} else if (!strncmp(name, "nest", 4)) {
		/* +0(+0(...%di...)) */
		n = atoi(name + 4);
		buf[0] = '\0';
		for (i = 0; i < n; i++)
			strncat(buf, "+0(", len - strlen(buf) - 1);
		strncat(buf, ARG0_REG, len - strlen(buf) - 1);
		for (i = 0; i < n; i++)
			strncat(buf, ")", len - strlen(buf) - 1);
	} else if (!strncmp(name, "args", 4) || !strncmp(name, "largs", 5)) {
		/* " \1 \2 ..." and how it is listed, " arg1=\1 arg2=\2 ..." */
		int listed = name[0] == 'l';

		n = atoi(name + (listed ? 5 : 4));
		buf[0] = '\0';
		for (i = 1, used = 0; i <= n && used < len; i++, used = strlen(buf)) {
			if (listed)
				snprintf(buf + used, len - used, " arg%d=\\%d", i, i);
			else
				snprintf(buf + used, len - used, " \\%d", i);
		}
	} else {
		return -1;
	}
	return 0;
}

/*
 * @tmpl with every ${name} replaced by its value, malloc'ed; NULL if
 * @tmpl is NULL or names something unknown.
 */
static char *ev_expand(const char *tmpl)
{
	size_t cap = 8192, len = 0;
	char *out, name[32], value[2048];
	const char *p, *end;

	if (!tmpl)
		return NULL;
	out = malloc(cap);
	if (!out)
		return NULL;
	for (p = tmpl; *p && len < cap - 1; ) {
		if (p[0] != '$' || p[1] != '{') {
			out[len++] = *p++;
			continue;
		}
		end = strchr(p, '}');
		if (!end || end - p - 2 >= (long)sizeof(name))
			goto bad;
		memcpy(name, p + 2, end - p - 2);
		name[end - p - 2] = '\0';
		if (ev_lookup(name, value, sizeof(value)))
			goto bad;
		len += snprintf(out + len, cap - len, "%s", value);
		if (len >= cap)
			goto bad;
		p = end + 1;
	}
	out[len] = '\0';
	return out;
bad:
	fprintf(stderr, "# bad template %s\n", tmpl);
	free(out);
	return NULL;
}

/* Appends the expansion of @tmpl to tracefs file @file; 0 or -errno. */
static int ev_define(const char *file, const char *tmpl)
{
	char *line = ev_expand(tmpl);
	int ret;

	if (!line)
		return -EINVAL;
	ret = tfs_append(file, line);
	free(line);
	return ret;
}

/* Whether tracefs has @file. */
static int ev_exists(const char *file)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", TRACEFS, file);
	return access(path, F_OK) == 0;
}

/*
 * What follows "EVENT: " on the only line of trace text @trace for EVENT,
 * up to the end of the line, malloc'ed; NULL if there is not exactly one.
 */
static char *ev_trace_line(const char *trace, const char *event)
{
	char needle[128];
	const char *at, *end;

	snprintf(needle, sizeof(needle), " %s: ", event);
	if (!trace || count_lines(trace, needle) != 1)
		return NULL;
	at = strstr(trace, needle) + strlen(needle);
	end = strchrnul(at, '\n');
	return strndup(at, end - at);
}

/* The hit count of @event in uprobe_profile, or -1; checks the path too. */
static long ev_profile_hits(const char *event)
{
	char *profile = tfs_read("uprobe_profile"), *line, *save = NULL;
	char path[4096], name[128];
	unsigned long hits;
	long found = -1;

	if (!profile)
		return -1;
	for (line = strtok_r(profile, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%4095s %127s %lu", path, name, &hits) != 3)
			continue;
		if (!strcmp(name, event) && !strcmp(path, self_path()))
			found = found < 0 ? (long)hits : -2;	/* -2: twice */
	}
	free(profile);
	return found;
}

/* ---------------------------------------------------------------- events */

FIXTURE(events) {
	unsigned long offset;
};

FIXTURE_SETUP(events)
{
	tracing_reset();
	self->offset = self_offset(target_add);
	ASSERT_NE(0UL, self->offset);
}

FIXTURE_TEARDOWN(events)
{
	tfs_write("instances/" INSTANCE "/events/enable", "0");
	rmdir(TRACEFS "/instances/" INSTANCE);
	tracing_reset();
}

TEST_F(events, create_list_delete)
{
	char *list;

	ASSERT_EQ(0, uprobe_event_add("p:utest/add %s:0x%lx", self_path(), self->offset));
	list = tfs_read("uprobe_events");
	ASSERT_NE(NULL, list);
	EXPECT_EQ(1, count_lines(list, "p:utest/add "));
	free(list);
	ASSERT_EQ(0, uprobe_event_add("-:utest/add"));
	list = tfs_read("uprobe_events");
	ASSERT_NE(NULL, list);
	EXPECT_STREQ("", list);
	free(list);
}

TEST_F(events, hit_is_traced)
{
	char *trace;
	int i;

	ASSERT_EQ(0, uprobe_event_add("p:utest/add %s:0x%lx a=%s:s64 b=%s:s64",
				      self_path(), self->offset, ARG0_REG, ARG1_REG));
	ASSERT_EQ(0, event_enable("utest", "add", 1));
	for (i = 0; i < 3; i++)
		target_add(40, i);
	ASSERT_EQ(0, event_enable("utest", "add", 0));
	trace = trace_read();
	ASSERT_NE(NULL, trace);
	EXPECT_EQ(3, count_lines(trace, " add: ("));
	EXPECT_EQ(1, count_lines(trace, "a=40 b=2"));
	free(trace);
}

/* -:GRP/EVENT removes that event; -:EVENT removes EVENT of every group. */
TEST_F(events, delete_forms)
{
	char *list, *want;

	ASSERT_EQ(0, ev_define("uprobe_events", "p:utest/a ${path}:${six}"));
	ASSERT_EQ(0, ev_define("uprobe_events", "p:utest/b ${path}:${rec}"));
	ASSERT_EQ(0, ev_define("uprobe_events", "p:uprobes/c ${path}:${six}"));
	ASSERT_EQ(0, ev_define("uprobe_events", "p:utest2/a ${path}:${rec}"));

	ASSERT_EQ(0, uprobe_event_add("-:utest/b"));
	EXPECT_FALSE(ev_exists("events/utest/b"));
	want = ev_expand("p:utest/a ${path}:0x${six16}\n"
		      "p:uprobes/c ${path}:0x${six16}\n"
		      "p:utest2/a ${path}:0x${rec16}\n");
	list = tfs_read("uprobe_events");
	ASSERT_NE(NULL, want);
	ASSERT_STREQ(want, list);
	free(want);
	free(list);

	/* c is in group uprobes, not utest. */
	EXPECT_EQ(-ENOENT, uprobe_event_add("-:utest/c"));
	EXPECT_EQ(-ENOENT, uprobe_event_add("-:utest/nothere"));
	EXPECT_EQ(-ENOENT, uprobe_event_add("-:nothere"));
	EXPECT_TRUE(ev_exists("events/uprobes/c"));
	ASSERT_EQ(0, uprobe_event_add("-:c"));
	EXPECT_FALSE(ev_exists("events/uprobes/c"));

	/* Both utest/a and utest2/a go. */
	ASSERT_EQ(0, uprobe_event_add("-:a"));
	list = tfs_read("uprobe_events");
	EXPECT_STREQ("", list);
	free(list);
	EXPECT_FALSE(ev_exists("events/utest"));
	EXPECT_FALSE(ev_exists("events/utest2"));
}

/* Truncating uprobe_events ("echo > uprobe_events") removes every event. */
TEST_F(events, clear_all)
{
	char *list;

	ASSERT_EQ(0, ev_define("uprobe_events", "p:utest/a ${path}:${six}"));
	ASSERT_EQ(0, ev_define("uprobe_events", "r:utest/b ${path}:${six}"));
	ASSERT_EQ(0, ev_define("uprobe_events", "p ${path}:${rec}"));
	ASSERT_EQ(0, tfs_write("uprobe_events", "\n"));
	list = tfs_read("uprobe_events");
	EXPECT_STREQ("", list);
	free(list);
	EXPECT_FALSE(ev_exists("events/utest"));
	EXPECT_FALSE(ev_exists("events/uprobes"));

	ASSERT_EQ(0, ev_define("uprobe_events", "p:utest/a ${path}:${six}"));
	ASSERT_EQ(0, tfs_write("uprobe_events", ""));
	list = tfs_read("uprobe_events");
	EXPECT_STREQ("", list);
	free(list);
	EXPECT_FALSE(ev_exists("events/utest"));
}

/*
 * A second definition with the same GRP/EVENT and the same arguments at
 * another place adds a probe to the event; both places trace as it.
 */
TEST_F(events, same_name_adds_probe)
{
	char *list, *want, *trace, a[128], b[128];

	ASSERT_EQ(0, ev_define("uprobe_events", "p:utest/m ${path}:${six} x=${reg0}"));
	ASSERT_EQ(0, ev_define("uprobe_events", "p:utest/m ${path}:${rec} x=${reg0}"));
	want = ev_expand("p:utest/m ${path}:0x${six16} x=${reg0}\n"
		      "p:utest/m ${path}:0x${rec16} x=${reg0}\n");
	list = tfs_read("uprobe_events");
	ASSERT_NE(NULL, want);
	ASSERT_STREQ(want, list);
	free(want);
	free(list);

	ASSERT_EQ(0, event_enable("utest", "m", 1));
	call_target(SIX);
	call_target(REC);
	ASSERT_EQ(0, event_enable("utest", "m", 0));
	trace = trace_read();
	ASSERT_NE(NULL, trace);
	EXPECT_EQ(2, count_lines(trace, " m: "));
	snprintf(a, sizeof(a), " m: (%p) x=0xffffffffffffffff", target_six);
	snprintf(b, sizeof(b), " m: (%p) x=%p", target_rec, &g_rec);
	EXPECT_EQ(1, count_lines(trace, a));
	EXPECT_EQ(1, count_lines(trace, b));
	free(trace);

	ASSERT_EQ(0, uprobe_event_add("-:utest/m"));
	list = tfs_read("uprobe_events");
	EXPECT_STREQ("", list);
	free(list);
}

/*
 * The trace line: "COMM-PID [CPU] FLAGS TIME: EVENT: (0xADDR) ARGS" for an
 * entry, "(0xRET <- 0xFUNC)" for a return, with the run-time address of
 * the function and of the instruction after the call.
 */
TEST_F(events, trace_line_format)
{
	char *trace, *line, want[128], task[32];

	/* The return address: right after a call to target_six. */
	learn_call_site(SIX);
	ASSERT_EQ((unsigned long)target_six, call_target_before(call_ret));

	ASSERT_EQ(0, ev_define("uprobe_events", "p:utest/in ${path}:${six}"));
	ASSERT_EQ(0, ev_define("uprobe_events", "r:utest/out ${path}:${six}"));
	ASSERT_EQ(0, tfs_write("events/utest/enable", "1"));
	call_target(SIX);
	ASSERT_EQ(0, tfs_write("events/utest/enable", "0"));

	trace = trace_read();
	ASSERT_NE(NULL, trace);
	line = ev_trace_line(trace, "in");
	snprintf(want, sizeof(want), "(%p)", target_six);
	ASSERT_NE(NULL, line);
	EXPECT_STREQ(want, line);
	free(line);
	line = ev_trace_line(trace, "out");
	snprintf(want, sizeof(want), "(0x%lx <- %p)", call_ret, target_six);
	ASSERT_NE(NULL, line);
	EXPECT_STREQ(want, line);
	free(line);

	/*
	 * Entry first, and both by this task: by its pid, since ftrace may
	 * not have recorded its name yet ("<...>-PID").
	 */
	ASSERT_NE(NULL, strstr(trace, " in: "));
	ASSERT_NE(NULL, strstr(trace, " out: "));
	EXPECT_LT(strstr(trace, " in: "), strstr(trace, " out: "));
	snprintf(task, sizeof(task), "-%d ", getpid());
	EXPECT_EQ(2, count_lines(trace, task));
	free(trace);
}

/* uprobe_profile counts the hits of each event while it is enabled. */
TEST_F(events, profile_counts)
{
	int i;

	ASSERT_EQ(0, ev_define("uprobe_events", "p:utest/pa ${path}:${six}"));
	ASSERT_EQ(0, ev_define("uprobe_events", "r:utest/pr ${path}:${six}"));
	ASSERT_EQ(0, ev_define("uprobe_events", "p:utest/pb ${path}:${rec}"));
	ASSERT_EQ(0, uprobe_event_add("p:utest/pz %s:0x%lx", self_path(), self->offset));
	EXPECT_EQ(0, ev_profile_hits("pa"));
	EXPECT_EQ(0, ev_profile_hits("pz"));

	/* Not counted: nothing is enabled yet. */
	for (i = 0; i < 2; i++)
		call_target(SIX);
	ASSERT_EQ(0, tfs_write("events/utest/enable", "1"));
	for (i = 0; i < 5; i++)
		call_target(SIX);
	for (i = 0; i < 3; i++)
		call_target(REC);
	ASSERT_EQ(0, tfs_write("events/utest/enable", "0"));
	/* Not counted: disabled again. */
	call_target(SIX);
	call_target(REC);

	EXPECT_EQ(5, ev_profile_hits("pa"));
	EXPECT_EQ(5, ev_profile_hits("pr"));
	EXPECT_EQ(3, ev_profile_hits("pb"));
	EXPECT_EQ(0, ev_profile_hits("pz"));
}

/*
 * A probe fires in every mapping of its file, and @+OFFSET is relative to
 * the mapping that hit: here the whole file mapped once more, where OFFSET
 * holds what the file holds, not what the running program has since
 * stored.  @ADDR stays an address of the process.
 */
TEST_F(events, file_offset_per_mapping)
{
	unsigned long leaf = self_offset(target_leaf), size, in_file;
	long (*alias)(long x);
	char *trace, want[256];
	struct stat st;
	void *map;
	int fd;

	fd = open(self_path(), O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fstat(fd, &st));
	size = st.st_size;
	map = mmap(NULL, size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	/* What the file holds where OFFSET points, for the alias to read. */
	ASSERT_EQ(8, pread(fd, &in_file, 8, link_addr(&g_u64)));
	close(fd);
	ASSERT_NE(MAP_FAILED, map);
	alias = (long (*)(long))((char *)map + leaf);
	ASSERT_EQ(8, alias(7));
	ASSERT_NE(0x1122UL, in_file);

	ASSERT_EQ(0, uprobe_event_add("p:utest/fo %s:0x%lx a=@+0x%lx b=@%p ip=%s", self_path(),
				      leaf, link_addr(&g_u64), &g_u64, IP_REG));
	g_u64 = 0x1122;
	ASSERT_EQ(0, event_enable("utest", "fo", 1));
	target_leaf(1);
	alias(1);
	ASSERT_EQ(0, event_enable("utest", "fo", 0));
	g_u64 = 0x8182838485868788UL;

	trace = trace_read();
	ASSERT_NE(NULL, trace);
	EXPECT_EQ(2, count_lines(trace, " fo: ("));
	snprintf(want, sizeof(want), " fo: (%p) a=0x1122 b=0x1122 ip=%p\n", target_leaf,
		 target_leaf);
	EXPECT_NE(NULL, strstr(trace, want)) TH_LOG("no \"%s\" in\n%s", want, trace);
	snprintf(want, sizeof(want), " fo: (%p) a=0x%lx b=0x1122 ip=%p\n", alias, in_file,
		 alias);
	EXPECT_NE(NULL, strstr(trace, want)) TH_LOG("no \"%s\" in\n%s", want, trace);
	free(trace);
	munmap(map, size);
}

/* dynamic_events and uprobe_events are two views of the same events. */
TEST_F(events, dynamic_events)
{
	char *list, *dyn, *want, *trace;

	ASSERT_EQ(0, ev_define("dynamic_events", "p:utest/d ${path}:${six} x=${reg0}"));
	ASSERT_EQ(0, ev_define("uprobe_events", "r:utest/u ${path}:${rec} y=$retval"));
	ASSERT_EQ(0, ev_define("dynamic_events", "p ${path}:${six}"));
	want = ev_expand("p:utest/d ${path}:0x${six16} x=${reg0}\n"
		      "r:utest/u ${path}:0x${rec16} y=$retval\n"
		      "p:uprobes/${defname} ${path}:0x${six16}\n");
	list = tfs_read("uprobe_events");
	dyn = tfs_read("dynamic_events");
	ASSERT_NE(NULL, want);
	EXPECT_STREQ(want, list);
	EXPECT_STREQ(want, dyn);
	free(want);
	free(list);
	free(dyn);

	/* The event made through dynamic_events traces. */
	ASSERT_EQ(0, event_enable("utest", "d", 1));
	call_target(SIX);
	ASSERT_EQ(0, event_enable("utest", "d", 0));
	trace = trace_read();
	ASSERT_NE(NULL, trace);
	EXPECT_EQ(1, count_lines(trace, " d: ("));
	EXPECT_EQ(1, count_lines(trace, ") x=0xffffffffffffffff"));
	free(trace);

	/* Deleting through dynamic_events an event of uprobe_events. */
	ASSERT_EQ(0, tfs_append("dynamic_events", "-:utest/u"));
	EXPECT_EQ(-ENOENT, tfs_append("dynamic_events", "-:utest/u"));
	want = ev_expand("p:utest/d ${path}:0x${six16} x=${reg0}\n"
		      "p:uprobes/${defname} ${path}:0x${six16}\n");
	list = tfs_read("uprobe_events");
	ASSERT_NE(NULL, want);
	EXPECT_STREQ(want, list);
	free(want);
	free(list);
	EXPECT_FALSE(ev_exists("events/utest/u"));

	ASSERT_EQ(0, tfs_append("dynamic_events", "-:utest/d"));
	ASSERT_EQ(0, tfs_write("dynamic_events", ""));
	list = tfs_read("uprobe_events");
	dyn = tfs_read("dynamic_events");
	EXPECT_STREQ("", list);
	EXPECT_STREQ("", dyn);
	free(list);
	free(dyn);
}

/*
 * An enabled event can be neither deleted nor cleared (EBUSY), through
 * either file; every event stays, and the enabled one keeps tracing.
 */
TEST_F(events, busy_while_enabled)
{
	char *before, *after, *trace;

	ASSERT_EQ(0, ev_define("uprobe_events", "p:utest/on ${path}:${six}"));
	ASSERT_EQ(0, ev_define("uprobe_events", "p:utest/off ${path}:${rec}"));
	ASSERT_EQ(0, event_enable("utest", "on", 1));
	before = tfs_read("uprobe_events");
	ASSERT_NE(NULL, before);

	EXPECT_EQ(-EBUSY, uprobe_event_add("-:utest/on"));
	EXPECT_EQ(-EBUSY, uprobe_event_add("-:on"));
	EXPECT_EQ(-EBUSY, tfs_write("uprobe_events", ""));
	EXPECT_EQ(-EBUSY, tfs_write("uprobe_events", "\n"));
	EXPECT_EQ(-EBUSY, tfs_append("dynamic_events", "-:utest/on"));
	EXPECT_EQ(-EBUSY, tfs_write("dynamic_events", ""));
	after = tfs_read("uprobe_events");
	EXPECT_STREQ(before, after);
	free(after);
	EXPECT_TRUE(ev_exists("events/utest/on/enable"));
	EXPECT_TRUE(ev_exists("events/utest/off/enable"));

	call_target(SIX);
	trace = trace_read();
	ASSERT_NE(NULL, trace);
	EXPECT_EQ(1, count_lines(trace, " on: ("));
	free(trace);

	/* The disabled one can go on its own, the other once disabled. */
	EXPECT_EQ(0, uprobe_event_add("-:utest/off"));
	ASSERT_EQ(0, event_enable("utest", "on", 0));
	EXPECT_EQ(0, uprobe_event_add("-:utest/on"));
	after = tfs_read("uprobe_events");
	EXPECT_STREQ("", after);
	free(after);
	free(before);
}

/*
 * An event enabled in a trace instance records into that instance's
 * buffer only, and is busy there too.
 */
TEST_F(events, instance_buffer)
{
	char *top, *inst;
	int i;

	rmdir(TRACEFS "/instances/" INSTANCE);
	ASSERT_EQ(0, mkdir(TRACEFS "/instances/" INSTANCE, 0755));
	ASSERT_EQ(0, ev_define("uprobe_events", "p:utest/ev ${path}:${six}"));
	ASSERT_TRUE(ev_exists("instances/" INSTANCE "/events/utest/ev/enable"));
	ASSERT_EQ(0, tfs_write("instances/" INSTANCE "/events/utest/ev/enable", "1"));
	for (i = 0; i < 3; i++)
		call_target(SIX);
	EXPECT_EQ(-EBUSY, uprobe_event_add("-:utest/ev"));
	ASSERT_EQ(0, tfs_write("instances/" INSTANCE "/events/utest/ev/enable", "0"));

	/* And the other way round: the top buffer only. */
	ASSERT_EQ(0, event_enable("utest", "ev", 1));
	call_target(SIX);
	ASSERT_EQ(0, event_enable("utest", "ev", 0));

	top = trace_read();
	inst = tfs_read("instances/" INSTANCE "/trace");
	ASSERT_NE(NULL, top);
	ASSERT_NE(NULL, inst);
	EXPECT_EQ(1, count_lines(top, " ev: ("));
	EXPECT_EQ(3, count_lines(inst, " ev: ("));
	free(top);
	free(inst);

	ASSERT_EQ(0, uprobe_event_add("-:utest/ev"));
	EXPECT_FALSE(ev_exists("instances/" INSTANCE "/events/utest"));
	EXPECT_EQ(0, rmdir(TRACEFS "/instances/" INSTANCE));
}

/* --------------------------------------------------------------- listing */

/*
 * A definition is listed back in canonical form: "p:" or "r:", GRP/EVENT,
 * PATH:0x and the offset in 16 hex digits, and each argument as NAME=TEXT
 * (argN for unnamed argument N), whatever the spacing of the input.
 */
FIXTURE(listing) {};

FIXTURE_VARIANT(listing) {
	const char *input;	/* written to uprobe_events */
	const char *listed;	/* read back, lines without the last '\n' */
};

FIXTURE_SETUP(listing)
{
	tracing_reset();
}

FIXTURE_TEARDOWN(listing)
{
	tracing_reset();
}

FIXTURE_VARIANT_ADD(listing, group_event) {
	.input = "p:utest/ev ${path}:${six}",
	.listed = "p:utest/ev ${path}:0x${six16}",
};

FIXTURE_VARIANT_ADD(listing, dot_separates_group) {
	.input = "p:utest.ev ${path}:${six}",
	.listed = "p:utest/ev ${path}:0x${six16}",
};

FIXTURE_VARIANT_ADD(listing, default_group) {
	.input = "p:ev ${path}:${six}",
	.listed = "p:uprobes/ev ${path}:0x${six16}",
};

FIXTURE_VARIANT_ADD(listing, default_name) {
	.input = "p ${path}:${six}",
	.listed = "p:uprobes/${defname} ${path}:0x${six16}",
};

FIXTURE_VARIANT_ADD(listing, default_name_return) {
	.input = "r ${path}:${six}",
	.listed = "r:uprobes/${defname} ${path}:0x${six16}",
};

FIXTURE_VARIANT_ADD(listing, default_name_in_group) {
	.input = "p:utest/ ${path}:${six}",
	.listed = "p:utest/${defname} ${path}:0x${six16}",
};

FIXTURE_VARIANT_ADD(listing, return_event) {
	.input = "r:utest/ev ${path}:${six}",
	.listed = "r:utest/ev ${path}:0x${six16}",
};

FIXTURE_VARIANT_ADD(listing, percent_return) {
	.input = "p:utest/ev ${path}:${six}%return",
	.listed = "r:utest/ev ${path}:0x${six16}",
};

FIXTURE_VARIANT_ADD(listing, r_percent_return) {
	.input = "r:utest/ev ${path}:${six}%return $retval",
	.listed = "r:utest/ev ${path}:0x${six16} arg1=$retval",
};

FIXTURE_VARIANT_ADD(listing, decimal_offset) {
	.input = "p:utest/ev ${path}:${sixdec}",
	.listed = "p:utest/ev ${path}:0x${six16}",
};

FIXTURE_VARIANT_ADD(listing, upper_hex_offset) {
	.input = "p:utest/ev ${path}:${SIX}",
	.listed = "p:utest/ev ${path}:0x${six16}",
};

FIXTURE_VARIANT_ADD(listing, ref_ctr) {
	.input = "p:utest/ev ${path}:${six}(0x10)",
	.listed = "p:utest/ev ${path}:0x${six16}(0x10)",
};

FIXTURE_VARIANT_ADD(listing, arg_names) {
	.input = "p:utest/ev ${path}:${six} " EV_ARGS,
	.listed =
		"p:utest/ev ${path}:0x${six16} arg1=${reg0} x=${reg1} arg3=${reg2}:u32 arg4=$stack0 y=+8(${reg_sp}):x8",
};

FIXTURE_VARIANT_ADD(listing, spacing) {
	.input = "  p:utest/ev \t ${path}:${six}   ${reg0}\t  ${reg1}  ",
	.listed = "p:utest/ev ${path}:0x${six16} arg1=${reg0} arg2=${reg1}",
};

/* Every register the architecture names. */
#ifdef __aarch64__
FIXTURE_VARIANT_ADD(listing, registers) {
	.input =
		"p:utest/ev ${path}:${six} %x0 %x1 %x2 %x3 %x4 %x5 %x6 %x7 %x8 %x9 %x10 %x11 %x12 %x13 %x14 %x15 %x16 %x17 %x18 %x19 %x20 %x21 %x22 %x23 %x24 %x25 %x26 %x27 %x28 %x29 %x30 %lr %sp %pc %pstate",
	.listed =
		"p:utest/ev ${path}:0x${six16} arg1=%x0 arg2=%x1 arg3=%x2 arg4=%x3 arg5=%x4 arg6=%x5 arg7=%x6 arg8=%x7 arg9=%x8 arg10=%x9 arg11=%x10 arg12=%x11 arg13=%x12 arg14=%x13 arg15=%x14 arg16=%x15 arg17=%x16 arg18=%x17 arg19=%x18 arg20=%x19 arg21=%x20 arg22=%x21 arg23=%x22 arg24=%x23 arg25=%x24 arg26=%x25 arg27=%x26 arg28=%x27 arg29=%x28 arg30=%x29 arg31=%x30 arg32=%lr arg33=%sp arg34=%pc arg35=%pstate",
};
#else
FIXTURE_VARIANT_ADD(listing, registers) {
	.input =
		"p:utest/ev ${path}:${six} %di %si %dx %cx %r8 %r9 %r10 %r11 %r12 %r13 %r14 %r15 %ax %bx %bp %sp %ip %flags %cs %ss %orig_ax",
	.listed =
		"p:utest/ev ${path}:0x${six16} arg1=%di arg2=%si arg3=%dx arg4=%cx arg5=%r8 arg6=%r9 arg7=%r10 arg8=%r11 arg9=%r12 arg10=%r13 arg11=%r14 arg12=%r15 arg13=%ax arg14=%bx arg15=%bp arg16=%sp arg17=%ip arg18=%flags arg19=%cs arg20=%ss arg21=%orig_ax",
};
#endif

FIXTURE_VARIANT_ADD(listing, longest_names) {
	.input = "p:${G63}/${E63} ${path}:${six} ${A32}=${reg0}",
	.listed = "p:${G63}/${E63} ${path}:0x${six16} ${A32}=${reg0}",
};

FIXTURE_VARIANT_ADD(listing, most_args) {
	.input = "p:utest/ev ${path}:${six}${args128}",
	.listed = "p:utest/ev ${path}:0x${six16}${largs128}",
};

FIXTURE_VARIANT_ADD(listing, deepest_deref) {
	.input = "p:utest/ev ${path}:${six} ${nest14}",
	.listed = "p:utest/ev ${path}:0x${six16} arg1=${nest14}",
};

FIXTURE_VARIANT_ADD(listing, lines_and_comments) {
	.input = "# a comment\np:utest/a ${path}:${six}\n\nr:utest/b ${path}:${rec}\n",
	.listed = "p:utest/a ${path}:0x${six16}\nr:utest/b ${path}:0x${rec16}",
};

TEST_F(listing, read_back)
{
	char *want = ev_expand(variant->listed), *list, *dyn, *line, *save = NULL;
	char event[256], dir[300];
	int n;

	ASSERT_NE(NULL, want);
	ASSERT_EQ(0, ev_define("uprobe_events", variant->input));
	strcat(want, "\n");
	list = tfs_read("uprobe_events");
	dyn = tfs_read("dynamic_events");
	ASSERT_STREQ(want, list);
	ASSERT_STREQ(want, dyn);

	/* Each event has its directory in events/. */
	for (line = strtok_r(want, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		n = sscanf(line, "%*c:%255[^ ]", event);
		ASSERT_EQ(1, n);
		snprintf(dir, sizeof(dir), "events/%s/enable", event);
		EXPECT_TRUE(ev_exists(dir)) TH_LOG("no %s", dir);
	}
	free(want);
	free(list);
	free(dyn);
}

/* ----------------------------------------------------------------- fetch */

/*
 * Each fetch argument, typed, as traced by one call of call_target():
 * target_six(-1, 0x8182838485868788, 3, 4, 5, 6) or target_rec(&g_rec,
 * g_str).  The event is utest/fa.
 */
FIXTURE(fetch) {};

FIXTURE_VARIANT(fetch) {
	enum target target;	/* the function called */
	const char *probe;	/* the definition */
	const char *listed;	/* its line in uprobe_events */
	const char *traced;	/* what follows "fa: " in the trace */
};

FIXTURE_SETUP(fetch)
{
	tracing_reset();
}

FIXTURE_TEARDOWN(fetch)
{
	tracing_reset();
}

FIXTURE_VARIANT_ADD(fetch, arg_registers) {
	.target = SIX,
	.probe = "p:utest/fa ${path}:${six} " FA_ARGS,
	.listed = "p:utest/fa ${path}:0x${six16} " FA_ARGS,
	.traced = "(${six_addr}) a=0xffffffffffffffff b=0x8182838485868788 c=0x3 d=0x4 e=0x5 f=0x6",
};

FIXTURE_VARIANT_ADD(fetch, unnamed_args) {
	.target = SIX,
	.probe = "p:utest/fa ${path}:${six} ${reg0} ${reg1}:s64",
	.listed = "p:utest/fa ${path}:0x${six16} arg1=${reg0} arg2=${reg1}:s64",
	.traced = "(${six_addr}) arg1=0xffffffffffffffff arg2=-9114578090645354616",
};

/*
 * The frame at entry and at the return: on x86 the return address is the
 * top of the stack, which the return pops; on arm64 it is in the link
 * register, the stack holds the caller's words and the return pops none.
 */
#ifdef __aarch64__
FIXTURE_VARIANT_ADD(fetch, ip_sp_stack) {
	.target = SIX,
	.probe =
		"p:utest/fa ${path}:${six} ip=%pc sp=%sp st=$stack s0=$stack0 s1=$stack1 top=+0($stack) fp=%x29 lr=%lr",
	.listed =
		"p:utest/fa ${path}:0x${six16} ip=%pc sp=%sp st=$stack s0=$stack0 s1=$stack1 top=+0($stack) fp=%x29 lr=%lr",
	.traced =
		"(${six_addr}) ip=${six_addr} sp=${sp} st=${sp} s0=${stack0} s1=${stack1} top=${stack0} fp=${bp} lr=${ret}",
};

FIXTURE_VARIANT_ADD(fetch, retval) {
	.target = SIX,
	.probe = "r:utest/fa ${path}:${six} rv=$retval x0=%x0 s=$retval:s32 ip=%pc sp=%sp",
	.listed = "r:utest/fa ${path}:0x${six16} rv=$retval x0=%x0 s=$retval:s32 ip=%pc sp=%sp",
	.traced =
		"(${ret} <- ${six_addr}) rv=0x8182838485868799 x0=0x8182838485868799 s=-2054781031 ip=${ret} sp=${sp}",
};
#else
FIXTURE_VARIANT_ADD(fetch, ip_sp_stack) {
	.target = SIX,
	.probe =
		"p:utest/fa ${path}:${six} ip=%ip sp=%sp st=$stack s0=$stack0 s1=$stack1 top=+0($stack) bp=%bp cs=%cs ss=%ss",
	.listed =
		"p:utest/fa ${path}:0x${six16} ip=%ip sp=%sp st=$stack s0=$stack0 s1=$stack1 top=+0($stack) bp=%bp cs=%cs ss=%ss",
	.traced =
		"(${six_addr}) ip=${six_addr} sp=${sp} st=${sp} s0=${ret} s1=${stack1} top=${ret} bp=${bp} cs=0x33 ss=0x2b",
};

FIXTURE_VARIANT_ADD(fetch, retval) {
	.target = SIX,
	.probe = "r:utest/fa ${path}:${six} rv=$retval ax=%ax s=$retval:s32 ip=%ip sp=%sp",
	.listed = "r:utest/fa ${path}:0x${six16} rv=$retval ax=%ax s=$retval:s32 ip=%ip sp=%sp",
	.traced =
		"(${ret} <- ${six_addr}) rv=0x8182838485868799 ax=0x8182838485868799 s=-2054781031 ip=${ret} sp=${sp8}",
};
#endif

FIXTURE_VARIANT_ADD(fetch, retval_percent_return) {
	.target = REC,
	.probe = "p:utest/fa ${path}:${rec}%return rv=$retval:s64 b=$retval:u8",
	.listed = "r:utest/fa ${path}:0x${rec16} rv=$retval:s64 b=$retval:u8",
	.traced = "(${ret} <- ${rec_addr}) rv=146 b=146",
};

FIXTURE_VARIANT_ADD(fetch, comm) {
	.target = SIX,
	.probe = "p:utest/fa ${path}:${six} c=$comm d=$comm:string",
	.listed = "p:utest/fa ${path}:0x${six16} c=$comm d=$comm:string",
	.traced = "(${six_addr}) c=\"${comm}\" d=\"${comm}\"",
};

FIXTURE_VARIANT_ADD(fetch, immediates) {
	.target = SIX,
	.probe =
		"p:utest/fa ${path}:${six} a=\\123 b=\\0x10 c=\\-1 d=\\-1:s8 e=\\0x1ff:u8 f=\\65:char g=\\010",
	.listed =
		"p:utest/fa ${path}:0x${six16} a=\\123 b=\\0x10 c=\\-1 d=\\-1:s8 e=\\0x1ff:u8 f=\\65:char g=\\010",
	.traced = "(${six_addr}) a=0x7b b=0x10 c=0xffffffffffffffff d=-1 e=255 f='A' g=0x8",
};

FIXTURE_VARIANT_ADD(fetch, unsigned_types) {
	.target = SIX,
	.probe =
		"p:utest/fa ${path}:${six} a=${reg1}:u8 b=${reg1}:u16 c=${reg1}:u32 d=${reg1}:u64 e=${reg0}:u8 f=${reg0}:u32 g=${reg0}:u64",
	.listed =
		"p:utest/fa ${path}:0x${six16} a=${reg1}:u8 b=${reg1}:u16 c=${reg1}:u32 d=${reg1}:u64 e=${reg0}:u8 f=${reg0}:u32 g=${reg0}:u64",
	.traced =
		"(${six_addr}) a=136 b=34696 c=2240186248 d=9332165983064197000 e=255 f=4294967295 g=18446744073709551615",
};

FIXTURE_VARIANT_ADD(fetch, signed_types) {
	.target = SIX,
	.probe =
		"p:utest/fa ${path}:${six} a=${reg1}:s8 b=${reg1}:s16 c=${reg1}:s32 d=${reg1}:s64 e=${reg0}:s8 f=${reg0}:s16 g=${reg2}:s32",
	.listed =
		"p:utest/fa ${path}:0x${six16} a=${reg1}:s8 b=${reg1}:s16 c=${reg1}:s32 d=${reg1}:s64 e=${reg0}:s8 f=${reg0}:s16 g=${reg2}:s32",
	.traced =
		"(${six_addr}) a=-120 b=-30840 c=-2054781048 d=-9114578090645354616 e=-1 f=-1 g=3",
};

FIXTURE_VARIANT_ADD(fetch, hex_types) {
	.target = SIX,
	.probe =
		"p:utest/fa ${path}:${six} a=${reg1}:x8 b=${reg1}:x16 c=${reg1}:x32 d=${reg1}:x64 e=${reg1} f=${reg2}:x8 g=${reg0}:x16",
	.listed =
		"p:utest/fa ${path}:0x${six16} a=${reg1}:x8 b=${reg1}:x16 c=${reg1}:x32 d=${reg1}:x64 e=${reg1} f=${reg2}:x8 g=${reg0}:x16",
	.traced =
		"(${six_addr}) a=0x88 b=0x8788 c=0x85868788 d=0x8182838485868788 e=0x8182838485868788 f=0x3 g=0xffff",
};

/* @ADDR: an address in the probed process. */
FIXTURE_VARIANT_ADD(fetch, at_address) {
	.target = SIX,
	.probe =
		"p:utest/fa ${path}:${six} a=@${g_u64} b=@${g_u64}:u8 c=@${g_str}:string d=+8(@${g_recp}) e=+0(+8(@${g_recp})):s64",
	.listed =
		"p:utest/fa ${path}:0x${six16} a=@${g_u64} b=@${g_u64}:u8 c=@${g_str}:string d=+8(@${g_recp}) e=+0(+8(@${g_recp})):s64",
	.traced = "(${six_addr}) a=0x8182838485868788 b=136 c=\"hello-global\" d=${g_arr2} e=33",
};

/* @+OFFSET: relative to the probed file's load address. */
FIXTURE_VARIANT_ADD(fetch, at_file_offset) {
	.target = REC,
	.probe =
		"p:utest/fa ${path}:${rec} a=@+${g_u64_link} b=@+${g_str_link}:string c=@+${g_u64_link}:s16",
	.listed =
		"p:utest/fa ${path}:0x${rec16} a=@+${g_u64_link} b=@+${g_str_link}:string c=@+${g_u64_link}:s16",
	.traced = "(${rec_addr}) a=0x8182838485868788 b=\"hello-global\" c=-30840",
};

FIXTURE_VARIANT_ADD(fetch, dereference) {
	.target = REC,
	.probe =
		"p:utest/fa ${path}:${rec} a=+0(${reg0}) p=+8(${reg0}) v=+0(+8(${reg0})) m=-8(+8(${reg0})) n=+0x8(+8(${reg0})):s32 u=+u0(${reg0}):u16",
	.listed =
		"p:utest/fa ${path}:0x${rec16} a=+0(${reg0}) p=+8(${reg0}) v=+0(+8(${reg0})) m=-8(+8(${reg0})) n=+0x8(+8(${reg0})):s32 u=+u0(${reg0}):u16",
	.traced = "(${rec_addr}) a=0x2a p=${g_arr2} v=0x21 m=0x16 n=44 u=42",
};

FIXTURE_VARIANT_ADD(fetch, strings) {
	.target = REC,
	.probe =
		"p:utest/fa ${path}:${rec} s=+0(${reg1}):string u=+0(${reg1}):ustring n=+16(${reg0}):string t=+6(${reg1}):string",
	.listed =
		"p:utest/fa ${path}:0x${rec16} s=+0(${reg1}):string u=+0(${reg1}):ustring n=+16(${reg0}):string t=+6(${reg1}):string",
	.traced = "(${rec_addr}) s=\"hello-global\" u=\"hello-global\" n=\"inner\" t=\"global\"",
};

/* A fetch from an unmapped address: "(fault)" for a string, 0 else. */
FIXTURE_VARIANT_ADD(fetch, faults) {
	.target = SIX,
	.probe =
		"p:utest/fa ${path}:${six} s=+0(${reg0}):string u=+0(${reg0}):ustring x=+0(${reg0}):x64 y=+8(${reg2}):u8",
	.listed =
		"p:utest/fa ${path}:0x${six16} s=+0(${reg0}):string u=+0(${reg0}):ustring x=+0(${reg0}):x64 y=+8(${reg2}):u8",
	.traced = "(${six_addr}) s=(fault) u=(fault) x=0x0 y=0",
};

FIXTURE_VARIANT_ADD(fetch, bitfields) {
	.target = REC,
	.probe =
		"p:utest/fa ${path}:${rec} d=+32(${reg0}):b4@4/32 e=+32(${reg0}):b8@24/32 f=+32(${reg0}):b1@31/32 g=+32(${reg0}):b16@0/16 o=+32(${reg0}):b3@1/8 h=+32(${reg0}):x32",
	.listed =
		"p:utest/fa ${path}:0x${rec16} d=+32(${reg0}):b4@4/32 e=+32(${reg0}):b8@24/32 f=+32(${reg0}):b1@31/32 g=+32(${reg0}):b16@0/16 o=+32(${reg0}):b3@1/8 h=+32(${reg0}):x32",
	.traced = "(${rec_addr}) d=3 e=171 f=1 g=4660 o=2 h=0xabcd1234",
};

FIXTURE_VARIANT_ADD(fetch, register_bitfields) {
	.target = SIX,
	.probe = "p:utest/fa ${path}:${six} a=${reg1}:b8@8/64 b=${reg1}:b4@60/64 c=${reg2}:b2@0/8",
	.listed = "p:utest/fa ${path}:0x${six16} " BF_ARGS,
	.traced = "(${six_addr}) a=135 b=8 c=3",
};

FIXTURE_VARIANT_ADD(fetch, arrays_and_char) {
	.target = REC,
	.probe =
		"p:utest/fa ${path}:${rec} a=+0(${reg1}):u8[4] b=+16(${reg0}):char[5] c=+0(+8(${reg0})):x64[2] d=-8(+8(${reg0})):s64[3] e=+0(${reg1}):char",
	.listed =
		"p:utest/fa ${path}:0x${rec16} a=+0(${reg1}):u8[4] b=+16(${reg0}):char[5] c=+0(+8(${reg0})):x64[2] d=-8(+8(${reg0})):s64[3] e=+0(${reg1}):char",
	.traced =
		"(${rec_addr}) a={104,101,108,108} b={'i','n','n','e','r'} c={0x21,0x2c} d={22,33,44} e='h'",
};

TEST_F(fetch, traced)
{
	char *want_list = ev_expand(variant->listed), *want, *list, *trace, *line;

	ASSERT_NE(NULL, want_list);
	learn_call_site(variant->target);
	ASSERT_EQ(0, ev_define("uprobe_events", variant->probe));
	strcat(want_list, "\n");
	list = tfs_read("uprobe_events");
	ASSERT_STREQ(want_list, list);
	free(want_list);
	free(list);

	ASSERT_EQ(0, event_enable("utest", "fa", 1));
	call_target(variant->target);
	ASSERT_EQ(0, event_enable("utest", "fa", 0));

	/* After the call: the expectation names what the call saw. */
	want = ev_expand(variant->traced);
	ASSERT_NE(NULL, want);
	trace = trace_read();
	line = ev_trace_line(trace, "fa");
	ASSERT_NE(NULL, line) TH_LOG("trace:\n%s", trace);
	EXPECT_STREQ(want, line);
	free(want);
	free(line);
	free(trace);
}

/* ---------------------------------------------------------------- record */

/* How a hit is recorded, beyond the fetch table.  The event is utest/rc. */
FIXTURE(record) {};

FIXTURE_SETUP(record)
{
	tracing_reset();
}

FIXTURE_TEARDOWN(record)
{
	tracing_reset();
}

/*
 * A string in a page of a file that this process has mapped but never
 * touched: reading it needs a page fault, which the tracer takes.
 */
TEST_F(record, string_needs_a_page_fault)
{
	static const char text[] = "paged-in";
	char path[] = "/tmp/utest-record-XXXXXX", *line, *trace, want[128];
	const char *map;
	int fd;

	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	unlink(path);
	ASSERT_EQ(sizeof(text), write(fd, text, sizeof(text)));
	map = mmap(NULL, getpagesize(), PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, ev_define("uprobe_events", "p:utest/rc ${path}:${rec} s=+0(${reg1}):string"));
	ASSERT_EQ(0, event_enable("utest", "rc", 1));
	target_rec(&g_rec, map);
	ASSERT_EQ(0, event_enable("utest", "rc", 0));
	trace = trace_read();
	line = ev_trace_line(trace, "rc");
	free(trace);
	ASSERT_NE(NULL, line);
	snprintf(want, sizeof(want), "(%p) s=\"%s\"", target_rec, text);
	EXPECT_STREQ(want, line);
	free(line);
	munmap((void *)map, getpagesize());
}

/*
 * A fetch that fails half-way (the inner pointer is bad) records nothing
 * of earlier hits: 0 for a number, "(fault)" for a string.  The first
 * call fills the buffers with what a good fetch gives.  (6.12 records
 * the earlier number again.)
 */
TEST_F(record, failed_fetch_leaves_nothing_stale)
{
	char *trace;
	int faulted;

	ASSERT_EQ(0, ev_define("uprobe_events",
			       "p:utest/rc ${path}:${six} " RC_ARGS));
	ASSERT_EQ(0, event_enable("utest", "rc", 1));
	target_six((long)&g_strp, 0, 0, 0, 0, 0);
	call_target(SIX);	/* %di is -1 */
	ASSERT_EQ(0, event_enable("utest", "rc", 0));
	trace = trace_read();
	ASSERT_NE(NULL, trace);
	EXPECT_EQ(2, count_lines(trace, " rc: ("));
	/* "hell" as a little-endian u32 */
	EXPECT_EQ(1, count_lines(trace, " s=\"hello-global\" n=1819043176")) TH_LOG("%s", trace);
	faulted = count_lines(trace, " s=(fault) n=0");
	if (faulted != 1)
		TH_LOG("%s", trace);
	free(trace);
	EXPECT_EQ(1, faulted);
}

/*
 * A place added to an enabled event records at once.  (6.12 arms it
 * only when the event is next enabled.)
 */
TEST_F(record, place_added_to_enabled_event)
{
	char *trace;
	int records;

	ASSERT_EQ(0, ev_define("uprobe_events", "p:utest/rc ${path}:${six} x=${reg0}"));
	ASSERT_EQ(0, event_enable("utest", "rc", 1));
	ASSERT_EQ(0, ev_define("uprobe_events", "p:utest/rc ${path}:${rec} x=${reg0}"));
	call_target(SIX);
	call_target(REC);
	ASSERT_EQ(0, event_enable("utest", "rc", 0));
	trace = trace_read();
	ASSERT_NE(NULL, trace);
	records = count_lines(trace, " rc: (");
	if (records != 2)
		TH_LOG("%s", trace);
	free(trace);
	EXPECT_EQ(2, records);
}

/* A thread of the test below: one call of target_rec(), pinned to CPU 0. */
struct rec_caller {
	pthread_t thread;
	const char *str;	/* target_rec()'s string */
	int done[2];		/* a pipe, written when the call returned */
};

static void *rec_caller_run(void *arg)
{
	struct rec_caller *c = arg;

	if (!pin_to_cpu(0))
		target_rec(&g_rec, c->str);
	if (write(c->done[1], "d", 1) != 1)
		return NULL;
	return c;
}

static int rec_caller_start(struct rec_caller *c, const char *str)
{
	c->str = str;
	if (pipe(c->done))
		return -1;
	return pthread_create(&c->thread, NULL, rec_caller_run, c);
}

/* Whether @c's call returned within @ms milliseconds. */
static bool rec_caller_returned(struct rec_caller *c, int ms)
{
	struct pollfd pfd = { .fd = c->done[0], .events = POLLIN };

	return poll(&pfd, 1, ms) == 1;
}

static void rec_caller_end(struct rec_caller *c)
{
	pthread_join(c->thread, NULL);
	close(c->done[0]);
	close(c->done[1]);
}

/* A userfaultfd on one missing page at @page; the fd, or -1. */
static int slow_page(void *page)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {
		.range = { .start = (unsigned long)page, .len = getpagesize() },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	int fd = syscall(__NR_userfaultfd, O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (ioctl(fd, UFFDIO_API, &api) || ioctl(fd, UFFDIO_REGISTER, &reg)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Waits for the fault on @fd's page, then fills the page with @text. */
static int serve_slow_page(int fd, void *page, const char *text)
{
	char *src = calloc(1, getpagesize());
	struct uffdio_copy copy = {
		.dst = (unsigned long)page,
		.len = getpagesize(),
	};
	struct uffd_msg msg;
	int err = -1;

	if (!src)
		return -1;
	snprintf(src, getpagesize(), "%s", text);
	copy.src = (unsigned long)src;
	if (read(fd, &msg, sizeof(msg)) == sizeof(msg) && msg.event == UFFD_EVENT_PAGEFAULT)
		err = ioctl(fd, UFFDIO_COPY, &copy);
	free(src);
	return err;
}

/*
 * Maps a page that userfaultfd holds back, enables utest/rc, which reads
 * its string argument from there, and starts @held's call, whose hit then
 * waits for the page.  The userfaultfd; *@page is the page.
 */
static int start_held_hit(struct __test_metadata *_metadata, struct rec_caller *held,
			  void **page)
{
	int uffd;

	*page = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, *page);
	uffd = slow_page(*page);
	ASSERT_LE(0, uffd) TH_LOG("no userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, ev_define("uprobe_events", "p:utest/rc ${path}:${rec} s=+0(${reg1}):string"));
	ASSERT_EQ(0, event_enable("utest", "rc", 1));
	ASSERT_EQ(0, rec_caller_start(held, *page));
	usleep(200 * 1000);
	EXPECT_FALSE(rec_caller_returned(held, 0));
	return uffd;
}

/*
 * A task held in a page fault while its hit's arguments are fetched (the
 * page is a userfaultfd one, served only later) holds up no other task:
 * another hit on the same CPU is recorded meanwhile.  The held one is
 * recorded, string and all, once the page comes.
 */
TEST_F(record, fault_wait_holds_up_no_one)
{
	struct rec_caller held, other;
	bool returned;
	char *trace;
	void *page;
	int uffd;

	/* The first fetch waits for the page, on CPU 0... */
	uffd = start_held_hit(_metadata, &held, &page);
	/* ...while a second hit on CPU 0 goes through. */
	ASSERT_EQ(0, rec_caller_start(&other, g_str));
	returned = rec_caller_returned(&other, 5000);
	ASSERT_EQ(0, serve_slow_page(uffd, page, "slow-page"));
	EXPECT_TRUE(rec_caller_returned(&held, 5000));
	rec_caller_end(&held);
	rec_caller_end(&other);
	ASSERT_EQ(0, event_enable("utest", "rc", 0));

	trace = trace_read();
	ASSERT_NE(NULL, trace);
	EXPECT_EQ(1, count_lines(trace, " s=\"slow-page\"")) TH_LOG("%s", trace);
	EXPECT_EQ(1, count_lines(trace, " s=\"hello-global\"")) TH_LOG("%s", trace);
	EXPECT_TRUE(returned);
	free(trace);
	close(uffd);
	munmap(page, getpagesize());
}

/* A thread that disables utest/rc and writes to a pipe when it is done. */
struct rc_disabler {
	pthread_t thread;
	int done[2];
};

static void *rc_disabler_run(void *arg)
{
	struct rc_disabler *d = arg;

	event_enable("utest", "rc", 0);
	if (write(d->done[1], "d", 1) != 1)
		return NULL;
	return d;
}

/* Whether @d's disable returned within @ms milliseconds. */
static bool rc_disabler_returned(struct rc_disabler *d, int ms)
{
	struct pollfd pfd = { .fd = d->done[0], .events = POLLIN };

	return poll(&pfd, 1, ms) == 1;
}

/*
 * An event disabled while one of its hits waits in a page fault for its
 * arguments: the disable does not wait for that hit (6.12's does,
 * until the page comes), which then ends, its call returning right, and
 * the event is deleted at once.  Its probe is freed only once the hit is
 * over (KASAN would see a handler on freed memory).
 */
TEST_F(record, disable_while_a_hit_waits)
{
	struct rc_disabler d;
	struct rec_caller held;
	bool disabled;
	void *page;
	int uffd;

	uffd = start_held_hit(_metadata, &held, &page);
	ASSERT_EQ(0, pipe(d.done));
	ASSERT_EQ(0, pthread_create(&d.thread, NULL, rc_disabler_run, &d));
	disabled = rc_disabler_returned(&d, 10000);
	ASSERT_EQ(0, serve_slow_page(uffd, page, "slow-page"));
	EXPECT_TRUE(rec_caller_returned(&held, 5000));
	rec_caller_end(&held);
	pthread_join(d.thread, NULL);
	close(d.done[0]);
	close(d.done[1]);
	EXPECT_EQ(0, uprobe_event_add("-:utest/rc"));
	close(uffd);
	munmap(page, getpagesize());
	EXPECT_TRUE(disabled);
}

/*
 * "r10:GRP/EVENT": a kretprobe's MAXACTIVE after "r" is taken and means
 * nothing here; the event keeps its name.  (6.12 makes a default name
 * instead.)
 */
TEST_F(record, return_maxactive_ignored)
{
	char *want = ev_expand("r:utest/rc ${path}:0x${six16}\n"), *list;
	bool same;

	ASSERT_NE(NULL, want);
	ASSERT_EQ(0, ev_define("uprobe_events", "r10:utest/rc ${path}:${six}"));
	list = tfs_read("uprobe_events");
	ASSERT_NE(NULL, list);
	same = !strcmp(want, list);
	if (!same)
		TH_LOG("listed: %s", list);
	free(list);
	free(want);
	EXPECT_TRUE(same);
}

/* ------------------------------------------------------------------- bad */

/*
 * A refused line: the write fails with an errno, nothing of it remains,
 * and error_log holds one entry (or none) with the message and a caret
 * under the offending column of the command.
 */
FIXTURE(bad) {};

FIXTURE_VARIANT(bad) {
	const char *pre;	/* defined first, or NULL */
	const char *line;	/* the refused line */
	int err;		/* errno of the write */
	const char *msg;	/* error_log message, NULL: no entry */
	const char *at;		/* caret under this text's first place, NULL: at the end */
	int skip;		/* plus these columns */
};

FIXTURE_SETUP(bad)
{
	tracing_reset();
}

FIXTURE_TEARDOWN(bad)
{
	tracing_reset();
}

#define P "p:utest/ev ${path}:${six}"

/* The probe address. */
FIXTURE_VARIANT_ADD(bad, no_path) {
	.line = "p:utest/ev",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, no_path_no_name) {
	.line = "p",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, no_offset) {
	.line = "p:utest/ev ${path}",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, empty_offset) {
	.line = "p:utest/ev ${path}:",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, empty_path) {
	.line = "p:utest/ev :${six}",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, word_offset) {
	.line = "p:utest/ev ${path}:zz",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, negative_offset) {
	.line = "p:utest/ev ${path}:-5",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, bad_offset) {
	.line = "p:utest/ev ${path}:0x12z4",
	.err = EINVAL,
	.msg = "Invalid uprobe offset",
	.at = "0x12z4",
};

FIXTURE_VARIANT_ADD(bad, bad_suffix) {
	.line = P "%ret",
	.err = EINVAL,
	.msg = "Invalid probed address suffix",
	.at = "%ret",
};

FIXTURE_VARIANT_ADD(bad, no_such_file) {
	.line = "p:utest/ev ${path}.nonexistent:0x10",
	.err = ENOENT,
	.msg = "Failed to find the given file",
	.at = "${path}.nonexistent",
};

FIXTURE_VARIANT_ADD(bad, directory) {
	.line = "p:utest/ev ${dir}:0x10",
	.err = EINVAL,
	.msg = "Not a regular file",
	.at = "${dir}",
};

FIXTURE_VARIANT_ADD(bad, ref_ctr_open) {
	.line = P "(0x10",
	.err = EINVAL,
	.msg = "Reference counter brace is not closed",
};

FIXTURE_VARIANT_ADD(bad, ref_ctr_offset) {
	.line = P "(zz)",
	.err = EINVAL,
	.msg = "Invalid reference counter offset",
	.at = "zz)",
};

FIXTURE_VARIANT_ADD(bad, ref_ctr_suffix) {
	.line = P "(0x10)x",
	.err = EINVAL,
	.msg = "Reference counter has wrong suffix",
	.at = ")x",
	.skip = 1,
};

/* The command and the names. */
FIXTURE_VARIANT_ADD(bad, unknown_command) {
	.line = "x:utest/ev ${path}:${six}",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, unknown_command_q) {
	.line = "q ${path}:${six}",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, event_name) {
	.line = "p:utest/1ev ${path}:${six}",
	.err = EINVAL,
	.msg = "Event name must follow the same rules as C identifiers",
	.at = "1ev",
};

FIXTURE_VARIANT_ADD(bad, event_name_hyphen) {
	.line = "p:e-v ${path}:${six}",
	.err = EINVAL,
	.msg = "Event name must follow the same rules as C identifiers",
	.at = "e-v",
};

FIXTURE_VARIANT_ADD(bad, event_too_long) {
	.line = "p:utest/${E64} ${path}:${six}",
	.err = EINVAL,
	.msg = "Event name is too long",
	.at = "${E64}",
};

FIXTURE_VARIANT_ADD(bad, group_name) {
	.line = "p:1g/ev ${path}:${six}",
	.err = EINVAL,
	.msg = "Group name must follow the same rules as C identifiers",
	.at = "1g/",
};

FIXTURE_VARIANT_ADD(bad, group_missing) {
	.line = "p:/ev ${path}:${six}",
	.err = EINVAL,
	.msg = "Group name is not specified",
	.at = "/ev",
};

FIXTURE_VARIANT_ADD(bad, group_too_long) {
	.line = "p:${G64}/ev ${path}:${six}",
	.err = EINVAL,
	.msg = "Group name is too long",
	.at = "${G64}",
};

/* The same group/event again. */
FIXTURE_VARIANT_ADD(bad, same_probe) {
	.pre = P " a=${reg0}",
	.line = P " a=${reg0}",
	.err = EEXIST,
	.msg = "There is already the exact same probe event",
	.at = "p:utest",
};

FIXTURE_VARIANT_ADD(bad, other_args) {
	.pre = P " a=${reg0}",
	.line = "p:utest/ev ${path}:${rec} b=${reg0}",
	.err = EEXIST,
	.msg = "Argument type or name is different from existing probe",
	.at = "b=${reg0}",
};

FIXTURE_VARIANT_ADD(bad, other_type) {
	.pre = P " a=${reg0}",
	.line = "r:utest/ev ${path}:${rec} a=${reg0}",
	.err = EEXIST,
	.msg = "Probe type is different from existing probe",
	.at = "r:utest",
};

/* Deletion. */
FIXTURE_VARIANT_ADD(bad, delete_missing) {
	.line = "-:utest/nothere",
	.err = ENOENT,
};

FIXTURE_VARIANT_ADD(bad, delete_other_group) {
	.pre = "p:other/ev ${path}:${six}",
	.line = "-:utest/ev",
	.err = ENOENT,
};

FIXTURE_VARIANT_ADD(bad, delete_no_name) {
	.line = "-:",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, delete_bare) {
	.line = "-",
	.err = EINVAL,
};

/* Fetch arguments. */
FIXTURE_VARIANT_ADD(bad, register) {
	.line = P " %zz",
	.err = EINVAL,
	.msg = "Invalid register name",
	.at = "%zz",
};

FIXTURE_VARIANT_ADD(bad, register_eax) {
	.line = P " %eax",
	.err = EINVAL,
	.msg = "Invalid register name",
	.at = "%eax",
};

FIXTURE_VARIANT_ADD(bad, register_segment) {
	.line = P " %ds",
	.err = EINVAL,
	.msg = "Invalid register name",
	.at = "%ds",
};

FIXTURE_VARIANT_ADD(bad, fetcharg) {
	.line = P " ?x",
	.err = EINVAL,
	.msg = "Invalid fetch argument",
	.at = "?x",
};

FIXTURE_VARIANT_ADD(bad, fetcharg_bare_deref) {
	.line = P " 0x10(${reg0})",
	.err = EINVAL,
	.msg = "Invalid fetch argument",
	.at = "0x10(${reg0})",
};

FIXTURE_VARIANT_ADD(bad, variable) {
	.line = P " $foo",
	.err = EINVAL,
	.msg = "Invalid $-variable specified",
	.at = "$foo",
};

FIXTURE_VARIANT_ADD(bad, stack_number) {
	.line = P " $stackx",
	.err = EINVAL,
	.msg = "Invalid $-variable specified",
	.at = "$stackx",
};

FIXTURE_VARIANT_ADD(bad, retval_on_entry) {
	.line = P " $retval",
	.err = EINVAL,
	.msg = "$retval is not available on probe",
	.at = "$retval",
};

FIXTURE_VARIANT_ADD(bad, arg_on_uprobe) {
	.line = P " $arg1",
	.err = EINVAL,
	.msg = "$arg* can be used only on function entry or exit",
	.at = "$arg1",
};

FIXTURE_VARIANT_ADD(bad, symbol) {
	.line = P " @foo",
	.err = EINVAL,
	.msg = "Symbol is not available with uprobe",
	.at = "@foo",
};

FIXTURE_VARIANT_ADD(bad, file_offset) {
	.line = P " @+zz",
	.err = EINVAL,
	.msg = "Invalid file offset value",
	.at = "@+zz",
};

FIXTURE_VARIANT_ADD(bad, immediate) {
	.line = P " \\zz",
	.err = EINVAL,
	.msg = "Invalid immediate value",
	.at = "zz",
};

FIXTURE_VARIANT_ADD(bad, immediate_string) {
	.line = P " \\\"abc",
	.err = EINVAL,
	.msg = "String is not closed with '\"'",
};

FIXTURE_VARIANT_ADD(bad, comm_type) {
	.line = P " $comm:u32",
	.err = EINVAL,
	.msg = "$comm and immediate-string only accepts string type",
	.at = "u32",
};

FIXTURE_VARIANT_ADD(bad, comm_ustring) {
	.line = P " $comm:ustring",
	.err = EINVAL,
	.msg = "$comm and immediate-string only accepts string type",
	.at = "ustring",
};

FIXTURE_VARIANT_ADD(bad, comm_deref) {
	.line = P " +0($comm)",
	.err = EINVAL,
	.msg = "$comm can not be dereferenced",
	.at = "$comm",
};

FIXTURE_VARIANT_ADD(bad, deref_brace) {
	.line = P " +0${reg0}",
	.err = EINVAL,
	.msg = "Dereference needs a brace",
	.at = "+0${reg0}",
};

FIXTURE_VARIANT_ADD(bad, deref_open) {
	.line = P " +0(${reg0}",
	.err = EINVAL,
	.msg = "Dereference brace is not closed",
};

FIXTURE_VARIANT_ADD(bad, deref_offset) {
	.line = P " +(${reg0})",
	.err = EINVAL,
	.msg = "Invalid dereference offset",
	.at = "+(${reg0})",
};

FIXTURE_VARIANT_ADD(bad, deref_too_deep) {
	.line = P " ${nest15}",
	.err = EINVAL,
	.msg = "Dereference is too much nested",
	.at = "+0(",
	.skip = 3,
};

FIXTURE_VARIANT_ADD(bad, arg_too_long) {
	.line = P " +0(${reg0}):${A33}${A33}",
	.err = E2BIG,
	.msg = "Argument expression is too long",
	.at = "+0(${reg0})",
};

FIXTURE_VARIANT_ADD(bad, too_many_args) {
	.line = P "${args129}",
	.err = E2BIG,
};

/* Argument names. */
FIXTURE_VARIANT_ADD(bad, arg_name_used) {
	.line = P " a=${reg0} a=${reg1}",
	.err = EINVAL,
	.msg = "This argument name is already used",
	.at = "a=${reg1}",
};

FIXTURE_VARIANT_ADD(bad, arg_name) {
	.line = P " 1a=${reg0}",
	.err = EINVAL,
	.msg = "Argument name must follow the same rules as C identifiers",
	.at = "1a=",
};

FIXTURE_VARIANT_ADD(bad, arg_name_missing) {
	.line = P " =${reg0}",
	.err = EINVAL,
	.msg = "Argument name is not specified",
	.at = "=${reg0}",
};

FIXTURE_VARIANT_ADD(bad, arg_name_too_long) {
	.line = P " ${A33}=${reg0}",
	.err = EINVAL,
	.msg = "Argument name is too long",
	.at = "${A33}",
};

FIXTURE_VARIANT_ADD(bad, arg_body_missing) {
	.line = P " a=",
	.err = EINVAL,
	.msg = "No argument expression",
};

/* Types. */
FIXTURE_VARIANT_ADD(bad, type) {
	.line = P " ${reg0}:u7",
	.err = EINVAL,
	.msg = "Unknown type is specified",
	.at = "u7",
};

FIXTURE_VARIANT_ADD(bad, type_word) {
	.line = P " ${reg0}:foo",
	.err = EINVAL,
	.msg = "Unknown type is specified",
	.at = "foo",
};

FIXTURE_VARIANT_ADD(bad, type_128) {
	.line = P " ${reg0}:s128",
	.err = EINVAL,
	.msg = "Unknown type is specified",
	.at = "s128",
};

FIXTURE_VARIANT_ADD(bad, type_symbol) {
	.line = P " ${reg0}:symbol",
	.err = EINVAL,
	.msg = "Unknown type is specified",
	.at = "symbol",
};

FIXTURE_VARIANT_ADD(bad, type_symstr) {
	.line = P " +0(${reg0}):symstr",
	.err = EINVAL,
	.msg = "Unknown type is specified",
	.at = "symstr",
};

FIXTURE_VARIANT_ADD(bad, string_register) {
	.line = P " ${reg0}:string",
	.err = EINVAL,
	.msg = "String accepts only memory argument",
	.at = "string",
};

FIXTURE_VARIANT_ADD(bad, string_stack) {
	.line = P " $stack:string",
	.err = EINVAL,
	.msg = "String accepts only memory argument",
	.at = "string",
};

FIXTURE_VARIANT_ADD(bad, bitfield_width) {
	.line = P " ${reg0}:b40@4/32",
	.err = EINVAL,
	.msg = "Invalid bitfield",
	.at = "b40",
};

FIXTURE_VARIANT_ADD(bad, bitfield_zero) {
	.line = P " ${reg0}:b0@0/32",
	.err = EINVAL,
	.msg = "Invalid bitfield",
	.at = "b0@",
};

FIXTURE_VARIANT_ADD(bad, bitfield_beyond) {
	.line = P " ${reg0}:b4@30/32",
	.err = EINVAL,
	.msg = "Invalid bitfield",
	.at = "b4@30",
};

FIXTURE_VARIANT_ADD(bad, bitfield_container) {
	.line = P " ${reg0}:b4@4/33",
	.err = EINVAL,
	.msg = "Unknown type is specified",
	.at = "b4@4/33",
};

FIXTURE_VARIANT_ADD(bad, bitfield_no_container) {
	.line = P " ${reg0}:b4@4",
	.err = EINVAL,
	.msg = "Unknown type is specified",
	.at = "b4@4",
};

FIXTURE_VARIANT_ADD(bad, array_register) {
	.line = P " ${reg0}:u8[2]",
	.err = EINVAL,
	.msg = "String accepts only memory argument",
	.at = "u8[2]",
};

FIXTURE_VARIANT_ADD(bad, array_open) {
	.line = P " +0(${reg0}):u8[2",
	.err = EINVAL,
	.msg = "Array is not closed",
};

FIXTURE_VARIANT_ADD(bad, array_suffix) {
	.line = P " +0(${reg0}):u8[2]x",
	.err = EINVAL,
	.msg = "Array has wrong suffix",
	.at = "]x",
	.skip = 1,
};

FIXTURE_VARIANT_ADD(bad, array_zero) {
	.line = P " +0(${reg0}):u8[0]",
	.err = EINVAL,
	.msg = "Invalid array size",
	.at = "0]",
};

FIXTURE_VARIANT_ADD(bad, array_too_big) {
	.line = P " +0(${reg0}):u8[65]",
	.err = EINVAL,
	.msg = "Array number is too big",
	.at = "65]",
};

TEST_F(bad, refused)
{
	char *line = ev_expand(variant->line), *before, *after, *log, *at, *cmd, *end;
	char want[256];
	size_t blanks;
	int col;

	ASSERT_NE(NULL, line);
	if (variant->pre)
		ASSERT_EQ(0, ev_define("uprobe_events", variant->pre));
	before = tfs_read("uprobe_events");
	ASSERT_NE(NULL, before);
	ASSERT_EQ(0, tfs_write("error_log", ""));

	EXPECT_EQ(-variant->err, tfs_append("uprobe_events", line));

	/* Nothing half-made stays behind. */
	after = tfs_read("uprobe_events");
	EXPECT_STREQ(before, after);
	if (!variant->pre) {
		EXPECT_STREQ("", after);
		EXPECT_FALSE(ev_exists("events/utest"));
	}
	free(before);
	free(after);

	log = tfs_read("error_log");
	ASSERT_NE(NULL, log);
	if (!variant->msg) {
		EXPECT_STREQ("", log);
		goto out;
	}
	/* "[  TIME] trace_uprobe: error: MSG\n  Command: LINE\n    ^\n" */
	snprintf(want, sizeof(want), "trace_uprobe: error: %s\n", variant->msg);
	EXPECT_EQ(1, count_lines(log, " error: ")) TH_LOG("error_log:\n%s", log);
	ASSERT_NE(NULL, strstr(log, want)) TH_LOG("error_log:\n%s", log);
	cmd = strstr(log, "\n  Command: ");
	ASSERT_NE(NULL, cmd);
	cmd += strlen("\n  Command: ");
	end = strchr(cmd, '\n');
	ASSERT_NE(NULL, end);
	*end = '\0';
	EXPECT_STREQ(line, cmd);
	at = ev_expand(variant->at);
	if (variant->at) {
		ASSERT_NE(NULL, at);
		ASSERT_NE(NULL, strstr(line, at));
		col = strstr(line, at) - line + variant->skip;
	} else {
		col = strlen(line);
	}
	free(at);
	/* The caret line: "  Command: " worth of blanks, then the column. */
	blanks = strspn(end + 1, " ");
	EXPECT_EQ(strlen("  Command: ") + col, blanks) TH_LOG("error_log:\n%s", log);
	EXPECT_EQ('^', end[1 + blanks]);
	EXPECT_EQ('\n', end[2 + blanks]);
out:
	free(log);
	free(line);
}

TEST_HARNESS_MAIN
