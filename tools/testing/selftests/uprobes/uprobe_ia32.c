// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_ia32: probes in 32-bit processes.  ia32_work, built with -m32, is
 * probed through uprobe_events: register and stack arguments and return
 * values with exact values, every instruction of the coverage workload
 * built as 32-bit code (its result must not change, each instruction is
 * hit as often as a ptrace single-step finds it run), return probes
 * across fork, exec from 32-bit to 64-bit code and back, signals that
 * come while a probed instruction runs out of line (no hit is lost or
 * counted twice), and SDT semaphores.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "uprobe_util.h"

#define GROUP "ia32"

struct ia32_insn {
	const char *fn;
	unsigned long off;
	const char *text;
};

/* The coverage workload's instructions in ia32_work, from objdump. */
static const struct ia32_insn insns[] = {
#include "ia32_insns.h"
};

#define NR_INSNS ARRAY_SIZE(insns)
/* The coverage workload's functions, in ia32_work's "cov" output order. */
static const char *const cov_fns[] = {
	"cov_run", "cov_switch", "cov_globals", "cov_sse", "cov_string",
	"cov_rec", "cov_indirect", "cov_op0", "cov_op1", "cov_op2", "cov_op3",
	"cov_alloca", "cov_varargs",
};

#define NR_COV_FNS ARRAY_SIZE(cov_fns)
#define MAX_TARGETS 32

/* A 64-bit probe target, for exec from 32-bit code and back. */
TARGET int hit64(void)
{
	return 64;
}

/* ia32_work: its path, and the files and offsets of its probe targets. */
struct ia32_work {
	char path[PATH_MAX];
	int nr_targets;
	char names[MAX_TARGETS][32];
	unsigned long offsets[MAX_TARGETS];
	char files[MAX_TARGETS][256];
};

FIXTURE(ia32) {
	struct ia32_work w;
};

