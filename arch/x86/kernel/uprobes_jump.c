// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 side of uprobes, jumps to stubs (ARCH_UPROBES_JUMPS, x86-64 only):
 * a probe entered by a syscall from a stub of its own, in place of the
 * int3 trap.
 *
 * The core (kernel/events/uprobes/jumps.c and stub_pages.c) decides when
 * a probe gets a jump, places its stub in a page of stubs within reach,
 * writes both and takes them out again.  This file says what they hold,
 * and how a task goes into the kernel through a stub and back out:
 *
 *  - which probes (arch_uprobe_can_jump()): once hit, an instruction that
 *    is emulated or runs out of line without a step (RIP-relative or not),
 *    of 5 bytes or more, so that the jmp rel32 written over its first 5
 *    (arch_uprobe_jump()) covers no other instruction; in a 64-bit task
 *    that no debugger steps and that has no shadow stack.  A stub lies
 *    within a rel32's reach of its probe (arch_uprobe_stub_reach()).
 *
 *  - the stub (arch_uprobe_stub_code(), uprobe_stub[] below): it moves the
 *    stack pointer below the red zone of a leaf function, which a call
 *    would write into, pushes rax, rcx and r11, which the syscall
 *    clobbers, and makes the uprobe syscall (336).  An instruction the
 *    kernel does not emulate, or a push, follows as a copy (a RIP-relative
 *    operand's displacement recomputed for the copy's place), then a jump
 *    back to the next original instruction.
 *
 *  - the way in: do_syscall_64() hands the syscall of a stub of the mm to
 *    uprobe_syscall_entry() before the syscall-entry work, so that no
 *    tracer, seccomp filter or audit rule sees it; sys_uprobe() refuses
 *    any other.  The core puts the registers back as they were at the
 *    probed instruction (arch_uprobe_stub_enter()) and goes on as after
 *    the breakpoint: it emulates the instruction, or sends the task to
 *    the stub's copy.
 *
 *  - the way back (arch_uprobe_stub_exit()): sysret, to one of the stub's
 *    two ways out.  When the hit changed nothing the stub saved and the
 *    task goes on to the copy, or with no copy to the next instruction:
 *    the straight way out, which pops what the stub saved and runs on
 *    into the copy, or into the jump that stands in its place.  Else the
 *    way out, which pops what sysret cannot restore from a frame the
 *    kernel wrote below the red zone, and returns to where the task goes
 *    on.  iret when sysret cannot restore the task at all.  A syscall and
 *    sysret cost far less than the int3 trap and its iret.
 *
 *  - a signal in a stub: before the syscall, the task is delivered as at
 *    the probed instruction, with what the stub did undone
 *    (arch_uprobe_stub_unwind()); on a way out, as past it
 *    (arch_uprobe_stub_leave()); at the copy, it waits while the task is
 *    stepped over the copy (arch_uprobe_step_copy()).
 *
 * The ways out and the frames they pop are those of the return
 * trampoline's syscall too, in uprobes.c (uprobes_internal.h).
 *
 * Calling context: process context.  The hooks that only compute on
 * bytes (arch_uprobe_stub_code(), arch_uprobe_jump(),
 * arch_uprobe_jump_target(), arch_uprobe_stub_reach()) may run in any
 * task; the others run in the probed task, at its hit, at its syscall
 * (with interrupts on) or on its way back to user mode, and work on its
 * registers and its user stack.
 */

#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/syscalls.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <linux/uprobes.h>

#include <asm/insn.h>
#include <asm/ptrace.h>
#include <asm/shstk.h>
#include <asm/text-patching.h>
#include <asm/unistd.h>

#include "uprobes_internal.h"

#define UPROBE_RED_ZONE		128
#define UPROBE_STUB_SYSCALL_END	16	/* offset just past the syscall */
#define UPROBE_STUB_MOV_END	14	/* offset just past the mov to eax */
#define UPROBE_STUB_WAY_OUT	18	/* offset of the way out */
#define UPROBE_STUB_STRAIGHT	25	/* offset of the straight way out */

