// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_lifecycle: probes across the life of processes and mappings.  A
 * probe is (inode, offset); it must follow the file into threads, forked
 * children, exec'ed images, dlopen'ed and hand-made mappings, through
 * munmap/mremap/mprotect, and leave nothing behind when a process exits or
 * the probe goes.  Every test counts hits exactly, in uprobe_profile and per
 * task in the trace buffer.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "uprobe_asm.h"
#include "uprobe_util.h"

#define GROUP "ulife"

TARGET long life_target(long x)
{
	return x * 7 + 3;
}

/*
 * On arm64 both are adds: stepped, as every instruction it does not
 * simulate.  On x86-64 life_direct's lea starts 4 bytes before the end of
 * a page, where a kernel with jumps to stubs makes none (a jump would
 * cross into the next page): its hits run it from the task's own slot, or
 * step it.
 */
asm(".pushsection .text\n"
#ifndef __aarch64__
	".balign 4096\n"
	".skip 4092, 0x90\n"
#endif
	".globl life_direct\n"
	".type life_direct, @function\n"
	"life_direct:\n"
#ifdef __aarch64__
	"	add x0, x0, #1\n"
#else
	"	lea 1(%rdi), %rax\n"
#endif
	"	ret\n"
	".size life_direct, .-life_direct\n"
	".globl life_stepped\n"
	".type life_stepped, @function\n"
	"life_stepped:\n"
#ifdef __aarch64__
	"	mov x1, x0\n"
	".globl life_stepped_popf\n"
	"life_stepped_popf:\n"
	"	add x0, x1, #2\n"
#else
	"	pushfq\n"
	".globl life_stepped_popf\n"
	"life_stepped_popf:\n"
	"	popfq\n"
	"	lea 2(%rdi), %rax\n"
#endif
	"	ret\n"
	".size life_stepped, .-life_stepped\n"
	".popsection");

/*
 * MANY_INSNS stepped instructions in a row, each one probed by
 * life.stepped_probes_past_the_slots, that add 1, 2, ... MANY_INSNS: on
 * x86-64 adds from memory relative to %rip (a step of another one's copy
 * would add from elsewhere), on arm64 adds of an immediate.
 */
#define MANY_INSNS	72
#define MANY_SUM	(MANY_INSNS * (MANY_INSNS + 1) / 2)
#ifdef __aarch64__
#define MANY_STRIDE	4
#else
#define MANY_STRIDE	7
#endif

asm(".pushsection .text\n"
	".globl life_many, life_many_insns\n"
	".type life_many, @function\n"
	"life_many:\n"
#ifdef __aarch64__
	"life_many_insns:\n"
	"	.set life_many_k, 1\n"
	"	.rept " ASM_XSTR(MANY_INSNS) "\n"
	"	add x0, x0, #life_many_k\n"
	"	.set life_many_k, life_many_k + 1\n"
	"	.endr\n"
#else
	"	mov %rdi, %rax\n"
	"life_many_insns:\n"
	"	.set life_many_k, 0\n"
	"	.rept " ASM_XSTR(MANY_INSNS) "\n"
	"	add life_many_data + 8 * life_many_k(%rip), %rax\n"
	"	.set life_many_k, life_many_k + 1\n"
	"	.endr\n"
#endif
	"	ret\n"
	".size life_many, .-life_many\n"
	".popsection\n"
#ifndef __aarch64__
	".pushsection .data\n"
	".balign 8\n"
	"life_many_data:\n"
	"	.set life_many_k, 1\n"
	"	.rept " ASM_XSTR(MANY_INSNS) "\n"
	"	.quad life_many_k\n"
	"	.set life_many_k, life_many_k + 1\n"
	"	.endr\n"
	".popsection\n"
#endif
	);

/* Exits with @code if it is not negative: its return never happens. */
TARGET long life_maybe_exit(long code)
{
	if (code >= 0)
		_exit(code);
	return 42 + code;
}

/*
 * Exec mode: with UPL_EXEC_CALLS=N in the environment, any copy of this
 * program calls life_target() N times at start-up, then execs argv[1..]
 * (with the same environment) or exits.  Exit status 2: a wrong result.
 */
__attribute__((constructor)) static void exec_chain(int argc, char **argv)
{
	const char *calls = getenv("UPL_EXEC_CALLS");
	long i, n;

	if (!calls)
		return;
	n = atol(calls);
	for (i = 0; i < n; i++)
		if (life_target(i) != i * 7 + 3)
			_exit(2);
	if (argc > 1) {
		execv(argv[1], argv + 1);
		_exit(3);
	}
	_exit(0);
}

static int add_self_probe(const char *kind, const char *event, const void *func, const char *args)
{
	unsigned long off = self_offset(func);

	if (!off)
		return -ENOENT;
	return uprobe_event_add("%s:%s/%s %s:0x%lx %s", kind, GROUP, event, self_path(), off,
				args ? args : "");
}

/* Whether a mapping of @path is in /proc/self/maps. */
static int is_mapped(const char *path)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *maps = fopen("/proc/self/maps", "r");
	int found = 0;

	if (!maps)
		return -1;
	while (getline(&line, &cap, maps) > 0)
		if (strstr(line, path))
			found = 1;
	free(line);
	fclose(maps);
	return found;
}

static int count_in_trace(const char *event, pid_t pid)
{
	char *trace = trace_read();
	int n;

	if (!trace)
		return -1;
	n = trace_count_pid(trace, event, pid);
	free(trace);
	return n;
}

