// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprobes core, the task's own slot: an instruction that needs no fixup
 * but of its ip (arch_uprobe_runs_direct(), ARCH_UPROBES_DIRECT) runs
 * from a slot of the XOL area that the task keeps until it exits,
 * followed by a jump back to the next instruction.  Nothing comes back to
 * the kernel after the hit, where a step would trap once more.
 *
 * No signal frame, debugger or core dump ever sees the slot: a task about
 * to take a signal there is moved to the same point of the probed code
 * (leave_own_slot()), or, at a copy that has not completed, made to
 * finish it first, the signal held (own_slot_finish()).
 */

#include "internal.h"

/*
 * Runs @uprobe's instruction out of line without a step, when it can: the
 * task's own slot gets a copy followed by a jump back, and the task goes
 * there.  Nothing comes back to the kernel; a signal that finds the task
 * in the copy is delivered as if at the probed place (leave_own_slot()).
 */
bool run_direct(struct uprobe *uprobe, struct pt_regs *regs, unsigned long bp_vaddr)
{
	struct uprobe_task *utask = current->utask;
	/* Only the @len bytes written are read: not zeroed at each hit. */
	u8 code[UPROBE_XOL_SLOT_BYTES] __uninitialized;
	struct xol_area *area;
	size_t len, insn_len;

	if (!arch_uprobe_runs_direct(&uprobe->arch, regs))
		return false;
	area = get_xol_area();
	if (!area)
		return false;
	if (!utask->own_slot)
		utask->own_slot = xol_take_own_slot(area);
	if (!utask->own_slot)
		return false;
	len = arch_uprobe_xol_direct(&uprobe->arch, regs, bp_vaddr, utask->own_slot,
				     code, &insn_len);
	if (!len)
		return false;
	xol_write_slot(area, utask->own_slot, code, len);
	utask->own_bp_vaddr = bp_vaddr;
	utask->own_len = insn_len;
	instruction_pointer_set(regs, utask->own_slot);
	return true;
}

/* Where @ip in the task's own slot stands for in the probed code, or 0. */
unsigned long own_slot_origin(struct uprobe_task *utask, unsigned long ip)
{
	if (!utask || !utask->own_slot || ip < utask->own_slot ||
	    ip > utask->own_slot + utask->own_len)
		return 0;
	return utask->own_bp_vaddr + (ip - utask->own_slot);
}

/*
 * A task about to take a signal in its own slot is moved to the same
 * point of the probed code, so that no signal frame, debugger or core dump
 * sees the XOL page: past the probed instruction when it is at the jump
 * back; at the breakpoint when the copy did not complete (it trapped, or
 * the task is dying).
 */
void leave_own_slot(struct uprobe_task *utask, struct pt_regs *regs)
{
	unsigned long origin = own_slot_origin(utask, instruction_pointer(regs));

	if (origin)
		instruction_pointer_set(regs, origin);
}

/* The byte just past the copy in the task's own slot becomes @byte: the old one. */
static u8 own_slot_poke(struct xol_area *area, struct uprobe_task *utask, u8 byte)
{
	return xol_swap_byte(area, utask->own_slot + utask->own_len, byte);
}

/*
 * A signal found the task at the copy in its own slot, which has not run
 * or has run in part (a rep string instruction interrupted half-way).
 * Sent back to the probed address, the task would hit the breakpoint and
 * report the same execution twice.  So the signal waits: the jump back
 * becomes a breakpoint, and the task runs the copy to it, from where
 * own_slot_finished() takes it on past the probed instruction.  False when
 * the task cannot finish the copy so (no area): it is then sent back.
 */
static bool own_slot_finish(struct uprobe_task *utask)
{
	struct xol_area *area = mm_xol_area(current->mm);
	uprobe_opcode_t swbp = UPROBE_SWBP_INSN;

	/* ARCH_UPROBES_DIRECT: the breakpoint is one byte, as x86's. */
	BUILD_BUG_ON(IS_ENABLED(CONFIG_ARCH_UPROBES_DIRECT) && UPROBE_SWBP_INSN_SIZE != 1);
	if (!IS_ENABLED(CONFIG_ARCH_UPROBES_DIRECT) || !area)
		return false;
	utask->own_end = own_slot_poke(area, utask, *(u8 *)&swbp);
	arch_uprobe_watch_traps(&utask->autask);
	utask_set_state(utask, UPROBE_TASK_FINISHING);
	return true;
}

/*
 * The copy run by own_slot_finish() ended: @done, at the breakpoint after
 * it (the ip is just past it); or not, when it trapped or the task is
 * dying.  The slot gets its jump back again, and the task goes on past
 * the probed instruction, or where leave_own_slot() puts it.
 */
void own_slot_finished(struct uprobe_task *utask, struct pt_regs *regs, bool done)
{
	struct xol_area *area = mm_xol_area(current->mm);

	if (area)
		own_slot_poke(area, utask, utask->own_end);
	arch_uprobe_unwatch_traps(&utask->autask);
	utask_set_state(utask, UPROBE_TASK_RUNNING);
	if (done)
		instruction_pointer_set(regs, utask->own_bp_vaddr + utask->own_len);
	else
		leave_own_slot(utask, regs);
}

/* The breakpoint after the copy came: the signals it held are due. */
void handle_own_slot_end(struct uprobe_task *utask, struct pt_regs *regs)
{
	unsigned long end = utask->own_slot + utask->own_len + UPROBE_SWBP_INSN_SIZE;

	own_slot_finished(utask, regs, !WARN_ON_ONCE(instruction_pointer(regs) != end));
	release_signals();
}

/*
 * Whether a signal must wait for the task, running in its own slot, to
 * finish the copy there (see own_slot_finish()).
 */
bool own_slot_deny_signal(struct uprobe_task *utask, struct pt_regs *regs)
{
	bool give_up = __fatal_signal_pending(current);

	if (utask->state == UPROBE_TASK_FINISHING) {
		give_up |= arch_uprobe_xol_was_trapped(current);
		if (!give_up)
			return true;
		own_slot_finished(utask, regs, false);
		return false;
	}
	if (utask->own_slot && instruction_pointer(regs) == utask->own_slot &&
	    !give_up && own_slot_finish(utask))
		return true;
	leave_own_slot(utask, regs);
	return false;
}