/* Starts @argv with its stdout into a pipe: the pipe's end, or -1. */
static int spawn(char *const argv[], pid_t *pid)
{
	int fds[2];

	if (pipe(fds))
		return -1;
	*pid = fork();
	if (*pid < 0)
		return -1;
	if (*pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	return fds[0];
}

/*
 * Runs @argv with its stdout in @out (NUL-terminated, @len bytes at most):
 * its exit status, or -1.
 */
static int capture(char *const argv[], char *out, size_t len)
{
	int fd, status;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	fd = spawn(argv, &pid);
	if (fd < 0)
		return -1;
	while (got < len - 1 && (n = read(fd, out + got, len - 1 - got)) > 0)
		got += n;
	out[got] = '\0';
	close(fd);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* The file offset of @name in ia32_work, or 0. */
static unsigned long offset_of(const struct ia32_work *w, const char *name)
{
	int i;

	for (i = 0; i < w->nr_targets; i++)
		if (!strcmp(w->names[i], name))
			return w->offsets[i];
	return 0;
}

/* Defines and enables "KIND:ia32/EVENT ia32_work:OFFSET(of FN) ARGS". */
static int probe(const struct ia32_work *w, const char *kind, const char *event,
		 const char *fn, const char *args)
{
	unsigned long off = offset_of(w, fn);
	int err;

	if (!off)
		return -ENOENT;
	err = uprobe_event_add("%s:" GROUP "/%s %s:0x%lx %s", kind, event, w->path, off,
			       args);
	return err ? err : event_enable(GROUP, event, 1);
}

FIXTURE_SETUP(ia32)
{
	struct ia32_work *w = &self->w;
	char dir[PATH_MAX], out[4096], *line, *save = NULL;
	char *const argv[] = { w->path, "offsets", NULL };
	int i = 0;

	tracing_reset();
	snprintf(dir, sizeof(dir), "%s", self_path());
	snprintf(w->path, sizeof(w->path), "%s/ia32_work", dirname(dir));
	ASSERT_EQ(0, capture(argv, out, sizeof(out)));
	for (line = strtok_r(out, "\n", &save); line && i < MAX_TARGETS;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%31s %lx %255s", w->names[i], &w->offsets[i],
			   w->files[i]) == 3)
			i++;
	w->nr_targets = i;
	ASSERT_LT(0, i);
}

FIXTURE_TEARDOWN(ia32)
{
	tracing_reset();
}

/* Register, stack and return values, exactly, for every call. */
TEST_F(ia32, args_and_retval)
{
	char *const argv[] = { self->w.path, "args", "5", NULL };
	char out[64], want[64], *trace;
	int i;

	ASSERT_EQ(0, probe(&self->w, "p", "args", "ia32_args", "a=%ax:s32 b=%dx:s32 c=%cx:s32"));
	ASSERT_EQ(0, probe(&self->w, "r", "args_ret", "ia32_args", "rv=$retval:s32"));
	ASSERT_EQ(0, probe(&self->w, "p", "stack", "ia32_stack", "x=+4(%sp):s32 y=+8(%sp):s32"));
	ASSERT_EQ(0, capture(argv, out, sizeof(out)));
	/* sum of 123i + 2i for i < 5: the probes changed nothing */
	EXPECT_STREQ("1250\n", out);

	trace = trace_read();
	ASSERT_NE(NULL, trace);
	for (i = 0; i < 5; i++) {
		snprintf(want, sizeof(want), " a=%d b=%d c=%d", i, 2 * i, 3 * i);
		EXPECT_EQ(1, count_lines(trace, want)) TH_LOG("%s", want);
		snprintf(want, sizeof(want), " rv=%d", 123 * i);
		EXPECT_EQ(1, count_lines(trace, want)) TH_LOG("%s", want);
		snprintf(want, sizeof(want), " x=%d y=%d", i, -i);
		EXPECT_EQ(1, count_lines(trace, want)) TH_LOG("%s", want);
	}
	EXPECT_EQ(5, count_lines(trace, " args_ret: "));
	free(trace);
	/* uprobe_profile counts entries, for return probes too */
	EXPECT_EQ(5, profile_hits("args"));
	EXPECT_EQ(5, profile_hits("args_ret"));
	EXPECT_EQ(5, profile_hits("stack"));
}

/* What ia32_work cov printed: the checksum and the calls per function. */
struct cov_result {
	unsigned long sum;
	unsigned long calls[NR_COV_FNS];
};

static int run_cov(const struct ia32_work *w, struct cov_result *r)
{
	char *const argv[] = { (char *)w->path, "cov", NULL };
	char out[512], *p = out, *end;
	unsigned int i;

	if (capture(argv, out, sizeof(out)))
		return -1;
	r->sum = strtoul(p, &end, 10);
	for (i = 0; i < NR_COV_FNS; i++) {
		if (end == p)
			return -1;
		p = end;
		r->calls[i] = strtoul(p, &end, 10);
	}
	return end == p ? -1 : 0;
}

/*
 * Runs the coverage workload single-stepped ("steps"): @runs[i] is how
 * often instruction i ran.  0, or -1.
 */
static int step_cov(const struct ia32_work *w, long *runs)
{
	char *const argv[] = { (char *)w->path, "steps", NULL };
	const size_t len = 1 << 20;
	char *out = malloc(len), *line, *save = NULL;
	unsigned long base = offset_of(w, "cov_run"), deltas[NR_INSNS];
	unsigned int i, count;
	long delta;
	int err = -1;

	memset(runs, 0, NR_INSNS * sizeof(*runs));
	if (!out || !base || capture(argv, out, len))
		goto out_free;
	/* Where each instruction is, as "steps" gives it: from cov_run. */
	for (i = 0; i < NR_INSNS; i++)
		deltas[i] = offset_of(w, insns[i].fn) + insns[i].off - base;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%ld %u", &delta, &count) != 2)
			goto out_free;
		for (i = 0; i < NR_INSNS; i++)
			if (deltas[i] == (unsigned long)delta)
				runs[i] = count;
	}
	err = 0;
out_free:
	free(out);
	return err;
}

static int cov_fn_index(const char *fn)
{
	unsigned int i;

	for (i = 0; i < NR_COV_FNS; i++)
		if (!strcmp(cov_fns[i], fn))
			return i;
	return -1;
}

/*
 * Enables a probe "cI" on every instruction: none is refused (6.12
 * refuses the segment-prefixed nops of the padding between functions,
 * "cs nopw", and only those, with its internal ENOTSUPP, 524).
 */
static void cov_probe_all(struct __test_metadata *_metadata, const struct ia32_work *w,
			  bool *refused)
{
	unsigned int i, nr_refused = 0;
	unsigned long base;
	char event[16];
	int err;

	for (i = 0; i < NR_INSNS; i++) {
		base = offset_of(w, insns[i].fn);
		ASSERT_NE(0, base);
		ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/c%u %s:0x%lx", i, w->path,
					      base + insns[i].off));
	}
	for (i = 0; i < NR_INSNS; i++) {
		snprintf(event, sizeof(event), "c%u", i);
		err = event_enable(GROUP, event, 1);
		refused[i] = err;
		EXPECT_EQ(0, err) {
			TH_LOG("refused: %s+0x%lx %s: %s", insns[i].fn, insns[i].off,
			       insns[i].text, strerror(-err));
			nr_refused++;
		}
	}
	ksft_print_msg("%zu instructions, %u refused\n", NR_INSNS, nr_refused);
}

