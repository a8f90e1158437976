/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What uprobe_jump (x86-64) and uprobe_jump_arm64 share: the fixture of
 * one probed function a variant (struct target), and the tests that ask
 * nothing of the architecture: each call is one hit that computes what it
 * does unprobed, alone, under a signal storm (no handler sees an address
 * in [uprobes]), while threads hit the probe as it comes and goes, while
 * they run the place a process's first probe comes to, and in forked and
 * vforked children, and under a debugger that steps through a call.  On
 * one plain function: a fork that cannot copy the stubs fails cleanly,
 * /proc/PID/uprobes read while the thread group leader exits, and a jump
 * whose removal failed half way.  The including program defines, before
 * it includes this file, jump_target() (where the jump at an address
 * leads, 0 where there is none), JUMP_LEN (the bytes a jump takes),
 * code_at() (the JUMP_LEN bytes at an address, read afresh), PLAIN_FN
 * (a function whose first instruction takes a jump, returning x + 1),
 * UCONTEXT_PC() (the pc a signal handler's context holds) and REGS_PC()
 * (the pc in a struct user_regs_struct), includes <elf.h>, <fcntl.h>,
 * <pthread.h>, <sys/mman.h>, <sys/prctl.h>, <sys/ptrace.h> and
 * <sys/uio.h>, and adds the fixture's variants after it.
 */
#ifndef UPROBE_JUMP_COMMON_H
#define UPROBE_JUMP_COMMON_H

#define CALLS		2000
#define STORM_CALLS	20000

FIXTURE(jump) {
	int fd;
};

FIXTURE_SETUP(jump)
{
	self->fd = -1;
}

FIXTURE_TEARDOWN(jump)
{
	if (self->fd >= 0)
		close(self->fd);
	signal(SIGUSR1, SIG_DFL);
}

/*
 * One probed function: where to probe, how to call it, what it gives;
 * the probed instruction's length if it is shorter than a jump (0 if not);
 * whether a kernel may refuse to probe it (EINVAL: a test then skips).
 */
struct target {
	const void *probe_at;
	long (*fn)(long x);
	long (*expected)(long x);
	int len;
	bool may_refuse;
};

/*
 * A counting probe on @t for this process, in *@fd; false (the test ends,
 * skipped) when the kernel refuses an instruction it may refuse.
 */
static bool probe_target(struct __test_metadata *_metadata, const struct target *t, int *fd)
{
	*fd = self_probe(t->probe_at);
	if (t->may_refuse && kernel_lacks(_metadata, *fd != -EINVAL, "probes on this instruction"))
		return false;
	ASSERT_LE(0, *fd) TH_LOG("perf_event_open: %d", *fd);
	return true;
}

/* A counting probe on @addr of this program, for this process. */
static int probe(struct __test_metadata *_metadata, const void *addr)
{
	int fd = self_probe(addr);

	ASSERT_LE(0, fd) TH_LOG("perf_event_open: %d", fd);
	return fd;
}

FIXTURE_VARIANT(jump) {
	struct target t;
};

static long calls_made;	/* by run(), for the signal storm's pace */

/* Calls @t with x from -@n/2 on, @n times; the first x it gets wrong, or @n. */
static long run(const struct target *t, long n)
{
	long i;

	for (i = 0; i < n; i++) {
		if (t->fn(i - n / 2) != t->expected(i - n / 2))
			return i;
		__atomic_add_fetch(&calls_made, 1, __ATOMIC_RELAXED);
	}
	return n;
}

static long plain_expected(long x)
{
	return x + 1;
}

/* The plain probed function, for the tests that need one. */
static const struct target plain_target = { PLAIN_FN, PLAIN_FN, plain_expected };

/* Each call is one hit, and computes what it does unprobed. */
TEST_F(jump, exact_results_and_counts)
{
	const struct target *t = &variant->t;

	ASSERT_EQ(CALLS, run(t, CALLS));
	if (!probe_target(_metadata, t, &self->fd))
		return;
	ASSERT_EQ(CALLS, run(t, CALLS));
	EXPECT_EQ(CALLS, perf_count(self->fd));
}

static long storm_signals, storm_in_uprobes;
static struct uprobes_maps storm_maps;

static void on_storm(int sig, siginfo_t *info, void *ctx)
{
	unsigned long ip = UCONTEXT_PC((ucontext_t *)ctx);

	__atomic_fetch_add(&storm_signals, 1, __ATOMIC_RELAXED);
	if (uprobes_maps_hold(&storm_maps, ip))
		__atomic_fetch_add(&storm_in_uprobes, 1, __ATOMIC_RELAXED);
}

/*
 * SIGUSR1 without a pause but for one call between two: the calls compute the
 * right thing, no handler sees an address in [uprobes], and each call is
 * one hit.  A first call makes the stub page, if any, before the maps are
 * read: with jumps to stubs, the jump it puts in leads into them.
 */
TEST_F(jump, signal_storm)
{
	struct sigaction sa = { .sa_sigaction = on_storm, .sa_flags = SA_SIGINFO | SA_RESTART };
	const struct target *t = &variant->t;
	struct signal_storm storm;
	long done;

	if (!probe_target(_metadata, t, &self->fd))
		return;
	ASSERT_EQ(1, run(t, 1));
	ASSERT_EQ(0, uprobes_maps_read(0, &storm_maps));
	if (have_uprobe_jumps())
		ASSERT_TRUE(uprobes_maps_hold(&storm_maps, jump_target(t->probe_at)))
			TH_LOG("the jump leads to %#lx, outside the %d [uprobes] mappings",
			       jump_target(t->probe_at), storm_maps.n);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	storm_signals = 0;
	storm_in_uprobes = 0;
	ASSERT_EQ(0, storm_start(&storm, &calls_made));
	done = run(t, STORM_CALLS);
	storm_stop(&storm);
	TH_LOG("%ld signals over %ld calls", storm_signals, done);
	EXPECT_EQ(STORM_CALLS, done);
	EXPECT_LT(0, storm_signals);
	EXPECT_EQ(0, storm_in_uprobes);
	EXPECT_EQ(STORM_CALLS + 1, perf_count(self->fd));
}

#define CHURN_THREADS	2
#define CHURN_ROUNDS	50

struct churn {
	pthread_t thread;
	const struct target *t;
	long calls, wrong;
};

static int churn_done;

/* Calls the target until churn_done, counting calls and wrong results. */
static void *churn_worker(void *arg)
{
	struct churn *c = arg;
	long x;

	while (!__atomic_load_n(&churn_done, __ATOMIC_ACQUIRE)) {
		x = c->calls % 1000 - 500;
		if (c->t->fn(x) != c->t->expected(x))
			c->wrong++;
		c->calls++;
	}
	return NULL;
}

/*
 * Threads call the probed code while the probe is registered, hit (and
 * so given its jump), and unregistered (the jump taken out) over and over:
 * every call computes the right thing.  The probe's perf event counts the
 * calls of the thread that opened it: one per round, exactly.  (Fifty
 * rounds ran past kselftest's 30 s on the debug kernel under TCG with a
 * build beside it: the limit leaves room.)
 */
TEST_F_TIMEOUT(jump, churn_while_threads_hit, 180)
{
	struct churn c[CHURN_THREADS] = {};
	int i, round, fd;
	long long count;
	long calls = 0;
	char line[256];

	if (!probe_target(_metadata, &variant->t, &fd))
		return;
	close(fd);
	__atomic_store_n(&churn_done, 0, __ATOMIC_RELEASE);
	for (i = 0; i < CHURN_THREADS; i++) {
		c[i].t = &variant->t;
		ASSERT_EQ(0, pthread_create(&c[i].thread, NULL, churn_worker, &c[i]));
	}
	for (round = 0; round < CHURN_ROUNDS; round++) {
		fd = self_probe(variant->t.probe_at);
		if (fd < 0) {
			TH_LOG("round %d: open: %s", round, strerror(-fd));
			break;
		}
		variant->t.fn(0);
		sched_yield();
		variant->t.fn(1);
		count = perf_count(fd);
		if (count != 2) {
			if (proc_uprobes_line(0, variant->t.probe_at, line, sizeof(line)))
				snprintf(line, sizeof(line), "(no /proc/self/uprobes line)\n");
			TH_LOG("round %d: %lld hits of 2 calls; %s", round, count, line);
			close(fd);
			break;
		}
		close(fd);
	}
	__atomic_store_n(&churn_done, 1, __ATOMIC_RELEASE);
	for (i = 0; i < CHURN_THREADS; i++) {
		pthread_join(c[i].thread, NULL);
		EXPECT_EQ(0, c[i].wrong);
		calls += c[i].calls;
	}
	TH_LOG("%d rounds, %ld calls by the threads", round, calls);
	EXPECT_EQ(CHURN_ROUNDS, round);
	EXPECT_LT(0, calls);
}

#define FIRST_ROUNDS	20

/*
 * In a new process whose threads run @t already: the process's first
 * probe comes, this thread calls @t once, and the probe goes.  Exits 0
 * when that call was counted and no thread computed wrong.
 */
static int __noreturn first_probe_child(const struct target *t)
{
	struct churn c[CHURN_THREADS] = {};
	long long count;
	int i, fd;
	long wrong = 0;

	__atomic_store_n(&churn_done, 0, __ATOMIC_RELEASE);
	for (i = 0; i < CHURN_THREADS; i++) {
		c[i].t = t;
		if (pthread_create(&c[i].thread, NULL, churn_worker, &c[i]))
			_exit(2);
	}
	for (i = 0; i < CHURN_THREADS; i++)
		while (!__atomic_load_n(&c[i].calls, __ATOMIC_RELAXED))
			sched_yield();
	fd = self_probe(t->probe_at);
	if (fd < 0)
		_exit(3);
	t->fn(0);
	count = perf_count(fd);
	close(fd);
	__atomic_store_n(&churn_done, 1, __ATOMIC_RELEASE);
	for (i = 0; i < CHURN_THREADS; i++) {
		pthread_join(c[i].thread, NULL);
		wrong += c[i].wrong;
	}
	_exit(count == 1 && !wrong ? 0 : 1);
}

/*
 * The first breakpoint of a process lands while its other threads run
 * the place: one that traps on it at once is the probe's, not sent
 * SIGTRAP (the process is marked as probed before the breakpoint is
 * written).  Each round is a new process.
 */
TEST_F(jump, first_probe_while_threads_run)
{
	int round, status, fd, bad = 0;
	pid_t pid;

	if (!probe_target(_metadata, &variant->t, &fd))
		return;
	close(fd);
	for (round = 0; round < FIRST_ROUNDS; round++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid)
			first_probe_child(&variant->t);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			TH_LOG("round %d: child status %#x", round, status);
			bad++;
		}
	}
	EXPECT_EQ(0, bad);
}

