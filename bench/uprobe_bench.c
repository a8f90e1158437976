// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_bench: the guest side of `make bench`.
 *
 * Every case is measured ROUNDS times and each measurement printed as one
 * line "CASE<TAB>UNIT<TAB>VALUE[<TAB>NOTE]"; the host takes medians and
 * ratios.  NOTE is "calibration=NS" for a time measured between two runs of
 * a fixed loop (see calibration_ns()), or "projected".  The
 * probe consumer is a counting perf event of the uprobe PMU (no trace
 * buffer, no BPF): the cheapest consumer a user can attach, so the numbers
 * are the cost of the uprobes machinery itself.  Each hit case checks that
 * the counter saw every call, so a probe that silently did not fire cannot
 * pass for a fast one.
 *
 * Cases:
 *   base.call, base.getppid   an unprobed call; a getppid() round trip
 *   hit.INSN                  an entry probe on a function whose first
 *                             instruction is INSN (bench_targets.S)
 *   hit.loop.INSN             a probe on INSN, run once a call, right
 *                             before a loop whose branch goes back to the
 *                             instruction after it
 *   hit.ldr_literal           arm64: a kernel may refuse it; the case is
 *                             then the line "NAME<TAB>refused ERRNO"
 *   uretprobe, uretprobe.nop5 entry and return probes on one function
 *                             (first instruction push, or a 5-byte nop;
 *                             arm64: stp of the frame record, no nop5)
 *   threads.1, threads.2      one, then two threads (one per vCPU) hitting
 *                             one probe: ns per call of the aggregate rate
 *   threads.nop5.1, .2        the same on a 5-byte nop (ours: through a stub,
 *                             with no exception on the way); on arm64
 *                             threads.b.1, .2 instead: on a b, which the
 *                             arch simulates, with no step on the way
 *   threads.64                64 threads on the two vCPUs hitting a probe
 *                             whose instruction runs out of line (mov)
 *   register.N, unregister.N  opening then closing N = 1000, 10000 probe
 *                             events (ms); see bench_registration()
 *   rss.P, anon.P             resident and anonymous memory of this process
 *                             (kB) before arming, with one probe on each of
 *                             16 resident pages, and after disarming
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "uprobe_util.h"

#define ROUNDS		5
#define ROUND_NS	300000000L	/* time spent in one hit measurement */
#define SLED_PAGES	16		/* probed for the memory case */
#define SLED_BYTES	65536		/* the whole sled */
#define CALIBRATION_LOOPS	10000000L
#define UNREGISTER_BUDGET_NS	150000000000L	/* 2.5 minutes */

/*
 * What differs on arm64: its probe targets, the calibration loop's add,
 * and the nop the sled is made of (a 32-bit word, as every instruction).
 */
#ifdef __aarch64__
long bench_nop(long x);
long bench_stp(long x);
long bench_mov(long x);
long bench_ldr(long x);
long bench_b(long x);
long bench_cbz(long x);
long bench_paciasp(long x);
long bench_bti(long x);
long bench_add(long x);
long bench_ldr_lit(long x);
long bench_adrp(long x);
long bench_loop_stp(long x);
extern const unsigned int bench_ldr_insn[], bench_loop_stp_insn[];
#define CALIBRATION_ADD	"add %0, %0, %1"
#define NOP_INSN	0xd503201f
#else	/* x86-64 */
long bench_nop(long x);
long bench_push(long x);
long bench_push_r15(long x);
long bench_endbr(long x);
long bench_mov(long x);
long bench_lea(long x);
long bench_sub(long x);
long bench_rip(long x);
long bench_nop5(long x);
long bench_call(long x);
long bench_mov_imm(long x);
long bench_lea_rip(long x);
#define BENCH_LOOP(name) \
	long bench_loop_##name(long x); \
	extern const unsigned char bench_loop_##name##_insn[]
