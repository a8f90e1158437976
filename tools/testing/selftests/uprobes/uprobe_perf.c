// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_perf: the perf "uprobe" PMU, as perf_event_open() users (perf,
 * bpftrace, libbpf) reach it.  The events probe functions of this very
 * program and count: exact hits of entry and return probes, per task or per
 * CPU, with inherit off and on; an SDT semaphore named in config counts the
 * probes that use it while their events exist; samples carry the probed
 * address; a probe on a missing file or past the end of one is refused.
 * Events closed while threads hit their probe, and ten thousand events
 * opened and closed, leave exact counts and the text as it was.
 * Filters decide what counting events count, in inherited copies too,
 * and a counting event beside a sampling one leaves both right.  On
 * arm64, probed literal loads load what they would unprobed (one of a
 * SIMD&FP register may be refused instead).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "../kselftest_harness.h"
#include "uprobe_asm.h"
#include "uprobe_util.h"

TARGET long perf_target(long a)
{
	return a + 1;
}

TARGET long perf_other(long a)
{
	return a + 2;
}

/* While the innermost call runs: the counts of rec_fd[] then. */
static int rec_fd[2];
static long long rec_seen[2];

TARGET long perf_recurse(int depth)
{
	if (depth == 0) {
		rec_seen[0] = perf_count(rec_fd[0]);
		rec_seen[1] = perf_count(rec_fd[1]);
		return 0;
	}
	return perf_recurse(depth - 1) + 1;
}

/*
 * 10000 nops, each a place to probe, then a return: one-byte nops on x86,
 * where a nop is one code unit; on arm64 a nop is the 4-byte unit.
 */
#define SLED_NOPS 10000
#ifdef __aarch64__
#define SLED_NOP	0xd503201f
#define SLED_FILL	"	.rept 10000\n	nop\n	.endr\n"
#else
#define SLED_NOP	0x90
#define SLED_FILL	"	.fill 10000, 1, 0x90\n"
#endif
asm(".pushsection .text\n"
	".globl perf_sled\n"
	".type perf_sled, @function\n"
	"perf_sled:\n"
	SLED_FILL
	"	ret\n"
	".size perf_sled, .-perf_sled\n"
	".popsection");

#ifdef __aarch64__
/*
 * Literal loads, which the kernel simulates with a read of the task's
 * memory: lit_data's low word is negative, for ldrsw to extend.
 */
asm(".pushsection .text\n"
	"	.p2align 3\n"
	"lit_data:	.quad 0x8877665580000001\n"
	".globl lit_x\n"
	"lit_x:	ldr x0, lit_data\n"
	"	ret\n"
	".globl lit_w\n"
	"lit_w:	ldr w0, lit_data\n"
	"	ret\n"
	".globl lit_sw\n"
	"lit_sw:	ldrsw x0, lit_data\n"
	"	ret\n"
	".globl lit_prfm\n"
	"lit_prfm:	prfm pldl1keep, lit_data\n"
	"	mov x0, #7\n"
	"	ret\n"
	".globl lit_d\n"
	"lit_d:	ldr d0, lit_data\n"
	"	fmov x0, d0\n"
	"	ret\n"
	".globl lit_ahead\n"
	"lit_ahead:	ldr x0, 1f\n"
	"	ret\n"
	"	.p2align 3\n"
	"1:	.quad 0x0123456789abcdef\n"
	".popsection");
#endif

/* An SDT semaphore: file-backed data, as sdt.h puts it in ".probes". */
__section(".probes") __used unsigned short perf_sema;

static void call_n(long (*fn)(long), int n)
{
	int i;

	for (i = 0; i < n; i++)
		fn(i);
}

/* A uprobe PMU event on @fn of this program: fd or -errno. */
static int probe_open(void *fn, int retprobe, const void *sema,
		      pid_t pid, int cpu, int inherit)
{
	struct perf_event_attr attr;
	unsigned long ref = sema ? self_offset((const void *)sema) : 0;
	int err;

	err = uprobe_perf_attr(&attr, self_path(), self_offset(fn), retprobe, ref);
	if (err)
		return err;
	attr.inherit = inherit;
	return perf_open(&attr, pid, cpu);
}

