// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprobes core: breakpoints in user text, keyed by (inode, offset), or by
 * (mm, address) in anonymous memory.
 *
 * The core is split by concern, one file each, in layers: a file calls
 * the ones of its layer and below, and each opens with its part of the
 * design.
 *
 *   mm.c	the mm's hooks (mmap, munmap, mremap, mprotect, fork, exit),
 *		each handing its work to the file below that does it
 *   core.c	consumers and the consumer API: register, batches, apply,
 *		unregister
 *   process.c	probes by process and address (uprobe_register_pid())
 *   show.c	/proc/PID/uprobes: how each probe is carried out in a process
 *
 *   hit.c	the hit: lookup, handlers, the step; signals and rseq
 *   own_slot.c	the task's own slot: instructions run without a step
 *   return.c	return probes and the trampoline
 *   stub_hit.c	hits through a stub: the uprobe syscall
 *   stub_leave.c  a task taken out of a stub by a signal, rseq or a trap
 *   defer.c	handlers' context, and what they register and unregister
 *   task.c	per-task state and its checked transitions
 *
 *   arm.c	breakpoints in every process that maps a file: the walks,
 *		SDT counters, new mappings
 *   anon.c	probes in anonymous memory (code written at run time)
 *   jumps.c	jumps to stubs in place of breakpoints, and their sysctl
 *
 *   xol.c	the per-mm XOL area: slots and the trampoline
 *   stub_pages.c  the per-mm stub pages: where jumps lead
 *
 *   tables.c	the probe tables, references, lists of probes
 *   text.c	a process's text: reading and writing it, the probed
 *		instruction
 *
 *   internal.h	what the files share; stubs.h what the stub files share
 *
 * A registration goes core.c -> arm.c (or anon.c) -> text.c, tables.c;
 * a hit goes hit.c (or stub_hit.c) -> own_slot.c, return.c -> xol.c ->
 * tables.c; a removal goes core.c -> arm.c -> text.c.  Two calls go up,
 * by design: what a handler registers runs through core.c or process.c
 * at the end of the hit (defer.c), and anon.c tells the consumers of a
 * lost probe through defer.c, so that their notify() may register as a
 * handler may.
 *
 * Probes.  A struct uprobe is one place in one file, or one address in
 * the anonymous memory of one mm (anon.c).  Probes live in two hash
 * tables: by (owner, offset), which the hit path reads under RCU without
 * a lock, and by owner, which uprobe_mmap() walks to find the probes a
 * new mapping covers; the owner is the inode, or the mm.  A probe is in
 * the tables while it has consumers, and past that until no process has
 * its breakpoint (see "Removals to finish"); references (refcount) keep
 * it alive longer for the steps and pending returns that still use it.
 *
 * Arming.  A breakpoint is written into the probed process's private copy
 * of the page, made the way ptrace makes one (a forced write through
 * get_user_pages_remote() breaks copy-on-write): the page cache and the
 * file are never written.  Disarming writes the original byte back and,
 * when the copy is then the same as the file's page, unmaps the copy so
 * that the process maps the file's page again.  walk_batch() walks the
 * file's mappings to arm or disarm one probe or many in every process,
 * each mapping once; uprobe_mmap() arms each new mapping; fork keeps the
 * breakpoints because the child copies the parent's pages.
 *
 * Hits.  The int3 trap only flags the task (TIF_UPROBE); the work is done
 * in uprobe_notify_resume() on the way back to user mode, where the
 * consumers' handlers may sleep.  The probed instruction is then emulated
 * by the architecture; or, when only the ip needs fixing afterwards, run
 * from the task's own slot of the per-mm XOL ("execute out of line") area
 * followed by a jump back, with no further trap; or copied to a slot and
 * single-stepped there, with fixups after the step.  Once hit, a probe
 * whose instruction allows it gets a jump to a stub in place of its
 * breakpoint, and later hits come in by the uprobe syscall instead of the
 * trap (jumps.c, stub_hit.c).  A return probe replaces the return address with the
 * XOL area's trampoline, which brings the task back to
 * uprobe_handle_trampoline() when the function returns.
 *
 * Locking, outermost first:
 *
 *   uprobe->register_rwsem	register/unregister/apply of one probe
 *     dup_mmap_sem (write)	no fork copies a mapping while it is walked
 *       mapping->i_mmap_rwsem	read, only to list the file's mappings
 *       mm->mmap_lock (write)	every breakpoint write and removal
 *         uprobe->insn_mutex	reading and analysing the instruction
 *         delayed_lock		SDT counters waiting for their mapping
 *     uprobes_lock		writers of the two hash tables
 *     unfinished_lock		the list of removals to finish
 *
 * A step takes two more, each alone, holding none of the above:
 *   probe_slot_lock		gives a probe its probe slot (tables.c)
 *   area->probe_slot_lock	writes the probe's instruction there (xol.c)
 *
 * A hit whose handlers ask for the probe's removal takes register_rwsem
 * (read), then mmap_lock, like register does.
 *
 * A batch (uprobe_register_batch(), uprobe_unregister_batch()) adds or
 * takes off each consumer under its probe's register_rwsem, then walks
 * the file's mappings once for them all, holding none: every arming or
 * disarming decision is made under the mm's mmap_lock from the consumer
 * lists, which the batch changed first, so a concurrent register or
 * unregister of the same probe comes to the same answer in either order.
 * A probe leaves the tables only after the walk that took its breakpoints
 * out.
 *
 * What keeps alive what a hit touches, so that a hit writes nothing
 * shared with other CPUs:
 *   the probe		uprobes_srcu, held from the lookup to the end of the
 *			hit; no reference is taken.  The lookup reads the
 *			VMA under RCU and keeps the answer if mm_lock_seq
 *			shows no writer of the mappings meanwhile, else
 *			takes mmap_lock (read); a hit through a stub needs
 *			no VMA (the stub's site names the file offset).  The
 *			last put_uprobe() frees the probe after an SRCU
 *			grace period, then an RCU one.  What outlives the hit
 *			takes a reference, if the probe still has any: a
 *			step, a pending return, and the removal or jump left
 *			for after uprobes_srcu (hits_done()).
 *   consumers		uprobes_srcu; uprobe_unregister_sync() waits.
 *   XOL area, stubs	the mm's, until it goes; stub pages are found under
 *			RCU and never removed before.
 *   the uprobe_task	the task's own.
 *
 * uprobe_mmap() runs under mmap_lock (write) from mm, so it never takes
 * register_rwsem: it reads the consumer lists under uprobes_srcu, and the
 * i_mmap_rwsem a new mapping is linked under orders it against a
 * concurrent register or unregister.  Readers of the hash tables hold
 * rcu_read_lock(); readers of consumer lists hold uprobes_srcu (handlers
 * may sleep); uprobe_unregister_sync() waits for those.
 */

#include <linux/sort.h>

#include "internal.h"

/* ---------------------------------------------------------------------
 * Removals to finish
 *
 * A probe leaves the tables only once no process has its breakpoint or
 * jump any more: a breakpoint hit with no probe to find is taken for the
 * program's own (SIGTRAP), and a jump with no probe sends the task back
 * to itself.  The walk that disarms a probe whose last consumer left can
 * fail in some processes: get_user_pages_remote() gives up at once in a
 * task with a fatal signal pending (one killed while it disables an
 * event, a thread of a tool whose process is exiting), and memory may run
 * out.  Such a probe stays in the tables, with no consumer, on the list
 * of removals to finish.  A hit on it runs no handler and takes it out of
 * the process it hit in (handlers_remove()); the instruction is carried
 * out as if the probe had not been there.  A worker, which no signal cuts
 * short, walks again until a walk succeeds, then takes the probe out of
 * the tables; it waits longer after each round that fails.  A consumer
 * that registers meanwhile finds the probe live and takes it over.
 */

#define FINISH_DELAY_MIN	(HZ / 10)
#define FINISH_DELAY_MAX	(30 * HZ)

static void finish_removals(struct work_struct *work);

static LIST_HEAD(unfinished_removals);		/* by unfinished_node */
static DEFINE_SPINLOCK(unfinished_lock);	/* guards the list */
static DECLARE_DELAYED_WORK(finish_work, finish_removals);

/*
 * @uprobe may have lost its last consumer: out of the tables if the walk
 * that disarmed it succeeded (@err 0) and none before it failed, else
 * kept there for the worker.
 */
static void retire_uprobe(struct uprobe *uprobe, int err)
{
	lockdep_assert_held_write(&uprobe->register_rwsem);

	if (!uprobe_is_live(uprobe) || !list_empty(&uprobe->consumers))
		return;
	if (uprobe->unfinished)
		return;		/* the worker walks again anyway */
	if (!err) {
		unhash_uprobe(uprobe);
		return;
	}
	uprobe->unfinished = true;
	spin_lock(&unfinished_lock);
	list_add_tail(&uprobe->unfinished_node, &unfinished_removals);
	spin_unlock(&unfinished_lock);
	get_uprobe(uprobe);
	mod_delayed_work(system_unbound_wq, &finish_work, FINISH_DELAY_MIN);
}

/*
 * Walks again to disarm @uprobe, one of the worker's list: true, and off
 * the list, when the walk succeeded (the probe then leaves the tables if
 * it still has no consumer).
 */
static bool finish_removal(struct uprobe *uprobe)
{
	int err = 0;

	down_write(&uprobe->register_rwsem);
	if (uprobe_is_live(uprobe))
		err = walk_mappings(uprobe, NULL);
	if (!err) {
		list_del_init(&uprobe->unfinished_node);
		uprobe->unfinished = false;
		retire_uprobe(uprobe, 0);
	}
	up_write(&uprobe->register_rwsem);
	return !err;
}

/* The worker: each removal to finish, walked again. */
static void finish_removals(struct work_struct *work)
{
	static unsigned long delay = FINISH_DELAY_MIN;
	struct uprobe *uprobe, *next;
	LIST_HEAD(list);

	spin_lock(&unfinished_lock);
	list_splice_init(&unfinished_removals, &list);
	spin_unlock(&unfinished_lock);
	/* Only this worker moves the nodes of probes that are unfinished. */
	list_for_each_entry_safe(uprobe, next, &list, unfinished_node)
		if (finish_removal(uprobe))
			put_uprobe(uprobe);
	if (list_empty(&list)) {
		delay = FINISH_DELAY_MIN;
		return;
	}
	spin_lock(&unfinished_lock);
	list_splice_tail(&list, &unfinished_removals);
	spin_unlock(&unfinished_lock);
	delay = min(delay * 2, FINISH_DELAY_MAX);
	/* A removal queued meanwhile has set an earlier time: kept. */
	queue_delayed_work(system_unbound_wq, &finish_work, delay);
}

/* ---------------------------------------------------------------------
 * Consumers
 */

static bool has_consumer(struct uprobe *uprobe, struct uprobe_consumer *uc)
{
	struct uprobe_consumer *each;

	lockdep_assert_held(&uprobe->register_rwsem);

	list_for_each_entry(each, &uprobe->consumers, cons_node)
		if (each == uc)
			return true;
	return false;
}

/* ---------------------------------------------------------------------
 * The consumer API
 */

/*
 * Reads and analyses the instruction at registration when a process maps
 * the file: it gives the means to (some filesystems read only through an
 * open file; the architecture may analyse for that process).
 */
static int prepare_insn_early(struct uprobe *uprobe)
{
	struct address_space *mapping = uprobe->inode->i_mapping;
	pgoff_t pgoff = uprobe->offset >> PAGE_SHIFT;
	struct vm_area_struct *vma;
	struct mm_struct *mm = NULL;
	struct file *file = NULL;
	unsigned long vaddr = 0;
	int err;

	i_mmap_lock_read(mapping);
	vma_interval_tree_foreach(vma, &mapping->i_mmap, pgoff, pgoff) {
		file = get_file(vma->vm_file);
		mm = vma->vm_mm;
		mmgrab(mm);
		vaddr = offset_to_vaddr(vma, uprobe->offset);
		break;
	}
	i_mmap_unlock_read(mapping);
	err = prepare_insn(uprobe, file, mm, vaddr);
	if (mm)
		mmdrop(mm);
	if (file)
		fput(file);
	return err == -EAGAIN ? 0 : err;
}

/*
 * Takes @uc off @uprobe's list, and drops the credentials its notify()
 * had: a worker that read them holds its own reference.
 */
static void detach_consumer(struct uprobe *uprobe, struct uprobe_consumer *uc)
{
	const struct cred *cred = uc->cred;

	lockdep_assert_held_write(&uprobe->register_rwsem);

	list_del_rcu(&uc->cons_node);
	WRITE_ONCE(uc->cred, NULL);
	put_cred(cred);
}

/* Takes @uc off @uprobe, disarms where no one wants the probe any more. */
static void unregister_consumer(struct uprobe *uprobe, struct uprobe_consumer *uc)
{
	lockdep_assert_held_write(&uprobe->register_rwsem);

	detach_consumer(uprobe, uc);
	retire_uprobe(uprobe, walk_mappings(uprobe, NULL));
}

static int check_register_args(struct inode *inode, loff_t offset,
			       loff_t ref_ctr_offset, struct uprobe_consumer *uc)
{
	struct address_space *mapping = inode->i_mapping;

	if (!uc->handler && !uc->ret_handler)
		return -EINVAL;
	if (!mapping->a_ops->read_folio && !shmem_mapping(mapping))
		return -EIO;
	if (offset < 0 || offset >= i_size_read(inode))
		return -EINVAL;
	if (ref_ctr_offset < 0 || ref_ctr_offset >= i_size_read(inode) ||
	    !IS_ALIGNED(ref_ctr_offset, sizeof(short)))
		return -EINVAL;
	return 0;
}

/*
 * The probe at (@inode or @mm, @offset), made if there is none, live (in
 * the tables), with a reference and its register_rwsem held for writing;
 * or an ERR_PTR.
 */
static struct uprobe *lock_live_uprobe(struct inode *inode, struct mm_struct *mm,
				       loff_t offset, loff_t ref_ctr_offset)
{
	struct uprobe *uprobe;

	for (;;) {
		uprobe = get_or_add_uprobe(inode, mm, offset, ref_ctr_offset);
		if (IS_ERR(uprobe))
			return uprobe;
		down_write(&uprobe->register_rwsem);
		if (uprobe_is_live(uprobe))
			return uprobe;
		up_write(&uprobe->register_rwsem);
		put_uprobe(uprobe);
	}
}

/* Puts @uc last on @uprobe's list, for process @mm only if not NULL. */
static void attach_consumer(struct uprobe *uprobe, struct uprobe_consumer *uc,
			    struct mm_struct *mm)
{
	lockdep_assert_held_write(&uprobe->register_rwsem);

	uc->mm = mm;
	uc->leaving = false;
	/* What a notify() run by a worker may do (notify_consumers()). */
	uc->cred = uc->notify ? get_current_cred() : NULL;
	/*
	 * A handler's unregistration (leaving) before the hits that find @uc
	 * last (run_handlers()): a swap from a handler is seen whole.
	 */
	smp_wmb();
	list_add_tail_rcu(&uc->cons_node, &uprobe->consumers);
}

/*
 * Gives @uc the class of @uprobe's instruction (uprobe_consumer.refused),
 * when the analysis refused it: for a registration of @uc that failed.
 * A refused probe's @arch stays as the analysis left it.
 */
static void tell_refusal(struct uprobe *uprobe, struct uprobe_consumer *uc)
{
	mutex_lock(&uprobe->insn_mutex);
	if (uprobe->insn_state == INSN_REFUSED)
		uc->refused = arch_uprobe_refusal(&uprobe->arch, uprobe->insn_err);
	mutex_unlock(&uprobe->insn_mutex);
}

/*
 * Adds @uc to the probe at (@inode, @offset) without arming it, for @mm
 * only if not NULL (uprobe_register_pid(), whose reference the consumer
 * keeps from then on); @inode NULL: at address @offset of @mm's anonymous
 * memory, whose instruction is read when armed (anon.c).  The probe
 * with a reference and its register_rwsem held for writing, or an ERR_PTR
 * (then nothing changed).
 */
static struct uprobe *add_consumer(struct inode *inode, loff_t offset,
				   loff_t ref_ctr_offset, struct uprobe_consumer *uc,
				   struct mm_struct *mm)
{
	struct uprobe *uprobe;
	int err;

	uc->refused = UPROBE_REFUSED_NONE;
	if (!inode) {
		uprobe = lock_live_uprobe(NULL, mm, offset, 0);
		if (!IS_ERR(uprobe))
			attach_consumer(uprobe, uc, mm);
		return uprobe;
	}
	err = check_register_args(inode, offset, ref_ctr_offset, uc);
	if (err)
		return ERR_PTR(err);
	uprobe = lock_live_uprobe(inode, NULL, offset, ref_ctr_offset);
	if (IS_ERR(uprobe))
		return uprobe;
	err = prepare_insn_early(uprobe);
	if (err) {
		tell_refusal(uprobe, uc);
		retire_uprobe(uprobe, 0);
		up_write(&uprobe->register_rwsem);
		put_uprobe(uprobe);
		return ERR_PTR(err);
	}
	attach_consumer(uprobe, uc, mm);
	return uprobe;
}

/*
 * uprobe_register(), for process @mm only if not NULL (its reference is
 * the consumer's once this succeeds); @inode NULL: at address @offset of
 * @mm's anonymous memory.
 */
struct uprobe *register_consumer(struct inode *inode, loff_t offset, loff_t ref_ctr_offset,
				 struct uprobe_consumer *uc, struct mm_struct *mm)
{
	struct uprobe *uprobe;
	int err;

	uprobe = add_consumer(inode, offset, ref_ctr_offset, uc, mm);
	if (IS_ERR(uprobe))
		return uprobe;
	err = walk_mappings(uprobe, uc);
	if (err)
		goto unregister;
	up_write(&uprobe->register_rwsem);
	return uprobe;

unregister:
	tell_refusal(uprobe, uc);
	unregister_consumer(uprobe, uc);
	up_write(&uprobe->register_rwsem);
	synchronize_srcu(&uprobes_srcu);
	put_uprobe(uprobe);
	return ERR_PTR(err);
}

/**
 * uprobe_register - attach a consumer to a place in a file
 * @inode: the file
 * @offset: the place: an offset in @inode
 * @ref_ctr_offset: offset in @inode of an SDT semaphore (a short) to count
 *	in every process the probe is armed in, or 0
 * @uc: the consumer: its handler and/or ret_handler, and optional filter
 *
 * Arms the probe in every process that maps the place and that @uc's
 * filter wants, and in every later mapping.  Sleeps.  Called from a
 * handler (or a notify()), it only queues the registration, which runs
 * once the hit's handlers are over, in the same task; @uc->notify() is
 * then told its result (UPROBE_NOTICE_REGISTERED).
 *
 * Return: the probe, to give to uprobe_unregister_nosync() and
 * uprobe_apply(); or an ERR_PTR: -EINPROGRESS when queued from a handler;
 * -EINVAL for a bad offset or a consumer without handlers, or a place
 * already probed with another SDT counter; -EOPNOTSUPP for an instruction
 * that cannot be probed; -ENOEXEC for bytes that are no instruction;
 * -ENOMEM.
 */
struct uprobe *uprobe_register(struct inode *inode, loff_t offset,
			       loff_t ref_ctr_offset, struct uprobe_consumer *uc)
{
	if (in_uprobe_callback())
		return defer_register(inode, offset, ref_ctr_offset, NULL, uc);
	return register_consumer(inode, offset, ref_ctr_offset, uc, NULL);
}
EXPORT_SYMBOL_GPL(uprobe_register);

static int cmp_batch_inode(const void *a, const void *b)
{
	const struct inode *x = ((const struct batch_probe *)a)->uprobe->inode;
	const struct inode *y = ((const struct batch_probe *)b)->uprobe->inode;

	return x < y ? -1 : x > y;
}

/*
 * Ends the removal of the @n consumers of @probes, all of one file, whose
 * walk gave @err: retires the probes left without consumers, and drops
 * the references that @probes held.
 */
static void retire_run(struct batch_probe *probes, unsigned int n, int err)
{
	struct uprobe *uprobe;
	unsigned int i;

	for (i = 0; i < n; i++) {
		uprobe = probes[i].uprobe;
		down_write(&uprobe->register_rwsem);
		retire_uprobe(uprobe, err);
		up_write(&uprobe->register_rwsem);
		put_uprobe(uprobe);
	}
}

/*
 * Takes the consumers of @probes off their probes, then disarms the
 * probes in one walk per file, each where no consumer wants it any more;
 * then retires the probes of the file left without consumers.  Until the
 * walk is over, a probe stays in the tables: a breakpoint is never
 * without its probe.  A consumer that is not on its probe is left alone,
 * with a warning.
 */
static void remove_consumers(struct batch_probe *probes, unsigned int n)
{
	struct uprobe *uprobe;
	unsigned int i, run, kept = 0;
	int err;

	for (i = 0; i < n; i++) {
		uprobe = probes[i].uprobe;
		down_write(&uprobe->register_rwsem);
		if (!WARN_ON_ONCE(!has_consumer(uprobe, probes[i].uc))) {
			detach_consumer(uprobe, probes[i].uc);
			probes[kept++] = probes[i];
		}
		up_write(&uprobe->register_rwsem);
	}
	n = kept;
	sort(probes, n, sizeof(*probes), cmp_batch_inode, NULL);
	for (i = 0; i < n; i += run) {
		for (run = 1; i + run < n; run++)
			if (probes[i + run].uprobe->inode != probes[i].uprobe->inode)
				break;
		err = walk_batch(probes[i].uprobe->inode, probes + i, run, WALK_DISARM);
		retire_run(probes + i, run, err);
	}
}

/**
 * uprobe_register_batch - attach many consumers to places in one file
 * @inode: the file
 * @cnt: the number of places
 * @item: fills in the place, SDT counter and consumer of the @i-th, and
 *	where its probe goes (as uprobe_register() would return it)
 * @ctx: given to @item
 *
 * As @cnt calls of uprobe_register(), but each process mapping the file
 * is visited once for all the places, not once per place.  All or
 * nothing: on an error, no consumer of the batch is left attached, and
 * the handlers that ran meanwhile are over.
 *
 * Return: 0, or an error as uprobe_register() gives, for the first place
 * that could not be probed.
 */
int uprobe_register_batch(struct inode *inode, u32 cnt, uprobe_batch_fn item, void *ctx)
{
	struct uprobe_batch_item one;
	struct batch_probe *probes;
	struct uprobe *uprobe;
	u32 i;
	int err;

	/* Its error path waits for the handlers: not from one. */
	if (WARN_ON_ONCE(in_uprobe_callback()))
		return -EDEADLK;
	probes = kvcalloc(cnt, sizeof(*probes), GFP_KERNEL);
	if (!probes)
		return -ENOMEM;
	for (i = 0; i < cnt; i++) {
		item(ctx, i, &one);
		uprobe = add_consumer(inode, one.offset, one.ref_ctr_offset, one.uc, NULL);
		if (IS_ERR(uprobe)) {
			err = PTR_ERR(uprobe);
			goto remove;
		}
		up_write(&uprobe->register_rwsem);
		probes[i] = (struct batch_probe){ .uprobe = uprobe, .uc = one.uc };
		*one.uprobe = uprobe;
	}
	err = walk_batch(inode, probes, cnt, WALK_ARM);
	if (err)
		goto remove;
	kvfree(probes);
	return 0;

remove:
	remove_consumers(probes, i);
	synchronize_srcu(&uprobes_srcu);
	kvfree(probes);
	return err;
}
EXPORT_SYMBOL_GPL(uprobe_register_batch);

/**
 * uprobe_apply - follow a change of a consumer's filter
 * @uprobe: the probe, from uprobe_register()
 * @uc: one of its consumers
 * @add: true: arm where @uc's filter now wants the probe; false: disarm
 *	where no consumer's filter wants it any more
 *
 * Return: 0, -ENOENT if @uc is not a consumer of @uprobe, or an error from
 * arming.
 */
int uprobe_apply(struct uprobe *uprobe, struct uprobe_consumer *uc, bool add)
{
	int err = -ENOENT;

	down_write(&uprobe->register_rwsem);
	if (has_consumer(uprobe, uc))
		err = walk_mappings(uprobe, add ? uc : NULL);
	up_write(&uprobe->register_rwsem);
	return err;
}
EXPORT_SYMBOL_GPL(uprobe_apply);

/**
 * uprobe_unregister_nosync - detach a consumer
 * @uprobe: the probe, from uprobe_register()
 * @uc: the consumer
 *
 * Disarms the probe where no remaining consumer wants it.  The consumer's
 * handlers may still be running when this returns: call
 * uprobe_unregister_sync() (once for a batch) before freeing @uc.  Called
 * from a handler (or a notify()), it only queues the unregistration, and
 * no handler of @uc runs from then on; @uc->notify() is told when it is
 * done (UPROBE_NOTICE_UNREGISTERED).
 */
void uprobe_unregister_nosync(struct uprobe *uprobe, struct uprobe_consumer *uc)
{
	if (in_uprobe_callback()) {
		defer_unregister(uprobe, uc);
		return;
	}
	down_write(&uprobe->register_rwsem);
	if (WARN_ON_ONCE(!has_consumer(uprobe, uc))) {
		up_write(&uprobe->register_rwsem);
		return;
	}
	unregister_consumer(uprobe, uc);
	up_write(&uprobe->register_rwsem);
	/* Only compared from now on, by hits still running its handlers. */
	if (uc->mm)
		mmdrop(uc->mm);
	put_uprobe(uprobe);
}
EXPORT_SYMBOL_GPL(uprobe_unregister_nosync);

/**
 * uprobe_unregister_batch - detach many consumers
 * @cnt: their number
 * @item: fills in the consumer of the @i-th and where its probe is (the
 *	other fields are not read)
 * @ctx: given to @item
 *
 * As @cnt calls of uprobe_unregister_nosync(), but each process mapping
 * a file of the probes is visited once for all of them.  Call
 * uprobe_unregister_sync() before freeing the consumers.
 */
void uprobe_unregister_batch(u32 cnt, uprobe_batch_fn item, void *ctx)
{
	struct uprobe_batch_item one;
	struct batch_probe *probes;
	u32 i;

	probes = kvcalloc(cnt, sizeof(*probes), GFP_KERNEL);
	if (!probes) {
		for (i = 0; i < cnt; i++) {
			item(ctx, i, &one);
			uprobe_unregister_nosync(*one.uprobe, one.uc);
		}
		return;
	}
	for (i = 0; i < cnt; i++) {
		item(ctx, i, &one);
		probes[i] = (struct batch_probe){ .uprobe = *one.uprobe, .uc = one.uc };
	}
	remove_consumers(probes, cnt);
	kvfree(probes);
}
EXPORT_SYMBOL_GPL(uprobe_unregister_batch);

/**
 * uprobe_unregister_sync - wait for the handlers of detached consumers
 *
 * When this returns, no handler of a consumer detached before the call
 * is running or will run.  The wait is expedited: the tracers call this
 * once per event they disable, and the readers it waits for are only
 * handlers running right now.  Not from a handler, which it would wait
 * for: there it warns and returns.
 */
void uprobe_unregister_sync(void)
{
	if (WARN_ON_ONCE(in_uprobe_callback()))
		return;
	synchronize_srcu_expedited(&uprobes_srcu);
}
EXPORT_SYMBOL_GPL(uprobe_unregister_sync);

/**
 * uprobe_unregister_start_sync - start the wait of uprobe_unregister_sync()
 *	without waiting
 *
 * For a consumer whose owner frees it, or registers it again, only later:
 * the owner then asks uprobe_unregister_synced() whether it must still
 * wait, which after a while it seldom must.
 *
 * Return: a cookie for uprobe_unregister_synced().
 */
unsigned long uprobe_unregister_start_sync(void)
{
	return start_poll_synchronize_srcu(&uprobes_srcu);
}
EXPORT_SYMBOL_GPL(uprobe_unregister_start_sync);

/**
 * uprobe_unregister_synced - whether a wait started is over
 * @cookie: from uprobe_unregister_start_sync()
 *
 * Return: true when no handler of a consumer detached before
 * uprobe_unregister_start_sync() gave @cookie is running or will run.
 */
bool uprobe_unregister_synced(unsigned long cookie)
{
	return poll_state_synchronize_srcu(&uprobes_srcu, cookie);
}
EXPORT_SYMBOL_GPL(uprobe_unregister_synced);