static int wait_exit_code(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* Child side: calls life_target() @n times; exit status 0 if all right. */
static void __noreturn child_calls(long n)
{
	long i;

	for (i = 0; i < n; i++)
		if (life_target(i) != i * 7 + 3)
			_exit(2);
	_exit(0);
}

FIXTURE(life) {
	char copy[64];
};

FIXTURE_SETUP(life)
{
	tracing_reset();
	self->copy[0] = '\0';
}

FIXTURE_TEARDOWN(life)
{
	tracing_reset();
	tfs_write("kprobe_events", "");
	if (self->copy[0])
		unlink(self->copy);
}

#define NTHREADS 4
#define NCALLS 50

struct thread_arg {
	pthread_barrier_t *start;
	pid_t tid;
	long bad;
};

static void *thread_calls(void *p)
{
	struct thread_arg *arg = p;
	long i;

	arg->tid = syscall(SYS_gettid);
	pthread_barrier_wait(arg->start);
	for (i = 0; i < NCALLS; i++)
		if (life_target(i) != i * 7 + 3)
			arg->bad++;
	return NULL;
}

/* N threads hitting one probe at once: N*M hits, M per thread. */
TEST_F(life, threads)
{
	struct thread_arg args[NTHREADS];
	pthread_t threads[NTHREADS];
	pthread_barrier_t start;
	int i;

	ASSERT_EQ(0, add_self_probe("p", "thr", life_target, NULL));
	ASSERT_EQ(0, event_enable(GROUP, "thr", 1));
	ASSERT_EQ(0, pthread_barrier_init(&start, NULL, NTHREADS));
	for (i = 0; i < NTHREADS; i++) {
		args[i] = (struct thread_arg){ .start = &start };
		ASSERT_EQ(0, pthread_create(&threads[i], NULL, thread_calls, &args[i]));
	}
	for (i = 0; i < NTHREADS; i++)
		ASSERT_EQ(0, pthread_join(threads[i], NULL));
	ASSERT_EQ(0, event_enable(GROUP, "thr", 0));
	EXPECT_EQ(NTHREADS * NCALLS, profile_hits("thr"));
	EXPECT_EQ(NTHREADS * NCALLS, count_in_trace("thr", 0));
	for (i = 0; i < NTHREADS; i++) {
		EXPECT_EQ(0, args[i].bad);
		EXPECT_EQ(NCALLS, count_in_trace("thr", args[i].tid));
	}
}

#define CROWD_THREADS 1000
#define CROWD_ROUNDS 3
#define CROWD_CALLS 3
/*
 * x86-64 with jumps to stubs: how many threads of a process keep an XOL
 * slot of their own at once (32 pages of 64 slots, less the trampoline's,
 * the 64 probes' slots and 16 left for steps:
 * Documentation/trace/uprobes.rst).
 */
#define OWN_SLOTS 1967
#define CROWD_PAST 69
#define CROWD_MAX (OWN_SLOTS + CROWD_PAST)

struct crowd {
	pthread_barrier_t start, hold;
	long bad;
	int threads;
};

/* Calls life_direct(), then holds on until the whole crowd has. */
static void *crowd_calls(void *p)
{
	struct crowd *c = p;
	long i;

	pthread_barrier_wait(&c->start);
	for (i = 0; i < CROWD_CALLS; i++)
		if (life_direct(i) != i + 1)
			__atomic_add_fetch(&c->bad, 1, __ATOMIC_RELAXED);
	pthread_barrier_wait(&c->hold);
	return NULL;
}

/* One round: c->threads threads alive at once, each hitting the probe. */
static int crowd_round(struct crowd *c)
{
	static pthread_t threads[CROWD_MAX];
	pthread_attr_t attr;
	int i, n, err = 0;

	if (c->threads > CROWD_MAX)
		return -1;
	if (pthread_attr_init(&attr) || pthread_attr_setstacksize(&attr, SMALL_STACK) ||
	    pthread_barrier_init(&c->start, NULL, c->threads) ||
	    pthread_barrier_init(&c->hold, NULL, c->threads))
		return -1;
	for (n = 0; n < c->threads; n++)
		if (pthread_create(&threads[n], &attr, crowd_calls, c))
			break;
	if (n < c->threads)
		err = -1;
	/* Threads not made leave the others stuck at a barrier: do not wait. */
	for (i = 0; !err && i < n; i++)
		pthread_join(threads[i], NULL);
	pthread_barrier_destroy(&c->start);
	pthread_barrier_destroy(&c->hold);
	pthread_attr_destroy(&attr);
	return err;
}

/*
 * A probe on @func, without a jump (%nojump, where the kernel has jumps to
 * stubs): it is stepped at every hit.
 */
static int add_stepped_probe(const char *event, const void *func)
{
	unsigned long off = self_offset(func);

	if (!off)
		return -ENOENT;
	return uprobe_event_add("p:%s/%s %s:0x%lx%s", GROUP, event, self_path(), off,
				have_uprobe_jumps() ? "%nojump" : "");
}

/*
 * The probe of the crowd cases, on life_direct: on x86-64 a copy of its
 * instruction runs out of line without a step; arm64 has no such copy in
 * a slot, and its jump's copy would run in the stub: %nojump keeps every
 * call stepped there, through the XOL slots the cases are about.
 */
static int add_crowd_probe(void)
{
#ifdef __x86_64__
	return add_self_probe("p", "crowd", life_direct, NULL);
#else
	return add_stepped_probe("crowd", life_direct);
#endif
}

/*
 * A thousand threads at once run a probed instruction out of line, each
 * from a slot of its own, and none single-steps: a kprobe on
 * arch_uprobe_pre_xol(), where every step starts, is never hit.  Three
 * rounds of them, one after the other, more than the XOL area can hold
 * at once: the slots of exited threads are used again.  A probed popfq,
 * which is stepped, shows that the kprobe sees steps.  (x86-64 kernels
 * with jumps to stubs run it so; others, and arm64, step every such call.)
 */
TEST_F_TIMEOUT(life, thousand_threads_run_direct, 300)
{
	long crowd_steps = CROWD_ROUNDS * CROWD_THREADS * CROWD_CALLS;
	struct crowd c = { .threads = CROWD_THREADS };
	int round;

#ifdef __x86_64__
	if (have_uprobe_jumps())
		crowd_steps = 0;
#endif
	ASSERT_EQ(0, add_crowd_probe());
	ASSERT_EQ(0, add_self_probe("p", "stepped", life_stepped_popf, NULL));
	ASSERT_EQ(0, event_enable(GROUP, "crowd", 1));
	ASSERT_EQ(0, event_enable(GROUP, "stepped", 1));
	ASSERT_EQ(0, tfs_write("kprobe_events", "p:ulife_k/steps arch_uprobe_pre_xol"));
	ASSERT_EQ(0, event_enable("ulife_k", "steps", 1));
	for (round = 0; round < CROWD_ROUNDS; round++)
		ASSERT_EQ(0, crowd_round(&c));
	EXPECT_EQ(crowd_steps, kprobe_hits("steps"));
	EXPECT_EQ(7, life_stepped(5));
	EXPECT_EQ(crowd_steps + 1, kprobe_hits("steps"));
	ASSERT_EQ(0, event_enable("ulife_k", "steps", 0));
	ASSERT_EQ(0, event_enable(GROUP, "crowd", 0));
	EXPECT_EQ(0, c.bad);
	EXPECT_EQ(CROWD_ROUNDS * CROWD_THREADS * CROWD_CALLS, profile_hits("crowd"));
	EXPECT_EQ(1, profile_hits("stepped"));
}

/*
 * CROWD_PAST threads more than can keep a slot of their own, alive at
 * once: on x86-64 with jumps to stubs the first OWN_SLOTS run the
 * instruction out of line from their slots, and the others step it, each
 * call: exactly CROWD_PAST * CROWD_CALLS steps.  Elsewhere every call
 * steps.
 */
TEST_F_TIMEOUT(life, crowd_past_the_slots, 300)
{
	long steps = (long)CROWD_MAX * CROWD_CALLS;
	struct crowd c = { .threads = CROWD_MAX };

#ifdef __x86_64__
	if (have_uprobe_jumps())
		steps = CROWD_PAST * CROWD_CALLS;
#endif
	ASSERT_EQ(0, add_crowd_probe());
	ASSERT_EQ(0, event_enable(GROUP, "crowd", 1));
	ASSERT_EQ(0, tfs_write("kprobe_events", "p:ulife_k/steps arch_uprobe_pre_xol"));
	ASSERT_EQ(0, event_enable("ulife_k", "steps", 1));
	ASSERT_EQ(0, crowd_round(&c));
	EXPECT_EQ(steps, kprobe_hits("steps"));
	ASSERT_EQ(0, event_enable("ulife_k", "steps", 0));
	ASSERT_EQ(0, event_enable(GROUP, "crowd", 0));
	EXPECT_EQ(0, c.bad);
	EXPECT_EQ((long)CROWD_MAX * CROWD_CALLS, profile_hits("crowd"));
}

#define TURNS_THREADS 16
#define TURNS_CALLS 1000

static void *steps_by_turns(void *p)
{
	long *bad = p, i;

	for (i = 0; i < TURNS_CALLS; i++)
		if (life_stepped(i) != i + 2)
			__atomic_add_fetch(bad, 1, __ATOMIC_RELAXED);
	return NULL;
}

/*
 * Two probes stepped by turns, at every call of life_stepped() (its
 * pushfq and popfq; on arm64 its mov and add), by TURNS_THREADS threads of
 * one process at once.  Each is stepped in its probe's own XOL slot,
 * whose code no step rewrites: no thread runs the other probe's
 * instruction.  Every result right, every hit stepped (a kprobe on
 * arch_uprobe_pre_xol()) and counted.  (6.12, which writes a slot at every
 * step, under QEMU's multi-threaded TCG now and then has a thread run the
 * slot's instruction of an earlier step, here the other probe's: the
 * thread dies of SIGTRAP.)
 */
TEST_F_TIMEOUT(life, steps_by_turns_in_threads, 300)
{
	pthread_t threads[TURNS_THREADS];
	long bad = 0;
	int n;

	ASSERT_EQ(0, add_stepped_probe("first", life_stepped));
	ASSERT_EQ(0, add_stepped_probe("second", life_stepped_popf));
	ASSERT_EQ(0, event_enable(GROUP, "first", 1));
	ASSERT_EQ(0, event_enable(GROUP, "second", 1));
	ASSERT_EQ(0, tfs_write("kprobe_events", "p:ulife_k/steps arch_uprobe_pre_xol"));
	ASSERT_EQ(0, event_enable("ulife_k", "steps", 1));
	for (n = 0; n < TURNS_THREADS; n++)
		ASSERT_EQ(0, pthread_create(&threads[n], NULL, steps_by_turns, &bad));
	for (n = 0; n < TURNS_THREADS; n++)
		ASSERT_EQ(0, pthread_join(threads[n], NULL));
	ASSERT_EQ(0, event_enable("ulife_k", "steps", 0));
	ASSERT_EQ(0, event_enable(GROUP, "first", 0));
	ASSERT_EQ(0, event_enable(GROUP, "second", 0));
	EXPECT_EQ(0, bad);
	EXPECT_EQ(2L * TURNS_THREADS * TURNS_CALLS, kprobe_hits("steps"));
	EXPECT_EQ(TURNS_THREADS * TURNS_CALLS, profile_hits("first"));
	EXPECT_EQ(TURNS_THREADS * TURNS_CALLS, profile_hits("second"));
}

#define SLOT_CALLS 200

/*
 * Two probes stepped by turns, SLOT_CALLS times each, in one thread: each
 * steps in an XOL slot of its own, written once in the process, not at
 * every step.  The writes of every XOL slot are counted by a kprobe on
 * arch_uprobe_copy_ixol(), from after a first call that wrote both slots
 * (and made the XOL area): none.  (6.12 writes a slot at every step.)
 */
TEST_F(life, probe_slots_written_once)
{
	long i, bad = 0;

	ASSERT_EQ(0, add_stepped_probe("first", life_stepped));
	ASSERT_EQ(0, add_stepped_probe("second", life_stepped_popf));
	ASSERT_EQ(0, event_enable(GROUP, "first", 1));
	ASSERT_EQ(0, event_enable(GROUP, "second", 1));
	EXPECT_EQ(2, life_stepped(0));
	ASSERT_EQ(0, tfs_write("kprobe_events", "p:ulife_k/copies arch_uprobe_copy_ixol"));
	ASSERT_EQ(0, event_enable("ulife_k", "copies", 1));
	for (i = 1; i <= SLOT_CALLS; i++)
		bad += life_stepped(i) != i + 2;
	ASSERT_EQ(0, event_enable("ulife_k", "copies", 0));
	ASSERT_EQ(0, event_enable(GROUP, "first", 0));
	ASSERT_EQ(0, event_enable(GROUP, "second", 0));
	EXPECT_EQ(0, bad);
	EXPECT_EQ(SLOT_CALLS + 1, profile_hits("first"));
	EXPECT_EQ(SLOT_CALLS + 1, profile_hits("second"));
	EXPECT_EQ(0, kprobe_hits("copies"))
		TH_LOG("XOL slots written during %d steps of each probe", SLOT_CALLS);
}

/*
 * The slots that keep each stepped probe's instruction in every process
 * (Documentation/trace/uprobes.rst): as many as fit in a page of the XOL
 * area, at most 512.
 */
#ifdef __aarch64__
#define PROBE_SLOTS	512
#else
#define PROBE_SLOTS	64
#endif
#define MANY_ROUNDS	4

/*
 * The child of life.stepped_probes_past_the_slots: MANY_ROUNDS calls of
 * life_many(), the kprobe "copies" on from the second.  A step that never
 * comes back is cut short by the alarm.  Exit status 0: all right.
 */
static void __noreturn many_child(void)
{
	long round, bad = 0;

	alarm(60);
	bad += life_many(0) != MANY_SUM;
	if (event_enable("ulife_k", "copies", 1))
		_exit(3);
	for (round = 1; round < MANY_ROUNDS; round++)
		bad += life_many(round) != round + MANY_SUM;
	if (event_enable("ulife_k", "copies", 0))
		_exit(3);
	_exit(bad ? 2 : 0);
}

/*
 * MANY_INSNS stepped probes at once, more than the probes' slots on
 * x86-64: those that find no slot free are stepped in a slot taken for the
 * step, written at each (so at least MANY_INSNS - PROBE_SLOTS writes a
 * call once every slot is written), and every result is right.  On arm64
 * all have a slot: no slot is written after the first call.
 */
TEST_F_TIMEOUT(life, stepped_probes_past_the_slots, 300)
{
	long past = MANY_INSNS - PROBE_SLOTS, copies, wrong = 0;
	char event[32];
	pid_t child;
	int i;

	for (i = 0; i < MANY_INSNS; i++) {
		snprintf(event, sizeof(event), "many%d", i);
		ASSERT_EQ(0, add_stepped_probe(event, life_many_insns + i * MANY_STRIDE));
		ASSERT_EQ(0, event_enable(GROUP, event, 1));
	}
	ASSERT_EQ(0, tfs_write("kprobe_events", "p:ulife_k/copies arch_uprobe_copy_ixol"));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0)
		many_child();
	EXPECT_EQ(0, wait_exit_code(child)) TH_LOG("128 + 14: a step never came back");
	copies = kprobe_hits("copies");
	for (i = 0; i < MANY_INSNS; i++) {
		snprintf(event, sizeof(event), "many%d", i);
		ASSERT_EQ(0, event_enable(GROUP, event, 0));
		wrong += profile_hits(event) != MANY_ROUNDS;
	}
	EXPECT_EQ(0, wrong) TH_LOG("probes not hit once a call");
	EXPECT_LE(past > 0 ? (MANY_ROUNDS - 1) * past : 0, copies);
	if (past <= 0)
		EXPECT_EQ(0, copies);
	TH_LOG("%ld slot writes in %d calls after the first", copies, MANY_ROUNDS - 1);
}

