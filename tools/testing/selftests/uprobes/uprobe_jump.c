// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_jump: probes that come in without the breakpoint trap.
 *
 * With jumps to stubs, uprobes give a probed instruction of 5 bytes or
 * more that they emulate (a 5-byte nop, jmp rel32, call rel32, jcc rel32,
 * mov $imm32, RIP-relative lea) or run out of line without a step
 * (RIP-relative loads, sub $imm32 from rsp, a load from %fs) a jump to a
 * stub of their own once hit; the stub enters the kernel by the uprobe
 * syscall (336), and runs a copy of an instruction the kernel does not
 * emulate.
 * What every kernel must do, with jumps or without: the probed code computes
 * what it computes unprobed, with every register, the flags and the red
 * zone intact; each call is one hit, under a signal storm too, and in a
 * forked child, and while the probe comes and goes under threads that hit
 * it, and in children forked and vforked while another thread hits
 * it, and in a thread that blocks its syscalls with syscall user
 * dispatch; a debugger that single-steps over the probe sees the
 * instruction done in one step, and never an address in [uprobes].  For
 * each kind of stub (emulated, with or without a register written, or
 * with a copy run out of line, RIP-relative or not), every general
 * register, the flags, xmm0 and xmm15 are what the instruction leaves
 * them, hit after hit.  A syscall tracer sees the program's own
 * syscalls and nothing of a hit, as it sees nothing of the breakpoint:
 * strace shows no uprobe syscall; a PTRACE_SYSEMU tracer, which emulates
 * every syscall it sees, never sees one, and its tracee computes right;
 * the uprobe syscall called directly, by a program with a stub, is seen
 * by a PTRACE_SYSCALL tracer and fails (EPROTO, or ENOSYS where it does
 * not exist).  What only a kernel with jumps does: the jump is really
 * there after the first hit, it leads into the [uprobes] mapping, and it
 * is gone, the bytes as the file has them, when the probe goes; the
 * uprobe syscall called directly changes nothing and fails with EPROTO; a
 * debugger that would skip the uprobe syscall never sees a stub's; syscall
 * user dispatch lets a stub's syscall through, but no other syscall made
 * at a stub's syscall instruction.  And, where older kernels differ, of
 * the return trampoline: a debugger that skips its uretprobe syscall sees
 * the task stop with SIGILL there, and syscall user dispatch lets that
 * syscall through.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>
#include <asm/processor-flags.h>
#include <linux/perf_event.h>

#include "../kselftest_harness.h"
#include "uprobe_asm.h"
#include "uprobe_util.h"

#define NR_UPROBE	336
#define NR_URETPROBE	335
#define NR_NONE		1000	/* no syscall has this number */

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH	59
#define PR_SYS_DISPATCH_ON		1
#endif
#ifndef SYSCALL_DISPATCH_FILTER_BLOCK
#define SYSCALL_DISPATCH_FILTER_ALLOW	0
#define SYSCALL_DISPATCH_FILTER_BLOCK	1
#endif

asm(".pushsection .text\n"
	".globl jump_nop\n"
	".type jump_nop, @function\n"
	"jump_nop:\n"
	"	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
	"	lea 1(%rdi), %rax\n"
	"	ret\n"
	".size jump_nop, .-jump_nop\n"
	".globl jump_never\n"
	".type jump_never, @function\n"
	"jump_never:\n"
	"	push %rbp\n"
	"	lea 1(%rdi), %rax\n"
	"	pop %rbp\n"
	"	ret\n"
	".size jump_never, .-jump_never\n"
	".globl jump_redzone\n"
	".type jump_redzone, @function\n"
	"jump_redzone:\n"
	"	mov %rdi, -8(%rsp)\n"
	"	movq $0, -128(%rsp)\n"
	".globl jump_redzone_insn\n"
	"jump_redzone_insn:\n"
	"	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
	"	mov -8(%rsp), %rax\n"
	"	add -128(%rsp), %rax\n"
	"	ret\n"
	".size jump_redzone, .-jump_redzone\n"
	".globl jump_regs\n"
	".type jump_regs, @function\n"
	"jump_regs:\n"
	"	mov %rdi, %rax\n"
	"	lea 1(%rdi), %rcx\n"
	"	lea 2(%rdi), %r11\n"
	"	cmp $5, %rdi\n"
	".globl jump_regs_insn\n"
	"jump_regs_insn:\n"
	"	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
	"	setl %dl\n"
	"	movzbl %dl, %edx\n"
	"	shl $40, %rdx\n"
	"	shl $20, %rcx\n"
	"	add %rcx, %rax\n"
	"	add %r11, %rax\n"
	"	add %rdx, %rax\n"
	"	ret\n"
	".size jump_regs, .-jump_regs\n"
	".globl jump_call\n"
	".type jump_call, @function\n"
	"jump_call:\n"
	"	call 1f\n"
	"	add $2, %rax\n"
	"	ret\n"
	"1:	lea 1(%rdi), %rax\n"
	"	ret\n"
	".size jump_call, .-jump_call\n"
	".globl jump_jmp\n"
	".type jump_jmp, @function\n"
	"jump_jmp:\n"
	"	.byte 0xe9\n"
	"	.long 1f - (. + 4)\n"
	"	ud2\n"
	"1:	lea 2(%rdi), %rax\n"
	"	ret\n"
	".size jump_jmp, .-jump_jmp\n"
	".globl jump_movimm\n"
	".type jump_movimm, @function\n"
	"jump_movimm:\n"
	"	mov $0x1234, %eax\n"
	"	add %rdi, %rax\n"
	"	ret\n"
	".size jump_movimm, .-jump_movimm\n"
	/* Its immediate's bytes read as nops, from the second on. */
	".globl jump_movnops\n"
	".type jump_movnops, @function\n"
	"jump_movnops:\n"
	"	mov $0x90909090, %eax\n"
	"	lea 1(%rdi), %rax\n"
	"	ret\n"
	".size jump_movnops, .-jump_movnops\n"
	".globl jump_learip\n"
	".type jump_learip, @function\n"
	"jump_learip:\n"
	"	lea jump_datum(%rip), %rax\n"
	"	mov (%rax), %rax\n"
	"	add %rdi, %rax\n"
	"	ret\n"
	".size jump_learip, .-jump_learip\n"
	".globl jump_movrip\n"
	".type jump_movrip, @function\n"
	"jump_movrip:\n"
	"	mov jump_datum(%rip), %rax\n"
	"	add %rdi, %rax\n"
	"	ret\n"
	".size jump_movrip, .-jump_movrip\n"
	".globl jump_subrsp\n"
	".type jump_subrsp, @function\n"
	"jump_subrsp:\n"
	"	.byte 0x48, 0x81, 0xec\n"	/* sub $0x100, %rsp (imm32) */
	"	.long 0x100\n"
	"	mov %rdi, (%rsp)\n"
	"	mov (%rsp), %rax\n"
	"	add $0x100, %rsp\n"
	"	add $4, %rax\n"
	"	ret\n"
	".size jump_subrsp, .-jump_subrsp\n"
	".globl jump_fs\n"
	".type jump_fs, @function\n"
	"jump_fs:\n"
	"	mov %fs:0x0, %rax\n"
	"	add %rdi, %rax\n"
	"	ret\n"
	".size jump_fs, .-jump_fs\n"
	".globl jump_on_stack\n"
	".type jump_on_stack, @function\n"
	"jump_on_stack:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	mov %rdx, %rsp\n"
	"	mov %rdi, %rax\n"
	"	mov %rsi, %rdi\n"
	"	call *%rax\n"
	"	mov %rbp, %rsp\n"
	"	pop %rbp\n"
	"	ret\n"
	".size jump_on_stack, .-jump_on_stack\n"
	".globl jump_jcc\n"
	".type jump_jcc, @function\n"
	"jump_jcc:\n"
	"	test %rdi, %rdi\n"
	".globl jump_jcc_insn\n"
	"jump_jcc_insn:\n"
	"	.byte 0x0f, 0x88\n"		/* js rel32 */
	"	.long 1f - (. + 4)\n"
	"	xor %eax, %eax\n"
	"	ret\n"
	"1:	mov $1, %eax\n"
	"	ret\n"
	".size jump_jcc, .-jump_jcc\n"
	".popsection\n"
	".pushsection .data\n"
	".balign 8\n"
	"jump_datum:\n"
	"	.quad 7\n"
	".popsection\n");

/*
 * Instructions of 1 to 4 bytes, whose jump to a stub is punned: a jump
 * whose last bytes are those of the instructions after the probed one, so
 * that they never change.  Those bytes choose where the jump leads; here
 * the fifth byte from the probed address is 0x85 or more (test %edi,%edi
 * or a REX prefix before one), so that the jump leads below the program,
 * a PIE, where any layout of the address space leaves room.  pun_loop_X
 * probes X at pun_loop_X_insn and branches back to the instruction after
 * it and to the one after that (both within the jump's bytes for the
 * shorter ones): a pun that changed them would compute wrong or crash.
 */
asm(".pushsection .text\n"
	".globl pun_nop, pun_push_rbp, pun_push_r15, pun_mov_rdi_rax\n"
	".globl pun_sub_rsp, pun_endbr64\n"
	".type pun_nop, @function\n"
	"pun_nop:\n"
	"	nop\n"
	"	mov %rdi, %rax\n"
	"	test %edi, %edi\n"
	"	add $1, %rax\n"
	"	ret\n"
	".size pun_nop, .-pun_nop\n"
	".type pun_push_rbp, @function\n"
	"pun_push_rbp:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	test %edi, %edi\n"
	"	lea 1(%rdi), %rax\n"
	"	pop %rbp\n"
	"	ret\n"
	".size pun_push_rbp, .-pun_push_rbp\n"
	".type pun_push_r15, @function\n"
	"pun_push_r15:\n"
	"	push %r15\n"
	"	mov %rdi, %rax\n"
	"	add $2, %rax\n"
	"	pop %r15\n"
	"	ret\n"
	".size pun_push_r15, .-pun_push_r15\n"
	".type pun_mov_rdi_rax, @function\n"
	"pun_mov_rdi_rax:\n"
	"	mov %rdi, %rax\n"
	"	test %edi, %edi\n"
	"	add $3, %rax\n"
	"	ret\n"
	".size pun_mov_rdi_rax, .-pun_mov_rdi_rax\n"
	".type pun_sub_rsp, @function\n"
	"pun_sub_rsp:\n"
	"	sub $8, %rsp\n"
	"	test %edi, %edi\n"
	"	lea 4(%rdi), %rax\n"
	"	add $8, %rsp\n"
	"	ret\n"
	".size pun_sub_rsp, .-pun_sub_rsp\n"
	".type pun_endbr64, @function\n"
	"pun_endbr64:\n"
	"	endbr64\n"
	"	test %edi, %edi\n"
	"	lea 1(%rdi), %rax\n"
	"	ret\n"
	".size pun_endbr64, .-pun_endbr64\n"
	".macro pun_loop name, undo, insn:vararg\n"
	".globl pun_loop_\\name, pun_loop_\\name\\()_insn\n"
	".type pun_loop_\\name, @function\n"
	"pun_loop_\\name:\n"
	"	mov %rdi, %rax\n"
	"	mov $3, %ecx\n"
	"pun_loop_\\name\\()_insn:\n"
	"	\\insn\n"
	"1:	test %edi, %edi\n"
	"2:	test %edi, %edi\n"
	"	inc %rax\n"
	"	dec %ecx\n"
	"	jz 3f\n"
	"	cmp $1, %ecx\n"
	"	je 2b\n"
	"	jmp 1b\n"
	"3:	\\undo\n"
	"	ret\n"
	".size pun_loop_\\name, .-pun_loop_\\name\n"
	".endm\n"
	"pun_loop nop, nop, nop\n"
	"pun_loop push_rbp, \"pop %rbp\", push %rbp\n"
	"pun_loop push_r15, \"pop %r15\", push %r15\n"
	"pun_loop mov_rdi_rax, nop, mov %rdi, %rax\n"
	"pun_loop sub_rsp, \"pop %rdx\", sub $8, %rsp\n"
	"pun_loop endbr64, nop, endbr64\n"
	".purgem pun_loop\n"
	".popsection\n");

