/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _X86_KERNEL_UPROBES_INTERNAL_H
#define _X86_KERNEL_UPROBES_INTERNAL_H
/*
 * What the x86 uprobes files share: uprobes.c, the analysis, emulation,
 * out-of-line execution and return probes, with uprobes_jump.c, the jumps
 * to stubs.  The functions are described in uprobes.c.
 */

#include <linux/types.h>
#include <linux/unaligned.h>

#include <asm/ptrace.h>
#include <asm/text-patching.h>

struct arch_uprobe_task;

/* A jmp rel32 at @code, placed at @from, to @to. */
static inline void uprobe_put_jump(u8 *code, unsigned long from, unsigned long to)
{
	code[0] = JMP32_INSN_OPCODE;
	put_unaligned((s32)(to - (from + JMP32_INSN_SIZE)), (s32 *)&code[1]);
}

/* A step of one instruction: its copy in a slot, or a stub's copy. */
void uprobe_step_on(struct arch_uprobe_task *autask, struct pt_regs *regs);
void uprobe_step_off(struct arch_uprobe_task *autask, struct pt_regs *regs, bool keep_tf);

#ifdef CONFIG_X86_64
/*
 * The syscalls of the return trampoline and of the stubs: what they push
 * before, and their ways out after.
 */

/* The words the trampoline and the stubs push, lowest address first. */
struct uprobe_tramp_frame {
	unsigned long r11;
	unsigned long cx;
	unsigned long ax;
};

bool uprobe_pop_saved(struct pt_regs *regs);
bool uprobe_may_sysret(struct pt_regs *regs);
bool uprobe_exit_through(struct pt_regs *regs, unsigned long way_out, unsigned long skip);
bool uprobe_finish_exit(struct pt_regs *regs, unsigned long offset, unsigned long skip,
			unsigned long to);

/* Has the task leave with sysret to @way_out, with its stack pointer at @sp. */
static inline void uprobe_sysret_to(struct pt_regs *regs, unsigned long way_out,
				    unsigned long sp)
{
	regs->sp = sp;
	regs->ip = way_out;
	regs->cx = way_out;
	regs->r11 = regs->flags;
}
#endif /* CONFIG_X86_64 */

#endif /* _X86_KERNEL_UPROBES_INTERNAL_H */