/*
 * Every instruction of the 32-bit workload probed: the same result, and
 * each instruction hit as often as it runs (a rep instruction once per
 * execution, not at every round).
 */
TEST_F_TIMEOUT(ia32, coverage, 300)
{
	unsigned long total = 0, steps = 0;
	struct cov_result ref, probed, after;
	long hits, runs[NR_INSNS];
	bool refused[NR_INSNS];
	char event[16];
	unsigned int i;
	int f;

	ASSERT_EQ(0, run_cov(&self->w, &ref));
	for (i = 0; i < NR_COV_FNS; i++)
		ASSERT_LT(0, ref.calls[i]) TH_LOG("%s never called", cov_fns[i]);
	ASSERT_EQ(0, step_cov(&self->w, runs));
	cov_probe_all(_metadata, &self->w, refused);

	ASSERT_EQ(0, run_cov(&self->w, &probed));
	EXPECT_EQ(ref.sum, probed.sum);
	EXPECT_EQ(0, memcmp(ref.calls, probed.calls, sizeof(ref.calls)));
	for (i = 0; i < NR_INSNS; i++) {
		snprintf(event, sizeof(event), "c%u", i);
		hits = profile_hits(event);
		ASSERT_LE(0, hits);
		total += hits;
		steps += runs[i];
		f = cov_fn_index(insns[i].fn);
		ASSERT_LE(0, f);
		/* The steps agree with the workload's own count of calls. */
		if (insns[i].off == 0)
			EXPECT_EQ(ref.calls[f], runs[i]) TH_LOG("entry of %s", insns[i].fn);
		if (refused[i]) {
			EXPECT_EQ(0, hits);
		} else {
			EXPECT_EQ(runs[i], hits) {
				TH_LOG("%s+0x%lx %s", insns[i].fn, insns[i].off, insns[i].text);
			}
		}
	}
	ksft_print_msg("%lu hits, %lu executions stepped\n", total, steps);

	tracing_reset();
	ASSERT_EQ(0, run_cov(&self->w, &after));
	EXPECT_EQ(ref.sum, after.sum);
}

/* A function that forks returns twice: in the parent and in the child. */
TEST_F(ia32, uretprobe_across_fork)
{
	char *const argv[] = { self->w.path, "fork", "3", NULL };
	char out[16], *trace;

	ASSERT_EQ(0, probe(&self->w, "p", "fork_in", "ia32_fork_in", ""));
	ASSERT_EQ(0, probe(&self->w, "r", "fork_ret", "ia32_fork_in", "rv=$retval:s32"));
	ASSERT_EQ(0, probe(&self->w, "p", "hit", "ia32_hit", ""));
	ASSERT_EQ(0, capture(argv, out, sizeof(out)));
	EXPECT_EQ(1, profile_hits("fork_in"));
	EXPECT_EQ(6, profile_hits("hit"));
	trace = trace_read();
	ASSERT_NE(NULL, trace);
	/* the child's return gives 0, the parent's the child's pid */
	EXPECT_EQ(2, count_lines(trace, " fork_ret: "));
	EXPECT_EQ(1, count_lines(trace, " rv=0"));
	free(trace);
}

/* 64-bit -> 32-bit -> 64-bit -> 32-bit by exec: each probe hit once. */
TEST_F(ia32, exec_between_modes)
{
	char *const argv[] = {
		self->w.path, "exec", (char *)self_path(), "hit64", self->w.path, NULL
	};
	char out[16];

	ASSERT_EQ(0, probe(&self->w, "p", "hit", "ia32_hit", ""));
	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/hit64 %s:0x%lx", self_path(),
				      self_offset(hit64)));
	ASSERT_EQ(0, event_enable(GROUP, "hit64", 1));
	ASSERT_EQ(0, capture(argv, out, sizeof(out)));
	EXPECT_EQ(2, profile_hits("hit"));
	EXPECT_EQ(1, profile_hits("hit64"));
}

/*
 * SIGUSR1 keeps coming while the task runs a stepped (call *) and a
 * run-direct (mov $imm32) probed instruction: each is counted once per
 * execution, and so is the handler's probe.
 */
