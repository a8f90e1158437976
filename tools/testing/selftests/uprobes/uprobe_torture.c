// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_torture: everything at once, for a while.
 *
 * Actors, each a process of its own, run until the conductor (the test)
 * says stop:
 *   workers	threads calling probed functions of every class: emulated
 *		(nop, push), run out of line (lea), stepped (popfq), and
 *		the ones that get a jump to a stub (5-byte nop, mov $imm32,
 *		call rel32); each checks every result.  On arm64: stepped
 *		(nop, stp to the stack, add, ldr) and simulated (cbz, adr,
 *		b) instead
 *   storm	the same calls in a thread that another thread tgkill()s as
 *		fast as it can; the handler siglongjmp()s out now and then
 *   counted	calls of a function whose perf event is never touched: its
 *		count must be exact at the end
 *   sandbox	the same in a process confined by a seccomp filter that
 *		allows write, exit and exit_group only (not 335 nor 336)
 *   churner	probes on the workers' functions added, enabled, disabled and
 *		removed without pause: uprobe_events lines (entry and return),
 *		perf events (some for one process, some with an SDT
 *		semaphore), and uprobe_register() through the test module
 *		(some pid-filtered, some removing themselves)
 *   lifecycle	forks, vforks and execs of this program, dlopen/dlclose of a
 *		library, mappings of this program's text made, called into,
 *		mremap'ed, mprotect'ed, MADV_DONTNEED'ed and unmapped, and a
 *		child single-stepped by ptrace through probed code, which its
 *		tracer must never see in a slot or a stub
 *
 * At the end every actor must have exited by itself with status 0 (so
 * every result was right and nothing was killed), the stable counts must
 * be exact, no probe or event may be left, the SDT semaphore must be back
 * to 0, the workers' text must hold no page of their own, and kmemleak,
 * where the kernel has it, must report nothing.  Nor may the kernel log a
 * warning meanwhile, which is left to the runner to check.
 *
 * UPROBE_TORTURE_SECONDS sets the duration (default 60), and
 * UPROBE_TORTURE_SEED the seed of the churner's and lifecycle's choices
 * (default: the time), printed for replay.  UPROBE_TORTURE_NO_PTRACE_STEPS,
 * set to anything, leaves the single-stepped child out of the lifecycle.
 *
 * Also: 500 threads of one process at once on every class, counted
 * exactly.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "../kselftest_harness.h"
#include "uprobe_asm.h"
#include "uprobe_util.h"

#define GROUP		"utort"
#define WORKERS		3
#define THREADS		4
#define CHURNERS	2
#define CHURN_SLOTS	4	/* module consumers of a churner (the module has 8) */
#define SEMA_TARGET	2	/* tt_lea: every probe on it names tt_sema */
#define STEPS		2000	/* ptrace single-steps per traced child */

#ifdef __aarch64__
/*
 * The same on arm64, x + 1 .. x + 9 as on x86: tt_popf_insn is a ldr,
 * tt_nop5 starts with a cbz (taken for x = 0), tt_movimm with an adr,
 * tt_call with a b (a tail call).
 */
asm(".pushsection .text\n"
	".globl tt_nop\n"
	"tt_nop:\n"
	"	nop\n"
	"	add x0, x0, #1\n"
	"	ret\n"
	".globl tt_push\n"
	"tt_push:\n"
	"	stp x29, x30, [sp, #-16]!\n"
	"	add x0, x0, #2\n"
	"	ldp x29, x30, [sp], #16\n"
	"	ret\n"
	".globl tt_lea\n"
	"tt_lea:\n"
	"	add x0, x0, #3\n"
	"	ret\n"
	".globl tt_popf\n"
	"tt_popf:\n"
	"	adr x1, tt_four\n"
	".globl tt_popf_insn\n"
	"tt_popf_insn:\n"
	"	ldr x1, [x1]\n"
	"	add x0, x0, x1\n"
	"	ret\n"
	".globl tt_nop5\n"
	"tt_nop5:\n"
	"	cbz x0, 1f\n"
	"	add x0, x0, #5\n"
	"	ret\n"
	"1:	mov x0, #5\n"
	"	ret\n"
	".globl tt_movimm\n"
	"tt_movimm:\n"
	"	adr x1, tt_six\n"
	"	ldr x1, [x1]\n"
	"	add x0, x0, x1\n"
	"	ret\n"
	".globl tt_call\n"
	"tt_call:\n"
	"	b tt_call_leaf\n"
	"tt_call_leaf:\n"
	"	add x0, x0, #7\n"
	"	ret\n"
	".globl tt_counted\n"
	"tt_counted:\n"
	"	add x0, x0, #8\n"
	"	ret\n"
	".globl tt_sandboxed\n"
	"tt_sandboxed:\n"
	"	nop\n"
	"	add x0, x0, #9\n"
	"	ret\n"
	".balign 8\n"
	"tt_four:	.quad 4\n"
	"tt_six:	.quad 6\n"
	".popsection\n");