/*
 * /proc/PID/uprobes tells how hits run each instruction, and they do so:
 * a probe listed "step" is stepped at each hit (a kprobe on
 * arch_uprobe_pre_xol(), where every step starts), one listed "own-slot"
 * or "emulated" never.  life_stepped's first instruction is stepped (on
 * x86-64 a pushfq); life_direct's may run from the task's own slot.
 */
TEST_F(life, proc_uprobes_tells_how_hits_run)
{
	static const void * const funcs[] = { life_stepped, life_direct };
	static const char * const names[] = { "stepped", "direct" };
	long steps, before = 0;
	char line[512];
	bool step;
	int i;

	if (kernel_lacks(_metadata, have_proc_uprobes(), "/proc/PID/uprobes"))
		return;
	ASSERT_EQ(0, tfs_write("kprobe_events", "p:ulife_k/steps arch_uprobe_pre_xol"));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, add_stepped_probe(names[i], funcs[i]));
		ASSERT_EQ(0, event_enable(GROUP, names[i], 1));
		ASSERT_EQ(7, i ? life_direct(6) : life_stepped(5));
		ASSERT_EQ(0, proc_uprobes_line(0, funcs[i], line, sizeof(line)));
		ASSERT_EQ(0, event_enable("ulife_k", "steps", 1));
		ASSERT_EQ(7, i ? life_direct(6) : life_stepped(5));
		ASSERT_EQ(0, event_enable("ulife_k", "steps", 0));
		steps = kprobe_hits("steps") - before;
		before += steps;
		ASSERT_EQ(0, event_enable(GROUP, names[i], 0));
		step = strstr(line, " step ");
		EXPECT_TRUE(step || strstr(line, " own-slot ") || strstr(line, " emulated "))
			TH_LOG("%s", line);
		EXPECT_EQ(step, steps) TH_LOG("%s", line);
	}
	EXPECT_EQ(2, profile_hits("stepped"));
	EXPECT_EQ(2, profile_hits("direct"));
}