/* A kid's work: @calls calls of perf_target(). */
static void perf_calls(long calls)
{
	call_n(perf_target, calls);
}

FIXTURE(perf) {
	int fd[4];
};

FIXTURE_SETUP(perf)
{
	int i;

	for (i = 0; i < 4; i++)
		self->fd[i] = -1;
	if (uprobe_pmu_type() < 0)
		SKIP(return, "no uprobe PMU");
	ASSERT_NE(0UL, self_offset(perf_target));
	ASSERT_NE(0UL, self_offset((const void *)&perf_sema));
}

FIXTURE_TEARDOWN(perf)
{
	int i;

	for (i = 0; i < 4; i++)
		if (self->fd[i] >= 0)
			close(self->fd[i]);
}

/* An entry probe counts each call of its function, and nothing else. */
TEST_F(perf, entry_counts_calls)
{
	self->fd[0] = probe_open(perf_target, 0, NULL, 0, -1, 0);
	ASSERT_LE(0, self->fd[0]);
	self->fd[1] = probe_open(perf_other, 0, NULL, 0, -1, 0);
	ASSERT_LE(0, self->fd[1]);
	EXPECT_EQ(0, perf_count(self->fd[0]));
	call_n(perf_target, 100);
	call_n(perf_other, 30);
	call_n(perf_target, 23);
	EXPECT_EQ(123, perf_count(self->fd[0]));
	EXPECT_EQ(30, perf_count(self->fd[1]));
}

/*
 * A return probe counts each return, when the function returns, alongside
 * an entry probe.
 */
TEST_F(perf, return_counts_returns)
{
	long sum = 0;
	int i;

	self->fd[0] = probe_open(perf_target, 1, NULL, 0, -1, 0);
	ASSERT_LE(0, self->fd[0]);
	self->fd[1] = probe_open(perf_target, 0, NULL, 0, -1, 0);
	ASSERT_LE(0, self->fd[1]);
	for (i = 0; i < 77; i++)
		sum += perf_target(i);
	/* The probed function still returns its result. */
	EXPECT_EQ(77 * 76 / 2 + 77, sum);
	EXPECT_EQ(77, perf_count(self->fd[0]));
	EXPECT_EQ(77, perf_count(self->fd[1]));

	/* Nested calls: at the innermost, 5 entries and no return yet. */
	self->fd[2] = probe_open(perf_recurse, 1, NULL, 0, -1, 0);
	ASSERT_LE(0, self->fd[2]);
	self->fd[3] = probe_open(perf_recurse, 0, NULL, 0, -1, 0);
	ASSERT_LE(0, self->fd[3]);
	rec_fd[0] = self->fd[2];
	rec_fd[1] = self->fd[3];
	EXPECT_EQ(4, perf_recurse(4));
	EXPECT_EQ(0, rec_seen[0]);
	EXPECT_EQ(5, rec_seen[1]);
	EXPECT_EQ(5, perf_count(self->fd[2]));
	EXPECT_EQ(5, perf_count(self->fd[3]));
}

/* A disabled event counts nothing; the ioctls switch it exactly. */
TEST_F(perf, enable_disable_ioctl)
{
	struct perf_event_attr attr;

	ASSERT_EQ(0, uprobe_perf_attr(&attr, self_path(), self_offset(perf_target), 0, 0));
	attr.disabled = 1;
	self->fd[0] = perf_open(&attr, 0, -1);
	ASSERT_LE(0, self->fd[0]);
	call_n(perf_target, 10);
	EXPECT_EQ(0, perf_count(self->fd[0]));
	ASSERT_EQ(0, ioctl(self->fd[0], PERF_EVENT_IOC_ENABLE, 0));
	call_n(perf_target, 20);
	ASSERT_EQ(0, ioctl(self->fd[0], PERF_EVENT_IOC_DISABLE, 0));
	call_n(perf_target, 5);
	EXPECT_EQ(20, perf_count(self->fd[0]));
}

/*
 * An event opened for a pid counts that task's hits only, while another
 * process calls the same function.
 */