/*
 * PUN_MANY functions x + 1, PUN_MANY_STRIDE bytes apart from pun_many,
 * each a nop then a mov $imm32,%eax whose first bytes make the nop's
 * punned jump lead 256 MiB below it, and the I-th 64 KiB further: each
 * needs a page of hops of its own.
 */
#define PUN_MANY	80
#define PUN_MANY_STRIDE	16
asm(".pushsection .text\n"
	".globl pun_many\n"
	".balign " ASM_XSTR(PUN_MANY_STRIDE) "\n"
	"pun_many:\n"
	".set i, 0\n"
	".rept " ASM_XSTR(PUN_MANY) "\n"
	".balign " ASM_XSTR(PUN_MANY_STRIDE) "\n"
	"	nop\n"
	"	.byte 0xb8, 0x00, i, 0xf0, 0x00\n"	/* mov $0xf0ii00, %eax */
	"	lea 1(%rdi), %rax\n"
	"	ret\n"
	".set i, i + 1\n"
	".endr\n"
	".popsection\n");

/*
 * pun_no_window(x) = x + 1 probes a 2-byte nop (66 90) at
 * pun_no_window_insn, whose punned jump could lead only where the bytes
 * after it say: a ret and two zero bytes, 0xc305 to 0xc404 bytes further
 * on, inside this program's text (the padding after it).  No hop can go
 * there.
 */
asm(".pushsection .text\n"
	".globl pun_no_window, pun_no_window_insn\n"
	".type pun_no_window, @function\n"
	"pun_no_window:\n"
	"	lea 1(%rdi), %rax\n"
	"pun_no_window_insn:\n"
	"	.byte 0x66, 0x90\n"
	"	ret\n"
	"	.byte 0, 0\n"
	".size pun_no_window, .-pun_no_window\n"
	"	.skip 0xd000, 0xcc\n"
	".popsection\n");

/*
 * jump_keep NAME, INSN makes NAME(), which loads every register it can
 * from jump_keep_in, runs INSN at NAME_insn and stores them all in
 * jump_keep_out (uprobe_asm.h).  struct jump_keep_regs, as used here: the
 * general registers from 0, rsp at 120, the flags at 128, xmm0 at 136 and
 * xmm15 at 152.  The flags are loaded first, as no mov changes them.
 */
asm(".pushsection .text\n"
	".macro jump_keep name, insn:vararg\n"
	".globl \\name, \\name\\()_insn\n"
	".type \\name, @function\n"
	"\\name:\n"
	"	push %rbp\n"
	"	push %rbx\n"
	"	push %r12\n"
	"	push %r13\n"
	"	push %r14\n"
	"	push %r15\n"
	"	movdqu jump_keep_in+136(%rip), %xmm0\n"
	"	movdqu jump_keep_in+152(%rip), %xmm15\n"
	"	pushq jump_keep_in+128(%rip)\n"
	"	popfq\n"
	"	mov %rsp, jump_keep_in+120(%rip)\n"
	"	mov jump_keep_in+0(%rip), %rax\n"
	"	mov jump_keep_in+8(%rip), %rbx\n"
	"	mov jump_keep_in+16(%rip), %rcx\n"
	"	mov jump_keep_in+24(%rip), %rdx\n"
	"	mov jump_keep_in+32(%rip), %rsi\n"
	"	mov jump_keep_in+40(%rip), %rdi\n"
	"	mov jump_keep_in+48(%rip), %rbp\n"
	"	mov jump_keep_in+56(%rip), %r8\n"
	"	mov jump_keep_in+64(%rip), %r9\n"
	"	mov jump_keep_in+72(%rip), %r10\n"
	"	mov jump_keep_in+80(%rip), %r11\n"
	"	mov jump_keep_in+88(%rip), %r12\n"
	"	mov jump_keep_in+96(%rip), %r13\n"
	"	mov jump_keep_in+104(%rip), %r14\n"
	"	mov jump_keep_in+112(%rip), %r15\n"
	"\\name\\()_insn:\n"
	"	\\insn\n"
	"	mov %rax, jump_keep_out+0(%rip)\n"
	"	mov %rbx, jump_keep_out+8(%rip)\n"
	"	mov %rcx, jump_keep_out+16(%rip)\n"
	"	mov %rdx, jump_keep_out+24(%rip)\n"
	"	mov %rsi, jump_keep_out+32(%rip)\n"
	"	mov %rdi, jump_keep_out+40(%rip)\n"
	"	mov %rbp, jump_keep_out+48(%rip)\n"
	"	mov %r8, jump_keep_out+56(%rip)\n"
	"	mov %r9, jump_keep_out+64(%rip)\n"
	"	mov %r10, jump_keep_out+72(%rip)\n"
	"	mov %r11, jump_keep_out+80(%rip)\n"
	"	mov %r12, jump_keep_out+88(%rip)\n"
	"	mov %r13, jump_keep_out+96(%rip)\n"
	"	mov %r14, jump_keep_out+104(%rip)\n"
	"	mov %r15, jump_keep_out+112(%rip)\n"
	"	mov %rsp, jump_keep_out+120(%rip)\n"
	"	pushfq\n"
	"	popq jump_keep_out+128(%rip)\n"
	"	movdqu %xmm0, jump_keep_out+136(%rip)\n"
	"	movdqu %xmm15, jump_keep_out+152(%rip)\n"
	"	pop %r15\n"
	"	pop %r14\n"
	"	pop %r13\n"
	"	pop %r12\n"
	"	pop %rbx\n"
	"	pop %rbp\n"
	"	ret\n"
	".size \\name, .-\\name\n"
	".endm\n"
	"jump_keep jump_keep_nop5, .byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
	"jump_keep jump_keep_movimm_ecx, mov $0x6d5e4f30, %ecx\n"
	"jump_keep jump_keep_movimm_r11, mov $-0x12345678, %r11\n"
	"jump_keep jump_keep_learip_rax, lea jump_keep_datum(%rip), %rax\n"
	"jump_keep jump_keep_lea_r8, lea 0x12345678(%rdx), %r8\n"
	"jump_keep jump_keep_movrip_r11, mov jump_keep_datum(%rip), %r11\n"
	".purgem jump_keep\n"
	".popsection\n"
	".pushsection .data\n"
	".balign 16\n"
	".globl jump_keep_in, jump_keep_out, jump_keep_datum\n"
	".type jump_keep_in, @object\n"
	".size jump_keep_in, 168\n"
	"jump_keep_in:\n"
	"	.zero 168\n"
	".type jump_keep_out, @object\n"
	".size jump_keep_out, 168\n"
	"jump_keep_out:\n"
	"	.zero 168\n"
	".type jump_keep_datum, @object\n"
	".size jump_keep_datum, 8\n"
	"jump_keep_datum:\n"
	"	.quad 0x0123456789abcdef\n"
	".popsection\n");

static_assert(offsetof(struct jump_keep_regs, rsp) == 120, "jump_keep's layout");
static_assert(offsetof(struct jump_keep_regs, flags) == 128, "jump_keep's layout");
static_assert(offsetof(struct jump_keep_regs, xmm0) == 136, "jump_keep's layout");
static_assert(offsetof(struct jump_keep_regs, xmm15) == 152, "jump_keep's layout");
static_assert(sizeof(struct jump_keep_regs) == 168, "jump_keep's layout");

/* What jump_regs(x) returns when nothing disturbs it. */
static long regs_expected(long x)
{
	return x + (x + 1) * (1L << 20) + (x + 2) + (x < 5) * (1L << 40);
}

#define JUMP_LEN	5	/* a jmp rel32 */

/* The JUMP_LEN code bytes at @addr, read afresh. */
static void code_at(const void *addr, unsigned char *code)
{
	const unsigned char *p = addr;
	int i;

	for (i = 0; i < JUMP_LEN; i++)
		code[i] = READ_FRESH(p[i]);
}

/* Where a jmp rel32 at @addr goes, or 0 if @addr holds none. */
static unsigned long jump_target(const void *addr)
{
	unsigned char code[5];
	int rel;

	code_at(addr, code);
	if (code[0] != 0xe9)
		return 0;
	memcpy(&rel, code + 1, sizeof(rel));
	return (unsigned long)addr + 5 + rel;
}

#define PLAIN_FN	jump_nop
#define UCONTEXT_PC(uc)	((uc)->uc_mcontext.gregs[REG_RIP])
#define REGS_PC(regs)	((regs)->rip)
#include "jump_common.h"

static long plus1(long x) { return x + 1; }
static long plus2(long x) { return x + 2; }
static long plus3(long x) { return x + 3; }
static long same(long x) { return x; }
static long negative(long x) { return x < 0; }
static long plus4(long x) { return x + 4; }
static long plus7(long x) { return x + 7; }
static long plus0x1234(long x) { return x + 0x1234; }

/* jump_fs(x): the thread pointer (the TCB's own address) plus x. */
static long plus_tp(long x)
{
	unsigned long tp;

	asm("mov %%fs:0x0, %0" : "=r" (tp));
	return tp + x;
}

FIXTURE_VARIANT_ADD(jump, nop5) {
	.t = { jump_nop, jump_nop, plus1 },
};

FIXTURE_VARIANT_ADD(jump, red_zone) {
	.t = { jump_redzone_insn, jump_redzone, same },
};

FIXTURE_VARIANT_ADD(jump, registers) {
	.t = { jump_regs_insn, jump_regs, regs_expected },
};

FIXTURE_VARIANT_ADD(jump, call_rel32) {
	.t = { jump_call, jump_call, plus3 },
};

FIXTURE_VARIANT_ADD(jump, jmp_rel32) {
	.t = { jump_jmp, jump_jmp, plus2 },
};

FIXTURE_VARIANT_ADD(jump, jcc_rel32) {
	.t = { jump_jcc_insn, jump_jcc, negative },
};

FIXTURE_VARIANT_ADD(jump, mov_imm32) {
	.t = { jump_movimm, jump_movimm, plus0x1234 },
};

FIXTURE_VARIANT_ADD(jump, lea_rip) {
	.t = { jump_learip, jump_learip, plus7 },
};

FIXTURE_VARIANT_ADD(jump, mov_rip_load) {
	.t = { jump_movrip, jump_movrip, plus7 },
};

FIXTURE_VARIANT_ADD(jump, sub_rsp_imm32) {
	.t = { jump_subrsp, jump_subrsp, plus4 },
};

FIXTURE_VARIANT_ADD(jump, mov_fs) {
	.t = { jump_fs, jump_fs, plus_tp },
};

FIXTURE_VARIANT_ADD(jump, pun_nop) {
	.t = { pun_nop, pun_nop, plus1, 1 },
};

FIXTURE_VARIANT_ADD(jump, pun_push_rbp) {
	.t = { pun_push_rbp, pun_push_rbp, plus1, 1 },
};