#else
asm(".pushsection .text\n"
	".globl tt_nop\n"
	"tt_nop:\n"
	"	nop\n"
	"	lea 1(%rdi), %rax\n"
	"	ret\n"
	".globl tt_push\n"
	"tt_push:\n"
	"	push %rbp\n"
	"	lea 2(%rdi), %rax\n"
	"	pop %rbp\n"
	"	ret\n"
	".globl tt_lea\n"
	"tt_lea:\n"
	"	lea 3(%rdi), %rax\n"
	"	ret\n"
	".globl tt_popf\n"
	"tt_popf:\n"
	"	pushfq\n"
	".globl tt_popf_insn\n"
	"tt_popf_insn:\n"
	"	popfq\n"
	"	lea 4(%rdi), %rax\n"
	"	ret\n"
	".globl tt_nop5\n"
	"tt_nop5:\n"
	"	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
	"	lea 5(%rdi), %rax\n"
	"	ret\n"
	".globl tt_movimm\n"
	"tt_movimm:\n"
	"	.byte 0xb8, 0x06, 0x00, 0x00, 0x00\n"	/* mov $6, %eax */
	"	add %rdi, %rax\n"
	"	ret\n"
	".globl tt_call\n"
	"tt_call:\n"
	"	call tt_call_leaf\n"
	"	ret\n"
	"tt_call_leaf:\n"
	"	lea 7(%rdi), %rax\n"
	"	ret\n"
	".globl tt_counted\n"
	"tt_counted:\n"
	"	lea 8(%rdi), %rax\n"
	"	ret\n"
	".globl tt_sandboxed\n"
	"tt_sandboxed:\n"
	"	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
	"	lea 9(%rdi), %rax\n"
	"	ret\n"
	".popsection\n");
#endif

/* The SDT semaphore of every probe on targets[SEMA_TARGET]. */
__section(".probes") __used unsigned short tt_sema;

/* A probed function of the workers: each returns its argument plus a constant. */
typedef long (*target_fn)(long x);

static const target_fn targets[] = {
	tt_nop, tt_push, tt_lea, tt_popf, tt_nop5, tt_movimm, tt_call,
};

#define TARGETS ARRAY_SIZE(targets)

/* Where the churner probes each target: the popfq is inside its function. */
static const void *probe_place(unsigned int t)
{
	return t == 3 ? (const void *)tt_popf_insn : (const void *)targets[t];
}

/*
 * The semaphore offset of the probes on target @t, or 0.  A place has one
 * semaphore or none, whoever probes it: so it is the place's.
 */
static unsigned long probe_sema(unsigned int t)
{
	return t == SEMA_TARGET ? self_offset((const void *)&tt_sema) : 0;
}

/* What the actors share with the conductor: figures, and the stop flag. */
struct shared {
	int go;			/* the stable counts have their events */
	int stop;		/* the actors stop */
	int quiet;		/* churners that have removed all they added */
	long calls;		/* checked calls, all actors but counted, sandbox */
	long counted_calls;
	long sandbox_calls;
	long signals, longjmps;
	long events, perfs, modules;	/* registrations by interface */
	long forks, execs, maps, dlopens, steps;
};

static struct shared *sh;
static unsigned int seed;

static bool stopping(void)
{
	return __atomic_load_n(&sh->stop, __ATOMIC_RELAXED);
}

