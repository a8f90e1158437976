// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_rseq: a probe inside a restartable sequence leaves it restartable.
 *
 * An rseq critical section is a run of user instructions, registered with
 * the kernel by a descriptor (start, length, abort address), that ends in
 * one commit store; a task preempted, migrated or sent a signal while its
 * ip lies in the section is sent to the abort handler instead of going on,
 * so that the commit never lands on a value read before another task ran
 * on that CPU.  The kernel decides by the task's ip alone: outside the
 * section it takes the task to be past it, and forgets the descriptor.
 *
 * A probed instruction may be carried out with the task's ip elsewhere:
 * in a copy of it in an XOL slot, stepped or followed by a jump back, or
 * after a jump from the probed address to a stub in [uprobes] (x86-64)
 * that enters the kernel by the uprobe syscall and may run a copy of the
 * instruction on its way back.  A task preempted or signalled there must
 * still be aborted, as if it were at the probed instruction (or just past
 * it, once the copy ran); if not, it commits a stale value and an
 * increment is lost.
 *
 * Each case runs twice as many threads as CPUs (four at least), all of
 * them pinned to CPU 0 or all free to migrate, each adding one to its
 * CPU's counter with a section in the manner of librseq's rseq_addv(),
 * ITERATIONS times and until it has taken MIN_SIGNALS signals (for
 * RUN_SECONDS at most): another thread sends each of them SIGUSR1 whenever
 * it has made one more commit.  The section holds one probed instruction,
 * of a kind each variant picks for the way the kernel carries it out:
 *
 *   nop2     66 90           emulated after the breakpoint
 *   mov_reg  49 89 d0        mov %rdx,%r8: a copy run from the XOL slot
 *                            without a step
 *   popfq    9d              stepped (the TF it pops is fixed up),
 *                            after a pushfq that is not probed (a probe on
 *                            the pushfq got the process a SIGTRAP on a
 *                            6.18 kernel)
 *   nop5     0f 1f 44 00 00  a jump to a stub, emulated there
 *   lea      4c 8d 82 disp32 lea 0x12345678(%rdx),%r8: the stub's
 *                            copy of it
 *   mov_rip  4c 8b 05 disp32 mov rseq_datum(%rip),%r8: the stub's copy,
 *                            its displacement moved
 *
 * On arm64, where x8 stands for r8, a kernel with jumps enters each of
 * them by a jump to a stub once it was hit, and the stub runs a copy of
 * what is not simulated (without jumps, the copy is stepped from an XOL
 * slot):
 *
 *   nop      nop             the copy
 *   mov_reg  mov x8, x3      the CPU number: the copy
 *   load     ldr x8, [x9]    of rseq_datum: the copy
 *   branch   b.eq            taken, over a mov to x8: simulated
 *   adr      adr x9, DATUM   simulated; the ldr after it is not probed
 *
 * and an unprobed control.  The probe counts its hits through
 * uprobe_events and is hit once before the threads start, which also puts
 * in the jump, if any: where the kernel has jumps, /proc/PID/uprobes must
 * then say the probe is entered by one (nop5, lea and mov_rip on x86-64,
 * every case on arm64).  Each case expects every thread to
 * make all its commits and take all its signals (the threads stop early
 * only if RUN_SECONDS pass, which counts as a failure, not a pass), the
 * probed instruction to leave in r8 what it leaves unprobed, some aborts
 * (signals come inside the section too: the kernel honours it; the
 * threads go on past their commits until one is seen), no more
 * aborts in a thread than it had signals and context switches (a kernel
 * aborts a sequence for a preemption, a migration or a signal, never for
 * a hit), the hits to lie between the commits and the commits plus
 * the aborts (an abort may come after the hit's handlers, before the
 * instruction ran), and the counters to add up to the number of commits
 * exactly.  (6.12 steps all but nop2 (on arm64: all it does not simulate)
 * from a slot outside the section, where a preempted task is not aborted:
 * there every check but the sum holds, and the sum falls short of the
 * commits; four threads pinned to one CPU lose about 50,000 of 80,000
 * increments.)
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>

