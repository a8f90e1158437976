// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_jump_arm64: arm64 probes that come in without the brk exception.
 *
 * With jumps to stubs, a hit probe's brk gives way to a b to a stub of its
 * own, which enters the kernel by an svc and runs a copy of an instruction
 * that is not simulated, then a b back.  What every kernel must do, with
 * jumps or without, for each class of instruction (a register move and an
 * add, a frame push, paciasp and bti c, the branches, adr and adrp, a
 * literal load, ret): the probed code computes what it computes unprobed,
 * each call is one hit, under a signal storm too, in forked and vforked
 * children, while the probe comes and goes under threads that hit it, and
 * while they run the place a process's first probe comes to, and under a
 * debugger that single-steps through a call; a fork that cannot copy the
 * stubs fails with ENOMEM, /proc/PID/uprobes is read right while the
 * thread group leader exits, and a removal that failed half way is
 * finished later (those tests are uprobe_jump's too: jump_common.h); what
 * a debugger reads of the probed instruction from outside is the brk; the
 * task's SVE registers keep their whole length over a hit; an svc with a
 * stub's immediate outside the stubs is a system call; a process
 * confined by a seccomp filter that allows no other syscall than write and
 * exit, and a tracer that stops at every syscall, see nothing of a hit.
 * What only a kernel with jumps does: the b is there after the first hit,
 * it leads into a [uprobes] mapping, /proc/PID/uprobes says "jump", and
 * the word is the file's again when the probe goes or when the sysctl
 * debug.uprobes-jumps is set to 0; an event with %nojump keeps the brk.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "../kselftest_harness.h"
#include "uprobe_asm.h"
#include "uprobe_util.h"

/*
 * The probed functions, each long fn(long x): the probe is on the label
 * ending in _insn where there is one, else on the first instruction.
 */
asm(".pushsection .text\n"
	".globl a64_mov\n"
	"a64_mov:	mov x1, #3\n"
	"	add x0, x0, x1\n"
	"	ret\n"
	".globl a64_add\n"
	"a64_add:	add x0, x0, #1\n"
	"	ret\n"
	".globl a64_stp\n"
	"a64_stp:	stp x29, x30, [sp, #-16]!\n"
	"	mov x29, sp\n"
	"	add x0, x0, #2\n"
	"	ldp x29, x30, [sp], #16\n"
	"	ret\n"
	".globl a64_paciasp\n"
	"a64_paciasp:	hint #25\n"		/* paciasp */
	"	add x0, x0, #4\n"
	"	hint #29\n"			/* autiasp */
	"	ret\n"
	".globl a64_bti\n"
	"a64_bti:	hint #34\n"		/* bti c */
	"	add x0, x0, #5\n"
	"	ret\n"
	".globl a64_b\n"
	"a64_b:	b 1f\n"
	"	udf #0\n"
	"1:	add x0, x0, #6\n"
	"	ret\n"
	".globl a64_bl\n"
	"a64_bl:	stp x29, x30, [sp, #-16]!\n"
	".globl a64_bl_insn\n"
	"a64_bl_insn:	bl a64_add\n"
	"	ldp x29, x30, [sp], #16\n"
	"	ret\n"
	".globl a64_cbz\n"
	"a64_cbz:	cbz x0, 1f\n"
	"	add x0, x0, #7\n"
	"	ret\n"
	"1:	mov x0, #-1\n"
	"	ret\n"
	".globl a64_tbnz\n"
	"a64_tbnz:	tbnz x0, #63, 1f\n"
	"	ret\n"
	"1:	neg x0, x0\n"
	"	ret\n"
	".globl a64_bcond\n"
	"a64_bcond:	cmp x0, #0\n"
	".globl a64_bcond_insn\n"
	"a64_bcond_insn:	b.lt 1f\n"
	"	ret\n"
	"1:	mov x0, #0\n"
	"	ret\n"
	".globl a64_adr\n"
	"a64_adr:	adr x1, 2f\n"
	"	ldr x1, [x1]\n"
	"	add x0, x0, x1\n"
	"	ret\n"
	"	.p2align 3\n"
	"2:	.quad 9\n"
	".globl a64_adrp\n"
	"a64_adrp:	adrp x1, a64_data\n"
	"	add x1, x1, :lo12:a64_data\n"
	"	ldr x1, [x1]\n"
	"	add x0, x0, x1\n"
	"	ret\n"
	".globl a64_ldr_lit\n"
	"a64_ldr_lit:	ldr x1, 3f\n"
	"	add x0, x0, x1\n"
	"	ret\n"
	"	.p2align 3\n"
	"3:	.quad 13\n"
	".globl a64_ret\n"
	"a64_ret:	ret\n"
	".globl a64_sve\n"
	"a64_sve:	.arch_extension sve\n"
	"	dup z0.b, #0x5a\n"
	".globl a64_sve_insn\n"
	"a64_sve_insn:	add x1, x0, #0\n"
	"	str z0, [x1]\n"
	"	ret\n"
	".popsection\n"
	".pushsection .data\n"
	"	.p2align 3\n"
	"a64_data:	.quad 11\n"
	".popsection");

static long plus1(long x) { return x + 1; }
static long plus2(long x) { return x + 2; }
static long plus3(long x) { return x + 3; }
static long plus4(long x) { return x + 4; }
static long plus5(long x) { return x + 5; }
static long plus6(long x) { return x + 6; }
static long plus9(long x) { return x + 9; }
static long plus11(long x) { return x + 11; }
static long plus13(long x) { return x + 13; }
static long same(long x) { return x; }
static long cbz_expected(long x) { return x ? x + 7 : -1; }
static long magnitude(long x) { return x < 0 ? -x : x; }
static long not_negative(long x) { return x < 0 ? 0 : x; }

/* The instruction word at @addr, read afresh. */
static unsigned int word_at(const void *addr)
{
	return READ_FRESH(*(const unsigned int *)addr);
}

#define JUMP_LEN	4	/* a b */

/* The JUMP_LEN code bytes at @addr, read afresh. */
static void code_at(const void *addr, unsigned char *code)
{
	unsigned int insn = word_at(addr);

	memcpy(code, &insn, JUMP_LEN);
}

/* Where a b at @addr goes, or 0 if @addr holds none. */
static unsigned long jump_target(const void *addr)
{
	unsigned int insn = word_at(addr);
	long imm26 = insn & 0x03ffffff;

	if ((insn & 0xfc000000) != 0x14000000)
		return 0;
	imm26 -= (imm26 & 0x02000000) << 1;
	return (unsigned long)addr + imm26 * 4;
}

#define PLAIN_FN	a64_add
#define UCONTEXT_PC(uc)	((uc)->uc_mcontext.pc)
#define REGS_PC(regs)	((regs)->pc)
#include "jump_common.h"

FIXTURE_VARIANT_ADD(jump, mov) {
	.t = { a64_mov, a64_mov, plus3 },
};

FIXTURE_VARIANT_ADD(jump, add) {
	.t = { a64_add, a64_add, plus1 },
};

FIXTURE_VARIANT_ADD(jump, stp_frame) {
	.t = { a64_stp, a64_stp, plus2 },
};

FIXTURE_VARIANT_ADD(jump, paciasp) {
	.t = { a64_paciasp, a64_paciasp, plus4 },
};

FIXTURE_VARIANT_ADD(jump, bti_c) {
	.t = { a64_bti, a64_bti, plus5 },
};

FIXTURE_VARIANT_ADD(jump, b) {
	.t = { a64_b, a64_b, plus6 },
};

FIXTURE_VARIANT_ADD(jump, bl) {
	.t = { a64_bl_insn, a64_bl, plus1 },
};

FIXTURE_VARIANT_ADD(jump, cbz) {
	.t = { a64_cbz, a64_cbz, cbz_expected },
};

FIXTURE_VARIANT_ADD(jump, tbnz) {
	.t = { a64_tbnz, a64_tbnz, magnitude },
};

FIXTURE_VARIANT_ADD(jump, b_cond) {
	.t = { a64_bcond_insn, a64_bcond, not_negative },
};

FIXTURE_VARIANT_ADD(jump, adr) {
	.t = { a64_adr, a64_adr, plus9 },
};

FIXTURE_VARIANT_ADD(jump, adrp) {
	.t = { a64_adrp, a64_adrp, plus11 },
};

FIXTURE_VARIANT_ADD(jump, ldr_literal) {
	.t = { a64_ldr_lit, a64_ldr_lit, plus13, .may_refuse = true },
};

FIXTURE_VARIANT_ADD(jump, ret) {
	.t = { a64_ret, a64_ret, same },
};

/*
 * After the first hit the probed word is a b into a [uprobes] mapping,
 * and /proc/PID/uprobes says so; when the probe goes, the word is the
 * file's.
 */
TEST_F(jump, jump_in_place_then_gone)
{
	const struct target *t = &variant->t;
	unsigned int before = word_at(t->probe_at);
	struct uprobes_maps maps;
	unsigned long target;
	char line[256];

	if (kernel_lacks(_metadata, have_uprobe_jumps(), "jumps to stubs") ||
	    !probe_target(_metadata, t, &self->fd))
		return;
	ASSERT_EQ(1, run(t, 1));
	target = jump_target(t->probe_at);
	ASSERT_NE(0, target)
		TH_LOG("no jump at the probe after a hit: %#x", word_at(t->probe_at));
	ASSERT_EQ(0, uprobes_maps_read(0, &maps));
	EXPECT_TRUE(uprobes_maps_hold(&maps, target)) TH_LOG("the jump goes to %#lx", target);
	ASSERT_EQ(0, proc_uprobes_line(0, t->probe_at, line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, " jump")) TH_LOG("%s", line);
	ASSERT_EQ(CALLS, run(t, CALLS));
	EXPECT_EQ(CALLS + 1, perf_count(self->fd));
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(before, word_at(t->probe_at));
	ASSERT_EQ(CALLS, run(t, CALLS));
}

/*
 * What a debugger or a profiler reads of the probed word from outside,
 * by /proc/PID/mem and by process_vm_readv(): the brk, as on a kernel
 * without jumps, even while the program's own loads show a b there.
 */
TEST_F(jump, foreign_reads_see_the_breakpoint)
{
	const struct target *t = &variant->t;
	unsigned int by_mem, by_vm;
	struct iovec local = { &by_vm, sizeof(by_vm) };
	struct iovec remote = { (void *)t->probe_at, sizeof(by_vm) };

	if (!probe_target(_metadata, t, &self->fd))
		return;
	ASSERT_EQ(CALLS, run(t, CALLS));
	if (have_uprobe_jumps())
		ASSERT_NE(0, jump_target(t->probe_at)) TH_LOG("no jump to read");
	ASSERT_EQ(0, mem_read(getpid(), t->probe_at, &by_mem, sizeof(by_mem)));
	ASSERT_EQ(sizeof(by_vm), process_vm_readv(getpid(), &local, 1, &remote, 1, 0));
	EXPECT_EQ(BKPT_INSN, by_mem) TH_LOG("/proc/self/mem: %#x", by_mem);
	EXPECT_EQ(BKPT_INSN, by_vm) TH_LOG("process_vm_readv: %#x", by_vm);
	ASSERT_EQ(CALLS, run(t, CALLS));
	EXPECT_EQ(2 * CALLS, perf_count(self->fd));
}

#define GDB_BRK		0xd4200000	/* brk #0, a debugger's breakpoint */

/*
 * The child of debugger_breakpoint_in_and_out: probes @t in itself (tells
 * the parent 2 if the probe was refused, and exits), hits it once (its
 * jump goes in), tells the parent whether a b is there now (1, else 0),
 * waits, calls CALLS times, and exits 0 if all computed right and each
 * call was one hit.
 */
static void __noreturn poked_child(const struct target *t, int go, int tell)
{
	int fd = self_probe(t->probe_at);
	char state = 2, c;

	if (fd < 0)
		_exit(write(tell, &state, 1) == 1 ? 5 : 2);
	if (run(t, 1) != 1)
		_exit(2);
	state = jump_target(t->probe_at) != 0;
	if (write(tell, &state, 1) != 1 || read(go, &c, 1) != 1)
		_exit(3);
	_exit(run(t, CALLS) == CALLS && perf_count(fd) == CALLS + 1 ? 0 : 4);
}

/* Writes the word @insn at @at of the stopped @pid, by ptrace or /proc/PID/mem. */
static int put_word(pid_t pid, unsigned long at, unsigned int insn, bool by_mem)
{
	unsigned long word;

	if (by_mem)
		return mem_write(pid, (void *)at, &insn, sizeof(insn));
	errno = 0;
	word = ptrace(PTRACE_PEEKDATA, pid, at, NULL);
	if (errno)
		return -1;
	word = (word & ~0xffffffffUL) | insn;
	return ptrace(PTRACE_POKEDATA, pid, at, word) ? -1 : 0;
}

/*
 * As gdb does for "break" then "delete" at the probed address, once by
 * ptrace words and once by /proc/PID/mem: it reads the instruction, writes
 * its brk #0 over it, then writes back what it read.  What it reads is
 * the probe's brk, never the b of a jump, so what it writes back leaves
 * the probe in place: the program runs right and every call is a hit.
 */
TEST_F(jump, debugger_breakpoint_in_and_out)
{
	const struct target *t = &variant->t;
	unsigned long at = (unsigned long)t->probe_at;
	int go[2], tell[2], status, pass;
	unsigned int saved;
	char state;
	pid_t pid;

	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(tell));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		poked_child(t, go[0], tell[1]);
	ASSERT_EQ(1, read(tell[0], &state, 1));
	if (state == 2) {
		waitpid(pid, &status, 0);
		if (t->may_refuse && kernel_lacks(_metadata, false, "probes on this instruction"))
			return;
	}
	ASSERT_NE(2, state) TH_LOG("the child could not probe itself");
	if (have_uprobe_jumps())
		ASSERT_EQ(1, state) TH_LOG("the child runs no jump at its probe");
	ASSERT_EQ(0, ptrace(PTRACE_ATTACH, pid, NULL, NULL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	for (pass = 0; pass < 2; pass++) {
		ASSERT_EQ(0, mem_read(pid, t->probe_at, &saved, sizeof(saved)));
		EXPECT_EQ(BKPT_INSN, saved) TH_LOG("read: %#x", saved);
		ASSERT_EQ(0, put_word(pid, at, GDB_BRK, pass));
		ASSERT_EQ(0, put_word(pid, at, saved, pass));
	}
	ASSERT_EQ(0, ptrace(PTRACE_DETACH, pid, NULL, NULL));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the child: status %#x", status);
}

/*
 * A child that waits for its probe (a byte on @go), hits it once, then
 * confines itself to write and exit (seccomp_confine()) and calls @t
 * CALLS times: exits 0 if all were right.  A hit that made a system call
 * would kill it.
 */
static void __noreturn confined_child(const struct target *t, int go)
{
	char byte;

	if (read(go, &byte, 1) != 1 || run(t, 1) != 1 || seccomp_confine())
		_exit(2);
	_exit(run(t, CALLS) == CALLS ? 0 : 1);
}

/*
 * The hits of a process that a seccomp filter confines to write and exit
 * make no system call that the filter sees: the process lives, computes
 * right, and each call is one hit.
 */
TEST_F(jump, seccomp_sees_no_hit)
{
	struct perf_event_attr attr;
	int go[2], status;
	pid_t pid;

	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		confined_child(&variant->t, go[0]);
	ASSERT_EQ(0, uprobe_perf_attr(&attr, self_path(), self_offset(variant->t.probe_at), 0, 0));
	self->fd = perf_open(&attr, pid, -1);
	if (self->fd == -EINVAL && variant->t.may_refuse)
		kill(pid, SIGKILL);
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	close(go[0]);
	close(go[1]);
	if (variant->t.may_refuse &&
	    kernel_lacks(_metadata, self->fd != -EINVAL, "probes on this instruction"))
		return;
	ASSERT_LE(0, self->fd) TH_LOG("perf_event_open: %d", self->fd);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status %#x", status);
	EXPECT_EQ(CALLS + 1, perf_count(self->fd));
}

/*
 * The child of a tracer that stops it at every system call: it stops
 * itself, then makes CALLS calls of @t between two getppid() calls, the
 * markers its tracer counts the stops between.
 */
static void __noreturn syscall_traced_child(const struct target *t)
{
	long ok;

	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		_exit(2);
	raise(SIGSTOP);
	run(t, 1);
	syscall(SYS_getppid);
	ok = run(t, CALLS) == CALLS;
	syscall(SYS_getppid);
	_exit(ok ? 0 : 1);
}

/* The number of the system call tracee @pid is stopped at (x8), or -1. */
static long stopped_syscall(pid_t pid)
{
	struct user_regs_struct regs;
	struct iovec iov = { &regs, sizeof(regs) };

	if (ptrace(PTRACE_GETREGSET, pid, NT_PRSTATUS, &iov))
		return -1;
	return regs.regs[8];
}

/*
 * A tracer that stops its tracee at every system call (PTRACE_SYSCALL, as
 * strace does) sees none between two markers the tracee makes around its
 * probed calls: a hit is no system call, jump or breakpoint.
 */
TEST_F(jump, syscall_tracer_sees_no_hit)
{
	struct perf_event_attr attr;
	int status, markers = 0, between = 0;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		syscall_traced_child(&variant->t);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(0, uprobe_perf_attr(&attr, self_path(), self_offset(variant->t.probe_at), 0, 0));
	self->fd = perf_open(&attr, pid, -1);
	if (variant->t.may_refuse && self->fd == -EINVAL) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		SKIP(return, "the kernel has no probes on this instruction");
	}
	ASSERT_LE(0, self->fd) TH_LOG("perf_event_open: %d", self->fd);
	for (;;) {
		ASSERT_EQ(0, ptrace(PTRACE_SYSCALL, pid, NULL, NULL));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		if (!WIFSTOPPED(status))
			break;
		/* Each marker stops twice, at its entry and at its exit. */
		if (stopped_syscall(pid) == SYS_getppid)
			markers++;
		else if (markers == 2)
			between++;
	}
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status %#x", status);
	EXPECT_EQ(4, markers);
	EXPECT_EQ(0, between);
	EXPECT_EQ(CALLS + 1, perf_count(self->fd));
}

/*
 * The SVE registers of a task that hits a probe keep their whole length:
 * z0, set in full before the probed instruction, is stored whole after
 * it.  (A system call may zero all but the low 128 bits: a hit must not.)
 */
TEST(sve_registers_kept_whole)
{
	unsigned char buf[256];
	long vl, i, wrong = 0;
	int fd;

	if (!(getauxval(AT_HWCAP) & HWCAP_SVE))
		SKIP(return, "the CPU has no SVE");
	vl = prctl(PR_SVE_GET_VL) & PR_SVE_VL_LEN_MASK;
	ASSERT_LT(0, vl);
	ASSERT_GE(sizeof(buf), vl);
	fd = self_probe(a64_sve_insn);
	ASSERT_LE(0, fd) TH_LOG("perf_event_open: %d", fd);
	for (i = 0; i < CALLS; i++) {
		memset(buf, 0, sizeof(buf));
		a64_sve(buf);
		if (memchr(buf, 0, vl))
			wrong++;
	}
	TH_LOG("vector length %ld bytes", vl);
	EXPECT_EQ(0, wrong);
	EXPECT_EQ(CALLS, perf_count(fd));
	close(fd);
}

/* The immediate of the svc that starts a stub (arm64's UPROBE_SVC_IMM). */
#define STUB_SVC	"svc #0x7570"

/* getpid() by an svc with a stub's immediate, from the program's text. */
static long getpid_by_stub_svc(void)
{
	register long x8 asm("x8") = __NR_getpid;
	register long x0 asm("x0") = -1;

	asm volatile(STUB_SVC : "+r" (x0) : "r" (x8) : "memory");
	return x0;
}

/*
 * An svc with a stub's immediate is a system call anywhere but in a page
 * of stubs: made from the program's text, in a process whose probe has
 * its stub (after the first hit), getpid() by one returns the pid.
 */
TEST(stub_svc_elsewhere_is_a_system_call)
{
	const struct target t = plain_target;
	int fd;

	fd = self_probe(t.probe_at);
	ASSERT_LE(0, fd) TH_LOG("perf_event_open: %d", fd);
	ASSERT_EQ(CALLS, run(&t, CALLS));
	if (have_uprobe_jumps())
		ASSERT_NE(0, jump_target(t.probe_at));
	EXPECT_EQ(getpid(), getpid_by_stub_svc());
	EXPECT_EQ(CALLS, perf_count(fd));
	close(fd);
}

/*
 * debug.uprobes-jumps set to 0 takes the jump out: the word is the brk
 * again, /proc/PID/uprobes says why, and the calls stay right and
 * counted; set to 1 again, the next hit gives the jump back.
 */
TEST(sysctl_takes_jumps_out)
{
	const struct target t = plain_target;
	char line[256];
	int fd;

	if (kernel_lacks(_metadata, have_uprobe_jumps(), "jumps to stubs"))
		return;
	fd = self_probe(t.probe_at);
	ASSERT_LE(0, fd) TH_LOG("perf_event_open: %d", fd);
	ASSERT_EQ(1, run(&t, 1));
	ASSERT_NE(0, jump_target(t.probe_at));
	ASSERT_EQ(0, uprobe_jumps_sysctl_set(0));
	EXPECT_EQ(BKPT_INSN, word_at(t.probe_at));
	ASSERT_EQ(0, proc_uprobes_line(0, t.probe_at, line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, " breakpoint jumps-off")) TH_LOG("%s", line);
	EXPECT_EQ(CALLS, run(&t, CALLS));
	EXPECT_EQ(BKPT_INSN, word_at(t.probe_at));
	ASSERT_EQ(0, uprobe_jumps_sysctl_set(1));
	EXPECT_EQ(CALLS, run(&t, CALLS));
	EXPECT_NE(0, jump_target(t.probe_at));
	EXPECT_EQ(2 * CALLS + 1, perf_count(fd));
	close(fd);
}

#define NOJUMP_GROUP	"ujarm64"

/*
 * An event with %nojump keeps its probe on the brk over many hits; a
 * second event without it on the same word gets its b once the first is
 * disabled, and the first enabled again takes the b out at once.  Each
 * call is one hit of each enabled event.
 */
TEST(nojump_keeps_the_brk)
{
	unsigned long off = self_offset(PLAIN_FN);
	bool jumps = have_uprobe_jumps();
	int err;

	tracing_reset();
	err = uprobe_event_add("p:" NOJUMP_GROUP "/nj %s:0x%lx%%nojump", self_path(), off);
	if (kernel_lacks(_metadata, err != -EINVAL, "%nojump"))
		return;
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, event_enable(NOJUMP_GROUP, "nj", 1));
	ASSERT_EQ(CALLS, run(&plain_target, CALLS));
	EXPECT_EQ(BKPT_INSN, word_at(PLAIN_FN));
	EXPECT_EQ(CALLS, profile_hits("nj"));

	ASSERT_EQ(0, uprobe_event_add("p:" NOJUMP_GROUP "/plain %s:0x%lx", self_path(), off));
	ASSERT_EQ(0, event_enable(NOJUMP_GROUP, "plain", 1));
	ASSERT_EQ(0, event_enable(NOJUMP_GROUP, "nj", 0));
	ASSERT_EQ(1, run(&plain_target, 1));
	if (jumps)
		EXPECT_NE(0, jump_target(PLAIN_FN)) TH_LOG("no b without %%nojump");
	ASSERT_EQ(0, event_enable(NOJUMP_GROUP, "nj", 1));
	EXPECT_EQ(BKPT_INSN, word_at(PLAIN_FN)) TH_LOG("the b stayed");
	ASSERT_EQ(CALLS, run(&plain_target, CALLS));
	EXPECT_EQ(BKPT_INSN, word_at(PLAIN_FN));
	EXPECT_EQ(2 * CALLS, profile_hits("nj"));
	EXPECT_EQ(CALLS + 1, profile_hits("plain"));
	tracing_reset();
}

TEST_HARNESS_MAIN