BENCH_LOOP(nop);
BENCH_LOOP(push_rbp);
BENCH_LOOP(push_r15);
BENCH_LOOP(mov_rdi_rax);
BENCH_LOOP(sub_rsp);
BENCH_LOOP(endbr64);
#define CALIBRATION_ADD	"add %1, %0"
#define NOP_INSN	0x90
#endif
extern const unsigned char bench_sled[];

/*
 * A case of bench_hits(): @fn is called, the probe is on @at (NULL: @fn).
 * A kernel may refuse the probe of a case marked @may_refuse: the case is
 * then reported as refused, with the errno, instead of measured.
 */
struct hit_case {
	const char *name;
	long (*fn)(long x);
	const void *at;
	int may_refuse;
};

static const struct hit_case hit_cases[] = {
#ifdef __aarch64__
	{ "hit.nop", bench_nop },
	{ "hit.stp_fp_lr", bench_stp },
	{ "hit.mov_x1_x0", bench_mov },
	{ "hit.ldr_x0_x1", bench_ldr, bench_ldr_insn },
	{ "hit.b", bench_b },
	{ "hit.cbz", bench_cbz },
	{ "hit.paciasp", bench_paciasp },
	{ "hit.bti_c", bench_bti },
	{ "hit.add", bench_add },
	{ "hit.ldr_literal", bench_ldr_lit, NULL, 1 },
	{ "hit.adrp", bench_adrp },
	{ "hit.loop.stp_fp_lr", bench_loop_stp, bench_loop_stp_insn },
#else
	{ "hit.nop", bench_nop },
	{ "hit.push_rbp", bench_push },
	{ "hit.push_r15", bench_push_r15 },
	{ "hit.endbr64", bench_endbr },
	{ "hit.mov_rdi_rax", bench_mov },
	{ "hit.lea", bench_lea },
	{ "hit.sub_rsp", bench_sub },
	{ "hit.rip_load", bench_rip },
	{ "hit.nop5", bench_nop5 },
	{ "hit.call_rel32", bench_call },
	{ "hit.mov_imm32", bench_mov_imm },
	{ "hit.lea_rip", bench_lea_rip },
	{ "hit.loop.nop", bench_loop_nop, bench_loop_nop_insn },
	{ "hit.loop.push_rbp", bench_loop_push_rbp, bench_loop_push_rbp_insn },
	{ "hit.loop.push_r15", bench_loop_push_r15, bench_loop_push_r15_insn },
	{ "hit.loop.mov_rdi_rax", bench_loop_mov_rdi_rax, bench_loop_mov_rdi_rax_insn },
	{ "hit.loop.sub_rsp", bench_loop_sub_rsp, bench_loop_sub_rsp_insn },
	{ "hit.loop.endbr64", bench_loop_endbr64, bench_loop_endbr64_insn },
#endif
};