FIXTURE_VARIANT_ADD(jump, pun_push_r15) {
	.t = { pun_push_r15, pun_push_r15, plus2, 2 },
};

FIXTURE_VARIANT_ADD(jump, pun_mov_rdi_rax) {
	.t = { pun_mov_rdi_rax, pun_mov_rdi_rax, plus3, 3 },
};

FIXTURE_VARIANT_ADD(jump, pun_sub_rsp_imm8) {
	.t = { pun_sub_rsp, pun_sub_rsp, plus4, 4 },
};

FIXTURE_VARIANT_ADD(jump, pun_endbr64) {
	.t = { pun_endbr64, pun_endbr64, plus1, 4 },
};

FIXTURE_VARIANT_ADD(jump, pun_loop_nop) {
	.t = { pun_loop_nop_insn, pun_loop_nop, plus3, 1 },
};

FIXTURE_VARIANT_ADD(jump, pun_loop_push_rbp) {
	.t = { pun_loop_push_rbp_insn, pun_loop_push_rbp, plus3, 1 },
};

FIXTURE_VARIANT_ADD(jump, pun_loop_push_r15) {
	.t = { pun_loop_push_r15_insn, pun_loop_push_r15, plus3, 2 },
};

FIXTURE_VARIANT_ADD(jump, pun_loop_mov_rdi_rax) {
	.t = { pun_loop_mov_rdi_rax_insn, pun_loop_mov_rdi_rax, plus3, 3 },
};

FIXTURE_VARIANT_ADD(jump, pun_loop_sub_rsp_imm8) {
	.t = { pun_loop_sub_rsp_insn, pun_loop_sub_rsp, plus3, 4 },
};

FIXTURE_VARIANT_ADD(jump, pun_loop_endbr64) {
	.t = { pun_loop_endbr64_insn, pun_loop_endbr64, plus3, 4 },
};

/*
 * After the first hit the probed instruction begins with a jump into
 * the [uprobes] mapping; when the probe goes, the bytes are the file's.
 * The jump over an instruction shorter than it is punned: the bytes past
 * the instruction are the next instructions', unchanged, all along.
 */
TEST_F(jump, jump_in_place_then_gone)
{
	const struct target *t = &variant->t;
	unsigned char before[5], during[5], after[5];
	struct uprobes_maps maps;
	unsigned long target;

	if (kernel_lacks(_metadata, have_uprobe_jumps(), "jumps to stubs"))
		return;
	code_at(t->probe_at, before);
	self->fd = probe(_metadata, t->probe_at);
	ASSERT_EQ(1, run(t, 1));
	target = jump_target(t->probe_at);
	ASSERT_NE(0, target) TH_LOG("no jump at the probe after a hit");
	ASSERT_EQ(0, uprobes_maps_read(0, &maps));
	EXPECT_TRUE(uprobes_maps_hold(&maps, target)) TH_LOG("the jump goes to %#lx", target);
	ASSERT_EQ(CALLS, run(t, CALLS));
	code_at(t->probe_at, during);
	if (t->len)
		EXPECT_EQ(0, memcmp(before + t->len, during + t->len, 5 - t->len))
			TH_LOG("the jump changed the bytes after the %d-byte instruction", t->len);
	EXPECT_EQ(CALLS + 1, perf_count(self->fd));
	close(self->fd);
	self->fd = -1;
	code_at(t->probe_at, after);
	EXPECT_EQ(0, memcmp(before, after, sizeof(before)));
	ASSERT_EQ(CALLS, run(t, CALLS));
}

/*
 * What a debugger or a profiler reads of the probed instruction from
 * outside, by /proc/PID/mem and by process_vm_readv(): the breakpoint
 * and the instruction's other bytes, as on a kernel without jumps, even
 * while the program's own loads show a jump there.
 */
TEST_F(jump, foreign_reads_see_the_breakpoint)
{
	const struct target *t = &variant->t;
	unsigned char want[5], by_mem[5], by_vm[5];
	struct iovec local = { by_vm, sizeof(by_vm) };
	struct iovec remote = { (void *)t->probe_at, sizeof(by_vm) };

	code_at(t->probe_at, want);	/* the file's bytes, before the probe */
	want[0] = 0xcc;
	self->fd = probe(_metadata, t->probe_at);
	ASSERT_EQ(CALLS, run(t, CALLS));
	if (have_uprobe_jumps())
		ASSERT_NE(0, jump_target(t->probe_at)) TH_LOG("no jump to read");
	ASSERT_EQ(0, mem_read(getpid(), t->probe_at, by_mem, sizeof(by_mem)));
	ASSERT_EQ(5, process_vm_readv(getpid(), &local, 1, &remote, 1, 0));
	EXPECT_EQ(0, memcmp(want, by_mem, sizeof(want)))
		TH_LOG("/proc/self/mem: %02x %02x %02x %02x %02x", by_mem[0], by_mem[1],
		       by_mem[2], by_mem[3], by_mem[4]);
	EXPECT_EQ(0, memcmp(want, by_vm, sizeof(want)))
		TH_LOG("process_vm_readv: %02x %02x %02x %02x %02x", by_vm[0], by_vm[1],
		       by_vm[2], by_vm[3], by_vm[4]);
	ASSERT_EQ(CALLS, run(t, CALLS));
	EXPECT_EQ(2 * CALLS, perf_count(self->fd));
}

/*
 * A probe at an address inside the bytes of another's jump (not where an
 * instruction starts: a wrong offset, as a user may give) gets its
 * breakpoint, which the jump's bytes would otherwise hide: the jump goes
 * first.  The program never runs from there, and the outer probe's hits
 * run the instruction as the file has it: every call stays right and
 * counted while the inner breakpoint is in, and after it goes.
 */
TEST(probe_inside_a_jump)
{
	const struct target t = { jump_movnops, jump_movnops, plus1 };
	const unsigned char *inner_at = (const unsigned char *)jump_movnops + 2;
	int outer, inner;

	outer = probe(_metadata, t.probe_at);
	ASSERT_EQ(1, run(&t, 1));
	if (have_uprobe_jumps())
		ASSERT_NE(0, jump_target(t.probe_at)) TH_LOG("no jump after a hit");
	inner = probe(_metadata, inner_at);
	EXPECT_EQ(0xcc, READ_FRESH(*inner_at)) TH_LOG("the inner probe has no breakpoint");
	EXPECT_EQ(0, jump_target(t.probe_at));
	ASSERT_EQ(CALLS, run(&t, CALLS));
	EXPECT_EQ(0xcc, READ_FRESH(*inner_at)) TH_LOG("the breakpoint went after hits");
	EXPECT_EQ(CALLS + 1, perf_count(outer));
	EXPECT_EQ(0, perf_count(inner));
	close(inner);
	EXPECT_EQ(0x90, READ_FRESH(*inner_at));
	ASSERT_EQ(CALLS, run(&t, CALLS));
	EXPECT_EQ(2 * CALLS + 1, perf_count(outer));
	close(outer);
}

static const struct target pun_r15 = { pun_loop_push_r15_insn, pun_loop_push_r15, plus3, 2 };

/*
 * A probe on the instruction right after a punned one (inside the punned
 * jump's bytes) would change where that jump leads: the first stays on
 * its breakpoint, whichever comes first, and both count every hit.  (The
 * second may get a jump of its own: it changes no byte the first jumps
 * by.)  With jumps to stubs, once the second goes, the first gets its
 * punned jump again.
 */
TEST(pun_neighbour_keeps_the_first_on_trap)
{
	const unsigned char *next = pun_r15.probe_at + pun_r15.len;
	bool jumps = have_uprobe_jumps();
	int first, second, round;

	for (round = 0; round < 2; round++) {
		first = probe(_metadata, pun_r15.probe_at);
		if (round == 0)
			ASSERT_EQ(1, run(&pun_r15, 1));	/* the pun goes in first */
		second = probe(_metadata, next);
		ASSERT_EQ(CALLS, run(&pun_r15, CALLS));
		if (jumps)
			EXPECT_EQ(0, jump_target(pun_r15.probe_at));
		/* The loop passes the next instruction twice a call. */
		EXPECT_EQ(CALLS + (round == 0), perf_count(first));
		EXPECT_EQ(2 * CALLS, perf_count(second));
		close(second);
		ASSERT_EQ(CALLS, run(&pun_r15, CALLS));
		if (jumps)
			EXPECT_NE(0, jump_target(pun_r15.probe_at))
				TH_LOG("round %d: no jump once the neighbour went", round);
		EXPECT_EQ(2 * CALLS + (round == 0), perf_count(first));
		close(first);
	}
}

/*
 * The program marks its [uprobes] mappings MADV_DONTFORK: a forked child,
 * to which fork copies none of them, runs the code behind a jump and a
 * punned one right all the same.  (Where these hits trap and are
 * emulated, they need no [uprobes] page: there is nothing to mark.)
 */
TEST(forked_child_despite_dontfork)
{
	const struct target *t[] = { &plain_target, &pun_r15 };
	struct uprobes_maps maps;
	int fd[2], i, status;
	pid_t pid;

	for (i = 0; i < 2; i++) {
		fd[i] = probe(_metadata, t[i]->probe_at);
		ASSERT_EQ(CALLS, run(t[i], CALLS));
	}
	ASSERT_EQ(0, uprobes_maps_read(0, &maps));
	if (jump_target(plain_target.probe_at) && jump_target(pun_r15.probe_at))
		ASSERT_LE(3, maps.n) TH_LOG("two jumps, %d [uprobes] mappings", maps.n);
	for (i = 0; i < maps.n; i++)
		ASSERT_EQ(0, madvise((void *)maps.start[i], maps.end[i] - maps.start[i],
				     MADV_DONTFORK));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(run(t[0], CALLS) == CALLS && run(t[1], CALLS) == CALLS ? 0 : 1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status %#x", status);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(CALLS, perf_count(fd[i]));
		close(fd[i]);
	}
}

/* The page that holds @addr. */
static void *page_of(unsigned long addr)
{
	return (void *)(addr & ~(unsigned long)(getpagesize() - 1));
}

/*
 * The program unmaps the page a punned jump leads to (its hop), then the
 * page of the stub behind it: each time the jump gives way to the
 * breakpoint first, and the calls go on, right and counted.
 */
TEST(pun_pages_unmapped)
{
	unsigned long hop, stub;
	int fd;

	if (kernel_lacks(_metadata, have_uprobe_jumps(), "jumps to stubs"))
		return;
	fd = probe(_metadata, pun_r15.probe_at);
	ASSERT_EQ(1, run(&pun_r15, 1));
	hop = jump_target(pun_r15.probe_at);
	ASSERT_NE(0, hop) TH_LOG("no punned jump");
	stub = jump_target((void *)hop);
	ASSERT_NE(0, stub) TH_LOG("no hop at %#lx", hop);
	ASSERT_EQ(0, munmap(page_of(hop), getpagesize()));
	EXPECT_EQ(0, jump_target(pun_r15.probe_at));
	ASSERT_EQ(CALLS, run(&pun_r15, CALLS));
	hop = jump_target(pun_r15.probe_at);
	ASSERT_NE(0, hop) TH_LOG("no punned jump again after the hop page went");
	stub = jump_target((void *)hop);
	ASSERT_NE(0, stub);
	ASSERT_EQ(0, munmap(page_of(stub), getpagesize()));
	EXPECT_EQ(0, jump_target(pun_r15.probe_at));
	ASSERT_EQ(CALLS, run(&pun_r15, CALLS));
	EXPECT_EQ(2 * CALLS + 1, perf_count(fd));
	close(fd);
}

