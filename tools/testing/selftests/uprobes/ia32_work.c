// SPDX-License-Identifier: GPL-2.0
/*
 * ia32_work: the 32-bit program (built with -m32) that uprobe_ia32 probes.
 * argv[1] says what it does; each command prints what the test compares:
 *
 *   offsets         "NAME 0xOFFSET PATH" for every probe target: the file
 *                   and offset of each function below, of the coverage
 *                   workload's, of the SDT semaphore, and of getppid() in
 *                   the 32-bit libc
 *   cov             runs the coverage workload (coverage_work.c) once:
 *                   its checksum, then each function's number of calls
 *   steps           runs it once in a child single-stepped by ptrace:
 *                   "DELTA COUNT" for each instruction of this program
 *                   that ran, DELTA its distance from cov_run, COUNT the
 *                   times it ran (a step that stays in place is a rep
 *                   instruction's next round, the same execution)
 *   args N          N rounds of ia32_args(i, 2i, 3i) (registers) and
 *                   ia32_stack(i, -i) (stack): the sum of their results
 *   fork N          ia32_fork_in(N), which forks: parent and child each
 *                   return from it, after N calls of ia32_hit() each
 *   exec PROG ...   one call of ia32_hit(), then execs PROG ...
 *   signals N       rounds of ia32_step() and ia32_direct() until the
 *                   SIGUSR1 the test sends were handled N times (the
 *                   handler calls ia32_hit()): the rounds, the rounds that
 *                   computed the right results, and the signals handled
 *   sema            the value of the SDT semaphore ia32_sema
 *   getppid N       N calls of libc's getppid()
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uprobe_util.h"
#include "coverage_work.h"

/* regparm(3): a, b and c come in eax, edx and ecx. */
TARGET UPROBE_ATTRS(regparm(3)) int ia32_args(int a, int b, int c)
{
	return a * 100 + b * 10 + c;
}

/* cdecl: a and b are on the stack, above the return address. */
TARGET int ia32_stack(int a, int b)
{
	return a - b;
}

static int hits;

TARGET void ia32_hit(void)
{
	__atomic_add_fetch(&hits, 1, __ATOMIC_RELAXED);
}

/* Functions of the instructions written here only: no prologue, no epilogue. */
#define NAKED UPROBE_ATTRS(naked, noinline, used, visibility("default"))

/*
 * An indirect call is stepped out of line (its return address is fixed
 * up after the step): a signal can come during the step.  Returns x + 1.
 */
NAKED int ia32_step(int x, void (*fn)(void))
{
	asm("call *8(%esp)\n\t"
	    "mov 4(%esp), %eax\n\t"
	    "add $1, %eax\n\t"
	    "ret");
}

/* mov $imm32 runs out of line without a step, then jumps back: x + 2. */
NAKED int ia32_direct(int x)
{
	asm("mov $2, %eax\n\t"
	    "add 4(%esp), %eax\n\t"
	    "ret");
}

/* Forks inside the probed function: two tasks return from it. */
TARGET int ia32_fork_in(int n)
{
	pid_t pid = fork();
	int i;

	for (i = 0; i < n; i++)
		ia32_hit();
	return pid;
}

__section(".probes") __used unsigned short ia32_sema;

static const struct {
	const char *name;
	const void *addr;
} targets[] = {
#define T(x) { #x, (const void *)&(x) }
	T(ia32_args), T(ia32_stack), T(ia32_hit), T(ia32_step),
	T(ia32_direct), T(ia32_fork_in), T(ia32_sema),
	T(cov_run), T(cov_switch), T(cov_globals), T(cov_sse),
	T(cov_string), T(cov_rec), T(cov_indirect), T(cov_op0),
	T(cov_op1), T(cov_op2), T(cov_op3), T(cov_alloca),
	T(cov_varargs), T(getppid),
#undef T
};