/* A forked child keeps the parent's breakpoints; its hits carry its pid. */
TEST_F(life, fork_inherits)
{
	pid_t child;
	int i;

	ASSERT_EQ(0, add_self_probe("p", "fork", life_target, NULL));
	ASSERT_EQ(0, event_enable(GROUP, "fork", 1));
	for (i = 0; i < 3; i++)
		life_target(i);
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0)
		child_calls(5);
	ASSERT_EQ(0, wait_exit_code(child));
	for (i = 0; i < 2; i++)
		life_target(i);
	ASSERT_EQ(0, event_enable(GROUP, "fork", 0));
	EXPECT_EQ(5, count_in_trace("fork", child));
	EXPECT_EQ(5, count_in_trace("fork", getpid()));
	EXPECT_EQ(10, profile_hits("fork"));
}

/*
 * The program marks its [uprobes] mappings MADV_DONTFORK (the XOL area,
 * and a page of stubs where the kernel made jumps): a forked child, to
 * which fork does not copy them, steps a probed instruction and runs one
 * out of line right all the same.
 */
TEST_F(life, xol_kept_from_fork)
{
	struct uprobes_maps maps;
	pid_t child;
	int i;

	ASSERT_EQ(0, add_self_probe("p", "stepped", life_stepped_popf, NULL));
	ASSERT_EQ(0, add_self_probe("p", "direct", life_direct, NULL));
	ASSERT_EQ(0, event_enable(GROUP, "stepped", 1));
	ASSERT_EQ(0, event_enable(GROUP, "direct", 1));
	ASSERT_EQ(7, life_stepped(5));
	ASSERT_EQ(6, life_direct(5));
	ASSERT_EQ(0, uprobes_maps_read(0, &maps));
	ASSERT_LE(1, maps.n) TH_LOG("no [uprobes] mapping");
	for (i = 0; i < maps.n; i++)
		ASSERT_EQ(0, madvise((void *)maps.start[i], maps.end[i] - maps.start[i],
				     MADV_DONTFORK));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0)
		_exit(life_stepped(5) == 7 && life_direct(5) == 6 ? 0 : 1);
	EXPECT_EQ(0, wait_exit_code(child));
	ASSERT_EQ(0, event_enable(GROUP, "stepped", 0));
	ASSERT_EQ(0, event_enable(GROUP, "direct", 0));
	EXPECT_EQ(2, profile_hits("stepped"));
	EXPECT_EQ(2, profile_hits("direct"));
}

