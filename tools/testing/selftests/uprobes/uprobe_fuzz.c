// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_fuzz: uprobe_events fed thousands of mangled definitions, from a
 * fixed seed so that a failure can be replayed.  Each line is a real
 * definition of a probe on this program, changed a few characters at a
 * time.  Whatever the line, the write either defines events or fails with
 * one of the errnos uprobe_events documents, and a failed write leaves
 * the list as it was.  A line that defines an event must read back in the
 * canonical form, which written again is the same probe (EEXIST); and if
 * it still probes the function it was made for, enabling it and calling
 * the function records the hit.  Whatever the line, the kernel must log
 * no warning meanwhile, which is left to the runner to check.
 *
 * perf_event_open() of the uprobe PMU gets random attributes the same way:
 * paths that are no file, a directory, too long, or no pointer at all;
 * offsets and SDT semaphore offsets anywhere; the return bit, inherit,
 * and samples of user registers and stacks.  It opens or fails with an
 * errno perf documents, and what it opens counts and closes.  And the
 * uretprobe syscall (335), called by a program itself in every wrong way,
 * can cost that program a signal but nothing else: not its other threads'
 * pending returns, not the kernel.  (x86-64 only: elsewhere a return probe
 * returns through a breakpoint, and there is no such syscall.)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "../kselftest_harness.h"
#include "uprobe_util.h"

#define FUZZ_SEED	20261121u
#define FUZZ_LINES	1500	/* unless UPROBE_FUZZ_LINES says otherwise */
#define FUZZ_ATTRS	3000
#ifdef __x86_64__
#define NR_URETPROBE	335
#endif

TARGET long fuzz_target(long a, const char *s)
{
	return a + s[0];
}

/*
 * The definitions the fuzzer starts from; %s is PATH:0xOFFSET.  The same
 * on arm64, with its register names.
 */
static const char *const seeds[] = {
#ifdef __aarch64__
	"p:utest/f %s",
	"r:utest/f %s rv=$retval:s64",
	"p:utest/f %s a=%%x0:s32 s=+0(%%x1):string c=$comm",
	"p:utest/f %s%%return r=$retval u=+0($retval):u8",
	"p %s(0x10)",
	"p:utest.f %s d=+8(+0(%%sp)):x16[3] e=@+0x10:u16 st=$stack1",
	"p:utest/f %s b=%%x2:b4@4/32 k=\\\"key\\\" i=\\-7:s8 ch=+0(%%x1):char",
	"r:utest/f %s t=+u0(%%sp):ustring ip=%%pc fl=%%pstate",
#else
	"p:utest/f %s",
	"r:utest/f %s rv=$retval:s64",
	"p:utest/f %s a=%%di:s32 s=+0(%%si):string c=$comm",
	"p:utest/f %s%%return r=$retval u=+0($retval):u8",
	"p %s(0x10)",
	"p:utest.f %s d=+8(+0(%%sp)):x16[3] e=@+0x10:u16 st=$stack1",
	"p:utest/f %s b=%%dx:b4@4/32 k=\\\"key\\\" i=\\-7:s8 ch=+0(%%si):char",
	"r:utest/f %s t=+u0(%%sp):ustring ip=%%ip fl=%%flags",
#endif
};

/* Characters the grammar gives a meaning to, and some it does not. */
static const char alphabet[] = ":/%$@+-()[]=\\\".,_ 0123456789xabcdefrpsuXt\t#~";

static unsigned int fuzz_rand(unsigned int *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 8;
}

/*
 * Changes @line in place (room for @cap bytes) a few times at random, at
 * @from or after.
 */
static void mangle(char *line, size_t cap, size_t from, unsigned int *state)
{
	int n = 1 + fuzz_rand(state) % 4;
	size_t len, at, span;

	while (n--) {
		len = strlen(line);
		at = len > from ? from + fuzz_rand(state) % (len - from) : len;
		switch (fuzz_rand(state) % 5) {
		case 0:		/* replace a character */
			if (len)
				line[at] = alphabet[fuzz_rand(state) % (sizeof(alphabet) - 1)];
			break;
		case 1:		/* insert one */
			if (len + 1 < cap) {
				memmove(line + at + 1, line + at, len - at + 1);
				line[at] = alphabet[fuzz_rand(state) % (sizeof(alphabet) - 1)];
			}
			break;
		case 2:		/* delete one */
			if (len)
				memmove(line + at, line + at + 1, len - at);
			break;
		case 3:		/* repeat a piece */
			span = 1 + fuzz_rand(state) % 12;
			if (at + span <= len && len + span < cap) {
				memmove(line + at + span, line + at, len - at + 1);
				memcpy(line + at + span, line + at, span);
			}
			break;
		default:	/* cut the end off */
			line[at] = '\0';
			break;
		}
	}
}

