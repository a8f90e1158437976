// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_coverage: a probe on every instruction of a workload must not
 * change what the workload computes.  The workload (coverage_work.c) has a
 * jump table, RIP-relative loads and stores, SSE, rep movsb/stosb, calls
 * to libc, recursion, indirect calls, alloca and varargs; the list of its
 * instructions (coverage_insns.h) is decoded by objdump at build time.
 * The test puts a uprobe_events probe on each, enables them all, runs the
 * workload in a child and compares its checksum with the unprobed run's,
 * and each probe's hits with the times a ptrace single-step of the
 * unprobed workload finds the instruction executed.  None of them is
 * refused (6.12 refuses the segment-prefixed nops of the padding between
 * functions, "cs nopw", and only those).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "uprobe_util.h"
#include "coverage_work.h"

#define GROUP "ucov"

struct cov_insn {
	const void *fn;
	unsigned long off;
	const char *text;
};

static const struct cov_insn insns[] = {
#include "coverage_insns.h"
};

#define NR_INSNS ARRAY_SIZE(insns)

static const struct {
	const void *fn;
	const char *name;
	enum cov_fn id;
} fns[] = {
	{ cov_run, "cov_run", COV_RUN },
	{ cov_switch, "cov_switch", COV_SWITCH },
	{ cov_globals, "cov_globals", COV_GLOBALS },
	{ cov_sse, "cov_sse", COV_SSE },
	{ cov_string, "cov_string", COV_STRING },
	{ cov_rec, "cov_rec", COV_REC },
	{ cov_indirect, "cov_indirect", COV_INDIRECT },
	{ cov_op0, "cov_op0", COV_OP0 },
	{ cov_op1, "cov_op1", COV_OP1 },
	{ cov_op2, "cov_op2", COV_OP2 },
	{ cov_op3, "cov_op3", COV_OP3 },
	{ cov_alloca, "cov_alloca", COV_ALLOCA },
	{ cov_varargs, "cov_varargs", COV_VARARGS },
};

#define NR_FNS ARRAY_SIZE(fns)

static int fn_index(const void *fn)
{
	unsigned int i;

	for (i = 0; i < NR_FNS; i++)
		if (fns[i].fn == fn)
			return i;
	return -1;
}

/* What one run of the workload reports through its pipe. */
struct cov_result {
	unsigned long sum;
	unsigned long calls[COV_NR];
};

/* Runs the workload once in a child; 0, or -1 if the child failed. */
static int run_workload(struct cov_result *res)
{
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct cov_result r;

		close(fds[0]);
		r.sum = cov_run();
		memcpy(r.calls, cov_calls, sizeof(r.calls));
		_exit(write(fds[1], &r, sizeof(r)) == sizeof(r) ? 0 : 1);
	}
	close(fds[1]);
	n = read(fds[0], res, sizeof(*res));
	close(fds[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) || n != sizeof(*res))
		return -1;
	return 0;
}

/* The instruction at @ip, or -1. */
static int insn_at(unsigned long ip)
{
	unsigned int i;

	for (i = 0; i < NR_INSNS; i++)
		if ((unsigned long)insns[i].fn + insns[i].off == ip)
			return i;
	return -1;
}

/* Whether instruction @i repeats in place (rep): one execution, one hit. */
static bool insn_repeats(unsigned int i)
{
	return !strncmp(insns[i].text, "rep", 3);
}

struct step_count {
	long *runs;
	unsigned long last;
};

/*
 * One single-step stop at @ip: counts an execution of the instruction
 * there, unless the step stayed on a rep instruction (its next round).
 */
static void count_step(unsigned long ip, void *ctx)
{
	struct step_count *c = ctx;
	int i = insn_at(ip);

	if (i >= 0 && !(insn_repeats(i) && ip == c->last))
		c->runs[i]++;
	c->last = ip;
}

/*
 * Runs the workload in a child single-stepped by ptrace and counts in
 * @runs how often each instruction was executed.  0, or -1 if the child
 * failed.
 */
static int step_workload(long *runs)
{
	struct step_count c = { .runs = runs };

	memset(runs, 0, NR_INSNS * sizeof(*runs));
	return step_to_exit(cov_run, count_step, &c);
}

/* Reads uprobe_profile once: hits[i] for event "cI", -1 if absent. */
static void read_hits(long *hits)
{
	char *text = tfs_read("uprobe_profile"), *line, *save = NULL, name[64];
	unsigned long h;
	unsigned int i;

	for (i = 0; i < NR_INSNS; i++)
		hits[i] = -1;
	if (!text)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%*s %63s %lu", name, &h) != 2)
			continue;
		if (sscanf(name, "c%u", &i) == 1 && i < NR_INSNS)
			hits[i] = h;
	}
	free(text);
}