#include "../kselftest_harness.h"
#include "uprobe_asm.h"
#include "uprobe_util.h"

#define GROUP		"urseq"
#define EVENT		"commit"
#define ITERATIONS	20000	/* commits per thread, at least */
#define MIN_SIGNALS	100	/* signals taken per thread, at least */
#define RUN_SECONDS	100	/* then the threads stop where they are: a failure */
#define MIN_WORKERS	4
#define MAX_WORKERS	32
#define MAX_CPUS	1024
#define RSEQ_DATUM	0x0123456789abcdefL
#define LEA_DISP	0x12345678

#ifndef __NR_rseq
#define __NR_rseq	334
#endif

/* The rseq_cs descriptor of sequence @name: version, flags, start, length, abort. */
#define RSEQ_CS(name)							\
	".pushsection __rseq_cs, \"aw\"\n"				\
	".balign 32\n"							\
	#name "_cs:\n"							\
	"	.long 0, 0\n"		/* version, flags */		\
	"	.quad " #name "_start, " #name "_end - " #name "_start, "	\
		#name "_abort\n"					\
	".popsection\n"

#if defined(__x86_64__)
/*
 * rseq_NAME(counters, rseq, out): adds one to the counter of the CPU the
 * task runs on (one 64-byte slot each), with BEFORE and then INSN, probed
 * at rseq_NAME_insn, between the load and the add and commit; r8 is 0
 * until they run.  It stores r8 and the CPU number in out[0] and out[1]
 * after the commit, and returns the aborts it took.  The descriptor goes
 * to __rseq_cs, and the abort handler, preceded by the signature (in the
 * bytes of ud1 RSEQ_SIG(%rip),%edi, as librseq has it), puts back the
 * stack pointer, counts, and starts over.
 */
#define RSEQ_INC(name, before, insn)					\
	".pushsection .text\n"						\
	".globl " #name "\n"						\
	".type " #name ", @function\n"					\
	#name ":\n"							\
	"	mov %rdx, %rcx\n"					\
	"	mov %rsp, %r11\n"					\
	"	xor %eax, %eax\n"					\
	"1:	mov 4(%rsi), %edx\n"	/* rseq->cpu_id */		\
	"	mov %edx, %r9d\n"					\
	"	shl $6, %r9\n"						\
	"	add %rdi, %r9\n"					\
	"	xor %r8d, %r8d\n"					\
	"	lea " #name "_cs(%rip), %r10\n"				\
	"	mov %r10, 8(%rsi)\n"	/* rseq->rseq_cs */		\
	#name "_start:\n"						\
	"	cmp 4(%rsi), %edx\n"					\
	"	jne " #name "_abort\n"					\
	"	mov (%r9), %r10\n"					\
	before								\
	".globl " #name "_insn\n"					\
	#name "_insn:\n"						\
	insn								\
	"	add $1, %r10\n"						\
	"	mov %r10, (%r9)\n"	/* the commit */		\
	#name "_end:\n"							\
	"	mov %r8, (%rcx)\n"					\
	"	mov %rdx, 8(%rcx)\n"					\
	"	ret\n"							\
	"	.byte 0x0f, 0xb9, 0x3d\n"				\
	"	.long 0x53053053\n"	/* RSEQ_SIG */			\
	#name "_abort:\n"						\
	"	mov %r11, %rsp\n"					\
	"	inc %rax\n"						\
	"	jmp 1b\n"						\
	".size " #name ", .-" #name "\n"				\
	".popsection\n"							\
	RSEQ_CS(name)

#define RSEQ_SIG_ASM	0x53053053
asm(RSEQ_INC(rseq_nop2, "", "	.byte 0x66, 0x90\n")
	RSEQ_INC(rseq_mov_reg, "", "	mov %rdx, %r8\n")
	RSEQ_INC(rseq_popfq, "	pushfq\n", "	popfq\n")
	RSEQ_INC(rseq_nop5, "", "	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n")
	RSEQ_INC(rseq_lea, "", "	lea 0x12345678(%rdx), %r8\n")
	RSEQ_INC(rseq_mov_rip, "", "	mov rseq_datum(%rip), %r8\n")
	".pushsection .data\n"
	".balign 8\n"
	"rseq_datum:\n"
	"	.quad 0x0123456789abcdef\n"
	".popsection\n");