/* A probe registered while a forked child lives covers parent and child. */
TEST_F(life, register_after_fork)
{
	int go[2];
	pid_t child;
	char c = 0;
	int i;

	ASSERT_EQ(0, pipe(go));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(4);
		child_calls(4);
	}
	close(go[0]);
	/* Before the probe: not counted. */
	life_target(1);
	ASSERT_EQ(0, add_self_probe("p", "late", life_target, NULL));
	ASSERT_EQ(0, event_enable(GROUP, "late", 1));
	ASSERT_EQ(1, write(go[1], &c, 1));
	close(go[1]);
	ASSERT_EQ(0, wait_exit_code(child));
	for (i = 0; i < 3; i++)
		life_target(i);
	ASSERT_EQ(0, event_enable(GROUP, "late", 0));
	EXPECT_EQ(4, count_in_trace("late", child));
	EXPECT_EQ(3, count_in_trace("late", getpid()));
	EXPECT_EQ(7, profile_hits("late"));
}

/*
 * exec drops the old image's breakpoints and arms the new image's.  One
 * process, without address randomisation, execs in turn: a copy of this
 * program (another inode: not probed), this program (probed), the copy
 * again.  Each image calls life_target() at the same virtual address; only
 * the 3 calls of the probed image may be seen.
 */
TEST_F(life, exec)
{
	char n[] = "UPL_EXEC_CALLS=3";
	pid_t child;

	snprintf(self->copy, sizeof(self->copy), "/tmp/upl-copy-XXXXXX");
	ASSERT_EQ(0, copy_file(self_path(), self->copy, 0));
	ASSERT_EQ(0, add_self_probe("p", "exec", life_target, NULL));
	ASSERT_EQ(0, event_enable(GROUP, "exec", 1));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		char *const argv[] = { self->copy, (char *)self_path(), self->copy, NULL };
		char *const envp[] = { n, NULL };

		personality(ADDR_NO_RANDOMIZE);
		execve(argv[0], argv, envp);
		_exit(5);
	}
	ASSERT_EQ(0, wait_exit_code(child));
	ASSERT_EQ(0, event_enable(GROUP, "exec", 0));
	EXPECT_EQ(3, count_in_trace("exec", child));
	EXPECT_EQ(3, profile_hits("exec"));
}

