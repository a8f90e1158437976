// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprobes core, ways out of a stub other than its own: a signal, an rseq
 * abort or a trap that finds a task in a stub.
 *
 * A signal that finds a task in a stub before its syscall is delivered as
 * at the probed address, with what the stub did undone (leave_stub()); one
 * that finds it at the copy waits while the task is stepped over it
 * (stub_copy_finish()).  rseq and the trap reports see the task where it
 * stands in the probed code (stub_origin(), stub_trap_addr()).
 */

#include "stubs.h"

/*
 * A task about to take a signal in a stub, before its syscall, is put back
 * at the probed address as it was there: the handler, a debugger or a
 * core dump never sees the stub, and the task goes through the jump again
 * after the handler.  One on a way out is taken where the way out leads
 * (arch_uprobe_stub_leave()), one at the jump back (after the copy, if
 * the stub has one) just past the probed instruction.  (One at the copy
 * is stepped over it first: stub_copy_finish().)
 */
void leave_stub(struct pt_regs *regs)
{
	unsigned long ip = instruction_pointer(regs), offset, source;
	struct mm_struct *mm = current->mm;
	struct stub_site *site;

	if (!mm || !test_bit(MMF_HAS_UPROBES, &mm->flags))
		return;
	site = stub_at(mm, ip, &offset);
	if (!site || arch_uprobe_stub_leave(regs, offset, stub_straight(site, ip - offset)))
		return;
	if (offset == UPROBE_STUB_COPY + site->len) {
		/* At the jump back: the copy, if any, ran. */
		instruction_pointer_set(regs, site->next);
		return;
	}
	if (!arch_uprobe_stub_unwind(regs, offset))
		return;
	source = stub_source(site, ip - offset);
	instruction_pointer_set(regs, source ?: site->vaddr);
}

/* The site of the stub of @mm whose copy starts at @ip, or NULL. */
static struct stub_site *stub_copy_at(struct mm_struct *mm, unsigned long ip)
{
	unsigned long offset;
	struct stub_site *site = stub_at(mm, ip, &offset);

	return site && site->len && offset == UPROBE_STUB_COPY ? site : NULL;
}

/*
 * A signal found the task at the copy in a stub: the hit is reported
 * already, and sent back to the probed address the task would come
 * through the stub again and report it twice.  So the signal waits while
 * the task is stepped over the copy (handle_stub_step()).  False when the
 * task is elsewhere, or dying (it is then put back at the probed address).
 */
bool stub_copy_finish(struct uprobe_task *utask, struct pt_regs *regs)
{
	unsigned long ip = instruction_pointer(regs);
	struct stub_site *site = stub_copy_at(current->mm, ip);

	if (!site)
		return false;
	if (__fatal_signal_pending(current)) {
		instruction_pointer_set(regs, site->vaddr);
		return false;
	}
	utask->vaddr = site->vaddr;
	utask->xol_vaddr = ip;
	arch_uprobe_step_copy(&utask->autask, regs);
	utask_set_state(utask, UPROBE_TASK_STUB_STEPPING);
	return true;
}

/*
 * The step over a stub's copy ended: @done, the copy ran (the ip is at the
 * jump back), and the task goes on past the probed instruction; or not
 * (it trapped, or the task is dying), and it goes back to the probed one.
 */
void stub_copy_stepped(struct uprobe_task *utask, struct pt_regs *regs, bool done)
{
	unsigned long ip = instruction_pointer(regs);

	arch_uprobe_step_copy_end(&utask->autask, regs);
	utask_set_state(utask, UPROBE_TASK_RUNNING);
	instruction_pointer_set(regs, utask->vaddr + (done ? ip - utask->xol_vaddr : 0));
	utask->xol_vaddr = 0;
}

/* The step trap after a stub's copy: the signals it held are due. */
void handle_stub_step(struct uprobe_task *utask, struct pt_regs *regs)
{
	/* A rep string instruction stepped one round: step on. */
	if (instruction_pointer(regs) == utask->xol_vaddr)
		return;
	stub_copy_stepped(utask, regs, true);
	release_signals();
}

/*
 * Whether a signal must wait for the task, stepped over a stub's copy, to
 * finish it.
 */
bool stub_copy_deny_signal(struct uprobe_task *utask, struct pt_regs *regs)
{
	if (!__fatal_signal_pending(current) &&
	    !arch_uprobe_xol_was_trapped(current))
		return true;
	stub_copy_stepped(utask, regs, false);
	return false;
}

/*
 * Where a task in a stub stands in the probed code: the probed address
 * before the stub's syscall, and at its copy (which has not run); past the
 * probed instruction at the jump back; on a way out, where it leads.  0
 * when the task is in no stub, or a way out could not be read.
 */
unsigned long stub_origin(struct mm_struct *mm, struct pt_regs *regs)
{
	struct pt_regs left = *regs;
	struct stub_site *site;
	unsigned long offset;

	if (!stub_at(mm, instruction_pointer(regs), &offset))
		return 0;
	/* On a copy of the registers: only where the task stands is asked. */
	leave_stub(&left);
	site = stub_copy_at(mm, instruction_pointer(&left));
	if (site)
		return site->vaddr;
	return stub_at(mm, instruction_pointer(&left), &offset) ? 0 : instruction_pointer(&left);
}

/*
 * For an rseq abort (uprobe_rseq_abort()): a task in a stub is put where
 * it stands in the probed code.  0, or -EFAULT when it is on a way out
 * that could not be read.
 */
int stub_rseq_abort(struct pt_regs *regs)
{
	struct stub_site *site;
	unsigned long offset;

	leave_stub(regs);
	site = stub_copy_at(current->mm, instruction_pointer(regs));
	if (site)
		instruction_pointer_set(regs, site->vaddr);
	else if (stub_at(current->mm, instruction_pointer(regs), &offset))
		return -EFAULT;
	return 0;
}

/* The probed address a trap at @ip in a stub's copy stands for, or 0. */
unsigned long stub_trap_addr(struct mm_struct *mm, unsigned long ip)
{
	unsigned long offset;
	struct stub_site *site = stub_at(mm, ip, &offset);

	if (site && site->len && offset >= UPROBE_STUB_COPY)
		return site->vaddr + offset - UPROBE_STUB_COPY;
	return 0;
}