#elif defined(__aarch64__)
/*
 * The same on arm64: counters in x0, rseq in x1, out in x2; the CPU number
 * in x3, the counter's address in x4, its value in x7, x8 for r8 and x10
 * for the aborts; no stack.  The signature is glibc's (brk #0x45e0).
 */
#define RSEQ_SIG_ASM	0xd428bc00
#define RSEQ_INC(name, before, insn)					\
	".pushsection .text\n"						\
	".globl " #name "\n"						\
	".type " #name ", @function\n"					\
	#name ":\n"							\
	"	mov x10, #0\n"						\
	"1:	ldr w3, [x1, #4]\n"	/* rseq->cpu_id */		\
	"	add x4, x0, x3, lsl #6\n"				\
	"	mov x8, #0\n"						\
	"	adrp x5, " #name "_cs\n"				\
	"	add x5, x5, :lo12:" #name "_cs\n"			\
	"	str x5, [x1, #8]\n"	/* rseq->rseq_cs */		\
	#name "_start:\n"						\
	"	ldr w6, [x1, #4]\n"					\
	"	cmp w6, w3\n"						\
	"	b.ne " #name "_abort\n"					\
	"	ldr x7, [x4]\n"						\
	before								\
	".globl " #name "_insn\n"					\
	#name "_insn:\n"						\
	insn								\
	"	add x7, x7, #1\n"					\
	"	str x7, [x4]\n"	/* the commit */			\
	#name "_end:\n"							\
	"	stp x8, x3, [x2]\n"					\
	"	mov x0, x10\n"						\
	"	ret\n"							\
	"	.inst 0xd428bc00\n"	/* RSEQ_SIG */			\
	#name "_abort:\n"						\
	"	add x10, x10, #1\n"					\
	"	b 1b\n"							\
	".size " #name ", .-" #name "\n"				\
	".popsection\n"							\
	RSEQ_CS(name)

asm(RSEQ_INC(rseq_nop, "", "	nop\n")
	RSEQ_INC(rseq_mov_reg, "", "	mov x8, x3\n")
	RSEQ_INC(rseq_load, "	adrp x9, rseq_datum\n	add x9, x9, :lo12:rseq_datum\n",
		 "	ldr x8, [x9]\n")
	RSEQ_INC(rseq_branch, "", "	b.eq 2f\n	mov x8, #1\n2:\n")
	RSEQ_INC(rseq_adr, "", "	adr x9, rseq_text_datum\n	ldr x8, [x9]\n")
	".pushsection .data\n"
	".balign 8\n"
	"rseq_datum:\n"
	"	.quad 0x0123456789abcdef\n"
	".popsection\n"
	".pushsection .text\n"
	".balign 8\n"
	"rseq_text_datum:\n"
	"	.quad 0x0123456789abcdef\n"
	".popsection\n");
#endif

/* The signature before each abort handler is the one rseq is registered with. */
static_assert(RSEQ_SIG == RSEQ_SIG_ASM, "RSEQ_SIG");

/* One counter per CPU, a cache line each, as the sections index them. */
struct rseq_slot {
	long count;
} __aligned(64);

static_assert(sizeof(struct rseq_slot) == 1 << 6, "the sections shift by 6");

static struct rseq_slot counters[MAX_CPUS];

/* Where glibc registered no struct rseq (glibc.pthread.rseq=0). */
static __thread struct rseq own_rseq __aligned(32) = {
	.cpu_id = RSEQ_CPU_ID_UNINITIALIZED,
};

/* This thread's struct rseq, registered with the kernel, or NULL. */
static struct rseq *rseq_area(void)
{
	struct rseq *rs = &own_rseq;

	if (__rseq_size)
		rs = (struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);
	else if (syscall(__NR_rseq, rs, sizeof(*rs), 0, RSEQ_SIG) && errno != EBUSY)
		return NULL;
	return (int)__atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED) < 0 ? NULL : rs;
}

typedef long (*rseq_inc_fn)(struct rseq_slot *counters, struct rseq *rs, long *out);