/*
 * Processes that exit while probed, normally, from inside a function with a
 * pending return probe, or killed in the middle of hitting, leave nothing
 * behind: later processes are traced exactly and the probes go cleanly.
 */
TEST_F(life, exit_while_probed)
{
	pid_t done, inside, killed, later;
	long hits = 0;
	char *text;
	int i;

	ASSERT_EQ(0, add_self_probe("p", "ex", life_target, NULL));
	ASSERT_EQ(0, add_self_probe("r", "exret", life_maybe_exit, "rv=$retval:s64"));
	ASSERT_EQ(0, event_enable(GROUP, "ex", 1));
	ASSERT_EQ(0, event_enable(GROUP, "exret", 1));

	done = fork();
	ASSERT_LE(0, done);
	if (done == 0)
		child_calls(3);
	ASSERT_EQ(0, wait_exit_code(done));

	inside = fork();
	ASSERT_LE(0, inside);
	if (inside == 0) {
		life_target(1);
		life_maybe_exit(7);
		_exit(1);
	}
	ASSERT_EQ(7, wait_exit_code(inside));

	killed = fork();
	ASSERT_LE(0, killed);
	if (killed == 0)
		for (;;)
			life_target(2);
	/* Let it hit a few times, then kill it wherever it is. */
	for (i = 0; i < 6000 && hits < 20; i++) {
		usleep(5000);
		hits = profile_hits("ex");
	}
	ASSERT_LE(20, hits);
	ASSERT_EQ(0, kill(killed, SIGKILL));
	ASSERT_EQ(128 + SIGKILL, wait_exit_code(killed));

	later = fork();
	ASSERT_LE(0, later);
	if (later == 0) {
		for (i = 0; i < 4; i++)
			if (life_target(i) != i * 7 + 3)
				_exit(2);
		_exit(life_maybe_exit(-1) == 41 ? 0 : 2);
	}
	ASSERT_EQ(0, wait_exit_code(later));
	ASSERT_EQ(0, event_enable(GROUP, "ex", 0));
	ASSERT_EQ(0, event_enable(GROUP, "exret", 0));

	EXPECT_EQ(3, count_in_trace("ex", done));
	EXPECT_EQ(1, count_in_trace("ex", inside));
	EXPECT_EQ(4, count_in_trace("ex", later));
	/* Every hit of the killed child is both counted and traced. */
	EXPECT_EQ(profile_hits("ex"), count_in_trace("ex", 0));
	EXPECT_EQ(profile_hits("ex") - 8, count_in_trace("ex", killed));
	/* Only the return that happened is reported. */
	EXPECT_EQ(0, count_in_trace("exret", inside));
	EXPECT_EQ(1, count_in_trace("exret", later));
	EXPECT_EQ(1, count_in_trace("exret", 0));
	text = trace_read();
	ASSERT_NE(NULL, text);
	EXPECT_EQ(1, count_lines(text, "rv=41"));
	free(text);
	/* The probes go away cleanly. */
	EXPECT_EQ(0, uprobe_event_add("-:" GROUP "/ex"));
	EXPECT_EQ(0, uprobe_event_add("-:" GROUP "/exret"));
	text = tfs_read("uprobe_events");
	ASSERT_NE(NULL, text);
	EXPECT_STREQ("", text);
	free(text);
}

typedef long (*lib_fn)(long);

/* Copies liblifecycle.so (next to this program) to /tmp as @copy. */
static int lib_copy(char *copy, size_t len)
{
	char dir[PATH_MAX], lib[PATH_MAX + 32];

	snprintf(dir, sizeof(dir), "%s", self_path());
	snprintf(lib, sizeof(lib), "%s/liblifecycle.so", dirname(dir));
	snprintf(copy, len, "/tmp/upl-lib-XXXXXX.so");
	return copy_file(lib, copy, 3);
}

/* The file offset of @sym in shared object @path (loaded, then unloaded). */
static long lib_offset(const char *path, const char *sym)
{
	char file[PATH_MAX];
	unsigned long off;
	void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	void *fn;
	long ret = -1;

	if (!handle)
		return -1;
	fn = dlsym(handle, sym);
	if (fn && !file_offset(fn, file, sizeof(file), &off) && !strcmp(file, path))
		ret = off;
	dlclose(handle);
	return ret;
}

/*
 * A probe on a shared object registered while it is not loaded: hits once
 * dlopen()ed, none is lost or left after dlclose(), hits again once loaded
 * anew.  The file itself never shows the breakpoint.
 */
TEST_F(life, dlopen_dlclose)
{
	unsigned char orig, now;
	void *handle;
	lib_fn leaf, call;
	long off;
	int fd, i;

	ASSERT_EQ(0, lib_copy(self->copy, sizeof(self->copy)));
	off = lib_offset(self->copy, "lifecycle_leaf");
	ASSERT_LT(0, off);
	ASSERT_EQ(0, is_mapped(self->copy));
	fd = open(self->copy, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, pread(fd, &orig, 1, off));

	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/lib %s:0x%lx", self->copy, off));
	ASSERT_EQ(0, event_enable(GROUP, "lib", 1));

	handle = dlopen(self->copy, RTLD_NOW | RTLD_LOCAL);
	ASSERT_NE(NULL, handle);
	leaf = (lib_fn)dlsym(handle, "lifecycle_leaf");
	call = (lib_fn)dlsym(handle, "lifecycle_call");
	ASSERT_NE(NULL, leaf);
	ASSERT_NE(NULL, call);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(3 * i + 1, leaf(i));
	EXPECT_EQ(3 * 5 + 3, call(5));
	EXPECT_EQ(4, profile_hits("lib"));
	/* The page cache (what read() sees) is never written. */
	ASSERT_EQ(1, pread(fd, &now, 1, off));
	EXPECT_EQ(orig, now);

	ASSERT_EQ(0, dlclose(handle));
	ASSERT_EQ(0, is_mapped(self->copy));
	EXPECT_EQ(4, profile_hits("lib"));

	handle = dlopen(self->copy, RTLD_NOW | RTLD_LOCAL);
	ASSERT_NE(NULL, handle);
	leaf = (lib_fn)dlsym(handle, "lifecycle_leaf");
	ASSERT_NE(NULL, leaf);
	for (i = 0; i < 2; i++)
		EXPECT_EQ(3 * i + 1, leaf(i));
	EXPECT_EQ(6, profile_hits("lib"));
	EXPECT_EQ(6, count_in_trace("lib", getpid()));

	/* Disarmed: the library runs unprobed, nothing more is counted. */
	ASSERT_EQ(0, event_enable(GROUP, "lib", 0));
	EXPECT_EQ(3 * 9 + 1, leaf(9));
	EXPECT_EQ(6, profile_hits("lib"));
	ASSERT_EQ(0, dlclose(handle));
	close(fd);
}

