// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_badreg: registrations the kernel must refuse, through uprobe_events
 * and through the perf uprobe PMU: a missing file, a directory, a device
 * node, an offset past the end of the file, and instructions that cannot be
 * probed.  Each case checks the errno of the step that fails (definition,
 * enable or perf_event_open) and that nothing was armed: the probed code
 * runs unprobed with its bytes intact and no anonymous copy of its page,
 * uprobe_profile counts no hit, and no event is left behind.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "../kselftest_harness.h"
#include "uprobe_util.h"
#include "uprobe_asm.h"

#define GROUP "ubad"

TARGET long badreg_good(long a)
{
	return a + 40;
}

/*
 * badreg_func() returns 42 after jumping over instructions that cannot be
 * probed; each has a label of its own to probe.  On arm64: exceptions, a
 * literal load into a SIMD&FP register (which a step out of line would
 * load from beside the slot), an exclusive load, a hint that is not
 * stepped and an msr, which arm64 neither steps out of line nor
 * simulates.
 */
#ifdef __aarch64__
asm(".pushsection .text\n"
	".globl badreg_func\n"
	".type badreg_func, @function\n"
	"badreg_func:\n"
	"	b 1f\n"
	"badreg_brk:	brk #0\n"
	"badreg_svc:	svc #0\n"
	"badreg_literal_fp:	ldr d0, 1f\n"
	"badreg_exclusive:	ldxr x0, [x1]\n"
	"badreg_wfi:	wfi\n"
	"badreg_msr:	msr nzcv, x0\n"
	"1:	mov x0, #42\n"
	"	ret\n"
	".size badreg_func, . - badreg_func\n"
	".popsection\n");
#else
asm(".pushsection .text\n"
	".globl badreg_func\n"
	".type badreg_func, @function\n"
	"badreg_func:\n"
	"	jmp 1f\n"
	"badreg_int3:	int3\n"
	"badreg_hlt:	hlt\n"
	"badreg_in:	inb %dx, %al\n"
	"badreg_int80:	int $0x80\n"
	"badreg_cli:	cli\n"
	"badreg_long:	.fill 15, 1, 0x66\n"
	"	nop\n"
	"badreg_vex:	.byte 0xc4, 0xc3, 0x0f, 0x34, 0xc3\n"
	"1:	mov $42, %eax\n"
	"	ret\n"
	".size badreg_func, . - badreg_func\n"
	".popsection\n");
#endif

/* Everything the test process can see of probes: must not change. */
struct snapshot {
	unsigned char code[64];
	long anon;
};

static long text_anon_kb(void)
{
	unsigned long start, end, a = (unsigned long)badreg_func;
	char line[512];
	int inside = 0;
	long kb = -1;
	FILE *f;

	f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			inside = a >= start && a < end;
			continue;
		}
		if (inside && sscanf(line, "Anonymous: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

static void snap(struct snapshot *s)
{
	memcpy(s->code, (const void *)badreg_func, sizeof(s->code));
	s->anon = text_anon_kb();
}

/* True when no event is defined and no probe is listed. */
static int no_events(void)
{
	char *events = tfs_read("uprobe_events"), *dyn = tfs_read("dynamic_events");
	int empty = events && dyn && !events[0] && !count_lines(dyn, GROUP "/");

	free(events);
	free(dyn);
	return empty;
}

static int error_logged(const char *message)
{
	char *log = tfs_read("error_log");
	int n = log ? count_lines(log, message) : -1;

	free(log);
	return n;
}

static int event_exists(const char *event)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), TRACEFS "/events/" GROUP "/%s", event);
	return stat(path, &st) == 0;
}

FIXTURE(badreg) {
	struct snapshot before;
	off_t size;
};

FIXTURE_SETUP(badreg)
{
	struct stat st;

	tracing_reset();
	ASSERT_EQ(0, stat(self_path(), &st));
	self->size = st.st_size;
	ASSERT_EQ(42, badreg_func());
	snap(&self->before);
	ASSERT_LE(0, self->before.anon);
}

/* Nothing is armed: the code runs unprobed and is what it was. */
static void check_unarmed(struct __test_metadata *_metadata, const struct snapshot *before)
{
	struct snapshot now;

	EXPECT_EQ(42, badreg_func());
	EXPECT_EQ(41, badreg_good(1));
	snap(&now);
	EXPECT_EQ(0, memcmp(before->code, now.code, sizeof(now.code)));
	EXPECT_EQ(before->anon, now.anon);
}

FIXTURE_TEARDOWN(badreg)
{
	tracing_reset();
}

/* A definition that fails leaves no event. */
static void check_definition_refused(struct __test_metadata *_metadata,
				     const struct snapshot *before,
				     const char *path, int err, const char *message)
{
	EXPECT_EQ(-err, uprobe_event_add("p:" GROUP "/e %s:0x10", path));
	EXPECT_EQ(1, error_logged(message));
	EXPECT_FALSE(event_exists("e"));
	EXPECT_TRUE(no_events());
	EXPECT_EQ(-1, profile_hits("e"));
	check_unarmed(_metadata, before);
}

