// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_signals: signals that meet a probed instruction while the kernel
 * runs it out of line are delivered as if the instruction ran in place.
 * A probed load that faults (on arm64 also a literal load, which the
 * kernel simulates), and a probed division by zero (x86: arm64's does not
 * trap), raise their signal with the probed address in the signal context
 * (and in si_addr for the division).  On arm64, a probe at a BTI landing
 * pad of a guarded page leaves indirect calls to it working.  A stream of signals
 * over a probed loop never shows a handler an address in the [uprobes]
 * mapping, the loop's result is right, and the probe counts exactly one
 * hit per execution: a signal that comes while the instruction runs out
 * of line must not send the task back to the breakpoint to report the
 * same execution again.  The same storm over a function with a return
 * probe: every return counted once, every result right, and no handler
 * sees the task past the return trampoline's entry into the kernel, on
 * its way out.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "../kselftest_harness.h"
#include "uprobe_asm.h"
#include "uprobe_util.h"

/*
 * On arm64: a ldr, an sdiv (no trap: a division by zero gives 0), an add,
 * a byte loop from sig_copy_insn, and the link register.
 */
asm(".pushsection .text\n"
	".globl sig_load\n"
	".type sig_load, @function\n"
	"sig_load:\n"
#ifdef __aarch64__
	"	ldr x0, [x0]\n"
#else
	"	mov (%rdi), %rax\n"
#endif
	"	ret\n"
	".size sig_load, .-sig_load\n"
	".globl sig_div\n"
	".type sig_div, @function\n"
	"sig_div:\n"
#ifdef __aarch64__
	"	nop\n"
	".globl sig_div_insn\n"
	"sig_div_insn:\n"
	"	sdiv x0, x0, x1\n"
#else
	"	mov %rdi, %rax\n"
	"	cqo\n"
	".globl sig_div_insn\n"
	"sig_div_insn:\n"
	"	idiv %rsi\n"
#endif
	"	ret\n"
	".size sig_div, .-sig_div\n"
	".globl sig_inc\n"
	".type sig_inc, @function\n"
	"sig_inc:\n"
#ifdef __aarch64__
	"	add x0, x0, #1\n"
#else
	"	lea 1(%rdi), %rax\n"
#endif
	"	ret\n"
	".size sig_inc, .-sig_inc\n"
	".globl sig_copy\n"
	".type sig_copy, @function\n"
	"sig_copy:\n"
#ifdef __aarch64__
	"	cbz x2, 2f\n"
	".globl sig_copy_insn\n"
	"sig_copy_insn:\n"
	"1:	ldrb w3, [x1], #1\n"
	"	strb w3, [x0], #1\n"
	"	subs x2, x2, #1\n"
	"	b.ne 1b\n"
	"2:	ret\n"
#else
	"	mov %rdx, %rcx\n"
	".globl sig_copy_insn\n"
	"sig_copy_insn:\n"
	"	rep movsb\n"
	"	ret\n"
#endif
	".size sig_copy, .-sig_copy\n"
	".globl sig_return_address\n"
	".type sig_return_address, @function\n"
	"sig_return_address:\n"
#ifdef __aarch64__
	"	mov x0, x30\n"
#else
	"	mov (%rsp), %rax\n"
#endif
	"	ret\n"
	".size sig_return_address, .-sig_return_address\n"
	".popsection\n");

#define TIMER_TICKS	200		/* timer signals to take */
#define TIMER_CALLS_MAX	20000000L	/* calls at most, waiting for them */
#define STORM_CALLS	20000		/* probed calls under a signal storm */
#define STORM_LIMIT	300		/* s: arm64's debug kernel needs more than 30 */
#define COPY_CALLS	200		/* probed rep movsb under a storm ... */
#define COPY_BYTES	65536		/* ... of this many bytes each, ... */
#define COPY_SIGNALS	5		/* ... until as many signals came in copies, */
#define COPY_CALLS_MAX	5000		/* ... or this many copies */
#define GROUP		"usig"		/* of the uprobe_events probes */
/*
 * The trampoline's bytes up to its syscall; past them, the task leaves.  On
 * arm64 it is one brk, from which the kernel takes the task to the
 * return address: nothing past it runs.
 */
#ifdef __aarch64__
#define TRAMP_ENTRY	4
#else
#define TRAMP_ENTRY	11
#endif
#define TRAMP_SLOT	64