TEST_F(perf, pid_scoped)
{
	struct kid kid;

	ASSERT_EQ(0, kid_start(&kid, perf_calls, 7, -1));
	self->fd[0] = probe_open(perf_target, 0, NULL, kid.pid, -1, 0);
	ASSERT_LE(0, self->fd[0]);
	self->fd[1] = probe_open(perf_target, 0, NULL, 0, -1, 0);
	ASSERT_LE(0, self->fd[1]);
	call_n(perf_target, 11);
	ASSERT_EQ(0, kid_run(&kid));
	call_n(perf_target, 2);
	ASSERT_EQ(0, kid_run(&kid));
	EXPECT_EQ(14, perf_count(self->fd[0]));
	EXPECT_EQ(13, perf_count(self->fd[1]));
	ASSERT_EQ(0, kid_end(&kid));
	/* The count outlives the task. */
	EXPECT_EQ(14, perf_count(self->fd[0]));
}

/* Only the child counts when the event is for the child alone. */
TEST_F(perf, pid_scoped_other_only)
{
	struct kid kid;

	ASSERT_EQ(0, kid_start(&kid, perf_calls, 9, -1));
	self->fd[0] = probe_open(perf_target, 0, NULL, kid.pid, -1, 0);
	ASSERT_LE(0, self->fd[0]);
	call_n(perf_target, 50);
	ASSERT_EQ(0, kid_run(&kid));
	EXPECT_EQ(9, perf_count(self->fd[0]));
	ASSERT_EQ(0, kid_end(&kid));
}

/* cpu -1, inherit off: a child forked after the open is not counted. */
TEST_F(perf, inherit_off)
{
	struct kid kid;

	self->fd[0] = probe_open(perf_target, 0, NULL, 0, -1, 0);
	ASSERT_LE(0, self->fd[0]);
	self->fd[1] = probe_open(perf_target, 1, NULL, 0, -1, 0);
	ASSERT_LE(0, self->fd[1]);
	call_n(perf_target, 4);
	ASSERT_EQ(0, kid_start(&kid, perf_calls, 6, -1));
	ASSERT_EQ(0, kid_run(&kid));
	ASSERT_EQ(0, kid_end(&kid));
	call_n(perf_target, 1);
	EXPECT_EQ(5, perf_count(self->fd[0]));
	EXPECT_EQ(5, perf_count(self->fd[1]));
}

/*
 * cpu -1, inherit on: the child gets its own copy of the event, whose count
 * is added to the parent's when the child exits.  Shown with a return
 * probe, then with an entry probe.  (On 6.12 an inherited entry-probe
 * event does not count the child's hits (the filter of the task event
 * does not take the child's mm) and loses the parent's hits after the
 * fork, and an inherited return-probe event next to a non-inherited
 * entry-probe event does not count the child's returns either.)
 */
TEST_F(perf, inherit_on)
{
	long long entries;
	struct kid kid;

	self->fd[0] = probe_open(perf_target, 1, NULL, 0, -1, 1);
	ASSERT_LE(0, self->fd[0]);
	call_n(perf_target, 4);
	ASSERT_EQ(0, kid_start(&kid, perf_calls, 6, -1));
	ASSERT_EQ(0, kid_run(&kid));
	ASSERT_EQ(0, kid_run(&kid));
	ASSERT_EQ(0, kid_end(&kid));
	call_n(perf_target, 1);
	EXPECT_EQ(5 + 12, perf_count(self->fd[0]));
	close(self->fd[0]);
	self->fd[0] = -1;

	self->fd[1] = probe_open(perf_other, 0, NULL, 0, -1, 1);
	ASSERT_LE(0, self->fd[1]);
	call_n(perf_other, 4);
	if (fork() == 0) {
		call_n(perf_other, 6);
		_exit(0);
	}
	ASSERT_LT(0, wait(NULL));
	call_n(perf_other, 1);
	entries = perf_count(self->fd[1]);
	TH_LOG("inherited entry event: %lld (parent 4 + 1 hits, child 6)", entries);
	EXPECT_LE(4, entries);
	EXPECT_GE(4 + 1 + 6, entries);
	EXPECT_EQ(4 + 1 + 6, entries);
}