/* A forked child runs the probed code right, jump or breakpoint. */
TEST_F(jump, forked_child)
{
	const struct target *t = &variant->t;
	int status;
	pid_t pid;

	if (!probe_target(_metadata, t, &self->fd))
		return;
	ASSERT_EQ(CALLS, run(t, CALLS));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(run(t, CALLS) == CALLS ? 0 : 1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status %#x", status);
	EXPECT_EQ(CALLS, run(t, CALLS));
	EXPECT_EQ(2 * CALLS, perf_count(self->fd));
}

#define FORK_ROUNDS	20

/* A child of fork() or vfork() that calls @t: exits 0 if all went right. */
static pid_t call_in_child(const struct target *t, bool shares_mm)
{
	pid_t pid = shares_mm ? vfork() : fork();

	if (!pid)
		_exit(run(t, 100) == 100 ? 0 : 1);
	return pid;
}

/*
 * While another thread calls the probed code, this one forks and vforks
 * children that call it too (a vforked child runs in this mm, on this
 * thread's stack): every child and every call computes right, and this
 * thread's own calls are each one hit.
 */
TEST_F(jump, fork_and_vfork_while_a_thread_hits)
{
	struct churn c = { .t = &variant->t };
	int i, status, bad = 0;
	pid_t pid;

	if (!probe_target(_metadata, &variant->t, &self->fd))
		return;
	ASSERT_EQ(CALLS, run(&variant->t, CALLS));
	__atomic_store_n(&churn_done, 0, __ATOMIC_RELEASE);
	ASSERT_EQ(0, pthread_create(&c.thread, NULL, churn_worker, &c));
	for (i = 0; i < 2 * FORK_ROUNDS; i++) {
		pid = call_in_child(&variant->t, i % 2);
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	}
	__atomic_store_n(&churn_done, 1, __ATOMIC_RELEASE);
	pthread_join(c.thread, NULL);
	TH_LOG("%ld calls by the other thread", c.calls);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, c.wrong);
	EXPECT_EQ(CALLS, run(&variant->t, CALLS));
	EXPECT_EQ(2 * CALLS, perf_count(self->fd));
}