static int print_offsets(void)
{
	char path[4096];
	unsigned long off;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(targets); i++) {
		if (file_offset(targets[i].addr, path, sizeof(path), &off))
			return 1;
		printf("%s 0x%lx %s\n", targets[i].name, off, path);
	}
	return 0;
}

static int run_cov(void)
{
	unsigned long sum = cov_run();
	int i;

	printf("%lu", sum);
	for (i = 0; i < COV_NR; i++)
		printf(" %lu", cov_calls[i]);
	printf("\n");
	return 0;
}

extern const char __executable_start[], etext[];

struct step_count {
	unsigned int *runs;	/* by offset in the program's text */
	unsigned long last;
};

/* One single-step stop at @ip: counts it if in the program's text and not in place. */
static void count_step(unsigned long ip, void *ctx)
{
	unsigned long text = (unsigned long)__executable_start;
	struct step_count *c = ctx;

	if (ip >= text && ip < (unsigned long)etext && ip != c->last)
		c->runs[ip - text]++;
	c->last = ip;
}

static int run_steps(void)
{
	unsigned long text = (unsigned long)__executable_start, i;
	unsigned long size = (unsigned long)etext - text;
	struct step_count c = { .runs = calloc(size, sizeof(*c.runs)) };
	unsigned int *runs = c.runs;

	if (!runs || step_to_exit(cov_run, count_step, &c)) {
		free(runs);
		return 1;
	}
	for (i = 0; i < size; i++)
		if (runs[i])
			printf("%ld %u\n", (long)(text + i - (unsigned long)cov_run), runs[i]);
	free(runs);
	return 0;
}

static int run_args(int n)
{
	long long sum = 0;
	int i;

	for (i = 0; i < n; i++)
		sum += ia32_args(i, 2 * i, 3 * i) + ia32_stack(i, -i);
	printf("%lld\n", sum);
	return 0;
}

static int run_fork(int n)
{
	int status, pid = ia32_fork_in(n);

	if (pid < 0)
		return 1;
	if (pid == 0)
		_exit(READ_FRESH(hits) == n ? 0 : 1);
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) && !WEXITSTATUS(status) && READ_FRESH(hits) == n ? 0 : 1;
}

static int handled;

static void ia32_nothing(void)
{
}

static void on_usr1(int sig)
{
	ia32_hit();
	__atomic_add_fetch(&handled, 1, __ATOMIC_RELAXED);
}

static int run_signals(int n)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	int i, done = 0;

	if (sigaction(SIGUSR1, &sa, NULL))
		return 1;
	/* Tell the test it may start sending. */
	printf("ready\n");
	fflush(stdout);
	for (i = 0; READ_FRESH(handled) < n; i++)
		done += ia32_step(i, ia32_nothing) == i + 1 && ia32_direct(i) == i + 2;
	sa.sa_handler = SIG_IGN;
	sigaction(SIGUSR1, &sa, NULL);
	printf("%d %d %d\n", i, done, READ_FRESH(handled));
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	int n = argc > 2 ? atoi(argv[2]) : 0;

	if (!strcmp(cmd, "offsets"))
		return print_offsets();
	if (!strcmp(cmd, "cov"))
		return run_cov();
	if (!strcmp(cmd, "steps"))
		return run_steps();
	if (!strcmp(cmd, "args"))
		return run_args(n);
	if (!strcmp(cmd, "fork"))
		return run_fork(n);
	if (!strcmp(cmd, "exec") && argc > 2) {
		ia32_hit();
		execv(argv[2], argv + 2);
		return 127;
	}
	if (!strcmp(cmd, "signals"))
		return run_signals(n);
	if (!strcmp(cmd, "getppid")) {
		while (n--)
			getppid();
		return 0;
	}
	if (!strcmp(cmd, "sema")) {
		printf("%u\n", READ_FRESH(ia32_sema));
		return 0;
	}
	fprintf(stderr, "usage: %s %s\n", argv[0],
		"offsets|cov|steps|args N|fork N|exec PROG...|signals N|sema|getppid N");
	return 2;
}
