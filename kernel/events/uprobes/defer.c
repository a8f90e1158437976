// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprobes core, registration from handlers.
 *
 * A handler runs under uprobes_srcu, which uprobe_unregister_sync() and
 * the error path of a registration wait for: called from a handler, they
 * would wait for the handler itself.  So a handler (or return handler, or
 * a notify() of UPROBE_NOTICE_LOST) that calls uprobe_register(),
 * uprobe_register_pid() or uprobe_unregister_nosync() only queues the
 * call on its task: register returns ERR_PTR(-EINPROGRESS), and the calls
 * run in the order they were made once the hit's handlers are over and
 * the task is out of uprobes_srcu, on its way back to user mode (a task
 * work), or at the end of the worker's round for a notify().  Then the
 * consumer's notify() is told the result (UPROBE_NOTICE_REGISTERED or
 * UPROBE_NOTICE_UNREGISTERED), with no lock of the core held.
 *
 * What a queued call names is fixed when it is made, not when it runs,
 * which may be in another context (a worker): a file's inode is held, and
 * a process is found and the caller's right to probe it checked at the
 * call (uprobe_register_pid()), its mm held; if the process has exited by
 * the time the call runs, it fails with -ESRCH.  A call runs with the
 * credentials its caller had, and a worker's notify() with those of the
 * task that registered the consumer (uprobe_consumer.cred), never with
 * the worker's own: what a consumer does from there is checked as if its
 * owner did it.
 *
 * A consumer that a handler unregisters has no handler run from that
 * moment on, in any task (uprobe_consumer.leaving), although it leaves
 * its probe's list only when the queued call runs.  Its owner may free it
 * once told, after uprobe_unregister_sync(), as after any unregistration.
 * Until a queued call has run, the consumer it names must stay.
 *
 * The task's uprobe_task.in_callback counts the handlers it is running
 * (a handler may hit a probe of the kernel's own, not of uprobes: one
 * level is the rule, the count is for safety); a worker telling
 * consumers of lost probes runs with a uprobe_task of its stack.
 */

#include "internal.h"

/**
 * struct uprobe_deferred - a call queued by a handler
 * @next: the next call queued by the same task
 * @unregister: uprobe_unregister_nosync(@uprobe, @uc), else a register
 * @inode: a register of the file's place @offset (a reference is held),
 *	with its SDT counter at @ref_ctr_offset; NULL: of address @offset of
 *	the process whose mm is @mm (uprobe_register_pid(), which found it
 *	and checked the caller's permission when called; mmgrab() held)
 * @offset: see @inode
 * @ref_ctr_offset: see @inode
 * @mm: see @inode
 * @uprobe: the probe an unregister detaches from
 * @uc: the consumer
 * @cred: the caller's credentials (a reference), which the call runs with
 */
struct uprobe_deferred {
	struct uprobe_deferred *next;
	bool unregister;
	struct inode *inode;
	loff_t offset;
	loff_t ref_ctr_offset;
	struct mm_struct *mm;
	struct uprobe *uprobe;
	struct uprobe_consumer *uc;
	const struct cred *cred;
};

/* Whether the current task is running a handler or a notify(). */
bool in_uprobe_callback(void)
{
	struct uprobe_task *utask = current->utask;

	return utask && utask->in_callback;
}

static void run_deferred_work(struct callback_head *head);

/* Appends @d to the calls the current task runs when out of its handlers. */
static void queue_deferred(struct uprobe_deferred *d)
{
	struct uprobe_task *utask = current->utask;
	struct uprobe_deferred **tail = &utask->deferred;

	d->cred = get_current_cred();
	while (*tail)
		tail = &(*tail)->next;
	*tail = d;
	if (tail != &utask->deferred || (current->flags & PF_KTHREAD))
		return;
	init_task_work(&utask->deferred_work, run_deferred_work);
	/* Fails only past exit_task_work(), where no handler runs. */
	WARN_ON_ONCE(task_work_add(current, &utask->deferred_work, TWA_RESUME));
}

/*
 * Queues a register (uprobe_register() of @inode, or uprobe_register_pid()
 * of the process of @mm if @inode is NULL) for when the handlers are over.
 * What the caller named is held as it is now: the inode, or the mm.
 */
struct uprobe *defer_register(struct inode *inode, loff_t offset, loff_t ref_ctr_offset,
			      struct mm_struct *mm, struct uprobe_consumer *uc)
{
	struct uprobe_deferred *d = kzalloc(sizeof(*d), GFP_KERNEL);

	if (!d)
		return ERR_PTR(-ENOMEM);
	if (inode)
		ihold(inode);
	if (mm)
		mmgrab(mm);
	d->inode = inode;
	d->offset = offset;
	d->ref_ctr_offset = ref_ctr_offset;
	d->mm = mm;
	d->uc = uc;
	queue_deferred(d);
	return ERR_PTR(-EINPROGRESS);
}

