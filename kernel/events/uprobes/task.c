// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprobes core, per-task state: the uprobe_task of a task that has hit a
 * probe, with one state enum whose transitions are checked
 * (utask_set_state()), its pending returns, and what fork and exit do to
 * them.  A task's uprobe_task is its own: nothing else takes a lock on it.
 */

#include "internal.h"

/* The checked transitions of enum uprobe_task_state. */
void utask_set_state(struct uprobe_task *utask, enum uprobe_task_state state)
{
	static const u8 allowed[] = {
		[UPROBE_TASK_RUNNING] = BIT(UPROBE_TASK_STEPPING) | BIT(UPROBE_TASK_FINISHING) |
					BIT(UPROBE_TASK_STUB_STEPPING),
		[UPROBE_TASK_STEPPING] = BIT(UPROBE_TASK_STEPPED) | BIT(UPROBE_TASK_STEP_ABANDON),
		[UPROBE_TASK_STEPPED] = BIT(UPROBE_TASK_RUNNING),
		[UPROBE_TASK_STEP_ABANDON] = BIT(UPROBE_TASK_RUNNING),
		[UPROBE_TASK_FINISHING] = BIT(UPROBE_TASK_RUNNING),
		[UPROBE_TASK_STUB_STEPPING] = BIT(UPROBE_TASK_RUNNING),
	};

	WARN_ONCE(!(allowed[utask->state] & BIT(state)),
		  "uprobes: task state %d -> %d\n", utask->state, state);
	utask->state = state;
}

/* Signals held back while the task was in a step or finishing are due. */
void release_signals(void)
{
	spin_lock_irq(&current->sighand->siglock);
	recalc_sigpending();
	spin_unlock_irq(&current->sighand->siglock);
}

/* get_utask() for a task that has none yet. */
struct uprobe_task *alloc_utask(void)
{
	current->utask = kzalloc(sizeof(*current->utask), GFP_KERNEL);
	return current->utask;
}

/*
 * A return_instance for a new pending return of @utask: a spare one if
 * it has one, so that the hits of a return probe allocate nothing once the
 * task has returned once.  Its fields are the caller's to fill.
 */
struct return_instance *alloc_return_instance(struct uprobe_task *utask)
{
	struct return_instance *ri = utask->spare_returns;

	if (!ri)
		return kmalloc(sizeof(*ri), GFP_KERNEL);
	utask->spare_returns = ri->next;
	utask->nr_spare--;
	return ri;
}

/* Keeps @ri as a spare of @utask, or frees it when there are enough. */
void put_return_instance(struct uprobe_task *utask, struct return_instance *ri)
{
	if (utask->nr_spare >= UPROBE_SPARE_RETURNS) {
		kfree(ri);
		return;
	}
	ri->next = utask->spare_returns;
	utask->spare_returns = ri;
	utask->nr_spare++;
}

static void free_spare_returns(struct uprobe_task *utask)
{
	struct return_instance *ri, *next;

	for (ri = utask->spare_returns; ri; ri = next) {
		next = ri->next;
		kfree(ri);
	}
	utask->spare_returns = NULL;
	utask->nr_spare = 0;
}

/*
 * Takes the newest pending returns down to (not including) @keep off
 * @utask's list, and gives them back, still linked to @keep.
 */
struct return_instance *take_return_instances(struct uprobe_task *utask,
					      struct return_instance *keep)
{
	struct return_instance *first = utask->return_instances, *ri;

	for (ri = first; ri != keep; ri = ri->next)
		utask->depth--;
	utask->return_instances = keep;
	return first;
}

/*
 * Ends the pending returns of @utask from @ri down to (not including)
 * @keep, taken off its list: their probes are put, and they become spares.
 */
void free_return_instances(struct uprobe_task *utask, struct return_instance *ri,
			   struct return_instance *keep)
{
	struct return_instance *next;

	for (; ri != keep; ri = next) {
		next = ri->next;
		put_uprobe(ri->uprobe);
		put_return_instance(utask, ri);
	}
}

/* Drops the newest pending returns down to (not including) @keep. */
void drop_return_instances(struct uprobe_task *utask, struct return_instance *keep)
{
	free_return_instances(utask, take_return_instances(utask, keep), keep);
}

/**
 * uprobe_free_utask - a task exits or execs
 * @t: the task
 *
 * Its pending returns and any step in progress are forgotten.
 */
void uprobe_free_utask(struct task_struct *t)
{
	struct uprobe_task *utask = t->utask;
	struct xol_area *area;

	if (!utask)
		return;
	if (t == current)
		finish_deferred(utask);
	drop_return_instances(utask, NULL);
	free_spare_returns(utask);
	if (utask->active_uprobe)
		put_uprobe(utask->active_uprobe);
	area = t->mm ? mm_xol_area(t->mm) : NULL;
	if (utask->xol_vaddr && area)
		xol_free_slot(area, utask->xol_vaddr);
	if (utask->own_slot && area)
		xol_free_slot(area, utask->own_slot);
	kfree(utask);
	t->utask = NULL;
}

/* A copy of @utask's pending returns for a forked child; false on ENOMEM. */
static bool dup_return_instances(struct uprobe_task *child, struct uprobe_task *utask)
{
	struct return_instance *ri, *copy, **tail = &child->return_instances;

	for (ri = utask->return_instances; ri; ri = ri->next) {
		copy = kmemdup(ri, sizeof(*ri), GFP_KERNEL);
		if (!copy)
			return false;
		get_uprobe(copy->uprobe);
		copy->next = NULL;
		*tail = copy;
		tail = &copy->next;
		child->depth++;
	}
	return true;
}

/**
 * uprobe_copy_process - a task is being created
 * @t: the new task, still a copy of current
 * @flags: its clone flags
 *
 * A thread starts with no uprobes state.  A forked process runs on a copy
 * of the parent's stack, with the parent's return addresses replaced by
 * the trampoline: it gets a copy of the parent's pending returns.
 */
void uprobe_copy_process(struct task_struct *t, unsigned long flags)
{
	struct uprobe_task *utask = current->utask;

	t->utask = NULL;
	if (!utask || !utask->return_instances)
		return;
	if ((flags & CLONE_VM) && !(flags & CLONE_VFORK))
		return;
	t->utask = kzalloc(sizeof(*t->utask), GFP_KERNEL);
	if (!t->utask)
		return;
	if (!dup_return_instances(t->utask, utask))
		pr_warn_ratelimited("uprobes: pid %d: pending returns lost at fork\n", t->pid);
}