/*
 * pid -1, one CPU: every process's hits on that CPU and, given a second
 * CPU, none of the hits on the other one.
 */
TEST_F(perf, cpu_wide)
{
	int two = sysconf(_SC_NPROCESSORS_ONLN) >= 2;
	struct kid here, there;

	ASSERT_EQ(0, pin_to_cpu(0));
	ASSERT_EQ(0, kid_start(&here, perf_calls, 5, 0));
	self->fd[0] = probe_open(perf_target, 0, NULL, -1, 0, 0);
	ASSERT_LE(0, self->fd[0]);
	call_n(perf_target, 3);
	ASSERT_EQ(0, kid_run(&here));
	ASSERT_EQ(0, kid_run(&here));
	EXPECT_EQ(13, perf_count(self->fd[0]));
	ASSERT_EQ(0, kid_end(&here));
	if (!two)
		return;
	ASSERT_EQ(0, kid_start(&there, perf_calls, 8, 1));
	self->fd[1] = probe_open(perf_target, 0, NULL, -1, 1, 0);
	ASSERT_LE(0, self->fd[1]);
	ASSERT_EQ(0, kid_run(&there));
	ASSERT_EQ(0, kid_run(&there));
	EXPECT_EQ(13, perf_count(self->fd[0]));
	EXPECT_EQ(16, perf_count(self->fd[1]));
	ASSERT_EQ(0, kid_end(&there));
}

/*
 * The semaphore named in config counts the probes that use it, once per
 * probe however many events share the probe, while their events exist.
 */
TEST_F(perf, ref_ctr_counts_probes)
{
	EXPECT_EQ(0, READ_FRESH(perf_sema));
	self->fd[0] = probe_open(perf_target, 0, &perf_sema, 0, -1, 0);
	ASSERT_LE(0, self->fd[0]);
	EXPECT_EQ(1, READ_FRESH(perf_sema));
	self->fd[1] = probe_open(perf_other, 0, &perf_sema, 0, -1, 0);
	ASSERT_LE(0, self->fd[1]);
	EXPECT_EQ(2, READ_FRESH(perf_sema));
	/* A second event on the same probe: still one probe. */
	self->fd[2] = probe_open(perf_target, 0, &perf_sema, 0, -1, 0);
	ASSERT_LE(0, self->fd[2]);
	EXPECT_EQ(2, READ_FRESH(perf_sema));
	call_n(perf_target, 3);
	EXPECT_EQ(3, perf_count(self->fd[0]));
	EXPECT_EQ(3, perf_count(self->fd[2]));
	close(self->fd[2]);
	self->fd[2] = -1;
	EXPECT_EQ(2, READ_FRESH(perf_sema));
	close(self->fd[1]);
	self->fd[1] = -1;
	EXPECT_EQ(1, READ_FRESH(perf_sema));
	close(self->fd[0]);
	self->fd[0] = -1;
	EXPECT_EQ(0, READ_FRESH(perf_sema));
}

/* The semaphore of a process the event does not cover stays 0. */
TEST_F(perf, ref_ctr_pid_scoped)
{
	int down[2], up[2];
	unsigned short seen;
	pid_t pid;
	char c;

	ASSERT_EQ(0, pipe(down));
	ASSERT_EQ(0, pipe(up));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		while (read(down[0], &c, 1) == 1 && c == 'r') {
			seen = READ_FRESH(perf_sema);
			if (write(up[1], &seen, sizeof(seen)) != sizeof(seen))
				_exit(1);
		}
		_exit(0);
	}
	self->fd[0] = probe_open(perf_target, 0, &perf_sema, pid, -1, 0);
	ASSERT_LE(0, self->fd[0]);
	ASSERT_EQ(1, write(down[1], "r", 1));
	ASSERT_EQ(sizeof(seen), read(up[0], &seen, sizeof(seen)));
	EXPECT_EQ(1, seen);
	EXPECT_EQ(0, READ_FRESH(perf_sema));
	close(self->fd[0]);
	self->fd[0] = -1;
	ASSERT_EQ(1, write(down[1], "r", 1));
	ASSERT_EQ(sizeof(seen), read(up[0], &seen, sizeof(seen)));
	EXPECT_EQ(0, seen);
	ASSERT_EQ(1, write(down[1], "q", 1));
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
}