/*
 * The stub, at a stub address: the pushes keep the red zone of a leaf
 * function intact, and sys_uprobe() finds what they saved at the stack
 * pointer, laid out as struct uprobe_tramp_frame.  The kernel comes back
 * with sysret when it can, to one of two ways out.  When the hit left the
 * registers the stub saved and the stack pointer as they were, and the
 * task goes on to the copy or, with no copy, to the next instruction: the
 * straight way out, which pops what the stub saved, moves the stack
 * pointer back above the red zone and runs on into the copy, or into
 * the jump to the next instruction that stands in its place.  The kernel
 * writes nothing on the stack then.  Otherwise: the way out, which pops
 * what the kernel left below the red zone (struct uprobe_exit_frame, in
 * uprobes.c) and returns to where the task goes on.  Between the syscall
 * and the ways out, a ud2 for a task whose syscall was skipped, as in the
 * trampoline.
 */
static const u8 uprobe_stub[] = {
	0x48, 0x8d, 0x64, 0x24, 0x80,	/* lea -0x80(%rsp), %rsp */
	0x50,				/* push %rax */
	0x51,				/* push %rcx */
	0x41, 0x53,			/* push %r11 */
	0xb8, __NR_uprobe & 0xff,	/* mov $__NR_uprobe, %eax */
	__NR_uprobe >> 8, 0x00, 0x00,
	0x0f, 0x05,			/* syscall */
	0x0f, 0x0b,			/* ud2: not after a syscall */
	0x41, 0x5b,			/* pop %r11 */
	0x59,				/* pop %rcx */
	0x58,				/* pop %rax */
	0xc2, UPROBE_RED_ZONE, 0x00,	/* ret $UPROBE_RED_ZONE */
	0x41, 0x5b,			/* straight: pop %r11 */
	0x59,				/* pop %rcx */
	0x58,				/* pop %rax */
	0x48, 0x8d, 0xa4, 0x24,		/* lea UPROBE_RED_ZONE(%rsp), %rsp */
	UPROBE_RED_ZONE, 0x00, 0x00, 0x00,
};

/* How far the stub has moved the stack pointer, at each of its offsets. */
static const u8 uprobe_stub_sp_moved[UPROBE_STUB_WAY_OUT] = {
	[5] = UPROBE_RED_ZONE, [6] = UPROBE_RED_ZONE + 8,
	[7 ... 8] = UPROBE_RED_ZONE + 16,
	[9 ... UPROBE_STUB_WAY_OUT - 1] = UPROBE_RED_ZONE + 24,
};

/* Whether @task runs with a shadow stack. */
static bool task_has_shstk(struct task_struct *task)
{
#ifdef CONFIG_X86_USER_SHADOW_STACK
	return task->thread.features & ARCH_SHSTK_SHSTK;
#else
	return false;
#endif
}

/**
 * arch_uprobe_can_jump - may the probe get a jump to a stub now?
 * @aup: the probed instruction
 * @task: a task of the probed process: the one that hit it, or one whose
 *	state /proc/PID/uprobes tells (its stack held)
 * @regs: @task's registers
 *
 * The instruction must be emulated or run out of line without a step
 * (RIP-relative or not); one shorter than the jump gets a punned jump,
 * whose bytes past it are those already there (the core's jumps.c).  The
 * task must be a 64-bit one that
 * no debugger steps (the step trap would come in the stub), with no
 * shadow stack (a call emulated by the kernel would not update it).
 * Syscall user dispatch never sees the stub's syscall: it is taken before
 * the syscall-entry work (uprobe_syscall_entry()).
 *
 * Return: true if it may.
 */
bool arch_uprobe_can_jump(struct arch_uprobe *aup, struct task_struct *task,
			  struct pt_regs *regs)
{
	if (!user_64bit_mode(regs) || (regs->flags & X86_EFLAGS_TF) || task_has_shstk(task))
		return false;
	switch (aup->kind) {
	case UPROBE_KIND_NOP:
	case UPROBE_KIND_PUSH:
	case UPROBE_KIND_JMP:
	case UPROBE_KIND_CALL:
	case UPROBE_KIND_JCC:
	case UPROBE_KIND_LOAD:
		return true;
	case UPROBE_KIND_STEP:
		return aup->fixups == UPROBE_FIX_IP ||
		       aup->fixups == (UPROBE_FIX_IP | UPROBE_FIX_RIP_SCRATCH);
	}
	return false;
}

/*
 * The copy of a RIP-relative instruction at @copy, to run at @at instead
 * of @vaddr: its displacement is made to reach the same operand.  False
 * when the operand is out of a rel32's reach from @at.
 */