TEST_F_TIMEOUT(ia32, signals_out_of_line, 120)
{
	char *const argv[] = { self->w.path, "signals", "200", NULL };
	int fd, status, rounds = -1, done = -1, handled = -1;
	char out[64] = "";
	ssize_t n;
	FILE *in;
	pid_t pid;

	ASSERT_EQ(0, probe(&self->w, "p", "step", "ia32_step", ""));
	ASSERT_EQ(0, probe(&self->w, "p", "direct", "ia32_direct", ""));
	ASSERT_EQ(0, probe(&self->w, "p", "hit", "ia32_hit", ""));
	fd = spawn(argv, &pid);
	ASSERT_LE(0, fd);
	in = fdopen(fd, "r");
	ASSERT_NE(NULL, in);
	ASSERT_NE(NULL, fgets(out, sizeof(out), in));
	ASSERT_STREQ("ready\n", out);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		kill(pid, SIGUSR1);
		usleep(200);
	}
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	n = fscanf(in, "%d %d %d", &rounds, &done, &handled);
	fclose(in);
	ASSERT_EQ(3, n);
	ksft_print_msg("%d rounds, %d signals handled\n", rounds, handled);
	EXPECT_EQ(rounds, done);
	EXPECT_EQ(rounds, profile_hits("step"));
	EXPECT_EQ(rounds, profile_hits("direct"));
	EXPECT_LE(200, handled);
	EXPECT_EQ(handled, profile_hits("hit"));
}

/*
 * A copy of @lib (libc.so.6) in a new directory of /tmp, @dir: a probe is
 * keyed by inode, and an inode of a 9p root (a VM's) may be looked up
 * anew between two uses of its path.  0 or -errno.
 */
static int lib_copy(const char *lib, char *dir, char *copy, size_t len)
{
	char tmp[PATH_MAX];
	int err;

	if (!mkdtemp(dir))
		return -errno;
	snprintf(tmp, sizeof(tmp), "%s/libXXXXXX", dir);
	err = copy_file(lib, tmp, 0);
	if (err)
		return err;
	snprintf(copy, len, "%s/libc.so.6", dir);
	return rename(tmp, copy) ? -errno : 0;
}

/* A probe in the 32-bit libc, which no 64-bit process maps. */
TEST_F(ia32, libc)
{
	char *const argv[] = { self->w.path, "getppid", "7", NULL };
	char dir[] = "/tmp/ia32-libc-XXXXXX", copy[PATH_MAX], out[16];
	int i;

	for (i = 0; i < self->w.nr_targets; i++)
		if (!strcmp(self->w.names[i], "getppid"))
			break;
	ASSERT_GT(self->w.nr_targets, i);
	ASSERT_EQ(0, lib_copy(self->w.files[i], dir, copy, sizeof(copy)));
	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/getppid %s:0x%lx", copy,
				      self->w.offsets[i]));
	ASSERT_EQ(0, event_enable(GROUP, "getppid", 1));
	ASSERT_EQ(0, setenv("LD_LIBRARY_PATH", dir, 1));
	EXPECT_EQ(0, capture(argv, out, sizeof(out)));
	unsetenv("LD_LIBRARY_PATH");
	EXPECT_EQ(7, profile_hits("getppid"));
	tracing_reset();
	unlink(copy);
	rmdir(dir);
}

/* An SDT semaphore in a 32-bit program counts its enabled probes. */
TEST_F(ia32, sdt_semaphore)
{
	char *const argv[] = { self->w.path, "sema", NULL };
	unsigned long off = offset_of(&self->w, "ia32_hit");
	unsigned long sema = offset_of(&self->w, "ia32_sema");
	char out[16];

	ASSERT_NE(0, off);
	ASSERT_NE(0, sema);
	ASSERT_EQ(0, capture(argv, out, sizeof(out)));
	EXPECT_STREQ("0\n", out);
	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/sema %s:0x%lx(0x%lx)", self->w.path, off,
				      sema));
	ASSERT_EQ(0, event_enable(GROUP, "sema", 1));
	ASSERT_EQ(0, capture(argv, out, sizeof(out)));
	EXPECT_STREQ("1\n", out);
	ASSERT_EQ(0, event_enable(GROUP, "sema", 0));
	ASSERT_EQ(0, capture(argv, out, sizeof(out)));
	EXPECT_STREQ("0\n", out);
}

/*
 * "hit64 WORK": the 64-bit step of exec_between_modes: hit64(), then
 * ia32_work again, which hits once more and ends in /bin/true.
 */
int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "hit64")) {
		if (hit64() != 64)
			return 1;
		execl(argv[2], argv[2], "exec", "/bin/true", (char *)NULL);
		return 127;
	}
	return test_harness_run(argc, argv);
}
