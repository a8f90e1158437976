// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * arm64 side of uprobes, jumps to stubs (ARCH_UPROBES_JUMPS): a probe
 * entered by a branch to a stub of its own and the stub's svc, in place
 * of the brk exception and, for an instruction that is not simulated, the
 * single-step exception after it.  One exception a hit, never two.
 *
 * The core (kernel/events/uprobes/jumps.c and stub_pages.c) decides when
 * a probe gets a jump, places its stub within a branch's reach and writes
 * both.  This file says what they hold, and how a task goes through them:
 *
 *  - which probes (arch_uprobe_can_jump()): every instruction the analysis
 *    accepted, in a 64-bit task that no debugger steps.  The jump is a b
 *    written over the probe's brk: one aligned word, and both are
 *    instructions the architecture lets a running CPU see change.  A stub
 *    lies within the b's +-128 MiB (arch_uprobe_stub_reach()).
 *
 *  - the stub (arch_uprobe_stub_code()): an svc with the immediate
 *    UPROBE_SVC_IMM, then a copy of the instruction when it is one that
 *    runs out of line (it does not read the pc), then a b back to the next
 *    instruction.  An instruction arm64 simulates has no copy: the kernel
 *    simulates it at the svc.  The stub saves no register and touches no
 *    memory: the svc's immediate, which system calls leave 0, tells the
 *    entry code that the svc may be a stub's, and a stub of the mm
 *    starting at the svc (uprobe_stub_site()) makes it the probe's hit
 *    (uprobe_stub_site_hit()), before any of a system call's work.
 *    Nothing of a system call runs for it: no tracer, seccomp filter,
 *    audit rule or syscall tracepoint sees it, and the task's SVE and SME
 *    state is kept as it is, as at any instruction.  The task returns by
 *    eret, which restores every register, to the copy or to wherever the
 *    handlers or the simulation sent it.
 *
 *  - BTI (uprobe_bti_jump()): a function's first instruction, in a page
 *    guarded by PROT_BTI, is a landing pad (bti c, paciasp) for indirect
 *    calls; the b written over it is not one.  do_el0_bti() asks here
 *    first: a b of the mm to one of its stubs clears PSTATE.BTYPE and is
 *    run again.  The stub's page is not guarded.  In the stub, a copy of
 *    bti c runs as a nop, as after any direct branch, and paciasp signs
 *    lr with the same sp as in place.
 *
 *  - a signal in a stub: at the svc, before it ran, the task is delivered
 *    at the probed instruction (arch_uprobe_stub_unwind()); at the copy it
 *    waits while the task is stepped over the copy
 *    (arch_uprobe_step_copy()); at the b back, past the probed instruction
 *    (the core).
 *
 *  - a debugger's single-step: no jump is made for a task being stepped,
 *    but one made before may be stepped over.  The step exception at the
 *    entry of a stub is taken for the brk there was
 *    (uprobe_stub_step_trap(), from uprobe_single_step_handler()), and
 *    the debugger's step ends past the probed instruction, never in the
 *    stub.
 *
 * Calling context: process context.  The hooks that compute on words only
 * (arch_uprobe_stub_code(), arch_uprobe_jump(), arch_uprobe_jump_target(),
 * arch_uprobe_stub_reach()) may run in any task; the others in the probed
 * task, at its svc, its BTI exception or its way back to user mode.
 */

#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <linux/uprobes.h>

#include <asm/insn.h>
#include <asm/ptrace.h>

/* The svc that starts every stub. */
#define UPROBE_SVC_INSN		(0xd4000001 | (UPROBE_SVC_IMM << 5))

/*
 * thread.fault_code while a copy is stepped, until a fault of the copy
 * sets it: the value arm64's arch_uprobe_xol_was_trapped() tests.
 */
#define UPROBE_NO_FAULT		UINT_MAX

/**
 * arch_uprobe_can_jump - may the probe get a jump to a stub now?
 * @aup: the probed instruction, accepted by the analysis
 * @task: a task of the probed process: the one that hit it, or one whose
 *	state /proc/PID/uprobes tells (its stack held)
 * @regs: @task's registers
 *
 * Every accepted instruction is simulated or runs out of line, in a stub
 * as in an XOL slot.  The task must run 64-bit code, and no debugger may
 * be stepping it (it steps the brk's way).
 *
 * Return: true if it may.
 */
bool arch_uprobe_can_jump(struct arch_uprobe *aup, struct task_struct *task,
			  struct pt_regs *regs)
{
	return !compat_user_mode(regs) && !test_tsk_thread_flag(task, TIF_SINGLESTEP);
}

/* A b from @from to @to, or AARCH64_BREAK_FAULT out of its reach. */
static u32 uprobe_branch(unsigned long from, unsigned long to)
{
	return aarch64_insn_gen_branch_imm(from, to, AARCH64_INSN_BRANCH_NOLINK);
}

/**
 * arch_uprobe_stub_code - the code of a stub
 * @aup: the probed instruction
 * @vaddr: the probed address
 * @stub: the stub's address, within a b's reach of @vaddr
 * @code: UPROBE_STUB_BYTES bytes to fill
 * @copy_len: set to the length of the copied instruction, or 0 when the
 *	stub has no copy (the instruction is simulated at the svc)
 *
 * The svc, then at UPROBE_STUB_COPY the copy of an instruction that is
 * not simulated, then a b to the next original instruction.  The rest is
 * udf #0.
 *
 * Return: the length of the code, or 0 when the next instruction is out
 * of reach.
 */