/* A section, and the instruction in it that a probe goes on. */
struct section {
	rseq_inc_fn inc;
	const unsigned char *insn;	/* NULL: no probe */
	long r8, r8_cpu;		/* it leaves r8 + r8_cpu * cpu in r8 (x8) */
	bool jump;			/* a kernel with jumps enters it by one */
};

struct worker {
	pthread_t thread;
	pid_t tid;
	const struct section *sec;
	int cpu;		/* to pin to, or -1 */
	long commits, aborts, wrong, signals;
	long switches;		/* context switches, or -1 if unknown */
	bool failed;		/* no rseq, or could not pin */
};

/* The threads of a case; each test runs in a process of its own. */
static struct worker workers[MAX_WORKERS];
static int nr_workers;
static pthread_barrier_t start;
static int stop, sender_stop, finished;
static long signals, all_aborts;
static __thread long thread_signals;

static void on_signal(int sig)
{
	__atomic_add_fetch(&thread_signals, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&signals, 1, __ATOMIC_RELAXED);
}

/*
 * Whether a worker goes on after @done commits: until it has made its
 * commits and taken its signals, and the crew has seen an abort.  Under
 * TCG an interrupt lands only where a block of translated code starts,
 * so a short run may see none in a section by chance.
 */
static bool more_work(long done)
{
	if (__atomic_load_n(&stop, __ATOMIC_RELAXED))
		return false;
	return done < ITERATIONS ||
	       __atomic_load_n(&thread_signals, __ATOMIC_RELAXED) < MIN_SIGNALS ||
	       !__atomic_load_n(&all_aborts, __ATOMIC_RELAXED);
}