/* One probe has one semaphore: another one (or none) is refused. */
TEST_F(perf, ref_ctr_conflict)
{
	self->fd[0] = probe_open(perf_target, 0, &perf_sema, 0, -1, 0);
	ASSERT_LE(0, self->fd[0]);
	EXPECT_EQ(-EINVAL, probe_open(perf_target, 0, (char *)&perf_sema + 2, 0, -1, 0));
	EXPECT_EQ(-EINVAL, probe_open(perf_target, 0, NULL, 0, -1, 0));
	EXPECT_EQ(1, READ_FRESH(perf_sema));
	close(self->fd[0]);
	self->fd[0] = -1;
	EXPECT_EQ(0, READ_FRESH(perf_sema));
	/* Once the probe is gone, any semaphore will do. */
	self->fd[0] = probe_open(perf_target, 0, NULL, 0, -1, 0);
	ASSERT_LE(0, self->fd[0]);
	call_n(perf_target, 2);
	EXPECT_EQ(2, perf_count(self->fd[0]));
}

/* A missing file and an offset past the end of the file are refused. */
TEST_F(perf, bad_target_refused)
{
	struct perf_event_attr attr;
	struct stat st;

	ASSERT_EQ(0, uprobe_perf_attr(&attr, "/tmp/uprobe_perf-no-such-file", 0x100, 0, 0));
	EXPECT_EQ(-ENOENT, perf_open(&attr, 0, -1));
	ASSERT_EQ(0, stat(self_path(), &st));
	ASSERT_EQ(0, uprobe_perf_attr(&attr, self_path(), st.st_size + 4096, 0, 0));
	EXPECT_EQ(-EINVAL, perf_open(&attr, 0, -1));
	ASSERT_EQ(0, uprobe_perf_attr(&attr, self_path(), st.st_size + 4096, 1, 0));
	EXPECT_EQ(-EINVAL, perf_open(&attr, 0, -1));
	/* The same attr on a real function opens: the errors were the target's. */
	ASSERT_EQ(0, uprobe_perf_attr(&attr, self_path(), self_offset(perf_target), 0, 0));
	self->fd[0] = perf_open(&attr, 0, -1);
	ASSERT_LE(0, self->fd[0]);
}

/*
 * The samples of the ring of @meta (SAMPLE_PAGES pages after it), each
 * with its ip first, and in *@at_fn how many are at @fn; -1 if a record
 * runs past the ring's end or is empty.
 */
#define SAMPLE_PAGES 8
static int ring_samples(struct perf_event_mmap_page *meta, const void *fn, int *at_fn)
{
	const size_t size = SAMPLE_PAGES * sysconf(_SC_PAGESIZE);
	const char *ring = (char *)meta + sysconf(_SC_PAGESIZE);
	unsigned long long head, pos;
	int samples = 0;

	*at_fn = 0;
	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	for (pos = meta->data_tail; pos < head;) {
		struct perf_event_header hdr;
		unsigned long long ip;
		size_t at = pos % size;

		if (at + sizeof(hdr) + sizeof(ip) > size)
			return -1;
		memcpy(&hdr, ring + at, sizeof(hdr));
		if (!hdr.size)
			return -1;
		if (hdr.type == PERF_RECORD_SAMPLE) {
			memcpy(&ip, ring + at + sizeof(hdr), sizeof(ip));
			samples++;
			*at_fn += ip == (unsigned long)fn;
		}
		pos += hdr.size;
	}
	return samples;
}

/* A sampling event's ring: SAMPLE_PAGES pages after its header. */
static struct perf_event_mmap_page *ring_map(int fd)
{
	return mmap(NULL, (1 + SAMPLE_PAGES) * sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
		    MAP_SHARED, fd, 0);
}

static void ring_unmap(struct perf_event_mmap_page *meta)
{
	munmap(meta, (1 + SAMPLE_PAGES) * sysconf(_SC_PAGESIZE));
}