/* A page of the probed file mapped by hand, and the probed function in it. */
struct text_map {
	int fd;
	long off;
	size_t len;
	void *map;
};

static lib_fn text_map(struct text_map *t, void *hint)
{
	long page = sysconf(_SC_PAGESIZE);

	t->len = page;
	t->map = mmap(hint, t->len, PROT_READ | PROT_EXEC, MAP_PRIVATE, t->fd,
		      t->off & ~(page - 1));
	if (t->map == MAP_FAILED)
		return NULL;
	return (lib_fn)((char *)t->map + (t->off & (page - 1)));
}

static long text_calls(lib_fn fn, int n)
{
	long bad = 0;
	int i;

	for (i = 0; i < n; i++)
		if (fn(i + 10) != 3 * (i + 10) + 1)
			bad++;
	return bad;
}

/*
 * Copies the shared object to @copy, opens it into @t and enables the
 * probe GROUP/@event on its lifecycle_leaf(); 0 or -1.
 */
static int text_probe(char *copy, size_t len, struct text_map *t, const char *event)
{
	if (lib_copy(copy, len))
		return -1;
	t->off = lib_offset(copy, "lifecycle_leaf");
	if (t->off <= 0)
		return -1;
	t->fd = open(copy, O_RDONLY);
	if (t->fd < 0)
		return -1;
	if (uprobe_event_add("p:" GROUP "/%s %s:0x%lx", event, copy, t->off))
		return -1;
	return event_enable(GROUP, event, 1) ? -1 : 0;
}

/*
 * The probed text mapped by hand: hits in a fresh mmap, none lost across
 * munmap and a new mmap or mremap to another address; the code computes
 * the same all along, and runs clean once the probe is disabled.
 */
TEST_F(life, munmap_mremap)
{
	struct text_map t;
	void *moved, *hole;
	lib_fn fn;

	ASSERT_EQ(0, text_probe(self->copy, sizeof(self->copy), &t, "text"));

	fn = text_map(&t, NULL);
	ASSERT_NE(NULL, fn);
	EXPECT_EQ(0, text_calls(fn, 3));
	EXPECT_EQ(3, profile_hits("text"));

	ASSERT_EQ(0, munmap(t.map, t.len));
	EXPECT_EQ(0, is_mapped(self->copy));
	fn = text_map(&t, NULL);
	ASSERT_NE(NULL, fn);
	EXPECT_EQ(0, text_calls(fn, 2));
	EXPECT_EQ(5, profile_hits("text"));

	/* Move it to a fresh address (reserved first, so that it is free). */
	hole = mmap(NULL, 16 * t.len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, hole);
	moved = mremap(t.map, t.len, t.len, MREMAP_MAYMOVE | MREMAP_FIXED,
		       (char *)hole + 8 * t.len);
	ASSERT_NE(MAP_FAILED, moved);
	fn = (lib_fn)((char *)moved + ((char *)fn - (char *)t.map));
	t.map = moved;
	EXPECT_EQ(0, text_calls(fn, 4));
	EXPECT_EQ(9, profile_hits("text"));

	ASSERT_EQ(0, event_enable(GROUP, "text", 0));
	EXPECT_EQ(0, text_calls(fn, 2));
	EXPECT_EQ(9, profile_hits("text"));
	EXPECT_EQ(9, count_in_trace("text", getpid()));
	munmap(hole, 16 * t.len);
	close(t.fd);
}

/* mprotect of the probed text to RW or none and back to RX loses no hit. */
TEST_F(life, mprotect)
{
	struct text_map t;
	lib_fn fn;

	ASSERT_EQ(0, text_probe(self->copy, sizeof(self->copy), &t, "prot"));

	fn = text_map(&t, NULL);
	ASSERT_NE(NULL, fn);
	EXPECT_EQ(0, text_calls(fn, 2));
	EXPECT_EQ(2, profile_hits("prot"));

	ASSERT_EQ(0, mprotect(t.map, t.len, PROT_READ | PROT_WRITE));
	ASSERT_EQ(0, mprotect(t.map, t.len, PROT_READ | PROT_EXEC));
	EXPECT_EQ(0, text_calls(fn, 3));
	EXPECT_EQ(5, profile_hits("prot"));

	ASSERT_EQ(0, mprotect(t.map, t.len, PROT_NONE));
	ASSERT_EQ(0, mprotect(t.map, t.len, PROT_READ | PROT_EXEC));
	EXPECT_EQ(0, text_calls(fn, 2));
	EXPECT_EQ(7, profile_hits("prot"));

	ASSERT_EQ(0, event_enable(GROUP, "prot", 0));
	EXPECT_EQ(0, text_calls(fn, 2));
	EXPECT_EQ(7, profile_hits("prot"));
	EXPECT_EQ(7, count_in_trace("prot", getpid()));
	munmap(t.map, t.len);
	close(t.fd);
}