static bool uprobe_move_riprel(struct arch_uprobe *aup, u8 *copy,
			       unsigned long vaddr, unsigned long at)
{
	struct insn insn;
	long disp;

	if (insn_decode(&insn, aup->insn, aup->len, INSN_MODE_64) ||
	    insn.displacement.nbytes != 4)
		return false;
	disp = vaddr + (long)insn.displacement.value - (long)at;
	if (disp != (s32)disp)
		return false;
	put_unaligned((s32)disp, (s32 *)&copy[insn_offset_displacement(&insn)]);
	return true;
}

/*
 * Whether a stub runs a copy of the instruction: one not emulated, or a
 * push of a register.  Emulated at the stub's syscall, a push would move
 * the stack pointer, and the task would leave through the way out, which
 * costs a frame written and popped; copied, it runs after the straight
 * one.  Both run the same in the stub as in place.
 */
static bool uprobe_stub_copies(struct arch_uprobe *aup)
{
	return aup->kind == UPROBE_KIND_STEP || aup->kind == UPROBE_KIND_PUSH;
}

/**
 * arch_uprobe_stub_code - the code of a stub
 * @aup: the probed instruction
 * @vaddr: the probed address
 * @stub: the stub's address, within reach of a rel32 from @vaddr
 * @code: UPROBE_STUB_BYTES bytes to fill
 * @copy_len: set to the length of the copied instruction, or 0 when the
 *	stub has no copy (the instruction is emulated at the syscall)
 *
 * Every stub enters the kernel the same way: the kernel knows a stub's
 * probed address from the stub's address.  An instruction that is not
 * emulated, or a push (uprobe_stub_copies()), follows at
 * UPROBE_STUB_COPY, where the straight way out leads,
 * then a jump to the next original instruction; with no copy, the jump is
 * at UPROBE_STUB_COPY.
 *
 * Return: the length of the code, or 0 when a RIP-relative operand is out
 * of reach from the copy.
 */
size_t arch_uprobe_stub_code(struct arch_uprobe *aup, unsigned long vaddr,
			     unsigned long stub, u8 *code, size_t *copy_len)
{
	unsigned long at = stub + UPROBE_STUB_COPY;
	u8 *copy = code + UPROBE_STUB_COPY;

	BUILD_BUG_ON(__NR_uprobe > 0xffff);
	/* The straight way out runs on into the copy. */
	BUILD_BUG_ON(sizeof(uprobe_stub) != UPROBE_STUB_COPY);
	BUILD_BUG_ON(UPROBE_STUB_COPY + MAX_UINSN_BYTES + UPROBE_JUMP_BYTES > UPROBE_STUB_BYTES);
	memset(code, INT3_INSN_OPCODE, UPROBE_STUB_BYTES);
	memcpy(code, uprobe_stub, sizeof(uprobe_stub));
	*copy_len = 0;
	if (!uprobe_stub_copies(aup)) {
		uprobe_put_jump(copy, at, vaddr + aup->len);
		return UPROBE_STUB_COPY + UPROBE_JUMP_BYTES;
	}
	memcpy(copy, aup->insn, aup->len);
	if ((aup->fixups & UPROBE_FIX_RIP_SCRATCH) && !uprobe_move_riprel(aup, copy, vaddr, at))
		return 0;
	uprobe_put_jump(copy + aup->len, at + aup->len, vaddr + aup->len);
	*copy_len = aup->len;
	return UPROBE_STUB_COPY + aup->len + UPROBE_JUMP_BYTES;
}

/**
 * arch_uprobe_jump - the jump from a probed address to its stub
 * @vaddr: the probed address
 * @stub: the stub's address, within reach of a rel32 from @vaddr
 * @code: UPROBE_JUMP_BYTES bytes to fill
 */
void arch_uprobe_jump(unsigned long vaddr, unsigned long stub, u8 *code)
{
	uprobe_put_jump(code, vaddr, stub);
}

/**
 * arch_uprobe_jump_target - where a jump written by arch_uprobe_jump() goes
 * @code: UPROBE_JUMP_BYTES bytes read at @vaddr
 * @vaddr: where they were read
 *
 * Return: the target if @code is a jmp rel32, else 0.
 */
unsigned long arch_uprobe_jump_target(const u8 *code, unsigned long vaddr)
{
	if (code[0] != JMP32_INSN_OPCODE)
		return 0;
	return vaddr + UPROBE_JUMP_BYTES + get_unaligned((s32 *)&code[1]);
}