/* An event of this process sampling each hit of @fn's probe: fd or -errno. */
static int sampling_open(void *fn)
{
	struct perf_event_attr attr;
	int err;

	err = uprobe_perf_attr(&attr, self_path(), self_offset(fn), 0, 0);
	if (err)
		return err;
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_IP;
	attr.wakeup_events = 1;
	return perf_open(&attr, 0, -1);
}

/* PERF_SAMPLE_IP: one sample per hit, carrying the probed address. */
TEST_F(perf, sample_ip)
{
	struct perf_event_mmap_page *meta;
	int at_target;

	self->fd[0] = sampling_open(perf_target);
	ASSERT_LE(0, self->fd[0]);
	meta = ring_map(self->fd[0]);
	ASSERT_NE(MAP_FAILED, meta);
	call_n(perf_target, 3);
	call_n(perf_other, 2);
	EXPECT_EQ(3, ring_samples(meta, perf_target, &at_target));
	EXPECT_EQ(3, at_target);
	EXPECT_EQ(3, perf_count(self->fd[0]));
	ring_unmap(meta);
}

/* Sets the filter @fmt (one %d: this process's pid) on the event @fd. */
static int set_pid_filter(int fd, const char *fmt)
{
	char filter[64];

	snprintf(filter, sizeof(filter), fmt, getpid());
	return ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter);
}

/*
 * Filters decide what counting events count: two on one probe, one whose
 * filter takes this process's hits, one whose filter takes none.
 */
TEST_F(perf, filters_decide_counts)
{
	self->fd[0] = probe_open(perf_target, 0, NULL, 0, -1, 0);
	self->fd[1] = probe_open(perf_target, 0, NULL, 0, -1, 0);
	ASSERT_LE(0, self->fd[0]);
	ASSERT_LE(0, self->fd[1]);
	ASSERT_EQ(0, set_pid_filter(self->fd[0], "common_pid == %d"));
	ASSERT_EQ(0, set_pid_filter(self->fd[1], "common_pid != %d"));
	call_n(perf_target, 5);
	EXPECT_EQ(5, perf_count(self->fd[0]));
	EXPECT_EQ(0, perf_count(self->fd[1]));
}

/*
 * An inherited event's filter holds in the children too, whose events
 * are copies without a filter of their own: set to this process's pid,
 * it counts the 3 hits before the fork and none of a child's.  (6.12,
 * whose inherited entry event counts no hit of a child, may lose the
 * parent's hits after a fork: there are none.)
 */
TEST_F(perf, filter_holds_in_children)
{
	long long count;
	struct kid kid;

	self->fd[0] = probe_open(perf_target, 0, NULL, 0, -1, 1);
	ASSERT_LE(0, self->fd[0]);
	ASSERT_EQ(0, set_pid_filter(self->fd[0], "common_pid == %d"));
	call_n(perf_target, 3);
	ASSERT_EQ(0, kid_start(&kid, perf_calls, 6, -1));
	ASSERT_EQ(0, kid_run(&kid));
	ASSERT_EQ(0, kid_end(&kid));
	count = perf_count(self->fd[0]);
	TH_LOG("filtered inherited event: %lld (parent 3 hits, child 6)", count);
	EXPECT_EQ(3, count);
}

/*
 * A counting event and a sampling event on one probe: each call counted
 * by the one and sampled, at the probed address, by the other.
 */
TEST_F(perf, counting_beside_sampling)
{
	struct perf_event_mmap_page *meta;
	int at_target;

	self->fd[0] = probe_open(perf_target, 0, NULL, 0, -1, 0);
	ASSERT_LE(0, self->fd[0]);
	self->fd[1] = sampling_open(perf_target);
	ASSERT_LE(0, self->fd[1]);
	meta = ring_map(self->fd[1]);
	ASSERT_NE(MAP_FAILED, meta);
	call_n(perf_target, 4);
	EXPECT_EQ(4, ring_samples(meta, perf_target, &at_target));
	EXPECT_EQ(4, at_target);
	EXPECT_EQ(4, perf_count(self->fd[0]));
	EXPECT_EQ(4, perf_count(self->fd[1]));
	ring_unmap(meta);
}