/* The errnos a write to uprobe_events may fail with. */
static bool documented(int err)
{
	switch (-err) {
	case EINVAL:		/* malformed, or not a regular file */
	case E2BIG:		/* too many or too long arguments */
	case ENOENT:		/* no such file, or no event to delete */
	case ENOTDIR:		/* a path through a file */
	case ENAMETOOLONG:
	case EEXIST:		/* the event exists, otherwise */
	case ESRCH:		/* /proc/PID: no such process */
		return true;
	}
	return false;
}

/* "GRP" and "EVENT" of a listed line "p:GRP/EVENT ..."; false if none. */
static bool listed_name(const char *list, char *group, char *event)
{
	return sscanf(list, "%*c:%63[^/]/%63[^\n ]", group, event) == 2;
}

/*
 * A line that defined an event: it lists back canonically, its listing is
 * the same probe, and at the function it was made for (@place, as listed)
 * it records a call, if @try_hit.  Then it goes by its listed name.
 * Returns true if the trace has records to clear.
 */
static bool check_defined(struct __test_metadata *_metadata, const char *line,
			  const char *place, bool try_hit, int *hit)
{
	char *list = tfs_read("uprobe_events"), *again, *trace, *nl;
	char group[64], event[64], needle[80], gone[160];
	bool recorded = false;
	int err;

	ASSERT_NE(NULL, list);
	ASSERT_TRUE(listed_name(list, group, event)) TH_LOG("%s -> %s", line, list);
	nl = strchr(list, '\n');
	ASSERT_NE(NULL, nl);
	again = strndup(list, nl - list);
	ASSERT_NE(NULL, again);
	/* One line defines one probe: the listing is that probe again. */
	EXPECT_EQ(NULL, strchr(nl + 1, '\n')) TH_LOG("%s -> %s", line, list);
	EXPECT_EQ(-EEXIST, tfs_append("uprobe_events", again)) TH_LOG("%s -> %s", line, again);

	if (try_hit && strstr(again, place)) {
		err = event_enable(group, event, 1);
		EXPECT_TRUE(!err || err == -EINVAL) TH_LOG("enable %s: %d", again, err);
		fuzz_target(1, "x");
		if (!err) {
			(*hit)++;
			recorded = true;
			EXPECT_EQ(0, event_enable(group, event, 0));
			trace = trace_read();
			snprintf(needle, sizeof(needle), " %s: (", event);
			EXPECT_EQ(1, count_lines(trace, needle)) TH_LOG("%s:\n%s", again, trace);
			free(trace);
		}
	}
	snprintf(gone, sizeof(gone), "-:%s/%s", group, event);
	EXPECT_EQ(0, tfs_append("uprobe_events", gone)) TH_LOG("%s", gone);
	free(again);
	free(list);
	return recorded;
}

/* How many lines mangled_definitions writes: a longer run asks for more. */
static int fuzz_lines(void)
{
	const char *env = getenv("UPROBE_FUZZ_LINES");
	int lines = env ? atoi(env) : 0;

	return lines > 0 ? lines : FUZZ_LINES;
}

FIXTURE(fuzz) {};

FIXTURE_SETUP(fuzz)
{
	tracing_reset();
}

FIXTURE_TEARDOWN(fuzz)
{
	tracing_reset();
}