/* Written by the signal handlers; read with atomics, not volatile. */
static sigjmp_buf escape;
static unsigned long sig_ip, sig_addr;
static struct uprobes_maps xol;
static long ticks, ticks_in_xol;
static long storm_calls;	/* the target's probed calls so far */
static unsigned long tramp;	/* where return probes return to */
static long ticks_past_tramp;	/* signals taken past its entry */

/* The instruction pointer of signal context @ctx. */
static unsigned long ctx_ip(void *ctx)
{
	ucontext_t *uc = ctx;

#ifdef __aarch64__
	return uc->uc_mcontext.pc;
#else
	return uc->uc_mcontext.gregs[REG_RIP];
#endif
}

static void on_fault(int sig, siginfo_t *info, void *ctx)
{
	sig_ip = ctx_ip(ctx);
	sig_addr = (unsigned long)info->si_addr;
	siglongjmp(escape, sig);
}

static void on_tick(int sig, siginfo_t *info, void *ctx)
{
	unsigned long ip = ctx_ip(ctx);

	__atomic_fetch_add(&ticks, 1, __ATOMIC_RELAXED);
	if (uprobes_maps_hold(&xol, ip))
		__atomic_fetch_add(&ticks_in_xol, 1, __ATOMIC_RELAXED);
}

#ifdef __x86_64__
#define REP_MOVSB_LEN	2
/* Signals of the storm over rep movsb taken right after it, at its ret. */
static long ticks_after_copy;

/* on_tick(), and whether the task was right after the copy. */
static void on_copy_tick(int sig, siginfo_t *info, void *ctx)
{
	on_tick(sig, info, ctx);
	if (ctx_ip(ctx) == (unsigned long)sig_copy_insn + REP_MOVSB_LEN)
		__atomic_fetch_add(&ticks_after_copy, 1, __ATOMIC_RELAXED);
}
#endif

/*
 * SIGUSR1 of the storm: counted, checked like a timer tick, and a probed
 * call of its own, which the probe must count as one more hit.
 */
static void on_storm(int sig, siginfo_t *info, void *ctx)
{
	on_tick(sig, info, ctx);
	sig_inc(0);
}

/* SIGUSR1 over a function with a return probe: where the task was. */
static void on_return_storm(int sig, siginfo_t *info, void *ctx)
{
	unsigned long ip = ctx_ip(ctx);

	__atomic_fetch_add(&ticks, 1, __ATOMIC_RELAXED);
	if (ip - tramp >= TRAMP_ENTRY && ip - tramp < TRAMP_SLOT)
		__atomic_fetch_add(&ticks_past_tramp, 1, __ATOMIC_RELAXED);
	sig_inc(0);
}

/* One more call made under the storm. */
static void storm_call_done(void)
{
	__atomic_add_fetch(&storm_calls, 1, __ATOMIC_RELAXED);
}

static int catch(int sig, void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa = { .sa_sigaction = fn, .sa_flags = SA_SIGINFO | SA_RESTART };

	return sigaction(sig, &sa, NULL);
}

FIXTURE(sig) {
	int fd;
};

FIXTURE_SETUP(sig)
{
	self->fd = -1;
}

FIXTURE_TEARDOWN(sig)
{
	if (self->fd >= 0)
		close(self->fd);
	tracing_reset();
	signal(SIGSEGV, SIG_DFL);
	signal(SIGILL, SIG_DFL);
	signal(SIGFPE, SIG_DFL);
	signal(SIGALRM, SIG_DFL);
	signal(SIGUSR1, SIG_DFL);
}

/* A counting probe on @addr of this program, for this process. */
static int probe(struct __test_metadata *_metadata, const void *addr)
{
	int fd = self_probe(addr);

	ASSERT_LE(0, fd) TH_LOG("perf_event_open: %d", fd);
	return fd;
}

/* A counting return probe on @addr of this program, for this process. */
static int retprobe(struct __test_metadata *_metadata, const void *addr)
{
	struct perf_event_attr attr;
	int fd;

	ASSERT_EQ(0, uprobe_perf_attr(&attr, self_path(), self_offset(addr), 1, 0));
	fd = perf_open(&attr, 0, -1);
	ASSERT_LE(0, fd) TH_LOG("perf_event_open: %d", fd);
	return fd;
}

/*
 * Calls of sig_inc() under a storm of SIGUSR1 taken by @handler: the
 * signals taken, and the sum of the calls' results in @sum.
 */