#ifdef __aarch64__
/*
 * Each literal load probed in turn: it loads what it would unprobed (the
 * value extended as its register wants), every call is counted, and
 * /proc/PID/uprobes tells that no step runs it.  A kernel that cannot
 * probe literal loads refuses the first with EINVAL.
 */
TEST_F(perf, literal_loads)
{
	static const struct {
		long (*fn)(void);
		unsigned long want;
	} loads[] = {
		{ lit_x, 0x8877665580000001UL },
		{ lit_w, 0x80000001UL },
		{ lit_sw, 0xffffffff80000001UL },
		{ lit_prfm, 7 },
		{ lit_ahead, 0x0123456789abcdefUL },
	};
	char line[256];
	int i, n;

	for (i = 0; i < ARRAY_SIZE(loads); i++) {
		self->fd[0] = self_probe(loads[i].fn);
		if (i == 0 && kernel_lacks(_metadata, self->fd[0] != -EINVAL,
					   "simulation of literal loads"))
			return;
		ASSERT_LE(0, self->fd[0]) TH_LOG("load %d: perf_event_open: %d", i, self->fd[0]);
		for (n = 0; n < 3; n++)
			EXPECT_EQ(loads[i].want, (unsigned long)loads[i].fn()) TH_LOG("load %d", i);
		EXPECT_EQ(3, perf_count(self->fd[0])) TH_LOG("load %d", i);
		if (have_proc_uprobes()) {
			ASSERT_EQ(0, proc_uprobes_line(0, loads[i].fn, line, sizeof(line)));
			EXPECT_NE(NULL, strstr(line, " emulated")) TH_LOG("load %d: %s", i, line);
		}
		close(self->fd[0]);
		self->fd[0] = -1;
	}
}

/*
 * A literal load of a SIMD&FP register, probed: refused (EINVAL), or it
 * loads what it would unprobed.  Stepped out of line, it would load from
 * beside the XOL slot.
 */
TEST_F(perf, fp_literal_load_right_or_refused)
{
	int n;

	self->fd[0] = self_probe(lit_d);
	if (self->fd[0] == -EINVAL)
		return;
	ASSERT_LE(0, self->fd[0]) TH_LOG("perf_event_open: %d", self->fd[0]);
	for (n = 0; n < 3; n++)
		EXPECT_EQ(0x8877665580000001UL, (unsigned long)lit_d());
	EXPECT_EQ(3, perf_count(self->fd[0]));
}
#endif

#define CHURN_ROUNDS 200
#define CHURN_CALLS 50

struct churn {
	pthread_barrier_t opened, done, go, closed;
	int cpu;
	long bad;
};

/*
 * A worker on its CPU: per round, CHURN_CALLS calls while the events
 * exist, then as many while they are being closed.
 */
static void *churn_worker(void *p)
{
	struct churn *c = p;
	int round, i;

	if (pin_to_cpu(c->cpu))
		c->bad++;
	for (round = 0; round < CHURN_ROUNDS; round++) {
		pthread_barrier_wait(&c->opened);
		for (i = 0; i < CHURN_CALLS; i++)
			c->bad += perf_target(i) != i + 1;
		pthread_barrier_wait(&c->done);
		pthread_barrier_wait(&c->go);
		for (i = 0; i < CHURN_CALLS; i++)
			c->bad += perf_target(i) != i + 1;
		pthread_barrier_wait(&c->closed);
	}
	return NULL;
}

/*
 * Two threads, one per CPU, hit a probe while its CPU-wide events are
 * opened and closed 200 times: while the events exist they count every
 * call exactly, and closing them under the hits harms no one.
 */