/* The harness's limit: generous, as the run's time scales with the lines. */
TEST_F_TIMEOUT(fuzz, mangled_definitions, 4 * 3600)
{
	unsigned int state = FUZZ_SEED;
	int i, err, defined = 0, refused = 0, hit = 0, lines = fuzz_lines();
	bool try_hit;
	size_t from;
	char place[4200], listed[4200], line[8192];
	char *after;

	snprintf(place, sizeof(place), "%s:0x%lx", self_path(), self_offset(fuzz_target));
	snprintf(listed, sizeof(listed), "%s:0x%016lx", self_path(), self_offset(fuzz_target));
	for (i = 0; i < lines; i++) {
		snprintf(line, sizeof(line), seeds[fuzz_rand(&state) % ARRAY_SIZE(seeds)], place);
		/* Half of the lines keep their place and change the rest. */
		from = 0;
		if (fuzz_rand(&state) % 2)
			from = strstr(line, place) - line + strlen(place);
		mangle(line, sizeof(line), from, &state);

		err = tfs_append("uprobe_events", line);
		if (err) {
			refused++;
			EXPECT_TRUE(documented(err)) TH_LOG("line %d: \"%s\": %d", i, line, err);
			after = tfs_read("uprobe_events");
			EXPECT_STREQ("", after ?: "?") TH_LOG("line %d: \"%s\"", i, line);
			free(after);
			continue;
		}
		after = tfs_read("uprobe_events");
		ASSERT_NE(NULL, after);
		/*
		 * A comment, a blank or a deletion defines nothing.  Past the
		 * first FUZZ_LINES, one event in ten is enabled and hit: it
		 * costs a grace period or two.
		 */
		if (after[0]) {
			defined++;
			try_hit = i < FUZZ_LINES || defined % 10 == 0;
			if (check_defined(_metadata, line, listed, try_hit, &hit))
				tracing_reset();
			free(after);
			after = tfs_read("uprobe_events");
			EXPECT_STREQ("", after ?: "?") TH_LOG("line %d: \"%s\"", i, line);
		}
		free(after);
		if (!__test_passed(_metadata))
			break;
	}
	tracing_reset();
	TH_LOG("%d lines: %d defined an event (%d of them enabled and hit), %d refused",
	       i, defined, hit, refused);
	EXPECT_LT(0, hit);
	EXPECT_LT(0, refused);
}

/* ------------------------------------------------ perf_event_open() */

/* The errnos perf_event_open() of the uprobe PMU may fail with. */
static bool perf_documented(int err)
{
	switch (-err) {
	case EINVAL:		/* bad offset, flags, sample settings */
	case ENOENT:		/* no such file */
	case ENOTDIR:
	case ENAMETOOLONG:
	case EFAULT:		/* the path is no pointer, or /proc/PID's address is not code */
	case ESRCH:		/* /proc/PID: no such process */
	case EOPNOTSUPP:	/* the instruction cannot be probed */
	case ENOEXEC:		/* no instruction there */
	case E2BIG:		/* attr size */
	case EACCES:
	case EPERM:
		return true;
	}
	return false;
}

static unsigned long fuzz_pick(unsigned int *state, const unsigned long *v, size_t n)
{
	return v[fuzz_rand(state) % n];
}

/* Random attributes of the uprobe PMU; what @path points to lives on. */
static int fuzz_attr(struct perf_event_attr *attr, unsigned int *state)
{
	static char long_path[PATH_MAX + 64], own_process[32];
	/* No place inside an instruction this program runs: that breaks it. */
	const unsigned long offsets[] = {
		0, 2, self_offset(fuzz_target), 1UL << 31, 1UL << 62, -1UL, -4096UL,
		(unsigned long)INT_MAX,
	};
	const char *const paths[] = {
		self_path(), self_path(), "/proc/self/exe", "/nonexistent", "/dev/null", "/tmp",
		"", long_path, NULL, (const char *)1, own_process, "/proc/2147483647",
	};
	unsigned int pick = fuzz_rand(state) % ARRAY_SIZE(paths);
	int err;

	memset(long_path, 'a', sizeof(long_path) - 1);
	/* By process and address: none of the offsets is code of this one. */
	snprintf(own_process, sizeof(own_process), "/proc/%d", getpid());
	err = uprobe_perf_attr(attr, paths[pick] ? paths[pick] : "", 0,
			       fuzz_rand(state) % 4 == 0, 0);
	if (err)
		return err;
	attr->uprobe_path = (unsigned long)paths[pick];
	attr->probe_offset = fuzz_pick(state, offsets, ARRAY_SIZE(offsets));
	if (fuzz_rand(state) % 3 == 0)
		attr->config |= fuzz_pick(state, offsets, ARRAY_SIZE(offsets)) << 32;
	attr->inherit = fuzz_rand(state) % 2;
	attr->disabled = fuzz_rand(state) % 4 == 0;
	if (fuzz_rand(state) % 2) {
		attr->sample_period = 1 + fuzz_rand(state) % 3;
		attr->sample_type = fuzz_rand(state) &
				    (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER |
				     PERF_SAMPLE_STACK_USER | PERF_SAMPLE_CALLCHAIN |
				     PERF_SAMPLE_RAW);
		attr->sample_regs_user = fuzz_rand(state) % 2 ? 0xff0fff : fuzz_rand(state);
		attr->sample_stack_user = fuzz_pick(state, offsets, ARRAY_SIZE(offsets)) & 0xfffff8;
	}
	return 0;
}