/*
 * What a self-patching program writes over pun_loop_push_r15's next
 * instruction, test %edi,%edi (85 ff), and in the punned jump's bytes:
 * and %edi,%edi (21 ff), which leaves edi as it is and sets the flags,
 * which the loop does not read, as test does.
 */
static const unsigned char pun_r15_next[2] = { 0x21, 0xff };

/* The bytes that pun_r15_next replaces, for the end of each test. */
static const unsigned char pun_r15_orig[2] = { 0x85, 0xff };

/*
 * The program makes its text writable and rewrites the instruction after
 * a punned one (the jump's last bytes), as a self-patching program does:
 * the jump (with jumps to stubs, in place before) gives way before the
 * store can land, so no call runs a jump that leads elsewhere; the calls
 * are right and counted.
 */
TEST(pun_text_rewritten_by_the_program)
{
	unsigned char *next = (unsigned char *)pun_r15.probe_at + pun_r15.len;
	void *page = page_of((unsigned long)next);
	bool jumps = have_uprobe_jumps();
	int fd;

	fd = probe(_metadata, pun_r15.probe_at);
	ASSERT_EQ(CALLS, run(&pun_r15, CALLS));
	if (jumps)
		ASSERT_NE(0, jump_target(pun_r15.probe_at)) TH_LOG("no punned jump to rewrite");
	ASSERT_EQ(0, mprotect(page, 2 * getpagesize(), PROT_READ | PROT_WRITE | PROT_EXEC));
	memcpy(next, pun_r15_next, sizeof(pun_r15_next));
	ASSERT_EQ(0, mprotect(page, 2 * getpagesize(), PROT_READ | PROT_EXEC));
	EXPECT_EQ(0, jump_target(pun_r15.probe_at)) TH_LOG("the jump stayed over the store");
	ASSERT_EQ(CALLS, run(&pun_r15, CALLS));
	EXPECT_EQ(2 * CALLS, perf_count(fd));
	close(fd);
}

/*
 * The same through /proc/self/mem, which writes as ptrace does: the jump
 * gives way before the write lands.
 */
TEST(pun_text_rewritten_through_proc_mem)
{
	unsigned long next = (unsigned long)pun_r15.probe_at + pun_r15.len;
	bool jumps = have_uprobe_jumps();
	int fd, mem;

	fd = probe(_metadata, pun_r15.probe_at);
	ASSERT_EQ(CALLS, run(&pun_r15, CALLS));
	if (jumps)
		ASSERT_NE(0, jump_target(pun_r15.probe_at)) TH_LOG("no punned jump to rewrite");
	mem = open("/proc/self/mem", O_RDWR);
	ASSERT_LE(0, mem);
	ASSERT_EQ(sizeof(pun_r15_next), pwrite(mem, pun_r15_next, sizeof(pun_r15_next), next));
	EXPECT_EQ(0, jump_target(pun_r15.probe_at)) TH_LOG("the jump stayed over the write");
	ASSERT_EQ(CALLS, run(&pun_r15, CALLS));
	EXPECT_EQ(2 * CALLS, perf_count(fd));
	ASSERT_EQ(sizeof(pun_r15_orig), pwrite(mem, pun_r15_orig, sizeof(pun_r15_orig), next));
	ASSERT_EQ(CALLS, run(&pun_r15, CALLS));
	EXPECT_EQ(3 * CALLS, perf_count(fd));
	close(mem);
	close(fd);
}

/* The counts of the first line of /proc/self/uprobes, against their limits. */
struct proc_uprobes_counts {
	unsigned int stubs, stubs_max, hops, hops_max, memos, memos_max;
};

/* Reads them: how many it could, or -1. */
static int proc_uprobes_counts(struct proc_uprobes_counts *c)
{
	FILE *f = fopen("/proc/self/uprobes", "r");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "stub-pages %u of %u, hop-pages %u of %u, pun-memos %u of %u",
		   &c->stubs, &c->stubs_max, &c->hops, &c->hops_max, &c->memos, &c->memos_max);
	fclose(f);
	return n;
}

/* The hop pages the current process has, and may have, from its first line. */
static int proc_uprobes_hop_pages(unsigned int *used, unsigned int *max)
{
	struct proc_uprobes_counts c;

	if (proc_uprobes_counts(&c) < 4)
		return -1;
	*used = c.hops;
	*max = c.hops_max;
	return 0;
}

/* The function @i of pun_many. */
static long (*pun_many_fn(unsigned int i))(long x)
{
	return (long (*)(long))(pun_many + i * PUN_MANY_STRIDE);
}

/*
 * /proc/PID/uprobes tells how each probe comes in: the breakpoint
 * before a hit, then a jump, or a punned jump for an instruction shorter
 * than one; with the neighbour of a punned one probed, the breakpoint and
 * why.  Its first line counts the stub pages: with a jump and a punned
 * one, at least a page of stubs and one of hops, within their limits.
 */
TEST(proc_uprobes_tells_each_entry)
{
	const unsigned char *next = pun_r15.probe_at + pun_r15.len;
	struct proc_uprobes_counts c;
	int nop5, pun, neighbour;
	char line[512];

	if (kernel_lacks(_metadata, have_proc_uprobes(), "/proc/PID/uprobes"))
		return;
	nop5 = probe(_metadata, jump_nop);
	pun = probe(_metadata, pun_r15.probe_at);
	ASSERT_EQ(0, proc_uprobes_line(0, jump_nop, line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, " breakpoint")) TH_LOG("before a hit: %s", line);
	ASSERT_EQ(1, jump_nop(0));
	ASSERT_EQ(1, run(&pun_r15, 1));
	ASSERT_EQ(0, proc_uprobes_line(0, jump_nop, line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, " emulated jump")) TH_LOG("%s", line);
	ASSERT_EQ(0, proc_uprobes_line(0, pun_r15.probe_at, line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, " emulated punned-jump")) TH_LOG("%s", line);
	ASSERT_EQ(6, proc_uprobes_counts(&c));
	EXPECT_LE(1, c.stubs);
	EXPECT_LE(c.stubs, c.stubs_max);
	EXPECT_LE(1, c.hops);
	EXPECT_LE(c.hops, c.hops_max);
	EXPECT_LE(c.memos, c.memos_max);
	neighbour = probe(_metadata, next);
	ASSERT_EQ(CALLS, run(&pun_r15, CALLS));
	ASSERT_EQ(0, proc_uprobes_line(0, pun_r15.probe_at, line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, " breakpoint text-differs")) TH_LOG("%s", line);
	close(neighbour);
	close(pun);
	close(nop5);
}

/*
 * A probe whose punned jump finds no place for its hop (the window its
 * next bytes leave is all the program's text) stays on its breakpoint;
 * /proc/PID/uprobes says why, and its hits stay right and counted.
 */
TEST(pun_no_window_told)
{
	const struct target t = { pun_no_window_insn, pun_no_window, plus1, 2 };
	char line[512];
	int fd;

	if (kernel_lacks(_metadata, have_proc_uprobes(), "/proc/PID/uprobes"))
		return;
	fd = probe(_metadata, t.probe_at);
	ASSERT_EQ(CALLS, run(&t, CALLS));
	EXPECT_EQ(0, jump_target(t.probe_at));
	ASSERT_EQ(0, proc_uprobes_line(0, t.probe_at, line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, " emulated breakpoint no-window")) TH_LOG("%s", line);
	ASSERT_EQ(CALLS, run(&t, CALLS));
	EXPECT_EQ(2 * CALLS, perf_count(fd));
	close(fd);
}

/*
 * A process has at most as many pages of hops as its first line of
 * /proc/PID/uprobes says.  With two more nops probed than that, each
 * needing a page of its own, all are hit twice: as many as the pages left
 * are entered by a punned jump, the others stay on the breakpoint for
 * hop-limit, and every call is right and counted.
 */
TEST(pun_hop_pages_limited)
{
	unsigned int used, max, i, n, punned = 0, limited = 0;
	int fd[PUN_MANY];
	char line[512];

	if (kernel_lacks(_metadata, have_uprobe_jumps(), "jumps to stubs"))
		return;
	ASSERT_EQ(0, proc_uprobes_hop_pages(&used, &max));
	ASSERT_LE(used, max);
	n = max - used + 2;
	ASSERT_LE(n, PUN_MANY) TH_LOG("%u hop pages left: more than the test has nops", max - used);
	for (i = 0; i < n; i++)
		fd[i] = probe(_metadata, pun_many_fn(i));
	for (i = 0; i < 2 * n; i++)
		ASSERT_EQ((long)i + 1, pun_many_fn(i % n)(i));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(2, perf_count(fd[i])) TH_LOG("nop %u", i);
		ASSERT_EQ(0, proc_uprobes_line(0, pun_many_fn(i), line, sizeof(line)));
		if (strstr(line, " punned-jump"))
			punned++;
		else if (strstr(line, " breakpoint hop-limit"))
			limited++;
		else
			TH_LOG("nop %u: %s", i, line);
		close(fd[i]);
	}
	EXPECT_EQ(max - used, punned);
	EXPECT_EQ(2, limited);
	ASSERT_EQ(0, proc_uprobes_hop_pages(&used, &max));
	EXPECT_EQ(max, used);
}

#define MEMO_GROUP	"ujump"
#define MEMO_MAPS	1100	/* mappings at once: more than a process remembers */
#define MEMO_CHURN	10000	/* mappings in all, the others one after another */

/* Maps pun_many's page of @file at @at: its first function there, or NULL. */
static long (*memo_map(int file, char *at))(long x)
{
	long page = getpagesize(), off = self_offset(pun_many);
	char *map = mmap(at, 2 * page, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, file,
			 off & -page);

	return map == MAP_FAILED ? NULL : (long (*)(long))(map + off % page);
}