size_t arch_uprobe_stub_code(struct arch_uprobe *aup, unsigned long vaddr,
			     unsigned long stub, u8 *code, size_t *copy_len)
{
	unsigned long at = stub + UPROBE_STUB_COPY;
	u32 back;

	BUILD_BUG_ON(UPROBE_STUB_COPY + 2 * AARCH64_INSN_SIZE > UPROBE_STUB_BYTES);
	BUILD_BUG_ON(UPROBE_SVC_IMM > 0xffff);
	memset(code, 0, UPROBE_STUB_BYTES);
	put_unaligned_le32(UPROBE_SVC_INSN, code);
	*copy_len = 0;
	if (!aup->simulate) {
		memcpy(code + UPROBE_STUB_COPY, &aup->insn, AARCH64_INSN_SIZE);
		*copy_len = AARCH64_INSN_SIZE;
		at += AARCH64_INSN_SIZE;
	}
	back = uprobe_branch(at, vaddr + AARCH64_INSN_SIZE);
	if (back == AARCH64_BREAK_FAULT)
		return 0;
	put_unaligned_le32(back, code + (at - stub));
	return at - stub + AARCH64_INSN_SIZE;
}

/**
 * arch_uprobe_jump - the jump from a probed address to its stub
 * @vaddr: the probed address
 * @stub: the stub's address, within a b's reach of @vaddr
 * @code: UPROBE_JUMP_BYTES bytes to fill
 */
void arch_uprobe_jump(unsigned long vaddr, unsigned long stub, u8 *code)
{
	put_unaligned_le32(uprobe_branch(vaddr, stub), code);
}

/**
 * arch_uprobe_jump_target - where a jump written by arch_uprobe_jump() goes
 * @code: UPROBE_JUMP_BYTES bytes read at @vaddr
 * @vaddr: where they were read
 *
 * Return: the target if @code is a b, else 0.
 */
unsigned long arch_uprobe_jump_target(const u8 *code, unsigned long vaddr)
{
	u32 insn = get_unaligned_le32(code);

	if (!aarch64_insn_is_b(insn))
		return 0;
	return vaddr + aarch64_get_branch_offset(insn);
}

/**
 * arch_uprobe_stub_reach - how far a stub may be from its probed address
 *
 * Return: the largest distance, in either direction, that a b spans from
 * any word of a page to any word of another page.
 */
unsigned long arch_uprobe_stub_reach(void)
{
	return SZ_128M - 2 * PAGE_SIZE;
}

/**
 * arch_uprobe_stub_unwind - undo what a stub did before its svc
 * @regs: the task's registers, the pc in a stub
 * @offset: the pc's offset in the stub
 *
 * Nothing: a stub changes no register before its svc.
 *
 * Return: true at the svc, where the task is delivered as at the probed
 * instruction (the caller sets the pc); false elsewhere.
 */
bool arch_uprobe_stub_unwind(struct pt_regs *regs, unsigned long offset)
{
	return offset == 0;
}

/**
 * arch_uprobe_stub_leave - take a task through the rest of a stub's way out
 * @regs: the task's registers, the pc in a stub
 * @offset: the pc's offset in the stub
 * @straight: where the stub's straight way out would lead
 *
 * Return: false: an arm64 stub has no way out of its own (eret restores
 * every register).
 */
bool arch_uprobe_stub_leave(struct pt_regs *regs, unsigned long offset, unsigned long straight)
{
	return false;
}

/**
 * arch_uprobe_step_copy - step the task over the copy its pc is at
 * @autask: unused (arm64 keeps nothing per task for it)
 * @regs: the task's registers
 *
 * As a step in an XOL slot: arch_uprobe_xol_was_trapped() tells whether
 * the copy trapped instead.
 */
void arch_uprobe_step_copy(struct arch_uprobe_task *autask, struct pt_regs *regs)
{
	current->thread.fault_code = UPROBE_NO_FAULT;
	user_enable_single_step(current);
}

/**
 * arch_uprobe_step_copy_end - undo arch_uprobe_step_copy()
 * @autask: unused
 * @regs: the task's registers
 */
void arch_uprobe_step_copy_end(struct arch_uprobe_task *autask, struct pt_regs *regs)
{
	user_disable_single_step(current);
}

/**
 * uprobe_bti_jump - a Branch Target exception at a jump to a stub
 * @regs: the task's registers, the pc where an indirect branch landed
 *
 * A jump written over a landing pad (bti c, paciasp) is no landing pad:
 * an indirect call of the function traps.  When the pc holds a b to a
 * stub of the mm, the branch is taken as if it had landed on the pad.
 *
 * Return: true when PSTATE.BTYPE is cleared, and the b is to run again.
 */
bool uprobe_bti_jump(struct pt_regs *regs)
{
	struct mm_struct *mm = current->mm;
	u8 code[AARCH64_INSN_SIZE];
	unsigned long target;

	if (!mm || !test_bit(MMF_HAS_UPROBES, &mm->flags) ||
	    copy_from_user(code, (void __user *)regs->pc, sizeof(code)))
		return false;
	target = arch_uprobe_jump_target(code, regs->pc);
	if (!target || !uprobe_stub_site(target))
		return false;
	regs->pstate &= ~PSR_BTYPE_MASK;
	return true;
}