#define CUT_FN		"remove_breakpoint"
#define CUT_PROCS	50
#define CUT_CALLS	20	/* each process makes at least, at each stage */

/*
 * Calls life_target() until told to stop, counting the calls in @count;
 * killed with the test.
 */
static void __noreturn cut_child(long *count, const int *stop)
{
	long i;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL))
		_exit(3);
	for (i = 0; !READ_FRESH(*stop); i++) {
		if (life_target(i) != i * 7 + 3)
			_exit(2);
		__atomic_store_n(count, i + 1, __ATOMIC_RELAXED);
		usleep(500);
	}
	_exit(0);
}

/* Of @n processes, those whose @count grew by less than @calls since @since. */
static int cut_lagging(const long *count, const long *since, int n, long calls)
{
	int i, lagging = 0;

	for (i = 0; i < n; i++)
		lagging += READ_FRESH(count[i]) - since[i] < calls;
	return lagging;
}

/* Waits up to @secs seconds for none to lag (cut_lagging()); those that still do. */
static int cut_wait_calls(const long *count, const long *since, int n, long calls, int secs)
{
	int ms;

	for (ms = 0; ms < secs * 1000 && cut_lagging(count, since, n, calls); ms += 10)
		usleep(10000);
	return cut_lagging(count, since, n, calls);
}

/* Processes of @pids whose /proc/PID/uprobes has a line for @addr with @word. */
static int cut_listing(const pid_t *pids, int n, const void *addr, const char *word)
{
	char line[512];
	int i, listed = 0;

	for (i = 0; i < n; i++)
		listed += !proc_uprobes_line(pids[i], addr, line, sizeof(line)) &&
			  (!word || strstr(line, word));
	return listed;
}

/*
 * Reaps the @n processes of @pids, told to stop: how many did not exit
 * with 0 (died, or got a wrong result), those still running after 5 s
 * (stuck in a loop) killed and counted.
 */
static int cut_reap(const pid_t *pids, int n)
{
	int i, ms, status, left = n, bad = 0;
	bool reaped[CUT_PROCS] = { false };

	for (ms = 0; left && ms < 5000; ms += 10) {
		for (i = 0; i < n; i++) {
			if (reaped[i] || waitpid(pids[i], &status, WNOHANG) != pids[i])
				continue;
			reaped[i] = true;
			left--;
			bad += !WIFEXITED(status) || WEXITSTATUS(status);
		}
		usleep(10000);
	}
	for (i = 0; i < n; i++) {
		if (reaped[i])
			continue;
		kill(pids[i], SIGKILL);
		waitpid(pids[i], &status, 0);
		bad++;
	}
	return bad;
}

/*
 * The walk that disarms a probe fails half way (its disarming of one
 * process made to fail with -EINTR, as get_user_pages_remote() fails in a
 * task with a fatal signal pending, in about half of 50 running processes
 * that call the probed function): no process dies of the breakpoint or spins in
 * the jump left there, every one goes on calling, and the probe is gone
 * from each of them in the end, the walk finished later.
 */
TEST_F_TIMEOUT(life, removal_cut_short_finishes, 300)
{
	struct cut_shared {
		long count[CUT_PROCS];
		int stop;
	} *sh;
	long since[CUT_PROCS] = { 0 };
	pid_t pids[CUT_PROCS];
	int i, lagging, left, injected, bad;

	if (!fail_fn_allowed(CUT_FN))
		SKIP(return, "fail_function cannot make the removal walk fail here");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	for (i = 0; i < CUT_PROCS; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (!pids[i])
			cut_child(&sh->count[i], &sh->stop);
	}
	ASSERT_EQ(0, add_self_probe("p", "cut", life_target, NULL));
	ASSERT_EQ(0, event_enable(GROUP, "cut", 1));
	memcpy(since, sh->count, sizeof(since));
	EXPECT_EQ(0, cut_wait_calls(sh->count, since, CUT_PROCS, CUT_CALLS, 120));
	/* Each process has the probe, entered by a breakpoint or a jump. */
	EXPECT_EQ(CUT_PROCS, cut_listing(pids, CUT_PROCS, life_target, NULL) -
			     cut_listing(pids, CUT_PROCS, life_target, "not-armed"));
	EXPECT_LE(CUT_PROCS * CUT_CALLS, profile_hits("cut"));

	ASSERT_EQ(0, fail_fn_inject(CUT_FN, -EINTR, 5, CUT_PROCS / 2));
	EXPECT_EQ(0, event_enable(GROUP, "cut", 0));
	injected = CUT_PROCS / 2 - fail_fn_times_left();
	EXPECT_EQ(0, fail_fn_clear());
	TH_LOG("disarming failed in %d processes", injected);
	EXPECT_LT(0, injected);

	memcpy(since, sh->count, sizeof(since));
	lagging = cut_wait_calls(sh->count, since, CUT_PROCS, CUT_CALLS, 60);
	for (left = 0; left < 300; left++) {
		if (!cut_listing(pids, CUT_PROCS, life_target, NULL))
			break;
		usleep(100000);
	}
	left = cut_listing(pids, CUT_PROCS, life_target, NULL);
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	bad = cut_reap(pids, CUT_PROCS);
	EXPECT_EQ(0, lagging) TH_LOG("processes that stopped calling once the probe went");
	EXPECT_EQ(0, bad) TH_LOG("processes that died or got a wrong result");
	EXPECT_EQ(0, left) TH_LOG("processes that still have the probe");
	munmap(sh, sizeof(*sh));
}

TEST_HARNESS_MAIN