TEST_F_TIMEOUT(perf, close_while_threads_hit, 300)
{
	struct churn c[2];
	pthread_t threads[2];
	int round, i;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs 2 CPUs");
	for (i = 0; i < 2; i++) {
		c[i] = (struct churn){ .cpu = i };
		ASSERT_EQ(0, pthread_barrier_init(&c[i].opened, NULL, 2));
		ASSERT_EQ(0, pthread_barrier_init(&c[i].done, NULL, 2));
		ASSERT_EQ(0, pthread_barrier_init(&c[i].go, NULL, 2));
		ASSERT_EQ(0, pthread_barrier_init(&c[i].closed, NULL, 2));
		ASSERT_EQ(0, pthread_create(&threads[i], NULL, churn_worker, &c[i]));
	}
	for (round = 0; round < CHURN_ROUNDS; round++) {
		for (i = 0; i < 2; i++) {
			self->fd[i] = probe_open(perf_target, 0, NULL, -1, i, 0);
			ASSERT_LE(0, self->fd[i]);
			pthread_barrier_wait(&c[i].opened);
		}
		for (i = 0; i < 2; i++) {
			pthread_barrier_wait(&c[i].done);
			ASSERT_EQ(CHURN_CALLS, perf_count(self->fd[i])) {
				TH_LOG("round %d, CPU %d", round, i);
			}
		}
		for (i = 0; i < 2; i++)
			pthread_barrier_wait(&c[i].go);
		for (i = 0; i < 2; i++) {
			close(self->fd[i]);
			self->fd[i] = -1;
		}
		for (i = 0; i < 2; i++)
			pthread_barrier_wait(&c[i].closed);
	}
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pthread_join(threads[i], NULL));
		EXPECT_EQ(0, c[i].bad);
	}
}

/* A kid's work: the sled, once. */
static void sled_run(long unused)
{
	perf_sled();
}

/*
 * Ten thousand events of a child, one per nop of a sled, each count the
 * child's run through it; once they are closed the child's sled is all
 * nops again, and runs again.  (On 6.12 each close waits for grace
 * periods: under emulation the closes alone take half an hour.)  The events
 * are a child's, which sleeps meanwhile: perf takes every event of a task
 * off and on again each time the task is switched, which the sleeps in
 * opens and closes of the task's own events would make O(N^2).  A kernel
 * with the debug checkers stops opening after OPEN_BUDGET seconds all the
 * same, so that the whole stays within the test's time: there, at least
 * 200; on any other kernel, every one.
 */
#define OPEN_BUDGET	240

TEST_F_TIMEOUT(perf, ten_thousand_events_open_close, 900)
{
	static INSN_UNIT sled[SLED_NOPS];
	struct rlimit files = { SLED_NOPS + 100, SLED_NOPS + 100 };
	int *fds = calloc(SLED_NOPS, sizeof(*fds));
	int n, i, bad = 0;
	time_t start = time(NULL);
	struct kid kid;

	ASSERT_NE(NULL, fds);
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &files));
	ASSERT_EQ(0, kid_start(&kid, sled_run, 0, -1));
	for (n = 0; n < SLED_NOPS && time(NULL) - start < OPEN_BUDGET; n++) {
		fds[n] = probe_open((INSN_UNIT *)perf_sled + n, 0, NULL, kid.pid, -1, 0);
		ASSERT_LE(0, fds[n]) {
			TH_LOG("event %d: %s", n, strerror(-fds[n]));
		}
	}
	TH_LOG("%d events in %lld s", n, (long long)(time(NULL) - start));
	/* On a kernel without the checkers, every one. */
	EXPECT_LE(debug_kernel() ? 200 : SLED_NOPS, n);
	ASSERT_EQ(0, kid_run(&kid));
	for (i = 0; i < n; i++)
		bad += perf_count(fds[i]) != 1;
	EXPECT_EQ(0, bad);
	for (i = 0; i < n; i++)
		close(fds[i]);
	TH_LOG("closed by %lld s", (long long)(time(NULL) - start));
	ASSERT_EQ(0, mem_read(kid.pid, perf_sled, sled, sizeof(sled)));
	for (i = 0; i < SLED_NOPS; i++)
		bad += sled[i] != SLED_NOP;
	EXPECT_EQ(0, bad);
	ASSERT_EQ(0, kid_run(&kid));
	EXPECT_EQ(0, kid_end(&kid));
	free(fds);
}

TEST_HARNESS_MAIN