static __printf(1, 2) __noreturn void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("uprobe_bench: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void report(const char *name, const char *unit, double value)
{
	printf("%s\t%s\t%.1f\n", name, unit, value);
	fflush(stdout);
}

/* A value extrapolated from part of the work: a fourth column says so. */
static void report_projected(const char *name, const char *unit, double value)
{
	printf("%s\t%s\t%.1f\tprojected\n", name, unit, value);
	fflush(stdout);
}

/*
 * The time of a fixed user-mode loop, in ns.  The host runs the emulator
 * at two speeds some 45% apart and moves between them every few seconds;
 * a measurement reported with the calibration taken around it can be
 * brought back to one speed (bench-table.py).
 */
static long calibration_ns(void)
{
	long start = now_ns(), x = 0, i;

	for (i = 0; i < CALIBRATION_LOOPS; i++)
		asm volatile(CALIBRATION_ADD : "+r" (x) : "r" (i));
	return now_ns() - start;
}

/* A time measured between two calibrations @before and @after. */
static void report_calibrated(const char *name, const char *unit, double value,
			      long before, long after)
{
	printf("%s\t%s\t%.1f\tcalibration=%ld\n", name, unit, value, (before + after) / 2);
	fflush(stdout);
}

/*
 * Opens a counting uprobe PMU event on @addr of this program, for this
 * thread (@cpu -1) or for every task on CPU @cpu; the fd.
 */
static int probe_try_open_on(const void *addr, int retprobe, int cpu)
{
	struct perf_event_attr attr;
	int err;

	err = uprobe_perf_attr(&attr, self_path(), self_offset(addr), retprobe, 0);
	if (err)
		die("uprobe PMU: %s", strerror(-err));
	return perf_open(&attr, cpu < 0 ? 0 : -1, cpu);
}

static int probe_open_on(const void *addr, int retprobe, int cpu)
{
	int fd = probe_try_open_on(addr, retprobe, cpu);

	if (fd < 0)
		die("perf_event_open at %p: %s", addr, strerror(-fd));
	return fd;
}

static int probe_open(const void *addr, int retprobe)
{
	return probe_open_on(addr, retprobe, -1);
}

/*
 * The time one measurement lasts: ROUND_NS, or argv[2] (ns).  Under QEMU's
 * instruction counting (make bench ICOUNT=1) a nanosecond is an
 * instruction, and a shorter round counts as exactly.
 */
static long round_ns = ROUND_NS;

/* Calls @fn for about round_ns; the number of calls, their time in @ns. */
static long call_for_a_while(long (*fn)(long x), long *ns)
{
	long start = now_ns(), calls = 0, i;

	do {
		for (i = 0; i < 64; i++)
			fn(i);
		calls += 64;
		*ns = now_ns() - start;
	} while (*ns < round_ns);
	return calls;
}

static long getppid_call(long x)
{
	return syscall(SYS_getppid) + x;
}

static void measure_calls(const char *name, long (*fn)(long x), int *fds, int nfds)
{
	long calls, ns, before[2] = { 0, 0 }, calibration;
	int round, i;

	for (round = 0; round < ROUNDS; round++) {
		for (i = 0; i < nfds; i++)
			before[i] = perf_count(fds[i]);
		calibration = calibration_ns();
		calls = call_for_a_while(fn, &ns);
		for (i = 0; i < nfds; i++)
			if (perf_count(fds[i]) - before[i] != calls)
				die("%s: probe %d counted %lld of %ld calls", name, i,
				    perf_count(fds[i]) - before[i], calls);
		report_calibrated(name, "ns/call", (double)ns / calls, calibration,
				  calibration_ns());
	}
}

static void bench_baselines(void)
{
	measure_calls("base.call", bench_nop, NULL, 0);
	measure_calls("base.getppid", getppid_call, NULL, 0);
}

static void bench_hits(void)
{
	const void *at;
	size_t i;
	int fd;

	for (i = 0; i < sizeof(hit_cases) / sizeof(hit_cases[0]); i++) {
		at = hit_cases[i].at ?: hit_cases[i].fn;
		fd = hit_cases[i].may_refuse ? probe_try_open_on(at, 0, -1) : probe_open(at, 0);
		if (fd < 0) {
			/* Two fields: the table shows the case as refused. */
			printf("%s\trefused %s\n", hit_cases[i].name, strerrorname_np(-fd));
			continue;
		}
		measure_calls(hit_cases[i].name, hit_cases[i].fn, &fd, 1);
		close(fd);
	}
}

/* Entry and return probes on @fn. */
static void measure_uretprobe(const char *name, long (*fn)(long x))
{
	int fds[2];

	fds[0] = probe_open(fn, 0);
	fds[1] = probe_open(fn, 1);
	measure_calls(name, fn, fds, 2);
	close(fds[0]);
	close(fds[1]);
}

static void bench_uretprobe(void)
{
#ifdef __aarch64__
	measure_uretprobe("uretprobe", bench_stp);
#else
	measure_uretprobe("uretprobe", bench_push);
	measure_uretprobe("uretprobe.nop5", bench_nop5);
#endif
}

#define HITTERS_MAX	64

struct hitter {
	pthread_t thread;
	long (*fn)(long x);
	int cpu;
	long calls;
};

/* The hitters start together and stop together: one window for all. */
static pthread_barrier_t hitters_start;
static int hitters_stop;

static void *hitter_main(void *arg)
{
	struct hitter *h = arg;
	long i;

	if (pin_to_cpu(h->cpu))
		die("cannot run on CPU %d", h->cpu);
	pthread_barrier_wait(&hitters_start);
	while (!__atomic_load_n(&hitters_stop, __ATOMIC_RELAXED)) {
		for (i = 0; i < 64; i++)
			h->fn(i);
		h->calls += 64;
	}
	return NULL;
}

/* The sum of the per-CPU counters @fds. */
static long long count_cpus(const int *fds)
{
	return perf_count(fds[0]) + perf_count(fds[1]);
}

/*
 * @n threads, spread over the two CPUs, hit the probe on @fn, counted by
 * per-CPU events @fds (a per-thread event would not see the new threads);
 * ns per call of the aggregate rate, over one window from the moment all
 * threads exist to the moment all have stopped.
 */
static void measure_threads(const char *name, int n, long (*fn)(long x), const int *fds)
{
	static struct hitter h[HITTERS_MAX];
	long calls, ns, before, calibration;
	int round, i;

	for (round = 0; round < ROUNDS; round++) {
		before = count_cpus(fds);
		calibration = calibration_ns();
		calls = 0;
		hitters_stop = 0;
		if (pthread_barrier_init(&hitters_start, NULL, n + 1))
			die("pthread_barrier_init");
		for (i = 0; i < n; i++) {
			h[i] = (struct hitter){ .cpu = i % 2, .fn = fn };
			if (pthread_create(&h[i].thread, NULL, hitter_main, &h[i]))
				die("pthread_create");
		}
		pthread_barrier_wait(&hitters_start);
		ns = now_ns();
		usleep(round_ns / 1000);
		__atomic_store_n(&hitters_stop, 1, __ATOMIC_RELAXED);
		for (i = 0; i < n; i++) {
			pthread_join(h[i].thread, NULL);
			calls += h[i].calls;
		}
		ns = now_ns() - ns;
		pthread_barrier_destroy(&hitters_start);
		if (count_cpus(fds) - before != calls)
			die("%s: counted %lld of %ld calls", name, count_cpus(fds) - before, calls);
		report_calibrated(name, "ns/call", (double)ns / calls, calibration,
				  calibration_ns());
	}
}

/* measure_threads() with each of the @n thread counts @threads, named @names. */
static void threads_on(long (*fn)(long x), const char *const *names, const int *threads,
		       int n)
{
	int fds[2], i;

	fds[0] = probe_open_on(fn, 0, 0);
	fds[1] = probe_open_on(fn, 0, 1);
	for (i = 0; i < n; i++)
		measure_threads(names[i], threads[i], fn, fds);
	close(fds[0]);
	close(fds[1]);
}

static void bench_threads(void)
{
	static const char *const nop[] = { "threads.1", "threads.2" };
#ifdef __aarch64__
	static const char *const b[] = { "threads.b.1", "threads.b.2" };
#else
	static const char *const nop5[] = { "threads.nop5.1", "threads.nop5.2" };
#endif
	static const char *const many[] = { "threads.64" };
	static const int one_two[] = { 1, 2 }, hitters[] = { HITTERS_MAX };

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		die("the threads cases need 2 CPUs");
	threads_on(bench_nop, nop, one_two, 2);
#ifdef __aarch64__
	threads_on(bench_b, b, one_two, 2);
#else
	threads_on(bench_nop5, nop5, one_two, 2);
#endif
	threads_on(bench_mov, many, hitters, 1);
}

/*
 * Leaves @n open probe events @fds to a child that keeps them until the
 * guest reboots, so that this process exits without closing them.
 */
static void abandon(const int *fds, int n)
{
	int i, null;

	if (fork() == 0) {
		/* Not holding the pipe that the guest script reads us through. */
		null = open("/dev/null", O_WRONLY);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		for (;;)
			pause();
	}
	for (i = 0; i < n; i++)
		close(fds[i]);
}

/*
 * Opens then closes @n probes on distinct sled offsets, timing each half.
 * Closing stops after @budget_ns: the total is then projected from the
 * rate so far, reported as such, and the rest are abandoned.
 */
static void measure_registration(int n, long budget_ns)
{
	int *fds = calloc(n, sizeof(*fds)), i;
	/* Offsets at instruction boundaries: 4 bytes apart at least on arm64. */
	long step = SLED_BYTES / n / sizeof(INSN_UNIT) * sizeof(INSN_UNIT);
	long start, ns = 0;
	char name[32];

	if (!fds)
		die("out of memory");
	start = now_ns();
	for (i = 0; i < n; i++)
		fds[i] = probe_open(bench_sled + i * step, 0);
	snprintf(name, sizeof(name), "register.%d", n);
	report(name, "ms", (now_ns() - start) / 1e6);
	snprintf(name, sizeof(name), "unregister.%d", n);
	start = now_ns();
	for (i = 0; i < n && ns < budget_ns; i++) {
		close(fds[i]);
		ns = now_ns() - start;
	}
	if (i == n)
		report(name, "ms", ns / 1e6);
	else
		report_projected(name, "ms", ns / 1e6 * n / i);
	abandon(fds + i, n - i);
	free(fds);
}

static void bench_registration(void)
{
	struct rlimit files = { 20000, 20000 };

	if (setrlimit(RLIMIT_NOFILE, &files))
		die("RLIMIT_NOFILE: %s", strerror(errno));
	/*
	 * 6.12 closes each perf probe event with its own wait for a grace
	 * period, which under TCG makes closing thousands a matter of
	 * minutes to an hour: both cases have a budget, and the README
	 * states the one estimate of what the base's total would be.
	 */
	measure_registration(1000, UNREGISTER_BUDGET_NS);
	measure_registration(10000, UNREGISTER_BUDGET_NS);
}

/* This process's @field ("Rss", "Anonymous") in kB, from smaps_rollup. */
static long memory_kb(const char *field)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	size_t len = strlen(field);
	long kb = -1;

	if (!f)
		die("smaps_rollup: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == ':') {
			kb = strtol(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return kb;
}

static void report_memory(const char *phase)
{
	char name[32];

	snprintf(name, sizeof(name), "rss.%s", phase);
	report(name, "kB", memory_kb("Rss"));
	snprintf(name, sizeof(name), "anon.%s", phase);
	report(name, "kB", memory_kb("Anonymous"));
}

/*
 * One probe on each of SLED_PAGES pages that this process maps but never
 * runs.  The pages are read first, so that they are resident before
 * arming and only the private copies arming makes show up.
 */
static void bench_memory(void)
{
	int fds[SLED_PAGES], round, i;
	long sum = 0;

	for (i = 0; i < SLED_PAGES; i++)
		sum += READ_FRESH(*(const INSN_UNIT *)&bench_sled[i * 4096]);
	if (sum != (long)NOP_INSN * SLED_PAGES)
		die("the sled is not made of nops");
	for (round = 0; round < ROUNDS; round++) {
		report_memory("before");
		for (i = 0; i < SLED_PAGES; i++)
			fds[i] = probe_open(bench_sled + i * 4096, 0);
		report_memory("armed");
		for (i = 0; i < SLED_PAGES; i++)
			close(fds[i]);
		report_memory("after");
	}
}

/*
 * make breakdown: BREAKDOWN_CALLS calls of each case in a window that
 * getpgid() opens and getsid() closes, whose kernel entries the QEMU
 * plugin bench/insn_window.c watches to count the instructions of each
 * function in between.  A line "CASE<TAB>window<TAB>N<TAB>calls=C" says
 * which window is which case, and lines "map<TAB>START-END<TAB>NAME"
 * where this program's text and the [uprobes] pages are, to name the
 * user pages the plugin counts.  The probe is hit before its window, so
 * that the window sees what every hit after the first does.
 */
#define BREAKDOWN_CALLS	10000

static int windows;

/* The lines of /proc/self/maps of this program's text and of [uprobes]. */
static void print_maps(void)
{
	char line[512], start_end[64], perms[8], path[256];
	FILE *maps = fopen("/proc/self/maps", "r");

	if (!maps)
		die("/proc/self/maps: %s", strerror(errno));
	while (fgets(line, sizeof(line), maps)) {
		path[0] = 0;
		if (sscanf(line, "%63s %7s %*s %*s %*s %255s", start_end, perms, path) < 2)
			continue;
		if (perms[2] == 'x' && (strstr(path, "uprobe_bench") || !strcmp(path, "[uprobes]")))
			printf("map\t%s\t%s\n", start_end,
			       strcmp(path, "[uprobes]") ? "bench" : "[uprobes]");
	}
	fclose(maps);
}

static void window_of_calls(const char *name, long (*fn)(long x), const int *fds, int nfds)
{
	long before[2] = { 0, 0 }, i;
	int k;

	for (i = 0; i < 1000; i++)
		fn(i);
	for (k = 0; k < nfds; k++)
		before[k] = perf_count(fds[k]);
	syscall(SYS_getpgid, 0);
	for (i = 0; i < BREAKDOWN_CALLS; i++)
		fn(i);
	syscall(SYS_getsid, 0);
	for (k = 0; k < nfds; k++)
		if (perf_count(fds[k]) - before[k] != BREAKDOWN_CALLS)
			die("%s: probe %d counted %lld of %d calls", name, k,
			    perf_count(fds[k]) - before[k], BREAKDOWN_CALLS);
	printf("%s\twindow\t%d\tcalls=%d\n", name, ++windows, BREAKDOWN_CALLS);
	print_maps();
}

#ifdef __aarch64__
#define BREAKDOWN_HITS	"hit.nop", "hit.stp_fp_lr", "hit.mov_x1_x0", "hit.b"
#define BREAKDOWN_RETURN	bench_stp
#else
#define BREAKDOWN_HITS	"hit.nop", "hit.push_rbp", "hit.nop5", "hit.mov_rdi_rax"
#define BREAKDOWN_RETURN	bench_push
#endif

static void bench_breakdown(void)
{
	static const char *const names[] = { BREAKDOWN_HITS };
	size_t i, k;
	int fds[2];

	window_of_calls("base.getppid", getppid_call, NULL, 0);
	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		for (i = 0; i < sizeof(hit_cases) / sizeof(hit_cases[0]); i++) {
			if (strcmp(hit_cases[i].name, names[k]))
				continue;
			fds[0] = probe_open(hit_cases[i].at ?: hit_cases[i].fn, 0);
			window_of_calls(names[k], hit_cases[i].fn, fds, 1);
			close(fds[0]);
		}
	fds[0] = probe_open(BREAKDOWN_RETURN, 0);
	fds[1] = probe_open(BREAKDOWN_RETURN, 1);
	window_of_calls("uretprobe", BREAKDOWN_RETURN, fds, 2);
	close(fds[0]);
	close(fds[1]);
}

/*
 * The groups of cases, each run when its key is in argv[1] (or no argv[1]
 * or an empty one).
 */
static const struct {
	const char *key;
	void (*run)(void);
} groups[] = {
	{ "base", bench_baselines },
	{ "hit", bench_hits },
	{ "uret", bench_uretprobe },
	{ "threads", bench_threads },
	{ "rss", bench_memory },
	{ "register", bench_registration },
};

/* Groups run only when named: not part of a run of them all. */
static const struct {
	const char *key;
	void (*run)(void);
} named_groups[] = {
	{ "breakdown", bench_breakdown },
};

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : "";
	size_t i;

	if (argc > 2)
		round_ns = atol(argv[2]);
	if (round_ns <= 0)
		die("bad round length %s", argv[2]);

	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		if (!*only || strstr(only, groups[i].key))
			groups[i].run();
	for (i = 0; i < sizeof(named_groups) / sizeof(named_groups[0]); i++)
		if (strstr(only, named_groups[i].key))
			named_groups[i].run();
	return 0;
}