/* Spins, without a syscall (the sandbox may make none), until the go. */
static void wait_go(void)
{
	while (!__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE))
		;
}

static void add(long *figure, long n)
{
	__atomic_add_fetch(figure, n, __ATOMIC_RELAXED);
}

/*
 * Every wrong result of this process, counted in memory as it comes: a
 * siglongjmp() out of a round of call_targets() loses its local count.
 */
static long wrong_results;

/* Rounds of calls of every target: the number of wrong results. */
static int call_targets(const target_fn *fns, long base, int rounds)
{
	int bad = 0, r;
	unsigned int t;

	for (r = 0; r < rounds; r++)
		for (t = 0; t < TARGETS; t++) {
			if (fns[t](base + r) == base + r + t + 1)
				continue;
			bad++;
			add(&wrong_results, 1);
		}
	add(&sh->calls, (long)rounds * TARGETS);
	return bad;
}

/* --------------------------------------------------------- the workers */

static void *worker_thread(void *arg)
{
	long bad = 0, i = (long)arg * 1000;

	/* A pause now and then leaves the churners and the storm some CPU. */
	while (!stopping()) {
		bad += call_targets(targets, i++ & 0xffff, 16);
		usleep(100);
	}
	return (void *)bad;
}

/*
 * Once the churner has removed every probe, nothing of the probed text may
 * be the process's own: every breakpoint and jump went, and with them the
 * copies of the pages.  The semaphore counts no probe.
 */
static int text_is_clean(void)
{
	unsigned long text = (unsigned long)tt_nop, start, end;
	int anon = -1, in = 0;
	char line[512];
	FILE *f;

	if (tt_sema)
		return 0;
	f = fopen("/proc/self/smaps", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx", &start, &end) == 2 &&
		    strchr(line, '-') < strchr(line, ' '))
			in = text >= start && text < end;
		else if (in && sscanf(line, "Anonymous: %d kB", &anon) == 1)
			in = 0;
	}
	fclose(f);
	return anon == 0;
}

static int wait_quiet(void)
{
	while (__atomic_load_n(&sh->quiet, __ATOMIC_ACQUIRE) < CHURNERS)
		usleep(10000);
	return 0;
}

static void __noreturn worker(void)
{
	pthread_t threads[THREADS];
	long bad = 0, i;
	void *ret;

	for (i = 0; i < THREADS; i++)
		if (pthread_create(&threads[i], NULL, worker_thread, (void *)i))
			_exit(10);
	for (i = 0; i < THREADS; i++) {
		pthread_join(threads[i], &ret);
		bad += (long)ret;
	}
	wait_quiet();
	_exit(bad ? 11 : text_is_clean() ? 0 : 12);
}

/* ---------------------------------------------------------- the storm */

static sigjmp_buf storm_env;
static pid_t storm_tid;
static int storm_done;
static int storm_env_set;	/* storm_env holds a place to jump to */

static void storm_handler(int sig)
{
	long n = __atomic_add_fetch(&sh->signals, 1, __ATOMIC_RELAXED);

	if (n % 64 == 0 && __atomic_load_n(&storm_env_set, __ATOMIC_ACQUIRE)) {
		add(&sh->longjmps, 1);
		siglongjmp(storm_env, 1);
	}
}

static void *storm_sender(void *arg)
{
	while (!__atomic_load_n(&storm_done, __ATOMIC_RELAXED))
		syscall(SYS_tgkill, getpid(), storm_tid, SIGUSR1);
	return NULL;
}

static void __noreturn storm(void)
{
	struct sigaction sa = { .sa_handler = storm_handler };
	/* Static, not automatic: its value survives the siglongjmp(). */
	static long base;
	pthread_t sender;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		_exit(20);
	storm_tid = syscall(SYS_gettid);
	if (pthread_create(&sender, NULL, storm_sender, NULL))
		_exit(21);
	/*
	 * The sender may have sent 64 signals before this point (it did under
	 * multi-threaded TCG): their handler must not jump to an empty
	 * storm_env.
	 */
	sigsetjmp(storm_env, 1);
	__atomic_store_n(&storm_env_set, 1, __ATOMIC_RELEASE);
	while (!stopping())
		call_targets(targets, base++ & 0xffff, 4);
	__atomic_store_n(&storm_done, 1, __ATOMIC_RELAXED);
	pthread_join(sender, NULL);
	_exit(__atomic_load_n(&wrong_results, __ATOMIC_RELAXED) ? 22 : 0);
}

