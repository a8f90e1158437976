// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprobes core, return probes: at the entry hit, the return address is
 * replaced with the XOL area's trampoline and kept in a return_instance
 * of the task; when the function returns, the trampoline (or the
 * uretprobe syscall, by the architecture) brings the task to
 * uprobe_handle_trampoline(), which runs the return handlers and gives
 * the task its real return address back.  Returns that a longjmp() left
 * behind are dropped by their stack pointer.
 */

#include "internal.h"

/**
 * arch_uretprobe_is_alive - is the frame of a pending return still there?
 * @ret: the pending return
 * @ctx: where the question is asked
 * @regs: the task's registers there
 *
 * The default, for stacks that grow down: the frame is there while the
 * stack pointer is below the one at its entry; a tail call from it
 * (RP_CHECK_CHAIN_CALL) may have the same.  Whether the return address is
 * on the stack (x86: the entry's stack pointer points at it, the return
 * pops it) or in a register (the stack pointer is the same at entry and
 * at return), the frame a function returns from is then not alive at the
 * trampoline, nor any frame a longjmp() went past, at a call or a return.
 *
 * Return: true if the frame is there.
 */
bool __weak arch_uretprobe_is_alive(struct return_instance *ret, enum rp_check ctx,
				    struct pt_regs *regs)
{
	unsigned long sp = user_stack_pointer(regs);

	return ctx == RP_CHECK_CHAIN_CALL ? sp <= ret->stack : sp < ret->stack;
}

/* Drops the pending returns whose frames are gone (a longjmp() left them). */
static void drop_dead_returns(struct uprobe_task *utask, struct pt_regs *regs, bool chained)
{
	enum rp_check ctx = chained ? RP_CHECK_CHAIN_CALL : RP_CHECK_CALL;
	struct return_instance *keep = utask->return_instances;

	while (keep && !arch_uretprobe_is_alive(keep, ctx, regs))
		keep = keep->next;
	drop_return_instances(utask, keep);
}

/*
 * At the entry of a function probed with return handlers: replaces its
 * return address with the trampoline and remembers the original.  Past
 * MAX_URETPROBE_DEPTH pending returns the new one is not taken: the outer
 * frames keep theirs.
 */
void prepare_uretprobe(struct uprobe *uprobe, struct pt_regs *regs,
		       unsigned long bp_vaddr)
{
	struct uprobe_task *utask = current->utask;
	unsigned long sp = user_stack_pointer(regs), tramp, orig;
	struct xol_area *area = get_xol_area();
	struct return_instance *ri;
	bool chained;

	if (!area)
		return;
	ri = alloc_return_instance(utask);
	if (!ri)
		return;
	/* The pending return outlives the hit: it holds a reference. */
	ri->uprobe = try_get_uprobe(uprobe);
	if (!ri->uprobe)
		goto free;
	tramp = area->vaddr;
	orig = arch_uretprobe_hijack_return_addr(tramp, regs);
	if (orig == -1UL)
		goto put_uprobe;
	/* A tail call from a function whose return is pending. */
	chained = orig == tramp;
	drop_dead_returns(utask, regs, chained);
	if (utask->depth >= MAX_URETPROBE_DEPTH) {
		pr_warn_ratelimited("uprobes: pid %d: more than %d pending returns\n",
				    current->pid, MAX_URETPROBE_DEPTH);
		if (!chained)
			arch_uretprobe_hijack_return_addr(orig, regs);
		goto put_uprobe;
	}
	if (chained) {
		if (!utask->return_instances) {
			force_sig(SIGSEGV);
			goto put_uprobe;
		}
		orig = utask->return_instances->orig_ret_vaddr;
	}
	ri->func = bp_vaddr;
	ri->stack = sp;
	ri->orig_ret_vaddr = orig;
	ri->chained = chained;
	ri->next = utask->return_instances;
	utask->return_instances = ri;
	utask->depth++;
	return;

put_uprobe:
	put_uprobe(ri->uprobe);
free:
	put_return_instance(utask, ri);
}

/*
 * The probe whose return handlers run for @ri: the one hit at the entry,
 * or, if all its consumers left while the return was pending and it is
 * out of the tables, the probe made at the same place since, if any.  So
 * a consumer attached while a return is pending sees that return,
 * whatever came and went meanwhile.  The caller holds uprobes_srcu.
 */
static struct uprobe *returning_probe(struct return_instance *ri)
{
	struct uprobe *uprobe = ri->uprobe, *now;

	if (uprobe_is_live(uprobe))
		return uprobe;
	now = find_uprobe_srcu(uprobe->inode, uprobe->mm, uprobe->offset);
	return now ?: uprobe;
}

/*
 * Runs the return handlers for @ri, in registration order, as
 * run_handlers() does the entry handlers.
 */
static void run_ret_handlers(struct uprobe_task *utask, struct return_instance *ri,
			     struct pt_regs *regs)
{
	struct uprobe_consumer *uc;
	int idx;

	enter_callbacks(utask);
	idx = srcu_read_lock(&uprobes_srcu);
	list_for_each_entry_srcu(uc, &returning_probe(ri)->consumers, cons_node,
				 srcu_read_lock_held(&uprobes_srcu))
		if (uc->ret_handler && consumer_runs(uc))
			uc->ret_handler(uc, ri->func, regs);
	srcu_read_unlock(&uprobes_srcu, idx);
	leave_callbacks(utask);
}

/*
 * A signal that finds the task on the trampoline's way out, after the
 * uretprobe syscall, is delivered as past it: at the real return address.
 */
void leave_trampoline(struct pt_regs *regs)
{
	unsigned long tramp = uprobe_get_trampoline_vaddr();

	if (tramp != UPROBE_NO_TRAMPOLINE_VADDR &&
	    instruction_pointer(regs) - tramp < UPROBE_XOL_SLOT_BYTES)
		arch_uretprobe_leave(regs, tramp);
}

/**
 * uprobe_handle_trampoline - a probed function returned to the trampoline
 * @regs: the task's registers, with the stack as the function left it
 *
 * The returning frame is the oldest pending return whose frame is gone
 * (arch_uretprobe_is_alive()); newer ones are frames a longjmp() skipped,
 * dropped without their handlers.  The returning frame's handlers run, and those of the
 * functions that tail-called from it (chained), newest first; then the
 * task goes on at the original return address.  A task with no pending
 * return here gets SIGILL.
 */
void uprobe_handle_trampoline(struct pt_regs *regs)
{
	struct uprobe_task *utask = current->utask;
	struct return_instance *ri, *first, *last = NULL, *keep;

	if (utask)
		for (ri = utask->return_instances;
		     ri && !arch_uretprobe_is_alive(ri, RP_CHECK_RET, regs); ri = ri->next)
			last = ri;
	if (!last) {
		force_sig(SIGILL);
		return;
	}
	keep = last->next;
	instruction_pointer_set(regs, last->orig_ret_vaddr);
	/*
	 * Off the pending list before the handlers run: a user stack they
	 * capture shows, for each trampoline still on the stack, the return
	 * address of an outer pending return (perf's callchain fixup walks
	 * the list), not of one that already returned.
	 */
	first = take_return_instances(utask, keep);
	for (ri = first; ri != keep; ri = ri->next)
		if (ri->stack == last->stack)
			run_ret_handlers(utask, ri, regs);
	free_return_instances(utask, first, keep);
}