static long storm_over_sig_inc(struct __test_metadata *_metadata,
			       void (*handler)(int, siginfo_t *, void *), long *sum)
{
	struct signal_storm storm;
	long i;

	ticks = 0;
	*sum = 0;
	ASSERT_EQ(0, catch(SIGUSR1, handler));
	ASSERT_EQ(0, storm_start(&storm, &storm_calls));
	for (i = 0; i < STORM_CALLS; i++) {
		*sum += sig_inc(i);
		storm_call_done();
	}
	storm_stop(&storm);
	return __atomic_load_n(&ticks, __ATOMIC_RELAXED);
}

/* A probed load from NULL: SIGSEGV at the load, for address 0. */
TEST_F(sig, fault_at_probed_load)
{
	long value = 5;
	int sig;

	self->fd = probe(_metadata, sig_load);
	ASSERT_EQ(5, sig_load(&value));
	ASSERT_EQ(0, catch(SIGSEGV, on_fault));
	sig = sigsetjmp(escape, 1);
	if (!sig)
		sig_load(NULL);
	EXPECT_EQ(SIGSEGV, sig);
	EXPECT_EQ((unsigned long)sig_load, __atomic_load_n(&sig_ip, __ATOMIC_RELAXED));
	EXPECT_EQ(0UL, __atomic_load_n(&sig_addr, __ATOMIC_RELAXED));
	EXPECT_EQ(2, perf_count(self->fd));
	/* The probe still works after the signal. */
	EXPECT_EQ(5, sig_load(&value));
	EXPECT_EQ(3, perf_count(self->fd));
}

#ifdef __aarch64__
#define A64_LDR_X0_LIT	0x58000000	/* ldr x0, <literal>: imm19 in bits 23:5 */
#define A64_RET		0xd65f03c0
#define A64_BTI_C	0xd503245f
#define A64_MOV_W0_42	0x52800540
#define A64_B		0x14000000	/* b <label>: imm26 in bits 25:0 */
#define A64_B_MASK	0xfc000000
#ifndef PROT_BTI
#define PROT_BTI	0x10
#endif

/*
 * Maps the @len bytes of @code from a new file made from the mkstemp()
 * template @path, with @prot: the mapping, or MAP_FAILED.
 */
static char *map_code_file(char *path, const void *code, size_t len, int prot)
{
	char *map = MAP_FAILED;
	int fd = mkstemp(path);

	if (fd < 0)
		return MAP_FAILED;
	if (write(fd, code, len) == (ssize_t)len)
		map = mmap(NULL, len, prot, MAP_PRIVATE, fd, 0);
	close(fd);
	return map;
}

/*
 * A probed literal load (simulated: no step) whose literal is unreadable:
 * SIGSEGV at the load, for the literal's address, as unprobed.  The code
 * is a file's first page, "ldr x0, <the next page>; ret", mapped with
 * the next page, which holds the literal and is then made unreadable.
 */
TEST_F(sig, fault_at_probed_literal_load)
{
	const long psize = sysconf(_SC_PAGESIZE);
	char path[] = "/tmp/utest-literal-XXXXXX";
	struct perf_event_attr attr;
	unsigned int *code;
	long (*fn)(void);
	char *map;
	int sig;

	code = calloc(2, psize);
	ASSERT_NE(NULL, code);
	code[0] = A64_LDR_X0_LIT | (psize / 4) << 5;
	code[1] = A64_RET;
	*(long *)((char *)code + psize) = 42;
	map = map_code_file(path, code, 2 * psize, PROT_READ | PROT_EXEC);
	free(code);
	ASSERT_NE(MAP_FAILED, map);
	fn = (long (*)(void))map;
	ASSERT_EQ(0, uprobe_perf_attr(&attr, path, 0, 0, 0));
	self->fd = perf_open(&attr, 0, -1);
	if (kernel_lacks(_metadata, self->fd != -EINVAL, "simulation of literal loads"))
		goto out;
	ASSERT_LE(0, self->fd) TH_LOG("perf_event_open: %d", self->fd);
	ASSERT_EQ(42, fn());
	ASSERT_EQ(0, mprotect(map + psize, psize, PROT_NONE));
	ASSERT_EQ(0, catch(SIGSEGV, on_fault));
	sig = sigsetjmp(escape, 1);
	if (!sig)
		fn();
	EXPECT_EQ(SIGSEGV, sig);
	EXPECT_EQ((unsigned long)map, __atomic_load_n(&sig_ip, __ATOMIC_RELAXED));
	EXPECT_EQ((unsigned long)map + psize, __atomic_load_n(&sig_addr, __ATOMIC_RELAXED));
	EXPECT_EQ(2, perf_count(self->fd));
	/* The probe still works once the literal is readable again. */
	ASSERT_EQ(0, mprotect(map + psize, psize, PROT_READ));
	EXPECT_EQ(42, fn());
	EXPECT_EQ(3, perf_count(self->fd));
out:
	munmap(map, 2 * psize);
	unlink(path);
}