#define STEP_X		5	/* the argument of each stepped call */
#define MAX_STEPS	4096

/*
 * The number of calls stop_and_call() makes: not a constant, so that no
 * compiler unrolls its loop, and each call is made from the same place.
 */
int stepped_calls = 4;

/*
 * A traced child: stepped_calls calls of @t, each after a stop (SIGSTOP),
 * all from the same place.  It exits 0 if all computed right.
 */
static void __noreturn stop_and_call(const struct target *t)
{
	int i, wrong = 0;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		_exit(2);
	for (i = 0; i < stepped_calls; i++) {
		raise(SIGSTOP);
		wrong += t->fn(STEP_X) != t->expected(STEP_X);
	}
	_exit(wrong ? 1 : 0);
}

/*
 * Single-steps the child @pid from a stop until its next SIGSTOP, the pc
 * of each step's stop in @pcs, their number in *@n.  Return: 0, or what
 * ended the steps otherwise: the wait status of a stop or an exit, or -1.
 */
static int step_to_sigstop(pid_t pid, unsigned long *pcs, long *n)
{
	struct user_regs_struct regs;
	struct iovec iov = { &regs, sizeof(regs) };
	int status;

	for (*n = 0;; (*n)++) {
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) ||
		    waitpid(pid, &status, 0) != pid)
			return -1;
		if (!WIFSTOPPED(status))
			return status ?: -1;
		if (WSTOPSIG(status) == SIGSTOP)
			return 0;
		if (WSTOPSIG(status) != SIGTRAP || *n == MAX_STEPS ||
		    ptrace(PTRACE_GETREGSET, pid, NT_PRSTATUS, &iov))
			return status;
		pcs[*n] = REGS_PC(&regs);
	}
}

