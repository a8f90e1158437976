// SPDX-License-Identifier: GPL-2.0
/*
 * WIP test for issue 41 (to become a selftest): a debugger's breakpoint
 * written right after a probed 2-byte instruction that a punned jump
 * enters.  The child calls pun_fn() (push %r15; pop %r15; nop; ...) in a
 * loop;
 * the parent probes pun_fn through uprobe_events, lets the child hit it
 * (so that the punned jump goes in), then, as gdb does, reads the word at
 * pun_fn, puts int3 on its third byte (the pop) and writes the word back
 * with PTRACE_POKETEXT.  The child must stop with SIGTRAP right after that
 * int3, the probe must have counted every call, and the child must end
 * well once the word is put back.  On a kernel without the foreign-writer
 * hook, the word written back carries the jump's first bytes with a new
 * rel32 byte: the child jumps elsewhere and dies.
 *
 * Build: gcc -O2 -Wall -o pun_ptrace pun_ptrace.c; run as root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>

#define TRACING	"/sys/kernel/tracing"
#define CALLS	1000

long pun_fn(long x);
asm(".text\n"
    ".balign 64\n"
    ".globl pun_fn\n"
    ".type pun_fn, @function\n"
    "pun_fn:\n"
    "	push %r15\n"
    "	pop %r15\n"
    "	nop\n"		/* 0x90: the jump's rel32 is negative */
    "	mov %rdi, %rax\n"
    "	ret\n"
    ".size pun_fn, .-pun_fn\n");

static int failures;

#define CHECK(cond, ...) do {						\
	if (cond) {							\
		printf("ok - " __VA_ARGS__);				\
	} else {							\
		printf("not ok - " __VA_ARGS__);			\
		failures++;						\
	}								\
	printf("\n");							\
} while (0)

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_APPEND);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		fprintf(stderr, "%s: %s: %s\n", path, text, strerror(errno));
		exit(2);
	}
	close(fd);
}

/* The file offset of @addr in this program (its mapping in /proc/self/maps). */
static unsigned long file_offset(const void *addr, char *path, size_t size)
{
	unsigned long start, end, off, a = (unsigned long)addr;
	char line[512], perms[8];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %511s", &start, &end, perms, &off,
			   path) == 5 && a >= start && a < end) {
			fclose(f);
			return a - start + off;
		}
	}
	fprintf(stderr, "no mapping of %p\n", addr);
	exit(2);
	(void)size;
}

/* The hits of the event, from uprobe_profile. */
static long hits(void)
{
	char line[512], name[256];
	long n = -1, h;
	FILE *f = fopen(TRACING "/uprobe_profile", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %255s %ld", name, &h) == 2 && !strcmp(name, "punptrace"))
			n = h;
	if (f)
		fclose(f);
	return n;
}

static void child(int go, int tell)
{
	unsigned char first;
	long i, sum = 0;
	char c;

	pun_fn(0);	/* the first hit: the punned jump goes in */
	/* What this process itself reads at pun_fn: no one masks it. */
	first = *(volatile unsigned char *)pun_fn;
	if (write(tell, &first, 1) != 1 || read(go, &c, 1) != 1)
		_exit(3);
	for (i = 0; i < CALLS; i++)
		sum += pun_fn(i);
	_exit(sum == (long)CALLS * (CALLS - 1) / 2 ? 0 : 4);
}

int main(void)
{
	unsigned long at = (unsigned long)pun_fn, word, bp, off;
	char path[512], cmd[700];
	struct user_regs_struct regs;
	int pipefd[2], tellfd[2], status;
	unsigned char first;
	long before;
	pid_t pid;

	setvbuf(stdout, NULL, _IONBF, 0);
	off = file_offset(pun_fn, path, sizeof(path));
	snprintf(cmd, sizeof(cmd), "p:punptrace %s:0x%lx\n", path, off);
	write_file(TRACING "/uprobe_events", cmd);
	write_file(TRACING "/events/uprobes/punptrace/enable", "1");
	if (pipe(pipefd) || pipe(tellfd))
		return 2;
	pid = fork();
	if (!pid)
		child(pipefd[0], tellfd[1]);
	if (read(tellfd[0], &first, 1) != 1)
		return 2;
	CHECK(first == 0xe9, "the child runs a jump at pun_fn (its first byte %#x)", first);
	before = hits();
	CHECK(before >= 1, "the child hit the probe once before (%ld)", before);

	if (ptrace(PTRACE_ATTACH, pid, 0, 0) || waitpid(pid, &status, 0) != pid)
		return 2;
	/* As gdb inserts a breakpoint: read the word, change a byte, write it. */
	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, pid, at, 0);
	CHECK(!errno, "PEEKTEXT at pun_fn");
	printf("# word at pun_fn as read: %016lx\n", word);
	CHECK((word & 0xff) != 0xe9, "the read shows no jump at pun_fn");
	bp = (word & ~(0xffUL << 16)) | (0xccUL << 16);
	CHECK(!ptrace(PTRACE_POKETEXT, pid, at, bp), "POKETEXT int3 at pun_fn+2");
	CHECK(!ptrace(PTRACE_CONT, pid, 0, 0), "continue");
	if (write(pipefd[1], "g", 1) != 1)
		return 2;

	CHECK(waitpid(pid, &status, 0) == pid && WIFSTOPPED(status) &&
	      WSTOPSIG(status) == SIGTRAP, "the child stops with SIGTRAP (status %#x)", status);
	if (WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP) {
		ptrace(PTRACE_GETREGS, pid, 0, &regs);
		CHECK(regs.rip == at + 3, "right after the debugger's int3 (rip %#llx, want %#lx)",
		      regs.rip, at + 3);
		/* As gdb removes it: the word back, the ip back on the pop. */
		ptrace(PTRACE_POKETEXT, pid, at, word);
		regs.rip = at + 2;
		ptrace(PTRACE_SETREGS, pid, 0, &regs);
		ptrace(PTRACE_DETACH, pid, 0, 0);
		waitpid(pid, &status, 0);
	} else if (WIFSTOPPED(status)) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status),
	      "the child ends well, its sums right (status %#x)", status);
	CHECK(hits() - before == CALLS, "the probe counted every call (%ld of %d)",
	      hits() - before, CALLS);

	write_file(TRACING "/events/uprobes/punptrace/enable", "0");
	write_file(TRACING "/uprobe_events", "-:punptrace\n");
	printf("%d failed\n", failures);
	return failures != 0;
}