/* ------------------------------------------------ counted and sandbox */

static void __noreturn counted(void)
{
	long i = 0, bad = 0;

	wait_go();
	while (!stopping()) {
		bad += tt_counted(i) != i + 8;
		if (++i % 64 == 0)
			usleep(100);
	}
	sh->counted_calls = i;
	_exit(bad ? 30 : 0);
}

/* Confined: only memory, the probed calls and the raw exit syscall. */
static void __noreturn sandboxed(void)
{
	long i = 0, bad = 0;

	if (seccomp_confine())
		_exit(40);
	wait_go();
	while (!stopping()) {
		bad += tt_sandboxed(i) != i + 9;
		i++;
	}
	sh->sandbox_calls = i;
	syscall(SYS_exit, bad ? 41 : 0);
	__builtin_unreachable();
}

/* --------------------------------------------------------- the churner */

static pid_t actors[WORKERS + 4];
static int nactors;

/* A uprobe_events probe on a random target, alive for a moment. */
static int churn_event(unsigned int churner)
{
	unsigned int t = rand_r(&seed) % TARGETS;
	char name[32], sema[32] = "";
	int err;

	snprintf(name, sizeof(name), "c%u", churner);
	if (probe_sema(t))
		snprintf(sema, sizeof(sema), "(0x%lx)", probe_sema(t));
	/* A return probe goes at a function's entry, not at the popfq. */
	err = uprobe_event_add("%c:%s/%s %s:0x%lx%s", rand_r(&seed) % 3 && t != 3 ? 'r' : 'p',
			       GROUP, name, self_path(), self_offset(probe_place(t)), sema);
	if (err)
		return err;
	add(&sh->events, 1);
	err = event_enable(GROUP, name, 1);
	usleep(rand_r(&seed) % 2000);
	if (!err)
		err = event_enable(GROUP, name, 0);
	return uprobe_event_add("-:%s/%s", GROUP, name) ?: err;
}

/* A perf event: for one actor or a CPU. */
static int churn_perf(void)
{
	unsigned int t = rand_r(&seed) % TARGETS;
	unsigned long sema = probe_sema(t);
	pid_t pid = rand_r(&seed) % 4 == 0 ? -1 : actors[rand_r(&seed) % nactors];
	struct perf_event_attr attr;
	int fd, err;

	err = uprobe_perf_attr(&attr, self_path(), self_offset(probe_place(t)),
			       rand_r(&seed) % 4 == 0 && t != 3, sema);
	if (err)
		return err;
	fd = perf_open(&attr, pid, pid < 0 ? rand_r(&seed) % 2 : -1);
	/* An actor may have exited (at the end, they do): not an error. */
	if (fd == -ESRCH)
		return 0;
	if (fd < 0)
		return fd;
	add(&sh->perfs, 1);
	usleep(rand_r(&seed) % 2000);
	close(fd);
	return 0;
}

/* uprobe_register() through the test module, now and then pid-filtered. */
static int churn_module(unsigned int slot)
{
	static const char *const opts[] = { "h", "h r", "h remove", "r" };
	unsigned int t = rand_r(&seed) % TARGETS;
	char pid[32] = "", sema[32] = "";
	int err;

	if (rand_r(&seed) % 3 == 0)
		snprintf(pid, sizeof(pid), "pid=%d", actors[rand_r(&seed) % nactors]);
	if (probe_sema(t))
		snprintf(sema, sizeof(sema), "ref=0x%lx", probe_sema(t));
	err = test_mod_ctl("reg %u %s 0x%lx %s %s %s", slot, self_path(),
			   self_offset(probe_place(t)),
			   opts[rand_r(&seed) % (t == 3 ? 1 : ARRAY_SIZE(opts))], pid, sema);
	/* An actor may have exited (at the end, they do): not an error. */
	if (err)
		return err == -ESRCH ? 0 : err;
	add(&sh->modules, 1);
	if (pid[0] && rand_r(&seed) % 2)
		err = test_mod_ctl("filter %u %d", slot, actors[rand_r(&seed) % nactors]);
	usleep(rand_r(&seed) % 2000);
	if (!err && rand_r(&seed) % 4 == 0)
		err = test_mod_ctl("apply %u 0", slot);
	if (err == -ESRCH)
		err = 0;
	return test_mod_ctl("unreg %u", slot) ?: err;
}