/**
 * arch_uprobe_pun_window - where a jump over a short instruction may lead
 * @vaddr: the probed address
 * @len: the probed instruction's length
 * @code: the UPROBE_JUMP_BYTES bytes at @vaddr, as the file has them
 * @lo: set to the lowest target
 * @hi: set to the highest
 *
 * A jmp rel32 written over an instruction of @len < UPROBE_JUMP_BYTES
 * bytes runs on into the instructions after it.  Those bytes are left as
 * they are: they are the high bytes of the rel32, and only its low
 * @len - 1 bytes, inside the instruction, are free (instruction punning,
 * as E9Patch does).  The targets are the 2^(8 * (@len - 1)) addresses
 * from @lo; the fixed top byte gives their sign.  @lo may wrap below 0:
 * the caller keeps to user addresses.
 *
 * Return: false if @len leaves no such window.
 */
bool arch_uprobe_pun_window(unsigned long vaddr, unsigned int len, const u8 *code,
			    unsigned long *lo, unsigned long *hi)
{
	u32 rel = get_unaligned((u32 *)&code[1]);
	u32 free_mask;

	if (!len || len >= UPROBE_JUMP_BYTES)
		return false;
	free_mask = (u32)(BIT_ULL(8 * (len - 1)) - 1);
	*lo = vaddr + UPROBE_JUMP_BYTES + (long)(s32)(rel & ~free_mask);
	*hi = *lo + free_mask;
	return true;
}

/**
 * arch_uprobe_stub_reach - how far a stub may be from its probed address
 *
 * Return: the largest distance, in either direction, that a jmp rel32
 * spans from any byte of a page to any byte of another page.
 */
unsigned long arch_uprobe_stub_reach(void)
{
	return SZ_2G - 2 * PAGE_SIZE;
}

/**
 * arch_uprobe_stub_unwind - undo what a stub did before its syscall
 * @regs: the task's registers, the ip in a stub
 * @offset: the ip's offset in the stub
 *
 * A signal that finds a task in a stub before its syscall, or at the ud2
 * after a syscall that was skipped, is delivered as if at the probed
 * instruction: the stack pointer and rax go back to what they were there
 * (the rest the stub did not change).  The caller sets the ip.
 *
 * Return: false if the ip is on the way out, or the stub's saved rax could
 * not be read back: @regs are then unchanged.
 */
bool arch_uprobe_stub_unwind(struct pt_regs *regs, unsigned long offset)
{
	struct uprobe_tramp_frame __user *frame = (void __user *)regs->sp;

	if (offset >= UPROBE_STUB_WAY_OUT)
		return false;
	if (offset >= UPROBE_STUB_MOV_END && get_user(regs->ax, &frame->ax))
		return false;
	regs->sp += uprobe_stub_sp_moved[offset];
	return true;
}

/**
 * arch_uprobe_stub_leave - take a task through the rest of a stub's way out
 * @regs: the task's registers, the ip in a stub
 * @offset: the ip's offset in the stub
 * @straight: where the stub's straight way out leads
 *
 * For a signal that finds a task on one of the ways out of a stub: the
 * registers and the ip become what the rest of the way out would make
 * them, as if it had run.
 *
 * Return: false if @offset is not on a way out, or what is left of the
 * frame could not be read: @regs are then unchanged.
 */
bool arch_uprobe_stub_leave(struct pt_regs *regs, unsigned long offset, unsigned long straight)
{
	if (offset >= UPROBE_STUB_STRAIGHT)
		return offset < UPROBE_STUB_COPY &&
		       uprobe_finish_exit(regs, offset - UPROBE_STUB_STRAIGHT, UPROBE_RED_ZONE,
					  straight);
	if (offset < UPROBE_STUB_WAY_OUT)
		return false;
	return uprobe_finish_exit(regs, offset - UPROBE_STUB_WAY_OUT, UPROBE_RED_ZONE, 0);
}

/**
 * arch_uprobe_stub_exit - leave the kernel through one of a stub's ways out
 * @regs: the registers the task goes on with
 * @stub: the stub the task came through
 * @saved: what arch_uprobe_stub_enter() found the stub had saved
 * @straight: where the stub's straight way out leads
 *
 * A task that goes on to @straight with what the stub saved and its stack
 * pointer unchanged takes the straight way out, which pops what the stub
 * saved, still on the stack: nothing is written there.  Another takes the
 * way out, which pops what sysret cannot restore from below the red zone
 * (uprobe_exit_through()).
 *
 * Return: true if @regs now lead through a way out.
 */