/* The slab's size (/proc/meminfo), in kB, or -1. */
static long slab_kb(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long kb = -1;

	while (f && kb < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld kB", &kb) != 1)
			kb = -1;
	if (f)
		fclose(f);
	return kb;
}

/*
 * A place where a punned jump cannot be had (pun_many's nop, with a probe
 * on the instruction after it, whose breakpoint is in the jump's bytes)
 * is remembered, so that later hits do not try again.  A process
 * remembers 1024 at most: mapped at 1100 addresses at once, it remembers
 * 1024 and a place never tried gets no punned jump (pun-memo-limit);
 * unmapped, they are forgotten, and that place gets its punned jump.
 * Mapped, called and unmapped at 8900 more addresses, one after another,
 * it remembers none (the slab that leaves is logged).
 */
TEST_F_TIMEOUT(slow, pun_memos_bounded, 300)
{
	long page = getpagesize(), len = 2 * page, slab, i;
	struct proc_uprobes_counts c;
	int nop, other, file;
	long (*fn)(long x);
	char line[512], *hole;

	if (proc_uprobes_counts(&c) < 6)
		SKIP(return, "/proc/self/uprobes counts no pun memos");
	tracing_reset();
	nop = probe(_metadata, pun_many);
	ASSERT_EQ(0, uprobe_event_add("p:" MEMO_GROUP "/next %s:0x%lx%%nojump", self_path(),
				      self_offset(pun_many) + 1));
	ASSERT_EQ(0, event_enable(MEMO_GROUP, "next", 1));
	file = open(self_path(), O_RDONLY);
	ASSERT_LE(0, file);
	hole = mmap(NULL, MEMO_CHURN * len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, hole);
	for (i = 0; i < MEMO_MAPS; i++) {
		fn = memo_map(file, hole + i * len);
		ASSERT_NE(NULL, fn);
		ASSERT_EQ(1, fn(0));
	}
	ASSERT_EQ(6, proc_uprobes_counts(&c));
	EXPECT_EQ(c.memos_max, c.memos);
	other = probe(_metadata, pun_many_fn(1));
	ASSERT_EQ(2, pun_many_fn(1)(1));
	ASSERT_EQ(0, proc_uprobes_line(0, pun_many_fn(1), line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, " breakpoint pun-memo-limit")) TH_LOG("%s", line);

	ASSERT_EQ(0, munmap(hole, MEMO_MAPS * len));
	ASSERT_EQ(6, proc_uprobes_counts(&c));
	EXPECT_EQ(0, c.memos);
	ASSERT_EQ(3, pun_many_fn(1)(2));
	ASSERT_EQ(0, proc_uprobes_line(0, pun_many_fn(1), line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, " punned-jump")) TH_LOG("%s", line);

	slab = slab_kb();
	for (i = MEMO_MAPS; i < MEMO_CHURN; i++) {
		fn = memo_map(file, hole + i * len);
		ASSERT_NE(NULL, fn);
		ASSERT_EQ(1, fn(0));
		ASSERT_EQ(0, munmap(hole + i * len, len));
	}
	TH_LOG("slab %+ld kB after %d more mappings, each called and unmapped",
	       slab_kb() - slab, MEMO_CHURN - MEMO_MAPS);
	ASSERT_EQ(6, proc_uprobes_counts(&c));
	EXPECT_EQ(0, c.memos);
	EXPECT_EQ(MEMO_CHURN, perf_count(nop));
	EXPECT_EQ(2, perf_count(other));
	munmap(hole, MEMO_CHURN * len);
	close(file);
	close(other);
	close(nop);
	tracing_reset();
}

/*
 * A punned nop in text mapped by hand, then moved by mremap(): the
 * jump would move with the text but its hop would not, so it gives way
 * to the breakpoint first.  The moved text runs right, every call
 * counted, and gets a punned jump of its own.
 */
TEST(pun_text_moved_by_mremap)
{
	long page = getpagesize(), off = self_offset(pun_many), len = 2 * page, i;
	long (*fn)(long x);
	char line[512], *map, *hole, *moved;
	int fd, file;

	if (kernel_lacks(_metadata, have_uprobe_jumps(), "jumps to stubs"))
		return;
	fd = probe(_metadata, pun_many);
	file = open(self_path(), O_RDONLY);
	ASSERT_LE(0, file);
	map = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, file, off & -page);
	ASSERT_NE(MAP_FAILED, map);
	fn = (void *)(map + off % page);
	ASSERT_EQ(1, fn(0));
	ASSERT_EQ(2, fn(1));
	ASSERT_EQ(0, proc_uprobes_line(0, fn, line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, " punned-jump")) TH_LOG("before the move: %s", line);

	/* To a fresh address, reserved first so that it is free. */
	hole = mmap(NULL, 16 * len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, hole);
	moved = mremap(map, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, hole + 8 * len);
	ASSERT_NE(MAP_FAILED, moved);
	fn = (void *)(moved + off % page);
	for (i = 0; i < CALLS; i++)
		ASSERT_EQ(i + 1, fn(i));
	EXPECT_EQ(2 + CALLS, perf_count(fd));
	ASSERT_EQ(0, proc_uprobes_line(0, fn, line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, " punned-jump")) TH_LOG("after the move: %s", line);
	munmap(hole, 16 * len);
	close(file);
	close(fd);
}

/*
 * The child of pun_debugger_breakpoint: hits its probe once (the punned
 * jump goes in), tells the parent the first byte it reads at the probe,
 * waits, calls CALLS times, and exits 0 if the sums and the count are
 * right.
 */
static void debugged_child(int go, int tell)
{
	long i, sum = 0, want = 0;
	unsigned char first;
	int fd = self_probe(pun_r15.probe_at);
	char c;

	if (fd < 0 || run(&pun_r15, 1) != 1)
		_exit(2);
	first = READ_FRESH(*(const unsigned char *)pun_r15.probe_at);
	if (write(tell, &first, 1) != 1 || read(go, &c, 1) != 1)
		_exit(3);
	for (i = 0; i < CALLS; i++) {
		sum += pun_r15.fn(i);
		want += pun_r15.expected(i);
	}
	_exit(sum == want && perf_count(fd) == CALLS + 1 ? 0 : 4);
}

/*
 * A debugger puts its breakpoint on the instruction after a punned one,
 * as gdb does after a function's prologue: it reads a word, changes the
 * byte and writes the word back (PTRACE_PEEKTEXT, POKETEXT).  The word
 * it reads shows no jump, but the probe's breakpoint and the file's
 * bytes after it (as this process, unprobed, has them); the tracee stops
 * right after the debugger's int3, and once the word is back it runs on,
 * its probe counting every call.  With jumps to stubs, the child read its
 * own jump before.
 */
TEST(pun_debugger_breakpoint)
{
	unsigned long at = (unsigned long)pun_r15.probe_at, word, bp, file;
	struct user_regs_struct regs;
	int go[2], tell[2], status;
	unsigned char first;
	pid_t pid;

	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(tell));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		debugged_child(go[0], tell[1]);
	ASSERT_EQ(1, read(tell[0], &first, 1));
	if (have_uprobe_jumps())
		EXPECT_EQ(0xe9, first) TH_LOG("the child runs no jump at its probe");
	ASSERT_EQ(0, ptrace(PTRACE_ATTACH, pid, NULL, NULL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, pid, at, NULL);
	ASSERT_EQ(0, errno);
	memcpy(&file, pun_r15.probe_at, sizeof(file));
	EXPECT_EQ((file & ~0xffUL) | 0xcc, word) TH_LOG("the word read: %016lx", word);
	bp = (word & ~(0xffUL << 8 * pun_r15.len)) | 0xccUL << 8 * pun_r15.len;
	ASSERT_EQ(0, ptrace(PTRACE_POKETEXT, pid, at, bp));
	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, NULL, NULL));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP)
		TH_LOG("the child: status %#x", status);
	ASSERT_EQ(0, ptrace(PTRACE_GETREGS, pid, NULL, &regs));
	EXPECT_EQ(at + pun_r15.len + 1, regs.rip);
	/* As the debugger takes its breakpoint out and goes. */
	ASSERT_EQ(0, ptrace(PTRACE_POKETEXT, pid, at, word));
	regs.rip = at + pun_r15.len;
	ASSERT_EQ(0, ptrace(PTRACE_SETREGS, pid, NULL, &regs));
	ASSERT_EQ(0, ptrace(PTRACE_DETACH, pid, NULL, NULL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the child: status %#x", status);
}

/*
 * A debugger's breakpoint put in and taken out at a probed instruction
 * entered by a jump, while the program is stopped: how the debugger
 * reads and writes (a word by PTRACE_PEEKDATA/POKEDATA, or a byte by
 * /proc/PID/mem), and which jump.
 */
FIXTURE(poke) {
	pid_t pid;
};

FIXTURE_VARIANT(poke) {
	const struct target *t;
	bool by_mem;
};

FIXTURE_VARIANT_ADD(poke, jump_by_word) {
	.t = &plain_target,
};

FIXTURE_VARIANT_ADD(poke, jump_by_mem_byte) {
	.t = &plain_target,
	.by_mem = true,
};

FIXTURE_VARIANT_ADD(poke, punned_jump_by_word) {
	.t = &pun_r15,
};

FIXTURE_VARIANT_ADD(poke, punned_jump_by_mem_byte) {
	.t = &pun_r15,
	.by_mem = true,
};

FIXTURE_SETUP(poke)
{
	self->pid = -1;
}

FIXTURE_TEARDOWN(poke)
{
	if (self->pid > 0) {
		kill(self->pid, SIGKILL);
		waitpid(self->pid, NULL, 0);
	}
}

/*
 * The child of poke: hits the probe of @t once (its jump goes in), tells
 * the parent the first byte it reads there, waits, calls CALLS times,
 * and exits 0 if the sums and the count are right.
 */
static void __noreturn poked_child(const struct target *t, int go, int tell)
{
	long i, sum = 0, want = 0;
	unsigned char first;
	int fd = self_probe(t->probe_at);
	char c;

	if (fd < 0 || run(t, 1) != 1)
		_exit(2);
	first = READ_FRESH(*(const unsigned char *)t->probe_at);
	if (write(tell, &first, 1) != 1 || read(go, &c, 1) != 1)
		_exit(3);
	for (i = 0; i < CALLS; i++) {
		sum += t->fn(i);
		want += t->expected(i);
	}
	_exit(sum == want && perf_count(fd) == CALLS + 1 ? 0 : 4);
}

/* The debugger reads or writes (@store) the word or byte at @at of @pid; 0 or -errno. */
static int poke_access(pid_t pid, bool by_mem, unsigned long at, unsigned long *val, bool store)
{
	unsigned char byte = *val;
	int err;

	if (!by_mem) {
		errno = 0;
		if (store)
			return ptrace(PTRACE_POKEDATA, pid, at, *val) ? -errno : 0;
		*val = ptrace(PTRACE_PEEKDATA, pid, at, NULL);
		return -errno;
	}
	err = store ? mem_write(pid, (void *)at, &byte, 1) : mem_read(pid, (void *)at, &byte, 1);
	*val = byte;
	return err ? -EIO : 0;
}

/*
 * As gdb does for "break" then "delete" at the probed address: it reads
 * what is there, writes its int3 over the first byte, then writes what it
 * read back.  What it reads shows no jump (the breakpoint the jump stands
 * for, and the instruction's other bytes), so what it writes back leaves
 * the probed instruction whole: the program runs right, and the probe
 * counts every call.
 */
TEST_F(poke, debugger_breakpoint_in_and_out)
{
	unsigned long at = (unsigned long)variant->t->probe_at, saved, bp;
	int go[2], tell[2], status;
	unsigned char first;

	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(tell));
	self->pid = fork();
	ASSERT_LE(0, self->pid);
	if (!self->pid)
		poked_child(variant->t, go[0], tell[1]);
	ASSERT_EQ(1, read(tell[0], &first, 1));
	if (have_uprobe_jumps())
		ASSERT_EQ(0xe9, first) TH_LOG("the child runs no jump at its probe");
	ASSERT_EQ(0, ptrace(PTRACE_ATTACH, self->pid, NULL, NULL));
	ASSERT_EQ(self->pid, waitpid(self->pid, &status, 0));
	ASSERT_EQ(0, poke_access(self->pid, variant->by_mem, at, &saved, false));
	EXPECT_NE(0xe9, saved & 0xff) TH_LOG("read: %#lx", saved);
	bp = (saved & ~0xffUL) | 0xcc;
	ASSERT_EQ(0, poke_access(self->pid, variant->by_mem, at, &bp, true));
	ASSERT_EQ(0, poke_access(self->pid, variant->by_mem, at, &saved, true));
	ASSERT_EQ(0, ptrace(PTRACE_DETACH, self->pid, NULL, NULL));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(self->pid, waitpid(self->pid, &status, 0));
	self->pid = -1;
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the child: status %#x", status);
}

/*
 * Text mapped writable gets no jump, whose bytes its stores could change:
 * the probe stays on its breakpoint (writable-or-map-end), and the
 * program's store of its instruction's own bytes, as the file has them,
 * leaves every call right and counted.
 */