/* The calling thread's context switches, voluntary or not, or -1. */
static long thread_switches(void)
{
	long n, total = 0;
	char line[128];
	int found = 0;
	FILE *f;

	f = fopen("/proc/thread-self/status", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %ld", &n) == 1) {
			total += n;
			found++;
		}
	fclose(f);
	return found == 2 ? total : -1;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	const struct section *sec = w->sec;
	long out[2], aborts, i;
	struct rseq *rs;

	__atomic_store_n(&w->tid, syscall(SYS_gettid), __ATOMIC_RELAXED);
	rs = rseq_area();
	w->failed = !rs || pin_to_cpu(w->cpu);
	pthread_barrier_wait(&start);
	for (i = 0; !w->failed && more_work(i); i++) {
		aborts = sec->inc(counters, rs, out);
		if (aborts)
			__atomic_add_fetch(&all_aborts, aborts, __ATOMIC_RELAXED);
		w->aborts += aborts;
		if (out[0] != sec->r8 + sec->r8_cpu * out[1])
			w->wrong++;
		__atomic_store_n(&w->commits, i + 1, __ATOMIC_RELAXED);
	}
	w->signals = __atomic_load_n(&thread_signals, __ATOMIC_RELAXED);
	w->switches = thread_switches();
	__atomic_add_fetch(&finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * SIGUSR1 to each worker that made one more commit since the last it was
 * sent: a sender that never waits would starve them under TCG.
 */
static void *sender(void *arg)
{
	long seen[MAX_WORKERS] = { 0 }, done;
	pid_t pid = getpid();
	bool sent;
	int i;

	pthread_barrier_wait(&start);
	while (!__atomic_load_n(&sender_stop, __ATOMIC_ACQUIRE)) {
		sent = false;
		for (i = 0; i < nr_workers; i++) {
			done = __atomic_load_n(&workers[i].commits, __ATOMIC_RELAXED);
			if (done == seen[i])
				continue;
			seen[i] = done;
			syscall(SYS_tgkill, pid, workers[i].tid, SIGUSR1);
			sent = true;
		}
		if (!sent)
			sched_yield();
	}
	return NULL;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec - t0->tv_sec + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

FIXTURE(rseq) {
	int unused;
};

FIXTURE_VARIANT(rseq) {
	struct section s;
};

#ifdef __x86_64__
FIXTURE_VARIANT_ADD(rseq, unprobed) {
	.s = { .inc = rseq_nop2 },
};

FIXTURE_VARIANT_ADD(rseq, nop2) {
	.s = { .inc = rseq_nop2, .insn = rseq_nop2_insn },
};

FIXTURE_VARIANT_ADD(rseq, mov_reg) {
	.s = { .inc = rseq_mov_reg, .insn = rseq_mov_reg_insn, .r8_cpu = 1 },
};

FIXTURE_VARIANT_ADD(rseq, popfq) {
	.s = { .inc = rseq_popfq, .insn = rseq_popfq_insn },
};

FIXTURE_VARIANT_ADD(rseq, nop5) {
	.s = { .inc = rseq_nop5, .insn = rseq_nop5_insn,
		.jump = true },
};

FIXTURE_VARIANT_ADD(rseq, lea) {
	.s = { .inc = rseq_lea, .insn = rseq_lea_insn, .r8 = LEA_DISP, .r8_cpu = 1,
		.jump = true },
};

FIXTURE_VARIANT_ADD(rseq, mov_rip) {
	.s = { .inc = rseq_mov_rip, .insn = rseq_mov_rip_insn, .r8 = RSEQ_DATUM,
		.jump = true },
};
#else
FIXTURE_VARIANT_ADD(rseq, unprobed) {
	.s = { .inc = rseq_nop },
};

FIXTURE_VARIANT_ADD(rseq, nop) {
	.s = { .inc = rseq_nop, .insn = rseq_nop_insn,
		.jump = true },
};

FIXTURE_VARIANT_ADD(rseq, mov_reg) {
	.s = { .inc = rseq_mov_reg, .insn = rseq_mov_reg_insn, .r8_cpu = 1,
		.jump = true },
};

FIXTURE_VARIANT_ADD(rseq, load) {
	.s = { .inc = rseq_load, .insn = rseq_load_insn, .r8 = RSEQ_DATUM,
		.jump = true },
};

FIXTURE_VARIANT_ADD(rseq, branch) {
	.s = { .inc = rseq_branch, .insn = rseq_branch_insn,
		.jump = true },
};

FIXTURE_VARIANT_ADD(rseq, adr) {
	.s = { .inc = rseq_adr, .insn = rseq_adr_insn, .r8 = RSEQ_DATUM,
		.jump = true },
};
#endif

FIXTURE_SETUP(rseq)
{
	tracing_reset();
}

FIXTURE_TEARDOWN(rseq)
{
	tracing_reset();
	signal(SIGUSR1, SIG_DFL);
}

/*
 * Starts the sender and the workers, pinned to @cpu unless it is -1, which
 * all begin together; lets them run until the workers are done or
 * RUN_SECONDS have passed; ends them all.  Return: 0, or an errno (then
 * the threads made wait at the barrier for ever: the process ends).
 */
static int crew_run(const struct section *sec, int cpu)
{
	pthread_t sender_thread;
	struct timespec t0;
	int i, err;

	err = pthread_barrier_init(&start, NULL, nr_workers + 1);
	if (err)
		return err;
	err = pthread_create(&sender_thread, NULL, sender, NULL);
	if (err)
		return err;
	for (i = 0; i < nr_workers; i++) {
		workers[i].sec = sec;
		workers[i].cpu = cpu;
		err = pthread_create(&workers[i].thread, NULL, work, &workers[i]);
		if (err)
			return err;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (__atomic_load_n(&finished, __ATOMIC_ACQUIRE) < nr_workers &&
	       seconds_since(&t0) < RUN_SECONDS)
		usleep(10000);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < nr_workers; i++)
		pthread_join(workers[i].thread, NULL);
	__atomic_store_n(&sender_stop, 1, __ATOMIC_RELEASE);
	pthread_join(sender_thread, NULL);
	pthread_barrier_destroy(&start);
	return 0;
}

/* Where the kernel has jumps, the probe of @sec, hit once, is entered by one. */
static void expect_jump(struct __test_metadata *_metadata, const struct section *sec)
{
	char line[512];

	if (!sec->jump || !have_uprobe_jumps())
		return;
	ASSERT_EQ(0, proc_uprobes_line(0, sec->insn, line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, " jump")) TH_LOG("entered otherwise: %s", line);
}

/*
 * One case: the probe put on and hit once by this thread, the workers
 * run with all of them on CPU @cpu (-1: anywhere), and the counts checked.
 */
static void rseq_case(struct __test_metadata *_metadata, const struct section *sec, int cpu)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	long commits, aborts, wrong = 0, sum = 0, hits = 0, out[2];
	struct rseq *rs = rseq_area();
	int i, cut_short = 0;
	struct timespec t0;
	bool failed = false;
	struct worker *w;
	double took;

	if (!rs)
		SKIP(return, "no rseq registered (__rseq_size %u)", __rseq_size);
	ASSERT_GE(MAX_CPUS, get_nprocs_conf());
	nr_workers = 2 * get_nprocs();
	if (nr_workers < MIN_WORKERS)
		nr_workers = MIN_WORKERS;
	if (nr_workers > MAX_WORKERS)
		nr_workers = MAX_WORKERS;
	if (sec->insn) {
		ASSERT_NE(0, self_offset(sec->insn));
		ASSERT_EQ(0, uprobe_event_add("p:%s/%s %s:0x%lx", GROUP, EVENT, self_path(),
					      self_offset(sec->insn)));
		ASSERT_EQ(0, event_enable(GROUP, EVENT, 1));
	}
	/* One commit here: the probe is armed, and its jump put in, if any. */
	aborts = sec->inc(counters, rs, out);
	all_aborts = aborts;
	commits = 1;
	ASSERT_EQ(sec->r8 + sec->r8_cpu * out[1], out[0]);
	if (sec->insn)
		ASSERT_LT(0, profile_hits(EVENT)) TH_LOG("the probe is not armed");
	expect_jump(_metadata, sec);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, crew_run(sec, cpu));
	took = seconds_since(&t0);
	for (i = 0; i < nr_workers; i++) {
		w = &workers[i];
		commits += w->commits;
		aborts += w->aborts;
		wrong += w->wrong;
		failed |= w->failed;
		cut_short += w->commits < ITERATIONS || w->signals < MIN_SIGNALS;
	}
	for (i = 0; i < MAX_CPUS; i++)
		sum += counters[i].count;
	if (sec->insn)
		hits = profile_hits(EVENT);
	TH_LOG("%d threads, %.2f s: %ld commits, sum %ld, %ld aborts, %ld hits, %ld signals",
	       nr_workers, took, commits, sum, aborts, hits, signals);
	ASSERT_FALSE(failed) TH_LOG("a thread had no rseq, or could not be pinned");
	EXPECT_EQ(0, cut_short)
		TH_LOG("%d threads stopped after %d s, short of %d commits or %d signals",
		       cut_short, RUN_SECONDS, ITERATIONS, MIN_SIGNALS);
	EXPECT_EQ(commits, sum) TH_LOG("%ld increments lost", commits - sum);
	EXPECT_EQ(0, wrong) TH_LOG("r8 wrong after %ld commits", wrong);
	/* Signals come in sections too: aborts show the kernel honours them. */
	EXPECT_LT(0, signals);
	EXPECT_LT(0, aborts);
	/* An abort is for a preemption, a migration or a signal, never a hit. */
	for (i = 0; i < nr_workers; i++) {
		w = &workers[i];
		ASSERT_LE(0, w->switches) TH_LOG("no context switch count");
		EXPECT_GE(w->signals + w->switches, w->aborts)
			TH_LOG("thread %d: %ld aborts for %ld signals and %ld switches",
			       i, w->aborts, w->signals, w->switches);
	}
	if (sec->insn) {
		EXPECT_LE(commits, hits);
		EXPECT_GE(commits + aborts, hits);
	}
}

/* All threads on CPU 0: every one preempted by the others, never moved. */
TEST_F_TIMEOUT(rseq, pinned, 120)
{
	rseq_case(_metadata, &variant->s, 0);
}

/* Threads free to move between CPUs, and preempted too. */
TEST_F_TIMEOUT(rseq, migrating, 120)
{
	rseq_case(_metadata, &variant->s, -1);
}

TEST_HARNESS_MAIN