FIXTURE(cov) {
	struct cov_result ref;
	long hits[NR_INSNS];
	int refused[NR_INSNS];
};

FIXTURE_SETUP(cov)
{
	tracing_reset();
	ASSERT_EQ(0, run_workload(&self->ref));
}

FIXTURE_TEARDOWN(cov)
{
	tracing_reset();
}

/* The workload is deterministic, and the table covers every function. */
TEST_F(cov, reference)
{
	struct cov_result again;
	unsigned int i;

	ASSERT_EQ(0, run_workload(&again));
	EXPECT_EQ(self->ref.sum, again.sum);
	EXPECT_EQ(0, memcmp(self->ref.calls, again.calls, sizeof(again.calls)));
	EXPECT_EQ(1, self->ref.calls[COV_RUN]);
	for (i = 0; i < NR_FNS; i++)
		EXPECT_LT(0, self->ref.calls[fns[i].id]);
	for (i = 0; i < NR_INSNS; i++)
		ASSERT_LE(0, fn_index(insns[i].fn));
	/* The instructions this test is about are really there. */
	for (i = 0; i < NR_INSNS; i++)
		if (strstr(insns[i].text, "rep movsb"))
			break;
	EXPECT_GT(NR_INSNS, i);
	for (i = 0; i < NR_INSNS; i++)
		if (!strncmp(insns[i].text, "jmp *", 5) ||
		    !strncmp(insns[i].text, "notrack jmp *", 13))
			break;
	EXPECT_GT(NR_INSNS, i);
	for (i = 0; i < NR_INSNS; i++)
		if (strstr(insns[i].text, "movaps") || strstr(insns[i].text, "movdqa"))
			break;
	EXPECT_GT(NR_INSNS, i);
}

TEST_F_TIMEOUT(cov, every_instruction, 180)
{
	unsigned long total = 0, steps = 0, offset;
	unsigned int i, nr_refused = 0;
	struct cov_result probed, after;
	long runs[NR_INSNS];
	char event[32];
	int err, f;

	for (i = 0; i < NR_INSNS; i++) {
		offset = self_offset(insns[i].fn);
		ASSERT_NE(0, offset);
		ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/c%u %s:0x%lx", i, self_path(),
					      offset + insns[i].off));
	}
	for (i = 0; i < NR_INSNS; i++) {
		snprintf(event, sizeof(event), "c%u", i);
		err = event_enable(GROUP, event, 1);
		self->refused[i] = err;
		f = fn_index(insns[i].fn);
		EXPECT_EQ(0, err) {
			TH_LOG("refused: %s+0x%lx %s: %s", fns[f].name, insns[i].off,
			       insns[i].text, strerror(-err));
			nr_refused++;
		}
	}
	ksft_print_msg("%zu instructions, %u refused\n", NR_INSNS, nr_refused);

	ASSERT_EQ(0, run_workload(&probed));
	EXPECT_EQ(self->ref.sum, probed.sum);
	EXPECT_EQ(0, memcmp(self->ref.calls, probed.calls, sizeof(probed.calls)));

	read_hits(self->hits);
	ASSERT_EQ(0, step_workload(runs));
	for (i = 0; i < NR_INSNS; i++) {
		ASSERT_LE(0, self->hits[i]);
		total += self->hits[i];
		steps += runs[i];
		if (insn_repeats(i))
			ksft_print_msg("%s: %ld hits\n", insns[i].text, self->hits[i]);
		/* Each function entry is hit once per call, exactly. */
		f = fn_index(insns[i].fn);
		if (insns[i].off == 0 && !self->refused[i])
			EXPECT_EQ(self->ref.calls[fns[f].id], self->hits[i]) {
				TH_LOG("entry of %s", fns[f].name);
			}
		/*
		 * Each instruction is hit as often as it runs; a rep
		 * instruction once per execution, not at every round.
		 */
		if (self->refused[i]) {
			EXPECT_EQ(0, self->hits[i]);
		} else {
			EXPECT_EQ(runs[i], self->hits[i]) {
				TH_LOG("%s+0x%lx %s", fns[f].name, insns[i].off, insns[i].text);
			}
		}
	}
	ksft_print_msg("%lu hits, %lu executions stepped\n", total, steps);

	/* Probes gone: the workload runs clean and the same again. */
	tracing_reset();
	ASSERT_EQ(0, run_workload(&after));
	EXPECT_EQ(self->ref.sum, after.sum);
}

TEST_HARNESS_MAIN