TEST(no_jump_in_writable_text)
{
	long page = getpagesize(), off = self_offset(jump_nop), i;
	struct proc_uprobes_counts c;
	unsigned char orig[5], *insn;
	long (*fn)(long x);
	char line[512], *map;
	int fd, file;

	if (proc_uprobes_counts(&c) < 4)
		SKIP(return, "no /proc/self/uprobes to tell how a probe is entered");
	fd = probe(_metadata, jump_nop);
	file = open(self_path(), O_RDONLY);
	ASSERT_LE(0, file);
	ASSERT_EQ(5, pread(file, orig, 5, off));
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE, file,
		   off & -page);
	ASSERT_NE(MAP_FAILED, map);
	insn = (unsigned char *)map + off % page;
	fn = (long (*)(long))insn;
	ASSERT_EQ(2, fn(1));
	ASSERT_EQ(0, proc_uprobes_line(0, fn, line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, " breakpoint writable-or-map-end")) TH_LOG("%s", line);
	/* As code that writes itself: the instruction's bytes after the first. */
	memcpy(insn + 1, orig + 1, 4);
	for (i = 0; i < CALLS; i++)
		ASSERT_EQ(i + 1, fn(i));
	EXPECT_EQ(CALLS + 1, perf_count(fd));
	munmap(map, 2 * page);
	close(file);
	close(fd);
}

static sigjmp_buf segv_escape;
static unsigned long segv_ip, segv_sp;

static void on_segv(int sig, siginfo_t *info, void *ctx)
{
	greg_t *gregs = ((ucontext_t *)ctx)->uc_mcontext.gregs;

	segv_ip = gregs[REG_RIP];
	segv_sp = gregs[REG_RSP];
	siglongjmp(segv_escape, 1);
}

/*
 * A stub pushes below the red zone.  Where the stack ends right
 * under it, the push faults in the stub, and the SIGSEGV is delivered as
 * at the probed instruction: ip and stack pointer as the program had them
 * there, never an address in [uprobes].
 */
TEST(fault_in_stub_seen_at_probe)
{
	struct sigaction sa = { .sa_sigaction = on_segv,
				.sa_flags = SA_SIGINFO | SA_ONSTACK };
	long page = sysconf(_SC_PAGESIZE);
	unsigned long call_sp;
	stack_t alt = { 0 };
	char *stack;
	int fd;

	if (kernel_lacks(_metadata, have_uprobe_jumps(), "jumps to stubs"))
		return;
	stack = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, stack);
	ASSERT_EQ(0, mprotect(stack, page, PROT_NONE));
	alt.ss_size = 4 * page;
	alt.ss_sp = malloc(alt.ss_size);
	ASSERT_NE(NULL, alt.ss_sp);
	ASSERT_EQ(0, sigaltstack(&alt, NULL));
	ASSERT_EQ(0, sigaction(SIGSEGV, &sa, NULL));
	fd = self_probe(jump_nop);
	ASSERT_LE(0, fd);
	ASSERT_EQ(2, jump_nop(1));
	ASSERT_NE(0, jump_target(jump_nop));
	/* The call pushes its return address: jump_nop starts 8 bytes lower. */
	call_sp = (unsigned long)stack + page + 64;
	if (!sigsetjmp(segv_escape, 1))
		jump_on_stack(jump_nop, 1, call_sp);
	signal(SIGSEGV, SIG_DFL);
	alt.ss_flags = SS_DISABLE;
	sigaltstack(&alt, NULL);
	EXPECT_EQ((unsigned long)jump_nop, segv_ip);
	EXPECT_EQ(call_sp - 8, segv_sp);
	close(fd);
	free(alt.ss_sp);
	munmap(stack, 2 * page);
}

/*
 * The traced child: one call to arm the jump, then one through the stub;
 * between them it copies what it runs at jump_nop to @code (shared with
 * the parent: a debugger's read shows the breakpoint a jump stands for).
 */
static void __noreturn skipping_child(unsigned char *code)
{
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		_exit(2);
	raise(SIGSTOP);
	jump_nop(1);
	code_at(jump_nop, code);
	raise(SIGSTOP);
	jump_nop(2);
	_exit(0);
}

/* What a PTRACE_SYSCALL tracer does with, and sees of, one syscall. */
struct syscall_watch {
	long nr;	/* the syscall's number */
	bool skip;	/* skipped (orig_rax -1 at its entry stop) */
	long seen;	/* how many times it was made: entry stops */
	long ret;	/* what it returned last, at its exit stop */
	int status;	/* the tracee's wait status, once it ended */
};

/*
 * Runs the stopped tracee @pid with PTRACE_SYSCALL to its next signal,
 * watching its syscalls numbered @w->nr.  Return: the signal, 0 if the
 * tracee ended (its status in @w->status), -1 on a ptrace error; its
 * registers at the stop in @regs.
 */
static int run_watching(pid_t pid, struct syscall_watch *w, struct user_regs_struct *regs)
{
	bool entry = true, watched = false;
	int status;

	if (ptrace(PTRACE_SETOPTIONS, pid, NULL, PTRACE_O_TRACESYSGOOD))
		return -1;
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, pid, NULL, NULL) || waitpid(pid, &status, 0) != pid)
			return -1;
		if (!WIFSTOPPED(status)) {
			w->status = status;
			return 0;
		}
		if (ptrace(PTRACE_GETREGS, pid, NULL, regs))
			return -1;
		if (WSTOPSIG(status) != (SIGTRAP | 0x80))
			return WSTOPSIG(status);
		if (entry) {
			watched = (long)regs->orig_rax == w->nr;
			w->seen += watched;
		}
		if (entry && watched && w->skip) {
			regs->orig_rax = -1;
			if (ptrace(PTRACE_SETREGS, pid, NULL, regs))
				return -1;
		}
		if (!entry && watched)
			w->ret = regs->rax;
		entry = !entry;
	}
}

/* What skip_in_child() saw of the child. */
struct skipped {
	int sig;		/* the signal that stopped it at last, 0 if it exited */
	struct user_regs_struct regs;	/* its registers then */
	struct uprobes_maps maps;	/* its [uprobes] mappings then */
	unsigned long jump;	/* where jump_nop jumped to before the second call, or 0 */
	bool jump_in_maps;	/* that is in its [uprobes] mappings */
	long long hits;		/* of the probe, after both calls */
};

/*
 * A child with a probe on jump_nop (a return probe if @ret), stopped
 * before its second call, which a debugger runs with every syscall @nr
 * skipped, and sees @seen times.  What the child shows goes to @out.
 */
static void skip_in_child(struct __test_metadata *_metadata, int ret, long nr, long seen,
			  struct skipped *out)
{
	struct syscall_watch w = { .nr = nr, .skip = true };
	struct uprobes_maps before;
	struct perf_event_attr attr;
	unsigned char *code;
	int status, fd, rel;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	code = mmap(NULL, 5, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, code);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		skipping_child(code);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, uprobe_perf_attr(&attr, self_path(), self_offset(jump_nop), ret, 0));
	fd = perf_open(&attr, pid, -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, NULL, NULL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP);
	/* After the first call: what the second runs, at jump_nop. */
	ASSERT_EQ(0, uprobes_maps_read(pid, &before));
	if (code[0] == 0xe9) {
		memcpy(&rel, code + 1, sizeof(rel));
		out->jump = (unsigned long)jump_nop + 5 + rel;
		out->jump_in_maps = uprobes_maps_hold(&before, out->jump);
	}
	out->sig = run_watching(pid, &w, &out->regs);
	if (out->sig) {
		EXPECT_EQ(0, uprobes_maps_read(pid, &out->maps));
	} else {
		/* It went through the stub and exited, as unprobed. */
		EXPECT_TRUE(WIFEXITED(w.status) && !WEXITSTATUS(w.status));
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	out->hits = perf_count(fd);
	close(fd);
	munmap(code, 5);
	EXPECT_EQ(seen, w.seen);
}

/*
 * A debugger that would skip the uprobe syscall never sees a stub's,
 * which is taken before the syscall-entry work, as a trap would be.  The
 * first call put in the jump to the stub; the second goes through it, as
 * one hit like the first, and the child exits.
 */
TEST(uprobe_syscall_of_stub_not_seen_by_debugger)
{
	struct skipped out;

	if (kernel_lacks(_metadata, have_uprobe_jumps(), "jumps to stubs"))
		return;
	skip_in_child(_metadata, 0, NR_UPROBE, 0, &out);
	EXPECT_NE(0, out.jump) TH_LOG("no jump at the probe after a hit");
	EXPECT_TRUE(out.jump_in_maps) TH_LOG("the jump goes to %#lx", out.jump);
	EXPECT_EQ(0, out.sig) TH_LOG("stopped by signal %d at %#llx", out.sig, out.regs.rip);
	EXPECT_EQ(2, out.hits);
}

/*
 * A debugger skips the uretprobe syscall of the return trampoline.
 * The task gets SIGILL in the trampoline, and never runs its way out.
 */
TEST(skipped_uretprobe_syscall_stops_in_trampoline)
{
	struct skipped out;

	skip_in_child(_metadata, 1, NR_URETPROBE, 1, &out);
	EXPECT_EQ(SIGILL, out.sig);
	EXPECT_TRUE(uprobes_maps_hold(&out.maps, out.regs.rip))
		TH_LOG("stopped at %#llx", out.regs.rip);
}

static char dispatch_selector;	/* read by the kernel at each syscall */
static long dispatched;		/* syscalls turned into SIGSYS */

/* A dispatcher that knows not the syscall fails it. */
static void on_sigsys(int sig, siginfo_t *info, void *ctx)
{
	((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RAX] = -EPERM;
	__atomic_add_fetch(&dispatched, 1, __ATOMIC_RELAXED);
}

static void select_syscalls(char how)
{
	__atomic_store_n(&dispatch_selector, how, __ATOMIC_RELEASE);
}

/*
 * Turns syscall user dispatch on for this thread, with every syscall
 * blocked but those of libc's return from a signal handler, as a
 * program does that emulates another system's syscalls (Wine); @handler
 * gets their SIGSYS.  0 or -1.
 */
static int block_syscalls(void (*handler)(int sig, siginfo_t *info, void *ctx))
{
	struct sigaction sa = { .sa_sigaction = handler, .sa_flags = SA_SIGINFO }, old;

	if (sigaction(SIGSYS, &sa, NULL) || sigaction(SIGSYS, NULL, &old) || !old.sa_restorer)
		return -1;
	select_syscalls(SYSCALL_DISPATCH_FILTER_BLOCK);
	return prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON,
		     (unsigned long)old.sa_restorer, 16, &dispatch_selector);
}

/*
 * In a child: @t probed (by a return probe if @ret) and called CALLS
 * times, then CALLS times more with syscalls blocked.  Exits 0 if every
 * call computed right and was one hit, and no syscall was dispatched; a
 * child that loops on SIGSYS is killed by the alarm.
 */
static void __noreturn dispatching_child(const struct target *t, int ret)
{
	struct perf_event_attr attr;
	long calls;
	int fd;

	alarm(20);
	if (uprobe_perf_attr(&attr, self_path(), self_offset(t->probe_at), ret, 0))
		_exit(10);
	fd = perf_open(&attr, 0, -1);
	if (fd < 0 || run(t, CALLS) != CALLS || block_syscalls(on_sigsys))
		_exit(11);
	calls = run(t, CALLS);
	select_syscalls(SYSCALL_DISPATCH_FILTER_ALLOW);
	if (calls != CALLS)
		_exit(1);
	if (__atomic_load_n(&dispatched, __ATOMIC_RELAXED))
		_exit(2);
	_exit(perf_count(fd) == 2 * CALLS ? 0 : 3);
}