/*
 * A probe at a BTI landing pad: a function "bti c; mov w0, #42; ret" in
 * a page of a file mapped PROT_BTI, called through a pointer.  Its
 * second instruction is no landing pad (a call there gets SIGILL, which
 * proves the guard on); the probe's breakpoint on the first must not be
 * taken for one either, nor the b to a stub that a kernel with jumps puts
 * there after the first hit: the probed calls return 42, each counted.
 */
TEST_F(sig, probe_at_bti_landing_pad)
{
	static const unsigned int code[] = { A64_BTI_C, A64_MOV_W0_42, A64_RET };
	const long psize = sysconf(_SC_PAGESIZE);
	char path[] = "/tmp/utest-bti-XXXXXX";
	struct perf_event_attr attr;
	long (*fn)(void);
	char *map;
	int sig;

	map = map_code_file(path, code, sizeof(code), PROT_READ | PROT_EXEC | PROT_BTI);
	if (map == MAP_FAILED) {
		unlink(path);
		SKIP(return, "no PROT_BTI: the CPU or kernel has no BTI");
	}
	fn = (long (*)(void))(map + 4);
	ASSERT_EQ(0, catch(SIGILL, on_fault));
	sig = sigsetjmp(escape, 1);
	if (!sig)
		fn();
	EXPECT_EQ(SIGILL, sig) TH_LOG("a call past the landing pad was not refused");
	fn = (long (*)(void))map;
	EXPECT_EQ(42, fn());
	ASSERT_EQ(0, uprobe_perf_attr(&attr, path, 0, 0, 0));
	self->fd = perf_open(&attr, 0, -1);
	ASSERT_LE(0, self->fd) TH_LOG("perf_event_open: %d", self->fd);
	sig = sigsetjmp(escape, 1);
	if (!sig) {
		EXPECT_EQ(42, fn());
		EXPECT_EQ(42, fn());
		EXPECT_EQ(42, fn());
	}
	EXPECT_EQ(0, sig) TH_LOG("signal %d at %#lx", sig, sig_ip);
	EXPECT_EQ(3, perf_count(self->fd));
	if (have_uprobe_jumps())
		EXPECT_EQ(A64_B, READ_FRESH(*(unsigned int *)map) & A64_B_MASK)
			TH_LOG("no b at the landing pad: %#x", *(unsigned int *)map);
	munmap(map, psize);
	unlink(path);
}
#endif

/* A probed division by zero: SIGFPE with the probed address. */
TEST_F(sig, divide_error_at_probed_idiv)
{
	int sig;

#ifndef __x86_64__
	SKIP(return, "no division traps off x86: an arm64 sdiv by zero gives 0");
#endif
	self->fd = probe(_metadata, sig_div_insn);
	ASSERT_EQ(-7, sig_div(-42, 6));
	ASSERT_EQ(0, catch(SIGFPE, on_fault));
	sig = sigsetjmp(escape, 1);
	if (!sig)
		sig_div(1, 0);
	EXPECT_EQ(SIGFPE, sig);
	EXPECT_EQ((unsigned long)sig_div_insn, __atomic_load_n(&sig_ip, __ATOMIC_RELAXED));
	EXPECT_EQ((unsigned long)sig_div_insn, __atomic_load_n(&sig_addr, __ATOMIC_RELAXED));
	EXPECT_EQ(2, perf_count(self->fd));
}

/*
 * Timer signals all through a probed loop: no handler sees the XOL page,
 * the loop computes what it computes unprobed, and the probe counts one
 * hit per call.
 */