static int perf_probe(const char *path, unsigned long offset, int retprobe)
{
	struct perf_event_attr attr;
	int err;

	err = uprobe_perf_attr(&attr, path, offset, retprobe, 0);
	return err ? err : perf_open(&attr, 0, -1);
}

/* A working probe afterwards counts exactly: nothing was left behind. */
static void check_good_probe(struct __test_metadata *_metadata)
{
	int fd = perf_probe(self_path(), self_offset(badreg_good), 0);

	ASSERT_LE(0, fd);
	badreg_good(1);
	badreg_good(2);
	EXPECT_EQ(2, perf_count(fd));
	EXPECT_EQ(42, badreg_func());
	EXPECT_EQ(2, perf_count(fd));
	close(fd);
}

TEST_F(badreg, events_no_such_file)
{
	check_definition_refused(_metadata, &self->before, "/tmp/uprobe_badreg-no-such-file",
				 ENOENT, "Failed to find the given file");
}

TEST_F(badreg, events_directory)
{
	check_definition_refused(_metadata, &self->before, "/tmp", EINVAL,
				 "Not a regular file");
}

TEST_F(badreg, events_device)
{
	check_definition_refused(_metadata, &self->before, "/dev/null", EINVAL,
				 "Not a regular file");
}

/*
 * An offset past the end of the file is accepted at definition (the file
 * may grow) and refused at enable; the event stays, disabled.
 */
TEST_F(badreg, events_offset_past_eof)
{
	char *enable;

	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/e %s:0x%lx",
				      self_path(), (unsigned long)self->size + 4096));
	EXPECT_TRUE(event_exists("e"));
	EXPECT_EQ(-EINVAL, event_enable(GROUP, "e", 1));
	enable = tfs_read("events/" GROUP "/e/enable");
	ASSERT_NE(NULL, enable);
	EXPECT_STREQ("0\n", enable);
	free(enable);
	EXPECT_EQ(0, profile_hits("e"));
	check_unarmed(_metadata, &self->before);
	EXPECT_EQ(0, uprobe_event_add("-:" GROUP "/e"));
	EXPECT_TRUE(no_events());
	check_good_probe(_metadata);
}

TEST_F(badreg, perf_no_such_file)
{
	EXPECT_EQ(-ENOENT, perf_probe("/tmp/uprobe_badreg-no-such-file", 0x10, 0));
	EXPECT_EQ(-ENOENT, perf_probe("/tmp/uprobe_badreg-no-such-file", 0x10, 1));
	EXPECT_TRUE(no_events());
	check_unarmed(_metadata, &self->before);
	check_good_probe(_metadata);
}

TEST_F(badreg, perf_not_regular)
{
	EXPECT_EQ(-EINVAL, perf_probe("/tmp", 0x10, 0));
	EXPECT_EQ(-EINVAL, perf_probe("/dev/null", 0x10, 0));
	EXPECT_EQ(-EINVAL, perf_probe("/dev/null", 0x10, 1));
	EXPECT_TRUE(no_events());
	check_unarmed(_metadata, &self->before);
	check_good_probe(_metadata);
}

TEST_F(badreg, perf_offset_past_eof)
{
	EXPECT_EQ(-EINVAL, perf_probe(self_path(), self->size + 4096, 0));
	EXPECT_EQ(-EINVAL, perf_probe(self_path(), self->size + 4096, 1));
	EXPECT_TRUE(no_events());
	check_unarmed(_metadata, &self->before);
	check_good_probe(_metadata);
}

/*
 * Instructions the kernel refuses to probe, and the errno it gives when it
 * would arm the probe (at enable, or perf_event_open of a task event): a
 * UAPI errno, ENOEXEC, for bytes that do not decode as an instruction; for
 * instructions it will not single-step or emulate, EOPNOTSUPP (6.12
 * leaks its internal ENOTSUPP, 524, there).
 * arm64 refuses every instruction it can neither step nor simulate with
 * EINVAL.  @first is the instruction's first code unit (byte, or word).
 * @why: the error_log's words for the refusal, where the kernel tells the
 * class of the instruction; a kernel without them skips that check.
 */
FIXTURE(badinsn) {
	struct snapshot before;
};

FIXTURE_SETUP(badinsn)
{
	tracing_reset();
	ASSERT_EQ(42, badreg_func());
	snap(&self->before);
	ASSERT_LE(0, self->before.anon);
}

FIXTURE_TEARDOWN(badinsn)
{
	tracing_reset();
}

FIXTURE_VARIANT(badinsn) {
	const unsigned char *site;
	INSN_UNIT first;
	int err;
	const char *why;
};

#ifdef __aarch64__
FIXTURE_VARIANT_ADD(badinsn, brk) {
	.site = badreg_brk, .first = 0xd4200000, .err = EINVAL,
	.why = "Probe not armed: an instruction that traps cannot be probed",
};