static void expect_dispatching_child(struct __test_metadata *_metadata,
				     const struct target *t, int ret)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		dispatching_child(t, ret);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status %#x: exit 1 a wrong result, 2 SIGSYS, 3 hits miscounted",
		       status);
	EXPECT_FALSE(WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		TH_LOG("SIGSYS without end: the alarm ended the child");
}

/*
 * A thread that blocks its syscalls with syscall user dispatch runs the
 * probed code right, each call one hit, and is never sent SIGSYS for a
 * syscall it did not make: uprobes let the stubs' syscall through, as the
 * kernel does the vDSO's sigreturn.
 */
TEST_F(jump, syscalls_blocked_by_user_dispatch)
{
	expect_dispatching_child(_metadata, &variant->t, 0);
}

/*
 * The same for a return probe, whose trampoline's syscall is let
 * through too.  The function starts with a push, which makes no jump: the
 * trampoline's is the only syscall of uprobes on the way.
 */
TEST(return_probe_with_syscalls_blocked_by_user_dispatch)
{
	static const struct target t = { jump_never, jump_never, plus1 };

	expect_dispatching_child(_metadata, &t, 1);
}

static sigjmp_buf dispatch_escape;
static long dispatched_nr;

static void on_sigsys_escape(int sig, siginfo_t *info, void *ctx)
{
	dispatched_nr = info->si_syscall;
	select_syscalls(SYSCALL_DISPATCH_FILTER_ALLOW);
	siglongjmp(dispatch_escape, 1);
}

/*
 * In a child with syscalls blocked: a jump straight to the syscall
 * instruction of jump_nop's stub, with getppid's number.  Exits 0 if that
 * syscall was dispatched.
 */
static void __noreturn foreign_syscall_child(void)
{
	const unsigned char *stub, *insn;

	alarm(20);
	if (self_probe(jump_nop) < 0 || jump_nop(1) != 2)
		_exit(10);
	stub = (const unsigned char *)jump_target(jump_nop);
	insn = stub ? memmem(stub, 32, "\x0f\x05", 2) : NULL;
	if (!insn || block_syscalls(on_sigsys_escape))
		_exit(11);
	if (!sigsetjmp(dispatch_escape, 0))
		asm volatile("jmp *%1" : : "a" ((long)SYS_getppid), "r" (insn) : "memory");
	_exit(dispatched_nr == SYS_getppid ? 0 : 1);
}

/*
 * Only the uprobe syscall of a stub gets past syscall user
 * dispatch; another syscall made by a jump to the stub's syscall
 * instruction is dispatched.
 */
TEST(other_syscall_at_stub_is_dispatched)
{
	int status;
	pid_t pid;

	if (kernel_lacks(_metadata, have_uprobe_jumps(), "jumps to stubs"))
		return;
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		foreign_syscall_child();
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status %#x: exit 1 not dispatched", status);
}

/* The errno of a syscall that does not exist. */
static int nonexistent_errno(void)
{
	errno = 0;
	syscall(NR_NONE);
	return errno;
}

/*
 * What libbpf's feature probe does: the uprobe syscall called by a
 * program, not from a stub, changes nothing and fails with EPROTO, which
 * tells that the kernel has it; a kernel without it fails as for any
 * syscall it does not have.
 */
TEST(direct_uprobe_syscall_fails)
{
	long ret;
	int err;

	errno = 0;
	ret = syscall(NR_UPROBE);
	err = errno;
	EXPECT_EQ(-1, ret);
	if (err == nonexistent_errno())
		SKIP(return, "no uprobe syscall");
	EXPECT_EQ(EPROTO, err) TH_LOG("errno %d", err);
}

/*
 * In a child stopped for its tracer, which has a probe on jump_nop: two
 * calls (the second through the stub, if any), then the uprobe syscall
 * made directly.  Exits 0 if the calls were right and the syscall failed
 * as it should, 3 if a kernel with jumps made none.
 */
static void __noreturn direct_syscall_child(void)
{
	int want = have_uprobe_syscall() ? EPROTO : nonexistent_errno();
	bool jumps = have_uprobe_jumps();
	long ret;

	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		_exit(2);
	raise(SIGSTOP);
	if (jump_nop(1) != 2 || jump_nop(2) != 3)
		_exit(1);
	if (jumps && !jump_target(jump_nop))
		_exit(3);
	errno = 0;
	ret = syscall(NR_UPROBE);
	_exit(ret == -1 && errno == want ? 0 : 1);
}

/*
 * The uprobe syscall made directly, by a program whose probe was hit
 * through a stub, is an ordinary syscall: a PTRACE_SYSCALL tracer sees it,
 * and it alone (never the stub's), and sees it fail: EPROTO, or as a
 * syscall that does not exist (ENOSYS) where it does not.
 */
TEST(direct_uprobe_syscall_seen_by_tracer)
{
	struct syscall_watch w = { .nr = NR_UPROBE, .ret = 1 };
	long want = -(have_uprobe_syscall() ? EPROTO : nonexistent_errno());
	struct perf_event_attr attr;
	struct user_regs_struct regs;
	int status, fd, rc;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		direct_syscall_child();
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP);
	ASSERT_EQ(0, uprobe_perf_attr(&attr, self_path(), self_offset(jump_nop), 0, 0));
	fd = perf_open(&attr, pid, -1);
	if (fd < 0)
		kill(pid, SIGKILL);
	ASSERT_LE(0, fd);
	rc = run_watching(pid, &w, &regs);
	if (rc) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	EXPECT_EQ(0, rc) TH_LOG("the child stopped with signal %d", rc);
	EXPECT_EQ(1, w.seen) TH_LOG("the tracer saw syscall %d %ld times", NR_UPROBE, w.seen);
	EXPECT_EQ(want, w.ret);
	EXPECT_TRUE(WIFEXITED(w.status) && WEXITSTATUS(w.status) == 0)
		TH_LOG("child status %#x: exit 1 a wrong result, 3 no jump", w.status);
	EXPECT_EQ(2, perf_count(fd));
	close(fd);
}

#define SYSEMU_CALLS	200

static long sysemu_sum;	/* what the traced child computed, for its tracer */

/*
 * The child of a PTRACE_SYSEMU tracer: stops, then sums @t over
 * SYSEMU_CALLS calls, with no syscall, for the tracer to read at its
 * exit_group.
 */
static void __noreturn sysemu_child(const struct target *t)
{
	long i, sum = 0;

	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		_exit(2);
	kill(getpid(), SIGSTOP);
	for (i = 0; i < SYSEMU_CALLS; i++)
		sum += t->fn(i - SYSEMU_CALLS / 2);
	__atomic_store_n(&sysemu_sum, sum, __ATOMIC_RELAXED);
	_exit(0);
}

/*
 * Runs the stopped tracee @pid as a tracer with PTRACE_SYSEMU does that
 * emulates every syscall it sees: each stops the tracee at its entry and
 * is never made, and returns what rax holds there (ENOSYS, as the syscall
 * entry sets it).  At exit_group the tracee is left stopped.  Counts the
 * syscalls seen before it in @seen, and the uprobe syscalls among them in
 * @uprobe_seen.  Return: 0 at exit_group, the signal that stopped the
 * tracee otherwise, -1 if it ended or on a ptrace error.
 */
static int run_sysemu(pid_t pid, long *seen, long *uprobe_seen)
{
	struct user_regs_struct regs;
	int status;

	for (;;) {
		if (ptrace(PTRACE_SYSEMU, pid, NULL, NULL) || waitpid(pid, &status, 0) != pid ||
		    !WIFSTOPPED(status))
			return -1;
		if (WSTOPSIG(status) != (SIGTRAP | 0x80))
			return WSTOPSIG(status);
		if (ptrace(PTRACE_GETREGS, pid, NULL, &regs))
			return -1;
		if (regs.orig_rax == SYS_exit_group)
			return 0;
		(*seen)++;
		*uprobe_seen += regs.orig_rax == NR_UPROBE;
	}
}

/*
 * A tracer with PTRACE_SYSEMU (user-mode kernels, gVisor's ptrace
 * platform) emulates every syscall its tracee makes, and makes none: it
 * sees no syscall of a hit, only the tracee's exit_group after a loop of
 * calls without a syscall, and the tracee's sum is right (no uprobes stub
 * is sent on with its syscall undone, to its ud2).  Each call is one
 * hit, and with jumps to stubs the jump is in place.
 */
TEST_F(jump, sysemu_tracer_sees_no_hit)
{
	const struct target *t = &variant->t;
	long i, want = 0, sum, seen = 0, uprobe_seen = 0;
	struct perf_event_attr attr;
	char line[512];
	long long count;
	int status, sig;
	pid_t pid;

	for (i = 0; i < SYSEMU_CALLS; i++)
		want += t->expected(i - SYSEMU_CALLS / 2);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		sysemu_child(t);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP);
	ASSERT_EQ(0, ptrace(PTRACE_SETOPTIONS, pid, NULL,
			    PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL));
	ASSERT_EQ(0, uprobe_perf_attr(&attr, self_path(), self_offset(t->probe_at), 0, 0));
	self->fd = perf_open(&attr, pid, -1);
	ASSERT_LE(0, self->fd);
	sig = run_sysemu(pid, &seen, &uprobe_seen);
	sum = ptrace(PTRACE_PEEKDATA, pid, &sysemu_sum, NULL);
	/* A ptrace read shows a jump as the breakpoint: ask proc. */
	if (proc_uprobes_line(pid, t->probe_at, line, sizeof(line)))
		line[0] = 0;
	count = perf_count(self->fd);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	EXPECT_EQ(0, sig) TH_LOG("the child stopped with signal %d (%s) before its exit_group",
				 sig, sig > 0 ? strsignal(sig) : "none");
	EXPECT_EQ(0, uprobe_seen) TH_LOG("the tracer saw the uprobe syscall");
	EXPECT_EQ(0, seen) TH_LOG("the tracer saw %ld syscalls", seen);
	EXPECT_EQ(want, sum);
	EXPECT_EQ(SYSEMU_CALLS, count);
	if (kernel_lacks(_metadata, have_uprobe_jumps(), "jumps to stubs"))
		return;
	EXPECT_NE(NULL, strstr(line, t->len ? " punned-jump" : " jump"))
		TH_LOG("no jump at the probe: %s", line);
}

#define STRACE		"/usr/bin/strace"
#define STRACE_CALLS	200

/*
 * What "uprobe_jump --straced" does, run by strace: probes jump_nop and
 * pun_push_rbp, calls each once (where a kernel with jumps puts its jump,
 * and its punned jump), then STRACE_CALLS times, each after a getppid().
 * Exits 0 if every call was right and one hit, 1 on a wrong result, 2 if
 * the hits were miscounted, 3 if a kernel with jumps made none, 4 if a
 * probe could not be made.  Whether the kernel has jumps is asked before
 * the loop, whose syscalls the test counts.
 */