/*
 * Queues uprobe_unregister_nosync(@uprobe, @uc) for when the handlers are
 * over; @uc runs no handler from now on.  Without memory, @uc is only
 * kept from running, and a warning says the unregistration was lost.
 */
void defer_unregister(struct uprobe *uprobe, struct uprobe_consumer *uc)
{
	struct uprobe_deferred *d = kzalloc(sizeof(*d), GFP_KERNEL);

	WRITE_ONCE(uc->leaving, true);
	if (WARN_ONCE(!d, "uprobes: no memory to unregister from a handler\n"))
		return;
	d->unregister = true;
	d->uprobe = uprobe;
	d->uc = uc;
	queue_deferred(d);
}

/*
 * A queued uprobe_register_pid(): @mm's process, found when the handler
 * called, may have exited since; then it fails as the call would have.
 * Drops the queue's hold of @mm.
 */
static struct uprobe *register_queued_in_mm(struct mm_struct *mm, unsigned long vaddr,
					    struct uprobe_consumer *uc)
{
	struct uprobe *uprobe = ERR_PTR(-ESRCH);

	if (mmget_not_zero(mm)) {
		uprobe = register_in_mm(mm, vaddr, uc);
		mmput(mm);
	}
	mmdrop(mm);
	return uprobe;
}

/*
 * Runs one queued call with its caller's credentials, frees it and tells
 * its consumer.
 */
static void run_one(struct uprobe_deferred *d)
{
	const struct cred *cred = d->cred, *old = override_creds(cred);
	struct uprobe_consumer *uc = d->uc;
	struct uprobe *uprobe = d->uprobe;
	enum uprobe_notice what;
	int err = 0;

	if (d->unregister) {
		/* @uc stays leaving: a hit may still find it on the list. */
		uprobe_unregister_nosync(uprobe, uc);
		what = UPROBE_NOTICE_UNREGISTERED;
	} else {
		if (d->inode)
			uprobe = uprobe_register(d->inode, d->offset, d->ref_ctr_offset, uc);
		else
			uprobe = register_queued_in_mm(d->mm, d->offset, uc);
		iput(d->inode);
		err = PTR_ERR_OR_ZERO(uprobe);
		if (err)
			uprobe = NULL;
		what = UPROBE_NOTICE_REGISTERED;
	}
	kfree(d);
	if (uc->notify)
		uc->notify(uc, uprobe, what, err);
	revert_creds(old);
	put_cred(cred);
}

/* Runs the calls @utask queued, those queued meanwhile included. */
static void run_deferred(struct uprobe_task *utask)
{
	struct uprobe_deferred *d;

	while ((d = utask->deferred)) {
		utask->deferred = d->next;
		run_one(d);
	}
}

static void run_deferred_work(struct callback_head *head)
{
	run_deferred(container_of(head, struct uprobe_task, deferred_work));
}

/*
 * The current task exits or execs, and its @utask goes before its task
 * works run: the calls it queued run now.
 */
void finish_deferred(struct uprobe_task *utask)
{
	if (!utask->deferred)
		return;
	task_work_cancel(current, &utask->deferred_work);
	run_deferred(utask);
}

/*
 * @uc's notify(), from a worker, with the credentials of the task that
 * registered @uc: what it calls is checked against them, not against the
 * worker's.  None when @uc has just left its probe (detach_consumer()).
 */
static void notify_as_registrant(struct uprobe_consumer *uc, struct uprobe *uprobe,
				 enum uprobe_notice what, int err)
{
	const struct cred *cred, *old;

	rcu_read_lock();
	cred = READ_ONCE(uc->cred);
	cred = cred ? get_cred_rcu(cred) : NULL;
	rcu_read_unlock();
	if (!cred)
		return;
	old = override_creds(cred);
	uc->notify(uc, uprobe, what, err);
	revert_creds(old);
	put_cred(cred);
}

/*
 * Tells @uprobe's consumers @what (@err), from a worker: under
 * uprobes_srcu, as handlers, with calls they make queued on a uprobe_task
 * of the stack and run after it.
 */
void notify_consumers(struct uprobe *uprobe, enum uprobe_notice what, int err)
{
	struct uprobe_task ctx = { };
	struct uprobe_consumer *uc;
	int idx;

	if (WARN_ON_ONCE(current->utask))
		return;
	current->utask = &ctx;
	enter_callbacks(&ctx);
	idx = srcu_read_lock(&uprobes_srcu);
	list_for_each_entry_srcu(uc, &uprobe->consumers, cons_node,
				 srcu_read_lock_held(&uprobes_srcu))
		if (uc->notify && !READ_ONCE(uc->leaving))
			notify_as_registrant(uc, uprobe, what, err);
	srcu_read_unlock(&uprobes_srcu, idx);
	leave_callbacks(&ctx);
	run_deferred(&ctx);
	current->utask = NULL;
}