/* Resumes the stopped child @pid until its next stop; true if it stopped. */
static bool cont_to_stop(pid_t pid)
{
	int status;

	return !ptrace(PTRACE_CONT, pid, NULL, NULL) && waitpid(pid, &status, 0) == pid &&
	       WIFSTOPPED(status);
}

/*
 * A debugger single-steps a call of the probed code before the probe
 * comes, and again once a call has hit it (its jump in place, if any):
 * the debugger stops at the same places, one after the other, both times
 * (never in [uprobes], the probed instruction one step), the calls
 * compute right, and the three calls after the probe came are hits.
 */
TEST_F(jump, debugger_steps_through)
{
	static unsigned long before[MAX_STEPS], after[MAX_STEPS];
	const struct target *t = &variant->t;
	struct perf_event_attr attr;
	long n_before, n_after, i;
	int status, err;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		stop_and_call(t);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, step_to_sigstop(pid, before, &n_before));
	ASSERT_EQ(0, uprobe_perf_attr(&attr, self_path(), self_offset(t->probe_at), 0, 0));
	self->fd = perf_open(&attr, pid, -1);
	if (t->may_refuse && self->fd == -EINVAL) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	if (t->may_refuse && kernel_lacks(_metadata, self->fd != -EINVAL,
					  "probes on this instruction"))
		return;
	ASSERT_LE(0, self->fd);
	ASSERT_TRUE(cont_to_stop(pid));
	err = step_to_sigstop(pid, after, &n_after);
	EXPECT_EQ(0, err)
		TH_LOG("step %ld, at %#lx, ended on %#x", n_after,
		       n_after ? after[n_after - 1] : 0, err);
	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, NULL, NULL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status %#x", status);
	EXPECT_EQ(n_before, n_after);
	for (i = 0; i < n_before && i < n_after; i++)
		if (before[i] != after[i])
			break;
	EXPECT_EQ(n_before, i)
		TH_LOG("step %ld: %#lx, %#lx before the probe", i, after[i], before[i]);
	EXPECT_EQ(3, perf_count(self->fd));
}

/*
 * A fork that cannot have its own copies of the stub pages its jumps lead
 * to fails with ENOMEM, rather than give the child jumps into nothing; the
 * next fork works, and the child's calls through the jump are right.
 */