static void __noreturn straced_main(void)
{
	int fd = self_probe(jump_nop), pun = self_probe(pun_push_rbp);
	bool jumps = have_uprobe_jumps();
	long i;

	if (fd < 0 || pun < 0)
		_exit(4);
	if (jump_nop(0) != 1 || pun_push_rbp(0) != 1)
		_exit(1);
	if (jumps && (!jump_target(jump_nop) || !jump_target(pun_push_rbp)))
		_exit(3);
	for (i = 0; i < STRACE_CALLS; i++) {
		syscall(SYS_getppid);
		if (jump_nop(i) != i + 1 || pun_push_rbp(i) != i + 1)
			_exit(1);
	}
	if (perf_count(fd) != STRACE_CALLS + 1 || perf_count(pun) != STRACE_CALLS + 1)
		_exit(2);
	_exit(0);
}

/*
 * The name of the syscall a line of strace -f shows ("PID NAME(..."), in
 * @name of @size bytes; false for another kind of line.
 */
static bool strace_syscall(const char *line, char *name, size_t size)
{
	size_t n;

	line += strspn(line, "0123456789");
	line += strspn(line, " ");
	n = strspn(line, "abcdefghijklmnopqrstuvwxyz0123456789_");
	if (!n || n >= size || line[n] != '(')
		return false;
	memcpy(name, line, n);
	name[n] = '\0';
	return true;
}

/* What strace showed of the program's loop. */
struct strace_seen {
	int getppid;	/* getppid() lines */
	int uprobe;	/* lines of the uprobe syscall, by any name */
	int loop;	/* lines from the first getppid() to the last */
};

/* Reads strace's output file @path into @s, and logs a uprobe syscall line; 0 or -1. */
static int strace_read(struct __test_metadata *_metadata, const char *path,
		       struct strace_seen *s)
{
	int line_nr = 0, first = 0, last = 0;
	char *line = NULL, name[64];
	size_t size = 0;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -1;
	memset(s, 0, sizeof(*s));
	while (getline(&line, &size, f) > 0) {
		line_nr++;
		if (!strace_syscall(line, name, sizeof(name)))
			continue;
		if (!strcmp(name, "uprobe") || !strcmp(name, "syscall_0x150") ||
		    !strcmp(name, "syscall_336")) {
			line[strcspn(line, "\n")] = '\0';
			if (!s->uprobe)
				TH_LOG("strace: %s", line);
			s->uprobe++;
		}
		if (strcmp(name, "getppid"))
			continue;
		s->getppid++;
		first = first ?: line_nr;
		last = line_nr;
	}
	s->loop = first ? last - first + 1 : 0;
	free(line);
	fclose(f);
	return 0;
}

/*
 * Under strace, a program whose probes are hit through a stub (with jumps),
 * one by a punned jump, shows its own syscalls only: none for a hit, and
 * in its loop exactly its getppid() calls, one a call.  The breakpoint of
 * a kernel that traps on every hit shows nothing either.
 */
TEST(strace_shows_no_hit)
{
	char out[] = "/tmp/uprobe_jump_strace.XXXXXX";
	char *const argv[] = { STRACE, "-f", "-o", out, (char *)self_path(), "--straced", NULL };
	struct strace_seen seen;
	int fd, rc;

	if (access(STRACE, X_OK))
		SKIP(return, "no %s", STRACE);
	fd = mkstemp(out);
	ASSERT_LE(0, fd);
	close(fd);
	rc = run_wait(argv);
	ASSERT_EQ(0, strace_read(_metadata, out, &seen));
	unlink(out);
	EXPECT_EQ(0, rc) TH_LOG("the traced program: exit %d (1 a wrong result, 2 hits %s)", rc,
				"miscounted, 3 no jump, 4 no probe");
	EXPECT_EQ(0, seen.uprobe) TH_LOG("strace showed the uprobe syscall %d times", seen.uprobe);
	EXPECT_EQ(STRACE_CALLS, seen.getppid);
	EXPECT_EQ(STRACE_CALLS, seen.loop) TH_LOG("%d lines in the loop", seen.loop);
}

/* The general registers of struct jump_keep_regs, in its order. */
enum keep_reg {
	KEEP_RAX, KEEP_RBX, KEEP_RCX, KEEP_RDX, KEEP_RSI, KEEP_RDI, KEEP_RBP, KEEP_R8,
	KEEP_R9, KEEP_R10, KEEP_R11, KEEP_R12, KEEP_R13, KEEP_R14, KEEP_R15, KEEP_GPRS
};

static const char * const keep_names[KEEP_GPRS] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8",
	"r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

/*
 * The flags a call starts with, in turn: all the arithmetic flags set,
 * none, and two halves.  DF stays clear, as the ABI wants it.
 */
#define FLAGS_ARITH	(X86_EFLAGS_CF | X86_EFLAGS_PF | X86_EFLAGS_AF | X86_EFLAGS_ZF | \
			 X86_EFLAGS_SF | X86_EFLAGS_OF)
static const unsigned long keep_flags[] = {
	FLAGS_ARITH, 0,
	X86_EFLAGS_CF | X86_EFLAGS_ZF | X86_EFLAGS_OF,
	X86_EFLAGS_PF | X86_EFLAGS_AF | X86_EFLAGS_SF,
};

/* One probed instruction: the register it writes (-1: none), and with what. */
struct keep_case {
	void (*fn)(void);
	const unsigned char *insn;
	int reg;
	unsigned long (*value)(const struct jump_keep_regs *in);
};

static unsigned long keep_imm_ecx(const struct jump_keep_regs *in)
{
	return 0x6d5e4f30;
}

static unsigned long keep_imm_r11(const struct jump_keep_regs *in)
{
	return -0x12345678UL;
}

static unsigned long keep_datum_address(const struct jump_keep_regs *in)
{
	return (unsigned long)&jump_keep_datum;
}

static unsigned long keep_rdx_plus(const struct jump_keep_regs *in)
{
	return in->gpr[KEEP_RDX] + 0x12345678;
}

static unsigned long keep_datum(const struct jump_keep_regs *in)
{
	return jump_keep_datum;
}

FIXTURE(keep) {
	int fd;
};

FIXTURE_SETUP(keep)
{
	self->fd = -1;
}

FIXTURE_TEARDOWN(keep)
{
	if (self->fd >= 0)
		close(self->fd);
}

FIXTURE_VARIANT(keep) {
	struct keep_case c;
};

FIXTURE_VARIANT_ADD(keep, nop5) {
	.c = { jump_keep_nop5, jump_keep_nop5_insn, -1, NULL },
};

FIXTURE_VARIANT_ADD(keep, mov_imm32_ecx) {
	.c = { jump_keep_movimm_ecx, jump_keep_movimm_ecx_insn, KEEP_RCX, keep_imm_ecx },
};

FIXTURE_VARIANT_ADD(keep, mov_imm32_r11) {
	.c = { jump_keep_movimm_r11, jump_keep_movimm_r11_insn, KEEP_R11, keep_imm_r11 },
};

FIXTURE_VARIANT_ADD(keep, lea_rip_rax) {
	.c = { jump_keep_learip_rax, jump_keep_learip_rax_insn, KEEP_RAX, keep_datum_address },
};

FIXTURE_VARIANT_ADD(keep, lea_disp32_r8) {
	.c = { jump_keep_lea_r8, jump_keep_lea_r8_insn, KEEP_R8, keep_rdx_plus },
};

FIXTURE_VARIANT_ADD(keep, mov_rip_load_r11) {
	.c = { jump_keep_movrip_r11, jump_keep_movrip_r11_insn, KEEP_R11, keep_datum },
};

/* Seed @i of call @call: those of a call all differ, and each differs from call to call. */
static unsigned long keep_seed(int i, long call)
{
	return (i + 1) * 0x0f1e2d3c4b5a6978UL ^ call * 0x100000001UL;
}

/* Seeds jump_keep_in for call @call. */
static void keep_seed_all(long call)
{
	struct jump_keep_regs *in = &jump_keep_in;
	int i;

	for (i = 0; i < KEEP_GPRS; i++)
		in->gpr[i] = keep_seed(i, call);
	in->rsp = 0;
	in->flags = keep_flags[call % ARRAY_SIZE(keep_flags)] | X86_EFLAGS_FIXED;
	in->xmm0[0] = keep_seed(KEEP_GPRS, call);
	in->xmm0[1] = keep_seed(KEEP_GPRS + 1, call);
	in->xmm15[0] = keep_seed(KEEP_GPRS + 2, call);
	in->xmm15[1] = keep_seed(KEEP_GPRS + 3, call);
}

/* Logs each way @got differs from @want, for call @call; how many. */
static int keep_diff(struct __test_metadata *_metadata, const struct jump_keep_regs *want,
		     const struct jump_keep_regs *got, long call)
{
	int i, diff = 0;

	for (i = 0; i < KEEP_GPRS; i++) {
		if (got->gpr[i] == want->gpr[i])
			continue;
		TH_LOG("call %ld: %s %#lx, not %#lx", call, keep_names[i], got->gpr[i],
		       want->gpr[i]);
		diff++;
	}
	if (got->rsp != want->rsp) {
		TH_LOG("call %ld: rsp %#lx, not %#lx", call, got->rsp, want->rsp);
		diff++;
	}
	if (got->flags != want->flags) {
		TH_LOG("call %ld: flags %#lx, not %#lx", call, got->flags, want->flags);
		diff++;
	}
	if (memcmp(got->xmm0, want->xmm0, sizeof(got->xmm0))) {
		TH_LOG("call %ld: xmm0 %#lx:%#lx, not %#lx:%#lx", call, got->xmm0[1],
		       got->xmm0[0], want->xmm0[1], want->xmm0[0]);
		diff++;
	}
	if (memcmp(got->xmm15, want->xmm15, sizeof(got->xmm15))) {
		TH_LOG("call %ld: xmm15 %#lx:%#lx, not %#lx:%#lx", call, got->xmm15[1],
		       got->xmm15[0], want->xmm15[1], want->xmm15[0]);
		diff++;
	}
	return diff;
}

/*
 * Calls @c's function for calls @from to @to - 1, each with new seeds, and
 * checks what it stored: the seeds, the interrupt flag on (popf leaves it
 * be), the register the instruction writes written, and the stack pointer
 * it ran with.
 */
static void keep_calls(struct __test_metadata *_metadata, const struct keep_case *c,
		       long from, long to)
{
	struct jump_keep_regs want;
	long call;

	for (call = from; call < to; call++) {
		keep_seed_all(call);
		c->fn();
		want = jump_keep_in;
		want.flags |= X86_EFLAGS_IF;
		if (c->reg >= 0)
			want.gpr[c->reg] = c->value(&jump_keep_in);
		ASSERT_EQ(0, keep_diff(_metadata, &want, &jump_keep_out, call));
	}
}

#define KEEP_CALLS	200

/*
 * Each kind of probed instruction of 5 bytes or more keeps every general
 * register, the flags, xmm0 and xmm15 as it leaves them unprobed: at the
 * first hit (the breakpoint) and at each after it, through the stub, if
 * any.  The calls before the probe check the expectations.
 */
TEST_F(keep, registers_flags_and_xmm)
{
	const struct keep_case *c = &variant->c;

	keep_calls(_metadata, c, 0, 4);
	self->fd = probe(_metadata, c->insn);
	keep_calls(_metadata, c, 4, 5);
	if (have_uprobe_jumps())
		ASSERT_NE(0, jump_target(c->insn)) TH_LOG("no jump at the probe after a hit");
	keep_calls(_metadata, c, 5, KEEP_CALLS);
	EXPECT_EQ(KEEP_CALLS - 4, perf_count(self->fd));
}

int main(int argc, char **argv)
{
	/* The program strace_shows_no_hit has strace run. */
	if (argc == 2 && !strcmp(argv[1], "--straced"))
		straced_main();
	return test_harness_run(argc, argv);
}