/* Churner @index: its own event name and module slots, its own choices. */
static void __noreturn churner(unsigned int index, bool module)
{
	unsigned int slot = 0;
	int err = 0;

	seed += index;
	while (!stopping() && !err) {
		slot = (slot + 1) % CHURN_SLOTS;
		switch (rand_r(&seed) % (module ? 3 : 2)) {
		case 0:
			err = churn_event(index);
			break;
		case 1:
			err = churn_perf();
			break;
		default:
			err = churn_module(index * CHURN_SLOTS + slot);
			break;
		}
	}
	if (err)
		fprintf(stderr, "%s %u: %s\n", __func__, index, strerror(-err));
	__atomic_add_fetch(&sh->quiet, 1, __ATOMIC_RELEASE);
	_exit(err ? 50 : 0);
}

/* ------------------------------------------------------ the lifecycle */

/* A child that calls every target and exits with how many were wrong. */
static void __noreturn call_and_exit(void)
{
	_exit(call_targets(targets, getpid() & 0xff, 8) ? 60 : 0);
}

static int reap(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int life_fork(void)
{
	pid_t pid = fork();

	if (pid == 0)
		call_and_exit();
	add(&sh->forks, 1);
	return reap(pid);
}

static int life_exec(void)
{
	char *const argv[] = { (char *)self_path(), "--torture-child", NULL };
	pid_t pid = vfork();

	if (pid == 0) {
		execv(argv[0], argv);
		_exit(61);
	}
	add(&sh->execs, 1);
	return reap(pid);
}

static int life_dlopen(void)
{
	target_fn leaf;
	void *lib = dlopen("./liblifecycle.so", RTLD_NOW);
	int bad;

	if (!lib)
		return -1;
	leaf = (target_fn)dlsym(lib, "lifecycle_leaf");
	bad = !leaf || leaf(5) != 16;
	dlclose(lib);
	add(&sh->dlopens, 1);
	return bad;
}

/*
 * A mapping of this program's text made by hand, where the probes are
 * armed as in the program's own: called into, moved, made unexecutable
 * and executable again, dropped (MADV_DONTNEED) and unmapped.
 */
static int life_map(void)
{
	unsigned long len = (self_offset(tt_sandboxed) | 0xfff) + 1;
	target_fn copy[TARGETS];
	char *map, *moved;
	unsigned int t;
	int fd, bad;

	fd = open(self_path(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	map = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	for (t = 0; t < TARGETS; t++)
		copy[t] = (target_fn)(map + self_offset(targets[t]));
	bad = call_targets(copy, 1, 2);
	moved = mremap(map, len, len, MREMAP_MAYMOVE);
	if (moved == MAP_FAILED) {
		munmap(map, len);
		return -1;
	}
	for (t = 0; t < TARGETS; t++)
		copy[t] = (target_fn)(moved + self_offset(targets[t]));
	bad += call_targets(copy, 2, 2);
	bad += mprotect(moved, len, PROT_READ) || mprotect(moved, len, PROT_READ | PROT_EXEC);
	bad += call_targets(copy, 3, 2);
	bad += madvise(moved, len, MADV_DONTNEED) != 0;
	bad += call_targets(copy, 4, 2);
	munmap(moved, len);
	add(&sh->maps, 1);
	return bad;
}

/*
 * Whether @addr is in the mapping of this program's text, which a forked
 * child shares: found once.
 */
static bool in_own_text(unsigned long addr)
{
	static unsigned long start, end;

	/* A failed look leaves no bounds: every address is outside. */
	if (!end && self_mapping(call_and_exit, &start, &end)) {
		start = 0;
		end = 0;
	}
	return addr >= start && addr < end;
}

/* The instruction pointer of the stopped child @pid: 0 or -1. */
static int traced_ip(pid_t pid, unsigned long *ip)
{
	struct user_regs_struct regs;
#ifdef __aarch64__
	struct iovec iov = { .iov_base = &regs, .iov_len = sizeof(regs) };

	if (ptrace(PTRACE_GETREGSET, pid, NT_PRSTATUS, &iov))
		return -1;
	*ip = regs.pc;
#else
	if (ptrace(PTRACE_GETREGS, pid, NULL, &regs))
		return -1;
	*ip = regs.rip;
#endif
	return 0;
}

/*
 * Whether the tracer sees the stopped child @pid in a slot or a stub of
 * the [uprobes] mappings, which it must never see: they stand for the
 * probed address.  The return-probe trampoline, the first 64 bytes of the
 * XOL area (the largest of those mappings), is where a probed function
 * returns to: a step of its ret lands there.
 */
static bool shows_uprobes(pid_t pid)
{
	struct uprobes_maps maps;
	unsigned long ip;
	int i, xol = 0;

	if (traced_ip(pid, &ip))
		return true;
	/* Most steps are in the program: no need to read the maps there. */
	if (in_own_text(ip))
		return false;
	if (uprobes_maps_read(pid, &maps) || !uprobes_maps_hold(&maps, ip))
		return false;
	for (i = 1; i < maps.n; i++)
		if (maps.end[i] - maps.start[i] > maps.end[xol] - maps.start[xol])
			xol = i;
	if (ip >= maps.start[xol] && ip < maps.start[xol] + 64)
		return false;
	fprintf(stderr, "lifecycle: traced child at 0x%lx in [uprobes]\n", ip);
	return true;
}

/*
 * A child single-stepped through probed calls, then let go; at no step
 * may it show the tracer an address of the [uprobes] mapping.
 */
static int life_ptrace(void)
{
	int status, i;
	pid_t pid = fork();

	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(62);
		raise(SIGSTOP);
		call_and_exit();
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		return -1;
	for (i = 0; i < STEPS; i++) {
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) ||
		    waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
			break;
		if (WSTOPSIG(status) != SIGTRAP)
			return -2;
		if (shows_uprobes(pid)) {
			kill(pid, SIGKILL);
			reap(pid);
			return -5;
		}
	}
	add(&sh->steps, i);
	if (i == STEPS && ptrace(PTRACE_CONT, pid, NULL, NULL))
		return -3;
	return i == STEPS ? reap(pid) : WIFEXITED(status) ? WEXITSTATUS(status) : -4;
}

/*
 * Whether a debugger may single-step a probed child here: not where
 * UPROBE_TORTURE_NO_PTRACE_STEPS is set, for a kernel that warns at every
 * step of a task that hit a probe once (arm64 before its
 * uprobe_single_step_handler() warned only in a step of uprobes).
 */
static bool ptrace_steps_ok(void)
{
	return !getenv("UPROBE_TORTURE_NO_PTRACE_STEPS");
}

static void __noreturn lifecycle(void)
{
	/* life_ptrace last: left out where ptrace_steps_ok() says so. */
	static int (*const ops[])(void) = {
		life_fork, life_exec, life_dlopen, life_map, life_ptrace,
	};
	unsigned int op, n_ops = ARRAY_SIZE(ops) - !ptrace_steps_ok();
	int err = 0;

	while (!stopping() && !err) {
		op = rand_r(&seed) % n_ops;
		err = ops[op]();
		if (err)
			fprintf(stderr, "%s: op %u: %d\n", __func__, op, err);
	}
	_exit(err ? 70 : 0);
}

/* --------------------------------------------------------- the test */

/* A process of its own for @actor, which dies with the conductor. */
static pid_t start(void (*actor)(void))
{
	pid_t conductor = getpid(), pid = fork();

	if (pid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != conductor)
			_exit(1);
		actor();
	}
	return pid;
}

/* Which actor @pid is, for the log: actors[] lists all but the churners. */
static const char *actor_role(pid_t pid)
{
	static const char * const after_workers[] = {
		"storm", "counted", "sandboxed", "lifecycle",
	};
	int i;

	for (i = 0; i < nactors; i++)
		if (actors[i] == pid)
			return i < WORKERS ? "worker" : after_workers[i - WORKERS];
	return "churner";
}

static bool churn_module_too;

static void __noreturn churner0(void)
{
	churner(0, churn_module_too);
}

static void __noreturn churner1(void)
{
	churner(1, churn_module_too);
}

/* The kmemleak report after a scan, or NULL if the kernel has none. */
static char *kmemleak_report(void)
{
	int fd = open("/sys/kernel/debug/kmemleak", O_RDWR | O_CLOEXEC);
	char *text = calloc(1, 65536);
	ssize_t n;

	if (fd < 0 || !text) {
		free(text);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (write(fd, "scan", 4) == 4)
		n = pread(fd, text, 65535, 0);
	else
		n = -1;
	close(fd);
	if (n < 0)
		text[0] = '\0';
	return text;
}

static long env_long(const char *name, long fallback)
{
	const char *v = getenv(name);

	return v && *v ? strtol(v, NULL, 0) : fallback;
}

FIXTURE(torture) {
};

FIXTURE_SETUP(torture)
{
}

FIXTURE_TEARDOWN(torture)
{
	tracing_reset();
}

TEST_F_TIMEOUT(torture, everything_at_once, 4 * 3600)
{
	long seconds = env_long("UPROBE_TORTURE_SECONDS", 60);
	const char *module_path = getenv("UPROBE_TEST_MODULE");
	bool module = module_path;
	struct perf_event_attr attr;
	int counted_fd, sandbox_fd, status, i, failed = 0;
	pid_t pid;
	char *leaks;

	/* Asked for the module: it must load. */
	if (module) {
		ASSERT_EQ(0, kmod_load(module_path, TEST_MOD_NAME, "")) {
			TH_LOG("%s does not load", module_path);
		}
	}
	seed = env_long("UPROBE_TORTURE_SEED", time(NULL));
	ksft_print_msg("torture: seed %u, %ld s, module %s\n", seed, seconds,
		       module ? "yes" : "no");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	tracing_reset();
	for (i = 0; i < WORKERS; i++)
		actors[nactors++] = start(worker);
	actors[nactors++] = start(storm);
	actors[nactors++] = start(counted);
	actors[nactors++] = start(sandboxed);
	actors[nactors++] = start(lifecycle);
	ASSERT_EQ(0, uprobe_perf_attr(&attr, self_path(), self_offset(tt_counted), 0, 0));
	counted_fd = perf_open(&attr, actors[WORKERS + 1], -1);
	ASSERT_LE(0, counted_fd);
	ASSERT_EQ(0, uprobe_perf_attr(&attr, self_path(), self_offset(tt_sandboxed), 0, 0));
	sandbox_fd = perf_open(&attr, actors[WORKERS + 2], -1);
	ASSERT_LE(0, sandbox_fd);
	__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
	churn_module_too = module;
	ASSERT_LT(0, start(churner0));
	ASSERT_LT(0, start(churner1));
	sleep(seconds);
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);

	while ((pid = wait(&status)) > 0) {
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			continue;
		failed++;
		TH_LOG("actor %d (%s): %s %d", pid, actor_role(pid),
		       WIFEXITED(status) ? "exit" : "signal",
		       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	}
	EXPECT_EQ(0, failed);
	EXPECT_EQ(sh->counted_calls, perf_count(counted_fd));
	EXPECT_EQ(sh->sandbox_calls, perf_count(sandbox_fd));
	close(counted_fd);
	close(sandbox_fd);
	ksft_print_msg("torture: %ld calls checked, %ld counted, %ld confined\n",
		       sh->calls, sh->counted_calls, sh->sandbox_calls);
	ksft_print_msg("torture in %ld s: %ld events, %ld perf events, %ld module probes\n",
		       seconds, sh->events, sh->perfs, sh->modules);
	ksft_print_msg("torture in %ld s: %ld forks, %ld execs, %ld mappings, %ld dlopens\n",
		       seconds, sh->forks, sh->execs, sh->maps, sh->dlopens);
	ksft_print_msg("torture in %ld s: %ld steps, %ld signals (%ld longjmps)\n",
		       seconds, sh->steps, sh->signals, sh->longjmps);
	/* Every kind of churn happened, or the run proves nothing of it. */
	EXPECT_GT(sh->counted_calls, 0);
	EXPECT_GT(sh->sandbox_calls, 0);
	EXPECT_GT(sh->signals, 0);
	EXPECT_GT(sh->longjmps, 0);
	EXPECT_GT(sh->events, 0);
	EXPECT_GT(sh->perfs, 0);
	if (module)
		EXPECT_GT(sh->modules, 0);
	EXPECT_GT(sh->forks, 0);
	EXPECT_GT(sh->execs, 0);
	EXPECT_GT(sh->maps, 0);
	EXPECT_GT(sh->dlopens, 0);
	if (ptrace_steps_ok())
		EXPECT_GT(sh->steps, 0);
	EXPECT_EQ(NULL, strstr(tfs_read("uprobe_events") ?: "?", ":"));
	if (module)
		EXPECT_EQ(0, kmod_unload(TEST_MOD_NAME));
	/* Only leaks of uprobes: early boot leaves some of its own. */
	leaks = kmemleak_report();
	if (leaks) {
		EXPECT_EQ(NULL, strstr(leaks, "uprobe")) {
			TH_LOG("kmemleak:\n%s", leaks);
		}
		free(leaks);
	}
}

#define CROWD	500
#define CROWD_CALLS	3

static pthread_barrier_t crowd_start, crowd_hold;

static void *crowd_member(void *arg)
{
	long bad;

	pthread_barrier_wait(&crowd_start);
	bad = call_targets(targets, (long)arg, CROWD_CALLS);
	pthread_barrier_wait(&crowd_hold);
	return (void *)bad;
}

/*
 * 500 threads of one process, alive at once, call a function of every
 * class: every result right, and each function's event counts exactly
 * 500 x 3 hits in uprobe_profile.  (Not perf events inherited by the
 * threads: on the debug kernel their counts stray by a few percent from
 * one function's event to another's, on counts the probes have right.)
 * 6.12 now and then kills one of the threads, of a SIGTRAP or a SIGILL,
 * under load.
 */
TEST_F_TIMEOUT(torture, five_hundred_threads_every_class, 1800)
{
	static pthread_t threads[CROWD];
	char event[16];
	pthread_attr_t stack;
	unsigned int t;
	long bad = 0;
	void *ret;
	int n;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	tracing_reset();
	for (t = 0; t < TARGETS; t++) {
		snprintf(event, sizeof(event), "crowd%u", t);
		ASSERT_EQ(0, uprobe_event_add("p:ucrowd/%s %s:0x%lx", event, self_path(),
					      self_offset(probe_place(t))));
		ASSERT_EQ(0, event_enable("ucrowd", event, 1));
	}
	ASSERT_EQ(0, pthread_attr_init(&stack));
	ASSERT_EQ(0, pthread_attr_setstacksize(&stack, SMALL_STACK));
	ASSERT_EQ(0, pthread_barrier_init(&crowd_start, NULL, CROWD));
	ASSERT_EQ(0, pthread_barrier_init(&crowd_hold, NULL, CROWD));
	for (n = 0; n < CROWD; n++)
		ASSERT_EQ(0, pthread_create(&threads[n], &stack, crowd_member, (void *)(long)n));
	for (n = 0; n < CROWD; n++) {
		ASSERT_EQ(0, pthread_join(threads[n], &ret));
		bad += (long)ret;
	}
	EXPECT_EQ(0, bad);
	for (t = 0; t < TARGETS; t++) {
		snprintf(event, sizeof(event), "crowd%u", t);
		EXPECT_EQ(CROWD * CROWD_CALLS, profile_hits(event)) TH_LOG("target %u", t);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--torture-child")) {
		sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (sh == MAP_FAILED)
			return 1;
		call_and_exit();
	}
	return test_harness_run(argc, argv);
}