FIXTURE_VARIANT_ADD(badinsn, svc) {
	.site = badreg_svc, .first = 0xd4000001, .err = EINVAL,
	.why = "Probe not armed: a system call instruction cannot be probed",
};

FIXTURE_VARIANT_ADD(badinsn, literal_fp) {
	.site = badreg_literal_fp, .first = 0x5c000080, .err = EINVAL,
	.why = "Probe not armed: this pc-relative instruction cannot be emulated",
};

FIXTURE_VARIANT_ADD(badinsn, exclusive) {
	.site = badreg_exclusive, .first = 0xc85f7c20, .err = EINVAL,
	.why = "Probe not armed: an exclusive load or store cannot be probed",
};

FIXTURE_VARIANT_ADD(badinsn, wfi) {
	.site = badreg_wfi, .first = 0xd503207f, .err = EINVAL,
	.why = "Probe not armed: a system register or system instruction cannot be probed",
};

FIXTURE_VARIANT_ADD(badinsn, msr) {
	.site = badreg_msr, .first = 0xd51b4200, .err = EINVAL,
	.why = "Probe not armed: a system register or system instruction cannot be probed",
};
#else
FIXTURE_VARIANT_ADD(badinsn, int3) {
	.site = badreg_int3, .first = 0xcc, .err = EOPNOTSUPP,
	.why = "Probe not armed: an instruction that traps cannot be probed",
};

FIXTURE_VARIANT_ADD(badinsn, hlt) {
	.site = badreg_hlt, .first = 0xf4, .err = EOPNOTSUPP,
	.why = "Probe not armed: a privileged or I/O instruction cannot be probed",
};

FIXTURE_VARIANT_ADD(badinsn, in) {
	.site = badreg_in, .first = 0xec, .err = EOPNOTSUPP,
	.why = "Probe not armed: a privileged or I/O instruction cannot be probed",
};

FIXTURE_VARIANT_ADD(badinsn, int80) {
	.site = badreg_int80, .first = 0xcd, .err = EOPNOTSUPP,
	.why = "Probe not armed: an instruction that traps cannot be probed",
};

FIXTURE_VARIANT_ADD(badinsn, cli) {
	.site = badreg_cli, .first = 0xfa, .err = EOPNOTSUPP,
	.why = "Probe not armed: a privileged or I/O instruction cannot be probed",
};

FIXTURE_VARIANT_ADD(badinsn, too_long) {
	.site = badreg_long, .first = 0x66, .err = ENOEXEC,
	.why = "Probe not armed: the bytes there are no instruction",
};

FIXTURE_VARIANT_ADD(badinsn, bad_vex) {
	.site = badreg_vex, .first = 0xc4, .err = ENOEXEC,
	.why = "Probe not armed: the bytes there are no instruction",
};
#endif

/*
 * The error_log holds @n entries of @why, the refusal's class in words,
 * one for each registration refused, when the kernel tells a class at all
 * (a "Probe not armed: " entry): then it must be this one.
 */
static void check_refusal_logged(struct __test_metadata *_metadata, const char *why, int n)
{
	if (!why || kernel_lacks(_metadata, error_logged("Probe not armed: ") > 0,
				 "error_log entry for a refused instruction"))
		return;
	EXPECT_EQ(n, error_logged(why));
	EXPECT_EQ(n, error_logged("Command: "));
}

TEST_F(badinsn, events)
{
	unsigned long offset = self_offset(variant->site);
	char *enable;
	int err;

	ASSERT_EQ(variant->first, *(const INSN_UNIT *)variant->site);
	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/e %s:0x%lx", self_path(), offset));
	err = event_enable(GROUP, "e", 1);
	TH_LOG("enable: %d", err);
	EXPECT_EQ(-variant->err, err);
	enable = tfs_read("events/" GROUP "/e/enable");
	ASSERT_NE(NULL, enable);
	EXPECT_STREQ("0\n", enable);
	free(enable);
	check_refusal_logged(_metadata, variant->why, 1);
	check_unarmed(_metadata, &self->before);
	EXPECT_EQ(0, profile_hits("e"));
	EXPECT_EQ(0, uprobe_event_add("-:" GROUP "/e"));
	EXPECT_TRUE(no_events());
	check_good_probe(_metadata);
}

TEST_F(badinsn, perf)
{
	unsigned long offset = self_offset(variant->site);
	int err;

	err = perf_probe(self_path(), offset, 0);
	TH_LOG("perf_event_open: %d", err);
	EXPECT_EQ(-variant->err, err);
	err = perf_probe(self_path(), offset, 1);
	EXPECT_EQ(-variant->err, err);
	check_refusal_logged(_metadata, variant->why, 2);
	EXPECT_TRUE(no_events());
	check_unarmed(_metadata, &self->before);
	check_good_probe(_metadata);
}

TEST_HARNESS_MAIN