TEST_F(sig, timer_never_sees_xol)
{
	struct itimerval every = { { 0, 200 }, { 0, 200 } }, off = { 0 };
	long i, sum = 0, taken;

	self->fd = probe(_metadata, sig_inc);
	ASSERT_EQ(8, sig_inc(7));
	ASSERT_EQ(0, uprobes_maps_read(0, &xol));
	ASSERT_LT(0, xol.n) TH_LOG("no [uprobes] mapping after a hit");
	ticks = 0;
	ticks_in_xol = 0;
	ASSERT_EQ(0, catch(SIGALRM, on_tick));
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &every, NULL));
	for (i = 0; i < TIMER_CALLS_MAX; i++) {
		if (__atomic_load_n(&ticks, __ATOMIC_RELAXED) >= TIMER_TICKS)
			break;
		sum += sig_inc(i);
	}
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &off, NULL));
	taken = __atomic_load_n(&ticks, __ATOMIC_RELAXED);
	TH_LOG("%ld timer signals, %lld hits for %ld calls", taken, perf_count(self->fd), i + 1);
	EXPECT_EQ(i * (i + 1) / 2, sum);
	EXPECT_LE(TIMER_TICKS, taken);
	EXPECT_EQ(0, __atomic_load_n(&ticks_in_xol, __ATOMIC_RELAXED));
	EXPECT_EQ(i + 1, perf_count(self->fd));
}

/*
 * Another thread sends SIGUSR1 without a pause but for one call here
 * between two, while this one calls a probed function whose instruction
 * runs out of line; each handler calls the function once more.  Every
 * call is one hit, no more: the calls of the loop, of the handlers, and
 * the first one.
 */
TEST_F_TIMEOUT(sig, storm_counts_every_call_once, STORM_LIMIT)
{
	long sum, taken;

	self->fd = probe(_metadata, sig_inc);
	ASSERT_EQ(8, sig_inc(7));
	ASSERT_EQ(0, uprobes_maps_read(0, &xol));
	ASSERT_LT(0, xol.n) TH_LOG("no [uprobes] mapping after a hit");
	ticks_in_xol = 0;
	taken = storm_over_sig_inc(_metadata, on_storm, &sum);
	TH_LOG("%ld signals, %lld hits for %ld calls", taken, perf_count(self->fd),
	       STORM_CALLS + taken + 1);
	EXPECT_EQ(STORM_CALLS * (STORM_CALLS + 1L) / 2, sum);
	EXPECT_LT(0, taken);
	EXPECT_EQ(0, __atomic_load_n(&ticks_in_xol, __ATOMIC_RELAXED));
	EXPECT_EQ(STORM_CALLS + taken + 1, perf_count(self->fd));
}

#ifdef __x86_64__
/*
 * A probe by uprobe_events on sig_copy_insn's rep movsb, without a jump
 * when @nojump, enabled: 0 or -errno.
 */
static int add_copy_probe(bool nojump)
{
	unsigned long off = self_offset(sig_copy_insn);
	int err;

	if (!off)
		return -ENOENT;
	err = uprobe_event_add("p:%s/copy %s:0x%lx%s", GROUP, self_path(), off,
			       nojump ? "%nojump" : "");
	return err ?: event_enable(GROUP, "copy", 1);
}
#endif

/*
 * The storm over the probed rep movsb, which runs whole out of line: a
 * signal that interrupts the copy half-way (the storm sends one as each
 * copy starts) is taken after it, at the ret that follows, and the probe
 * counts one hit per copy.  The copies go on past COPY_CALLS until
 * COPY_SIGNALS signals were taken at that ret (one that comes between a
 * copy's end and the ret is rare: most of them came during a copy), or
 * the storm proves nothing.
 * After the first hit, /proc/self/uprobes must tell the probe's way in as
 * @way: the storm is meant for that way's copy (own_slot_finish() or
 * stub_copy_finish()), which a kernel with jumps to stubs has.  (6.12
 * steps the instruction and counts every iteration.)
 */