TEST(fork_without_memory_for_stubs_fails)
{
	int fd, err, status;
	pid_t pid;

	if (!fail_fn_allowed("alloc_stub_page"))
		SKIP(return, "fail_function cannot make a stub page's allocation fail here");
	fd = probe(_metadata, plain_target.probe_at);
	ASSERT_EQ(1, run(&plain_target, 1));
	ASSERT_NE(0, jump_target(plain_target.probe_at)) TH_LOG("no jump for the child to copy");
	ASSERT_EQ(0, fail_fn_inject("alloc_stub_page", 0, 0, 1));
	pid = fork();
	if (!pid)
		_exit(run(&plain_target, CALLS) == CALLS ? 0 : 1);
	err = errno;
	EXPECT_EQ(0, fail_fn_clear());
	EXPECT_EQ(0, fail_fn_times_left()) TH_LOG("the fork allocated no stub page");
	EXPECT_EQ(-1, pid);
	EXPECT_EQ(ENOMEM, err);
	if (pid > 0) {
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		TH_LOG("the child forked without its stub page: status %#x", status);
	}
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(run(&plain_target, CALLS) == CALLS ? 0 : 1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) TH_LOG("status %#x", status);
	EXPECT_EQ(1, perf_count(fd));
	close(fd);
}

#define LEADERLESS_ROUNDS	40

/* The thread of leaderless_child that probes PLAIN_FN and hits it. */
static void *leaderless_worker(void *arg)
{
	int tell = *(int *)arg;
	long i;

	if (self_probe(PLAIN_FN) < 0 || PLAIN_FN(0) != 1 || write(tell, "r", 1) != 1)
		_exit(2);
	for (i = 0; ; i++)
		if (PLAIN_FN(i) != i + 1)
			_exit(3);
	return NULL;
}

/* Whether the first thread of @pid is a zombie, waiting up to 10 s. */
static bool leader_is_zombie(pid_t pid)
{
	char path[64], state = 0;
	int tries;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (tries = 0; tries < 1000 && state != 'Z'; tries++) {
		f = fopen(path, "r");
		if (!f || fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
			state = 0;
		if (f)
			fclose(f);
		if (state != 'Z')
			usleep(10000);
	}
	return state == 'Z';
}

/*
 * A process whose first thread ends as soon as @go says so, while a
 * thread of its own, which @tell says is ready, has a probe and hits it.
 */
static void __noreturn leaderless_child(int go, int tell)
{
	pthread_t worker;
	char c;

	/* Gone with the test, should it stop half way. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) ||
	    pthread_create(&worker, NULL, leaderless_worker, &tell) || read(go, &c, 1) != 1)
		_exit(4);
	pthread_exit(NULL);
}

/*
 * /proc/PID/uprobes read while the thread group leader exits, which
 * frees its stack while the process and its directory stay: the file
 * tells of the probe (a jump, the other thread's state) until the leader
 * has gone with the mm it reached it by, then of none; the probed
 * thread computes right all along.  Under KASAN this checks that no read
 * touches the leader's stack once freed.
 */
TEST(proc_uprobes_while_the_leader_exits)
{
	int go[2], tell[2], round, reads, status;
	bool gone;
	char line[512];
	pid_t pid;

	if (!have_proc_uprobes())
		SKIP(return, "no /proc/PID/uprobes");
	for (round = 0; round < LEADERLESS_ROUNDS; round++) {
		ASSERT_EQ(0, pipe(go));
		ASSERT_EQ(0, pipe(tell));
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid)
			leaderless_child(go[0], tell[1]);
		ASSERT_EQ(1, read(tell[0], line, 1));
		ASSERT_EQ(0, proc_uprobes_line(pid, PLAIN_FN, line, sizeof(line)));
		EXPECT_NE(NULL, strstr(line, " jump")) TH_LOG("before: %s", line);
		ASSERT_EQ(1, write(go[1], "g", 1));
		gone = false;
		for (reads = 0; reads < 50; reads++) {
			if (proc_uprobes_line(pid, PLAIN_FN, line, sizeof(line))) {
				gone = true;
				continue;
			}
			EXPECT_FALSE(gone) TH_LOG("round %d: the probe shown again", round);
			EXPECT_NE(NULL, strstr(line, " jump")) TH_LOG("round %d: %s", round, line);
		}
		ASSERT_TRUE(leader_is_zombie(pid)) TH_LOG("round %d: the leader lives on", round);
		EXPECT_NE(0, proc_uprobes_line(pid, PLAIN_FN, line, sizeof(line)))
			TH_LOG("round %d: the leader gone, still %s", round, line);
		ASSERT_EQ(0, waitpid(pid, &status, WNOHANG))
			TH_LOG("round %d: the child ended", round);
		kill(pid, SIGKILL);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
			TH_LOG("round %d: status %#x", round, status);
		close(go[0]);
		close(go[1]);
		close(tell[0]);
		close(tell[1]);
	}
}

/* Tests that may take longer than the harness's default 30 s (KASAN). */
FIXTURE(slow) {
	int unused;
};

FIXTURE_SETUP(slow)
{
}

FIXTURE_TEARDOWN(slow)
{
}

/* What jump_taken_out_half_way's child and the test share. */
struct half_shared {
	long calls;
	int stop;
};

/*
 * The child of jump_taken_out_half_way: calls PLAIN_FN until told to
 * stop, then exits 0 if every result was right and its text at the probe
 * is the file's again, 1 on a wrong result, 2 if the text differs.
 */
static void __noreturn half_child(struct half_shared *sh)
{
	unsigned char orig[JUMP_LEN], now[JUMP_LEN];
	int file = open(self_path(), O_RDONLY);
	long i;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || file < 0 ||
	    pread(file, orig, JUMP_LEN, self_offset(PLAIN_FN)) != JUMP_LEN)
		_exit(3);
	for (i = 0; !READ_FRESH(sh->stop); i++) {
		if (PLAIN_FN(i) != i + 1)
			_exit(1);
		__atomic_store_n(&sh->calls, i + 1, __ATOMIC_RELAXED);
		usleep(200);
	}
	code_at(PLAIN_FN, now);
	_exit(memcmp(orig, now, JUMP_LEN) ? 2 : 0);
}