/*
 * perf_event_open() of random uprobe PMU attributes: an fd or a documented
 * errno, and an event that opens counts calls or samples them, then
 * closes.
 */
TEST_F_TIMEOUT(fuzz, perf_attrs, 900)
{
	unsigned int state = FUZZ_SEED;
	int i, fd, opened = 0, refused = 0;
	struct perf_event_attr attr;

	if (uprobe_pmu_type() < 0)
		SKIP(return, "no uprobe PMU");
	for (i = 0; i < FUZZ_ATTRS; i++) {
		ASSERT_EQ(0, fuzz_attr(&attr, &state));
		fd = perf_open(&attr, fuzz_rand(&state) % 2 ? 0 : -1, 0);
		if (fd < 0) {
			refused++;
			EXPECT_TRUE(perf_documented(fd)) {
				TH_LOG("attr %d: offset 0x%llx config 0x%llx: %d", i,
				       (unsigned long long)attr.probe_offset,
				       (unsigned long long)attr.config, fd);
			}
			continue;
		}
		opened++;
		fuzz_target(1, "x");
		fuzz_target(2, "y");
		EXPECT_LE(0, perf_count(fd));
		close(fd);
	}
	TH_LOG("%d attributes: %d opened, %d refused", i, opened, refused);
	EXPECT_LT(0, opened);
	EXPECT_LT(0, refused);
}

/* --------------------------------------------- the uretprobe syscall */

#ifdef NR_URETPROBE
/*
 * A child of its own calls 335 by @how; the worst it may get is a signal.
 * Returns the child's wait status.
 */
static int uretprobe_in_child(void (*how)(void))
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		/* A return probe's hit gives the child its trampoline. */
		fuzz_target(1, "x");
		how();
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

static void plain_call(void)
{
	syscall(NR_URETPROBE);
}

static void from_handler(int sig)
{
	syscall(NR_URETPROBE);
}

static void in_handler(void)
{
	signal(SIGUSR1, from_handler);
	raise(SIGUSR1);
}

/* With the stack pointer at an unmapped page: no frame can be read. */
static void bad_stack(void)
{
	asm volatile("mov $0x1000, %%rsp\n\tmov %0, %%eax\n\tsyscall"
		     : : "i"(NR_URETPROBE) : "rax", "rcx", "r11", "memory");
}

/* With the stack pointer at unreadable garbage on a mapped page. */
static void odd_stack(void)
{
	static char junk[4096] __aligned(4096);

	memset(junk, 0xa5, sizeof(junk));
	asm volatile("mov %1, %%rsp\n\tmov %0, %%eax\n\tsyscall"
		     : : "i"(NR_URETPROBE), "r"(junk + 2048) : "rax", "rcx", "r11", "memory");
}

/*
 * No return pending: from plain code, a handler, a bad or odd stack, in a
 * process that has the trampoline.  Not called from the trampoline, the
 * syscall looks at nothing else, the stack least of all: the caller gets
 * SIGILL.
 */
TEST_F(fuzz, uretprobe_syscall_unasked)
{
	void (*const ways[])(void) = { plain_call, in_handler, bad_stack, odd_stack };
	int i, status;

	ASSERT_EQ(0, uprobe_event_add("r:utest/ft %s:0x%lx", self_path(),
				      self_offset(fuzz_target)));
	ASSERT_EQ(0, event_enable("utest", "ft", 1));
	for (i = 0; i < ARRAY_SIZE(ways); i++) {
		status = uretprobe_in_child(ways[i]);
		EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGILL) {
			TH_LOG("way %d: status 0x%x", i, status);
		}
	}
}

/* Blocks in the probed function until a byte comes on @fd. */
TARGET long fuzz_wait(long fd)
{
	char c;

	return read(fd, &c, 1) == 1 ? c : -1;
}

static pid_t waiter_tid;

static void *wait_in_probed(void *arg)
{
	__atomic_store_n(&waiter_tid, syscall(SYS_gettid), __ATOMIC_RELEASE);
	return (void *)fuzz_wait((long)arg);
}

/* SIGILLs caught by the child; atomic: the handler writes it. */
static int sigills;

static void count_sigill(int sig)
{
	__atomic_add_fetch(&sigills, 1, __ATOMIC_RELAXED);
}

#define PENDING_SCAN	2048	/* bytes of the waiter's stack looked at, above its sp */
#define PENDING_WAIT_MS	15000	/* within the harness's 30 s */