static void storm_in_rep_movsb(struct __test_metadata *_metadata, bool nojump,
			       const char *way)
{
#ifdef __x86_64__
	static char src[COPY_BYTES], dst[COPY_BYTES];
	struct signal_storm storm;
	long i, taken, after;
	bool wrong = false;
	char line[256];

	if (kernel_lacks(_metadata, have_uprobe_jumps(), "jumps to stubs") ||
	    kernel_lacks(_metadata, have_proc_uprobes(), "/proc/PID/uprobes"))
		return;
	for (i = 0; i < COPY_BYTES; i++)
		src[i] = i * 7;
	ASSERT_EQ(0, add_copy_probe(nojump));
	sig_copy(dst, src, 1);
	ASSERT_EQ(0, proc_uprobes_line(0, sig_copy_insn, line, sizeof(line)));
	ASSERT_NE(NULL, strstr(line, way)) TH_LOG("%s", line);
	ASSERT_EQ(0, uprobes_maps_read(0, &xol));
	ASSERT_LT(0, xol.n) TH_LOG("no [uprobes] mapping after a hit");
	ticks = 0;
	ticks_in_xol = 0;
	ticks_after_copy = 0;
	ASSERT_EQ(0, catch(SIGUSR1, on_copy_tick));
	ASSERT_EQ(0, storm_start(&storm, &storm_calls));
	for (i = 0; i < COPY_CALLS_MAX; i++) {
		after = __atomic_load_n(&ticks_after_copy, __ATOMIC_RELAXED);
		if (i >= COPY_CALLS && after >= COPY_SIGNALS)
			break;
		memset(dst, 0, sizeof(dst));
		storm_call_done();	/* the next signal: during this copy */
		sig_copy(dst, src, COPY_BYTES);
		wrong = memcmp(dst, src, COPY_BYTES);
		if (wrong)
			break;
	}
	storm_stop(&storm);
	taken = __atomic_load_n(&ticks, __ATOMIC_RELAXED);
	after = __atomic_load_n(&ticks_after_copy, __ATOMIC_RELAXED);
	TH_LOG("%ld signals, %ld of them after a copy, %ld hits for %ld copies", taken, after,
	       profile_hits("copy"), i + 1);
	EXPECT_FALSE(wrong) TH_LOG("copy %ld is wrong", i);
	EXPECT_LE(COPY_SIGNALS, after) TH_LOG("too few signals came during a copy");
	EXPECT_EQ(0, __atomic_load_n(&ticks_in_xol, __ATOMIC_RELAXED));
	EXPECT_EQ(i + 1, profile_hits("copy"));
#else
	SKIP(return, "rep movsb is x86's");
#endif
}

/*
 * The storm over a probed rep movsb without a jump: it runs in the task's
 * own XOL slot.
 */
TEST_F_TIMEOUT(sig, storm_in_rep_movsb_counts_once, STORM_LIMIT)
{
	storm_in_rep_movsb(_metadata, true, " own-slot breakpoint nojump-consumer");
}

/* The same with the probe's punned jump: the rep movsb runs in its stub. */
TEST_F_TIMEOUT(sig, storm_in_punned_rep_movsb_counts_once, STORM_LIMIT)
{
	storm_in_rep_movsb(_metadata, false, " own-slot punned-jump");
}

/*
 * The storm over a function with a return probe, which each handler calls
 * once more: every return is counted once and gives its result, and no
 * handler finds the task past the trampoline's syscall, on the way out to
 * the real return address (6.12 delivers signals there).  The
 * trampoline's address is what a function with a return probe finds as
 * its own return address.
 */
TEST_F_TIMEOUT(sig, storm_over_return_probe, STORM_LIMIT)
{
	long sum, taken;
	int ret_fd;

	ret_fd = retprobe(_metadata, sig_return_address);
	tramp = sig_return_address();
	close(ret_fd);
	ASSERT_EQ(0, uprobes_maps_read(0, &xol));
	ASSERT_TRUE(uprobes_maps_hold(&xol, tramp)) TH_LOG("returned to %#lx", tramp);
	self->fd = retprobe(_metadata, sig_inc);
	ASSERT_EQ(8, sig_inc(7));
	ticks_past_tramp = 0;
	taken = storm_over_sig_inc(_metadata, on_return_storm, &sum);
	TH_LOG("%ld signals, %lld returns for %ld calls, trampoline at %#lx", taken,
	       perf_count(self->fd), STORM_CALLS + taken + 1, tramp);
	EXPECT_EQ(STORM_CALLS * (STORM_CALLS + 1L) / 2, sum);
	EXPECT_LT(0, taken);
	EXPECT_EQ(STORM_CALLS + taken + 1, perf_count(self->fd));
	EXPECT_EQ(0, __atomic_load_n(&ticks_past_tramp, __ATOMIC_RELAXED));
}

TEST_HARNESS_MAIN