/* Waits up to @secs seconds for @sh->calls to reach @calls; whether it did. */
static bool half_wait_calls(struct half_shared *sh, long calls, int secs)
{
	int ms;

	for (ms = 0; ms < secs * 1000 && READ_FRESH(sh->calls) < calls; ms += 10)
		usleep(10000);
	return READ_FRESH(sh->calls) >= calls;
}

/*
 * The write that takes a jump out fails after its first byte, made the
 * breakpoint again, as get_user_pages_remote() fails for a task with a
 * fatal signal pending: the jump's other bytes are still there.  The
 * removal is finished later, the instruction whole again, and the
 * process, calling all along, gets every result right.
 */
TEST_F_TIMEOUT(slow, jump_taken_out_half_way, 180)
{
	struct perf_event_attr attr;
	struct half_shared *sh;
	char line[512];
	int fd, i, status;
	long calls;
	pid_t pid;

	if (!fail_fn_allowed("write_mm_text"))
		SKIP(return, "fail_function cannot make a write of text fail here");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		half_child(sh);
	ASSERT_EQ(0, uprobe_perf_attr(&attr, self_path(), self_offset(PLAIN_FN), 0, 0));
	fd = perf_open(&attr, pid, -1);
	ASSERT_LE(0, fd);
	calls = READ_FRESH(sh->calls);
	ASSERT_TRUE(half_wait_calls(sh, calls + 10, 60));
	ASSERT_EQ(0, proc_uprobes_line(pid, PLAIN_FN, line, sizeof(line)));
	ASSERT_NE(NULL, strstr(line, " jump")) TH_LOG("the child has no jump: %s", line);

	/* The first write (the breakpoint) lands, the second fails. */
	ASSERT_EQ(0, fail_fn_inject("write_mm_text", -EINTR, 2, 1));
	close(fd);
	EXPECT_EQ(0, fail_fn_times_left()) TH_LOG("no write of the jump's bytes failed");
	EXPECT_EQ(0, fail_fn_clear());
	calls = READ_FRESH(sh->calls);
	EXPECT_TRUE(half_wait_calls(sh, calls + 100, 60)) TH_LOG("the child stopped calling");
	for (i = 0; i < 300 && !proc_uprobes_line(pid, PLAIN_FN, line, sizeof(line)); i++)
		usleep(100000);
	EXPECT_NE(0, proc_uprobes_line(pid, PLAIN_FN, line, sizeof(line)))
		TH_LOG("the probe is still there: %s", line);
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the child: status %#x", status);
	munmap(sh, sizeof(*sh));
}

#endif /* UPROBE_JUMP_COMMON_H */