bool arch_uprobe_stub_exit(struct pt_regs *regs, unsigned long stub,
			   const struct arch_uprobe_stub_saved *saved, unsigned long straight)
{
	if (regs->ip == straight && regs->sp == saved->sp && regs->ax == saved->ax &&
	    regs->cx == saved->cx && regs->r11 == saved->r11 && uprobe_may_sysret(regs)) {
		uprobe_sysret_to(regs, stub + UPROBE_STUB_STRAIGHT,
				 regs->sp - UPROBE_RED_ZONE - sizeof(struct uprobe_tramp_frame));
		return true;
	}
	return uprobe_exit_through(regs, stub + UPROBE_STUB_WAY_OUT, UPROBE_RED_ZONE);
}

/**
 * arch_uprobe_stub_enter - put back what a stub saved before its syscall
 * @regs: the registers at the syscall of a stub
 * @saved: set to what the stub saved, and the stack pointer before it
 *
 * The registers become what they were at the probed instruction, but for
 * the ip, which the core sets: what the stub saved is popped
 * (uprobe_pop_saved()), then the stack pointer goes back above the red
 * zone.
 *
 * Return: false if the stack could not be read (the task gets SIGSEGV).
 */
bool arch_uprobe_stub_enter(struct pt_regs *regs, struct arch_uprobe_stub_saved *saved)
{
	if (!uprobe_pop_saved(regs))
		return false;
	regs->sp += UPROBE_RED_ZONE;
	saved->ax = regs->ax;
	saved->cx = regs->cx;
	saved->r11 = regs->r11;
	saved->sp = regs->sp;
	return true;
}

/**
 * arch_uprobe_step_copy - step the task over the copy its ip is at
 * @autask: where the state to restore afterwards is kept
 * @regs: the task's registers
 *
 * For a copy that needs no fixup but the ip: the step trap comes after
 * it, and arch_uprobe_xol_was_trapped() tells whether it trapped instead.
 */
void arch_uprobe_step_copy(struct arch_uprobe_task *autask, struct pt_regs *regs)
{
	arch_uprobe_watch_traps(autask);
	uprobe_step_on(autask, regs);
}

/**
 * arch_uprobe_step_copy_end - undo arch_uprobe_step_copy()
 * @autask: the state it saved
 * @regs: the task's registers
 */
void arch_uprobe_step_copy_end(struct arch_uprobe_task *autask, struct pt_regs *regs)
{
	uprobe_step_off(autask, regs, false);
	arch_uprobe_unwatch_traps(autask);
}

/*
 * Entered from a stub only: the core puts the registers back and handles
 * the hit.  The return value is what rax holds on the way out: the kernel
 * leaves with sysret through the stub's way out (arch_uprobe_stub_exit()),
 * else with iret.  Called any other way, it changes nothing and fails with
 * EPROTO, as the uprobe syscall of later kernels does: that error tells a
 * program (libbpf's feature probe) that the kernel has the syscall.
 */
SYSCALL_DEFINE0(uprobe)
{
	struct pt_regs *regs = current_pt_regs();

	if (!uprobe_stub_hit(regs, regs->ip - UPROBE_STUB_SYSCALL_END))
		return -EPROTO;
	return regs->ax;
}

/**
 * uprobe_syscall_entry - the uprobe syscall, before the syscall-entry work
 * @regs: the registers at the entry of syscall __NR_uprobe
 *
 * do_syscall_64() asks here first, with interrupts on: a syscall a stub of
 * the mm made is its hit, handled at once; the task then leaves without
 * the syscall-exit work, so that no tracer, seccomp filter, audit rule or
 * syscall tracepoint sees it.  Any other is left to the syscall's own
 * entry, where sys_uprobe() refuses it.
 *
 * Return: true if the syscall was a stub's, and is done.
 */
bool uprobe_syscall_entry(struct pt_regs *regs)
{
	return user_64bit_mode(regs) &&
	       uprobe_stub_hit(regs, regs->ip - UPROBE_STUB_SYSCALL_END);
}

#ifdef CONFIG_UPROBES_KUNIT_TEST
#include "uprobes_jump_kunit.c"
#endif