/*
 * Whether thread @tid of process @pid is blocked in read() with a return
 * pending: a word of its stack, just above its stack pointer, is in the
 * process's [uprobes] mapping, where the return trampoline is (the return
 * address of fuzz_wait(), which the probe's hit replaced).
 */
static bool return_pending(pid_t pid, pid_t tid)
{
	unsigned long sp, pc, stack[PENDING_SCAN / sizeof(long)];
	struct uprobes_maps maps;
	char path[64], line[256];
	size_t len, i;
	long nr;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(line, sizeof(line), f) ||
	    sscanf(line, "%ld %*s %*s %*s %*s %*s %*s %lx %lx", &nr, &sp, &pc) != 3 ||
	    nr != SYS_read) {
		fclose(f);
		return false;
	}
	fclose(f);
	if (uprobes_maps_read(pid, &maps))
		return false;
	/* As much of the stack above sp as is mapped, up to PENDING_SCAN. */
	for (len = sizeof(stack); len >= 64; len /= 2)
		if (!mem_read(pid, (void *)sp, stack, len))
			break;
	for (i = 0; len >= 64 && i < len / sizeof(long); i++)
		if (uprobes_maps_hold(&maps, stack[i]))
			return true;
	return false;
}

/* Waits for return_pending(): true, or false after PENDING_WAIT_MS. */
static bool wait_return_pending(pid_t pid, pid_t tid)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (return_pending(pid, tid))
			return true;
		usleep(10000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 <
		 PENDING_WAIT_MS);
	return false;
}

/*
 * One thread has a return pending in a probed function while another
 * calls 335: the caller gets one SIGILL (caught here), and the first
 * thread returns with its own value, recorded once.  The return is seen
 * pending (the trampoline's address on the first thread's stack, while it
 * blocks in the function) before and after the call.  Then the probe goes
 * while a return is pending (seen so), and the return still comes back
 * right.
 */
TEST_F(fuzz, uretprobe_syscall_other_thread)
{
	int pipefd[2], status;
	pthread_t waiter;
	char *trace;
	void *ret;
	pid_t pid;

	ASSERT_EQ(0, pipe(pipefd));
	ASSERT_EQ(0, uprobe_event_add("r:utest/wait %s:0x%lx rv=$retval:s64", self_path(),
				      self_offset(fuzz_wait)));
	ASSERT_EQ(0, event_enable("utest", "wait", 1));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct sigaction sa = { .sa_handler = count_sigill };

		if (sigaction(SIGILL, &sa, NULL))
			_exit(9);
		if (pthread_create(&waiter, NULL, wait_in_probed, (void *)(long)pipefd[0]))
			_exit(10);
		while (!__atomic_load_n(&waiter_tid, __ATOMIC_ACQUIRE))
			usleep(1000);
		if (!wait_return_pending(getpid(), waiter_tid))
			_exit(15);
		syscall(NR_URETPROBE);
		if (__atomic_load_n(&sigills, __ATOMIC_RELAXED) != 1)
			_exit(14);
		if (!return_pending(getpid(), waiter_tid))
			_exit(16);
		if (write(pipefd[1], "a", 1) != 1)
			_exit(11);
		pthread_join(waiter, &ret);
		_exit((long)ret == 'a' ? 0 : 12);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("status 0x%x: exit 15 no return pending before the call, 16 none after",
		       status);
	trace = trace_read();
	EXPECT_EQ(1, count_lines(trace, "rv=97")) TH_LOG("%s", trace);
	free(trace);

	/* The probe leaves while the return is pending. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(fuzz_wait(pipefd[0]) == 'b' ? 0 : 13);
	EXPECT_TRUE(wait_return_pending(pid, pid)) TH_LOG("no return pending in the child");
	EXPECT_EQ(0, event_enable("utest", "wait", 0));
	EXPECT_EQ(0, tfs_write("uprobe_events", ""));
	ASSERT_EQ(1, write(pipefd[1], "b", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) TH_LOG("status 0x%x", status);
	close(pipefd[0]);
	close(pipefd[1]);
}
#else
/* Off x86-64 a return probe returns through a breakpoint, not a syscall. */
TEST_F(fuzz, uretprobe_syscall_unasked)
{
	SKIP(return, "no uretprobe syscall off x86-64");
}

TEST_F(fuzz, uretprobe_syscall_other_thread)
{
	SKIP(return, "no uretprobe syscall off x86-64");
}
#endif /* NR_URETPROBE */

TEST_HARNESS_MAIN
