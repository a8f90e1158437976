// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_sandbox: probes in a process that seccomp confines.
 *
 * A probe must never kill the process it watches.  The hits of a return
 * probe leave through the uretprobe syscall (335) on x86-64, and stubs
 * bring the hits of a jumped-to instruction in through the uprobe
 * syscall (336); seccomp lets both through every filter, and strict mode
 * too.  A child confined by strict mode, or by a filter that kills the
 * process on any syscall but write and exit, calls a function probed at
 * entry and at return: through a 5-byte nop (a jump to a stub, if any)
 * and through a 1-byte one (the breakpoint).  It must live, compute the
 * right sum, and every call must be counted once at entry and once at
 * return.  On arm64, with neither syscall (a return probe returns
 * through a breakpoint), the function starts with a nop, stepped out of
 * line, or a branch, which the kernel simulates.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>

#include "../kselftest_harness.h"
#include "uprobe_asm.h"
#include "uprobe_util.h"

#define CALLS	500

#ifdef __aarch64__
asm(".pushsection .text\n"
	".globl sandbox_nop\n"
	".type sandbox_nop, @function\n"
	"sandbox_nop:\n"
	"	nop\n"
	"	add x0, x0, #1\n"
	"	ret\n"
	".size sandbox_nop, .-sandbox_nop\n"
	".globl sandbox_branch\n"
	".type sandbox_branch, @function\n"
	"sandbox_branch:\n"
	"	b 1f\n"
	"1:	add x0, x0, #1\n"
	"	ret\n"
	".size sandbox_branch, .-sandbox_branch\n"
	".popsection\n");
#else
asm(".pushsection .text\n"
	".globl sandbox_nop5\n"
	".type sandbox_nop5, @function\n"
	"sandbox_nop5:\n"
	"	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
	"	lea 1(%rdi), %rax\n"
	"	ret\n"
	".size sandbox_nop5, .-sandbox_nop5\n"
	".globl sandbox_nop1\n"
	".type sandbox_nop1, @function\n"
	"sandbox_nop1:\n"
	"	nop\n"
	"	lea 1(%rdi), %rax\n"
	"	ret\n"
	".size sandbox_nop1, .-sandbox_nop1\n"
	".popsection\n");
#endif

enum confinement {
	STRICT,
	FILTER,
};

/*
 * The child: waits for the go on @go, confines itself, calls @fn CALLS
 * times, writes the sum to @res and exits by the raw exit syscall, which
 * strict mode allows (glibc's _exit() is exit_group).
 */
static void __noreturn child(long (*fn)(long x), enum confinement how, int go, int res)
{
	long sum = 0, i;
	char c;

	if (read(go, &c, 1) != 1)
		syscall(SYS_exit, 2);
	if (how == STRICT ? prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT) : seccomp_confine())
		syscall(SYS_exit, 3);
	for (i = 0; i < CALLS; i++)
		sum += fn(i);
	if (write(res, &sum, sizeof(sum)) != sizeof(sum))
		syscall(SYS_exit, 4);
	syscall(SYS_exit, 0);
	__builtin_unreachable();
}

/* A counting perf event on @fn of this program in process @pid. */
static int probe_in(long (*fn)(long), int retprobe, pid_t pid)
{
	struct perf_event_attr attr;

	if (uprobe_perf_attr(&attr, self_path(), self_offset(fn), retprobe, 0))
		return -1;
	return perf_open(&attr, pid, -1);
}

FIXTURE(sandbox) {
};

FIXTURE_VARIANT(sandbox) {
	long (*fn)(long x);
	enum confinement how;
};

#ifdef __aarch64__
FIXTURE_VARIANT_ADD(sandbox, strict_nop) { .fn = sandbox_nop, .how = STRICT };
FIXTURE_VARIANT_ADD(sandbox, strict_branch) { .fn = sandbox_branch, .how = STRICT };
FIXTURE_VARIANT_ADD(sandbox, filter_nop) { .fn = sandbox_nop, .how = FILTER };
FIXTURE_VARIANT_ADD(sandbox, filter_branch) { .fn = sandbox_branch, .how = FILTER };
#else
FIXTURE_VARIANT_ADD(sandbox, strict_nop5) { .fn = sandbox_nop5, .how = STRICT };
FIXTURE_VARIANT_ADD(sandbox, strict_nop1) { .fn = sandbox_nop1, .how = STRICT };
FIXTURE_VARIANT_ADD(sandbox, filter_nop5) { .fn = sandbox_nop5, .how = FILTER };
FIXTURE_VARIANT_ADD(sandbox, filter_nop1) { .fn = sandbox_nop1, .how = FILTER };
#endif

FIXTURE_SETUP(sandbox)
{
	ASSERT_LE(0, prctl(PR_GET_SECCOMP)) TH_LOG("no seccomp: CONFIG_SECCOMP_FILTER");
}

FIXTURE_TEARDOWN(sandbox)
{
}

/* The confined child lives, computes right, and every call is one hit each way. */
TEST_F(sandbox, probed_child_lives_and_counts)
{
	int go[2], res[2], entry, ret, status;
	long sum = -1, want = 0, i;
	pid_t pid;

	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(res));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		child(variant->fn, variant->how, go[0], res[1]);
	close(go[0]);
	close(res[1]);
	entry = probe_in(variant->fn, 0, pid);
	ret = probe_in(variant->fn, 1, pid);
	EXPECT_LE(0, entry);
	EXPECT_LE(0, ret);
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status 0x%x: killed by signal %d", status,
		       WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	EXPECT_EQ(sizeof(sum), read(res[0], &sum, sizeof(sum)));
	for (i = 0; i < CALLS; i++)
		want += i + 1;
	EXPECT_EQ(want, sum);
	EXPECT_EQ(CALLS, perf_count(entry));
	EXPECT_EQ(CALLS, perf_count(ret));
}

TEST_HARNESS_MAIN
