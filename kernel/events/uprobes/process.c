// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprobes core, probes by process and address: uprobe_register_pid().
 *
 * A place named by a process and a virtual address is one of two things.
 * In a mapping of a file, it is the file's probe at (inode, offset), with
 * a consumer that wants one mm (uprobe_consumer.mm): armed in that
 * process only, and only its hits reach the consumer's handlers.  In
 * anonymous executable memory (private, no file: code a JIT wrote), it
 * is a probe keyed by (mm, address), armed in that mm's own page.
 *
 * The process is its mm: all its threads, and a vfork() child while it
 * shares the mm.  A forked child is not probed.  It gets copies of the
 * parent's pages, breakpoints included.  In anonymous memory, fork puts
 * the original bytes back in the child's copies of the pages once they are
 * copied, still under the parent's mmap_lock, which every arming and
 * disarming holds, and before the child can run or be seen
 * (uprobe_dup_mmap_copied(); the write gives the child its own page).  A
 * file's probe tells the child apart by its consumer's mm.
 *
 * Other paths that would carry a probed page elsewhere behind the core's
 * back ask uprobe_anon_busy() first: UFFDIO_MOVE refuses to move it
 * (EBUSY), MADV_FREE leaves it in place.
 *
 * A probe in anonymous memory lives as long as its place does (enum
 * anon_state):
 *  - unmapped (munmap(), a mapping over it, MADV_DONTNEED), or the process
 *    gone (exit, exec): lost, with nothing to undo (uprobe_munmap());
 *  - moved by mremap(): its breakpoint is taken out first, and the probe
 *    is lost (uprobe_mremap());
 *  - made writable and not executable by mprotect(), as a JIT does before
 *    it writes code: its breakpoint is taken out and the probe held; made
 *    executable again, it is armed again if the instruction is unchanged,
 *    else lost (uprobe_mprotect());
 *  - rewritten in place, in memory that is writable and executable at
 *    once: a rewrite that keeps the breakpoint's byte and changes the rest
 *    of the instruction is seen at the next hit, which puts the program's
 *    byte back, loses the probe and runs the new instruction without a
 *    handler (anon_insn_changed()); a rewrite of the breakpoint's byte
 *    leaves no breakpoint behind, and the new code runs as written.
 * A lost probe leaves the tables at once, so that a breakpoint the program
 * writes at the same address later is the program's own.  Its consumers
 * are told from a worker (notify(), UPROBE_NOTICE_LOST) and stay on it
 * until they unregister.
 *
 * Unregistering puts back the byte the breakpoint replaced, while the
 * breakpoint is there, and leaves the page alone otherwise (the program
 * wrote there since).  What it cannot tell apart: a program that writes
 * the breakpoint instruction itself at the probed address gets the byte
 * it replaced back.
 *
 * No jumps to stubs in anonymous memory: a JIT may copy or move code it
 * wrote (a moving collector does), and a copied jump would run the stub
 * of a probe that is not at the copy.  A copied breakpoint is a trap at
 * an address with no probe: the program's own, as a debugger's would be.
 *
 * Locking is the core's (core.c).  Arming, disarming and the LIVE <-> HELD
 * changes happen under the mm's mmap_lock held for writing; losing a
 * probe happens under it held for reading at least (the mm's hooks), and
 * takes it out of the tables under uprobes_lock.  The hooks never take
 * register_rwsem.
 */

#include <linux/pid.h>
#include <linux/sched/task.h>
#include <linux/uaccess.h>

#include "internal.h"

/* ---------------------------------------------------------------------
 * The place
 */

/*
 * Whether @vma is memory a probe by address can be armed in: private,
 * anonymous (no file, no special mapping) and executable.
 */
bool anon_exec_vma(struct vm_area_struct *vma)
{
	return vma_is_anonymous(vma) &&
	       (vma->vm_flags & (VM_EXEC | VM_MAYSHARE | VM_HUGETLB)) == VM_EXEC;
}

/*
 * The probe at @vaddr of @vma, anonymous memory, for a hit: read under
 * RCU as find_vma_uprobe() does.
 */
struct uprobe *find_anon_uprobe(struct vm_area_struct *vma, unsigned long vaddr)
{
	struct mm_struct *mm = vma->vm_mm;

	if (!atomic_read(&mm->uprobes_state.nr_anon) || READ_ONCE(vma->vm_ops))
		return NULL;
	return find_uprobe_srcu(NULL, mm, vaddr);
}

/*
 * Reads @len bytes of text at @vaddr of @mm (mmap_lock held), zero past
 * the end of its mapping: the probed instruction, for prepare_insn().
 */
int read_anon_insn(struct mm_struct *mm, unsigned long vaddr, void *buf, size_t len)
{
	struct vm_area_struct *vma = vma_lookup(mm, vaddr);
	size_t first;
	int err;

	mmap_assert_locked(mm);

	memset(buf, 0, len);
	if (!vma)
		return -EFAULT;
	len = min_t(size_t, len, vma->vm_end - vaddr);
	first = min_t(size_t, len, PAGE_SIZE - offset_in_page(vaddr));
	err = read_mm_bytes(mm, vaddr, buf, first, NULL);
	if (!err && len > first)
		err = read_mm_bytes(mm, vaddr + first, buf + first, len - first, NULL);
	return err;
}

/**
 * arch_uprobe_insn_len - the length of the probed instruction
 * @auprobe: the analysed instruction
 *
 * Return: the default, for instructions of one size: the breakpoint's.
 */
unsigned int __weak arch_uprobe_insn_len(struct arch_uprobe *auprobe)
{
	return UPROBE_SWBP_INSN_SIZE;
}

/* Whether the @len bytes at @vaddr of @mm are @uprobe's from @from on. */
static bool insn_bytes_same(struct uprobe *uprobe, struct mm_struct *mm, unsigned int from)
{
	unsigned int len = arch_uprobe_insn_len(&uprobe->arch);
	u8 now[sizeof(uprobe->arch.insn)];

	if (len > sizeof(now))
		len = sizeof(now);
	if (len <= from)
		return true;
	if (read_anon_insn(mm, uprobe->offset, now, len))
		return false;
	return !memcmp(now + from, (u8 *)&uprobe->arch.insn + from, len - from);
}

/* ---------------------------------------------------------------------
 * Arming and disarming in the probe's mm
 */

/* Arms @uprobe in its mm, whose mmap_lock is held for writing. */
static int arm_anon(struct uprobe *uprobe)
{
	struct mm_struct *mm = uprobe->mm;
	unsigned long vaddr = uprobe->offset;
	struct vm_area_struct *vma = vma_lookup(mm, vaddr);
	uprobe_opcode_t now = 0, swbp = UPROBE_SWBP_INSN;
	int err;

	mmap_assert_write_locked(mm);

	if (uprobe->anon_state == ANON_HELD)
		return 0;	/* armed when the page is executable again */
	if (uprobe->anon_state == ANON_LOST)
		return -ENXIO;
	if (!vma || !anon_exec_vma(vma))
		return -EFAULT;
	err = prepare_insn(uprobe, NULL, mm, vaddr);
	if (err)
		return err;
	err = read_mm_bytes(mm, vaddr, &now, UPROBE_SWBP_INSN_SIZE, NULL);
	if (err)
		return err;
	if (is_swbp_insn(&now))
		return 0;
	if (memcmp(&now, &uprobe->arch.insn, UPROBE_SWBP_INSN_SIZE))
		return -EBUSY;	/* the program changed its code there */
	/* Before the breakpoint: a thread of @mm may trap on it at once. */
	set_bit(MMF_HAS_UPROBES, &mm->flags);
	/* Out of reach of paths under the VMA's own lock (UFFDIO_MOVE). */
	vma_start_write(vma);
	return write_mm_text(mm, vaddr, &swbp, UPROBE_SWBP_INSN_SIZE);
}

/*
 * Puts the program's byte back in place of @uprobe's breakpoint in @mm (the
 * probe's, or a forked copy of it), if the breakpoint is there.
 */
static int restore_anon_byte(struct uprobe *uprobe, struct mm_struct *mm)
{
	uprobe_opcode_t now = 0;
	int err;

	mmap_assert_write_locked(mm);

	/* Not READY: never armed.  READY: arch.insn holds the original text. */
	if (smp_load_acquire(&uprobe->insn_state) != INSN_READY)
		return 0;
	err = read_mm_bytes(mm, uprobe->offset, &now, UPROBE_SWBP_INSN_SIZE, NULL);
	if (err || !is_swbp_insn(&now))
		return err;
	return write_mm_text(mm, uprobe->offset, &uprobe->arch.insn, UPROBE_SWBP_INSN_SIZE);
}

/* Disarms @uprobe in its mm, whose mmap_lock is held for writing. */
static int disarm_anon(struct uprobe *uprobe)
{
	struct vm_area_struct *vma = vma_lookup(uprobe->mm, uprobe->offset);

	if (!vma || !vma_is_anonymous(vma))
		return 0;
	return restore_anon_byte(uprobe, uprobe->mm);
}

/*
 * Arms @uprobe where @uc wants it (@uc non-NULL), or disarms it where no
 * consumer wants it any more (@uc NULL): in its mm, the only one.
 */
int walk_anon(struct uprobe *uprobe, struct uprobe_consumer *uc)
{
	struct mm_struct *mm = uprobe->mm;
	int err = 0;

	lockdep_assert_held_write(&uprobe->register_rwsem);

	if (!mmget_not_zero(mm))
		return uc ? -ESRCH : 0;
	mmap_write_lock(mm);
	if (!uprobe_is_live(uprobe))
		err = uc ? -ENXIO : 0;
	else if (uc && consumer_wants(uc, mm))
		err = arm_anon(uprobe);
	else if (!uc && !any_consumer_wants(uprobe, mm))
		err = disarm_anon(uprobe);
	mmap_write_unlock(mm);
	mmput(mm);
	return err;
}

/* The handlers of a hit in the probe's mm asked it out (handlers_remove()). */
void remove_from_anon(struct uprobe *uprobe)
{
	struct mm_struct *mm = uprobe->mm;

	mmap_write_lock(mm);
	if (uprobe_is_live(uprobe))
		disarm_anon(uprobe);
	mmap_write_unlock(mm);
}

/* ---------------------------------------------------------------------
 * Losing the place
 */

static LLIST_HEAD(anon_lost);

/* Tells the consumers of the probes lost since the last time. */
static void tell_lost(struct work_struct *work)
{
	struct llist_node *list = llist_del_all(&anon_lost);
	struct uprobe *uprobe, *next;

	llist_for_each_entry_safe(uprobe, next, list, free_node) {
		notify_consumers(uprobe, UPROBE_NOTICE_LOST, uprobe->anon_err);
		put_uprobe(uprobe);
	}
}

static DECLARE_WORK(tell_lost_work, tell_lost);

static void anon_set_state(struct uprobe *uprobe, enum anon_state state)
{
	enum anon_state old = uprobe->anon_state;

	/* LIVE <-> HELD, and either -> LOST; LOST is for good. */
	if (WARN_ONCE(old == ANON_LOST || old == state,
		      "uprobes: anonymous probe state %d -> %d\n", old, state))
		return;
	WRITE_ONCE(uprobe->anon_state, state);
}

/*
 * @uprobe's place is gone (@why, an enum uprobe_notice LOST errno): out of
 * the tables, and its consumers are told.  The mm's mmap_lock is held.
 * The queue of probes to tell uses the probe's free_node: a probe there
 * holds a reference, so it is not on its way to be freed.
 */
static void anon_lose(struct uprobe *uprobe, int why)
{
	mmap_assert_locked(uprobe->mm);

	if (!unhash_uprobe(uprobe))
		return;	/* lost, or unregistered, already */
	uprobe->anon_err = why;
	anon_set_state(uprobe, ANON_LOST);
	get_uprobe(uprobe);
	if (llist_add(&uprobe->free_node, &anon_lost))
		schedule_work(&tell_lost_work);
}

/* A range of an mm's anonymous memory, for visit_probes(). */
struct anon_range {
	struct mm_struct *mm;
	unsigned long start;
	unsigned long end;
};

static bool probe_in_range(struct uprobe *uprobe, const void *arg)
{
	const struct anon_range *range = arg;

	return uprobe->mm == range->mm && uprobe->offset >= range->start &&
	       uprobe->offset < range->end;
}

/*
 * Calls @fn on each live probe of @mm's anonymous memory in [@start,
 * @end), in address order, each with a reference: all of them, whatever
 * memory there is.
 */
static void visit_anon_probes(struct mm_struct *mm, unsigned long start, unsigned long end,
			      void (*fn)(struct uprobe *uprobe, void *ctx), void *ctx)
{
	struct anon_range range = { mm, start, end };

	visit_probes(mm, probe_in_range, &range, fn, ctx);
}

/* visit_anon_probes(): the probe is lost, with the errno *@why. */
static void anon_lose_fn(struct uprobe *uprobe, void *why)
{
	anon_lose(uprobe, *(int *)why);
}

/*
 * visit_anon_probes(): the probe's breakpoint is taken out, under the
 * mm's mmap_lock held for writing, and it is lost with the errno *@why.
 */
static void anon_disarm_lose_fn(struct uprobe *uprobe, void *why)
{
	if (uprobe->anon_state == ANON_LIVE)
		disarm_anon(uprobe);
	anon_lose(uprobe, *(int *)why);
}

/* Whether the mm's hooks have anything to do for @vma. */
static bool vma_may_hold_anon(struct vm_area_struct *vma)
{
	return !vma->vm_file && atomic_read(&vma->vm_mm->uprobes_state.nr_anon);
}

/*
 * Unmapped, its page is gone with the breakpoint.  When the mm has no
 * users left, the process exited or exec'd.
 */
void anon_munmap(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	struct mm_struct *mm = vma->vm_mm;
	int why = atomic_read(&mm->mm_users) ? -ENXIO : -ESRCH;

	if (!vma_may_hold_anon(vma))
		return;
	visit_anon_probes(mm, start, end, anon_lose_fn, &why);
}

/*
 * Anonymous memory that mremap() is about to move: its breakpoints are
 * taken out, and its probes are lost.
 */
void anon_mremap(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	int why = -ENXIO;

	if (!vma_may_hold_anon(vma))
		return;
	mmap_assert_write_locked(vma->vm_mm);

	visit_anon_probes(vma->vm_mm, start, end, anon_disarm_lose_fn, &why);
}

/*
 * @uprobe's page became executable again after it was held: armed again
 * if the program left the instruction as it was, else lost.
 */
static void anon_release(struct uprobe *uprobe)
{
	if (!insn_bytes_same(uprobe, uprobe->mm, 0)) {
		anon_lose(uprobe, -ESTALE);
		return;
	}
	anon_set_state(uprobe, ANON_LIVE);
	if (any_consumer_wants(uprobe, uprobe->mm) && arm_anon(uprobe))
		anon_lose(uprobe, -ESTALE);
}

/*
 * Follows a change of the protection of @uprobe's page: held when it is
 * writable and not executable, armed again when executable.
 */
static void anon_protect(struct uprobe *uprobe)
{
	struct vm_area_struct *vma = vma_lookup(uprobe->mm, uprobe->offset);
	vm_flags_t flags;

	if (!vma || !vma_is_anonymous(vma))
		return;
	flags = vma->vm_flags;
	if ((flags & (VM_WRITE | VM_EXEC)) == VM_WRITE && uprobe->anon_state == ANON_LIVE) {
		if (disarm_anon(uprobe))
			anon_lose(uprobe, -ESTALE);
		else
			anon_set_state(uprobe, ANON_HELD);
	} else if ((flags & VM_EXEC) && uprobe->anon_state == ANON_HELD) {
		anon_release(uprobe);
	}
}

static void anon_protect_fn(struct uprobe *uprobe, void *unused)
{
	anon_protect(uprobe);
}

/**
 * uprobe_mprotect - the protection of a range of an mm changed
 * @mm: the mm, whose mmap_lock is held for writing
 * @start: start of the range
 * @end: its end
 *
 * Probes in anonymous memory made writable and not executable are held,
 * their breakpoints out; those made executable again are armed again
 * (anon_release()).
 */
void uprobe_mprotect(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	if (!atomic_read(&mm->uprobes_state.nr_anon))
		return;
	mmap_assert_write_locked(mm);

	visit_anon_probes(mm, start, end, anon_protect_fn, NULL);
}

/*
 * Fork is about to copy @oldmm, write-locked, into @mm, a copy of its
 * struct: the probes of the parent are none of the child's.
 */
void anon_fork_start(struct mm_struct *oldmm, struct mm_struct *mm)
{
	mmap_assert_write_locked(oldmm);
	atomic_set(&mm->uprobes_state.nr_anon, 0);
}

/* visit_anon_probes(): the child's copy gets the replaced byte back. */
static void anon_restore_fn(struct uprobe *uprobe, void *child)
{
	restore_anon_byte(uprobe, child);
}

/**
 * uprobe_dup_mmap_copied - fork copied an mm
 * @oldmm: the parent's, its mmap_lock held for writing since the copy began
 * @newmm: the child's copy, its mmap_lock held for writing
 *
 * The bytes that the parent's breakpoints in anonymous memory replaced go
 * back in the child's copies of the pages, before the child can run or
 * be seen by anyone (in /proc, by the fork connector, by a tracer): no
 * one ever finds a breakpoint of a probe by address in a child.  The
 * parent's probes are those that were copied: arming and disarming need
 * its mmap_lock.
 */
void uprobe_dup_mmap_copied(struct mm_struct *oldmm, struct mm_struct *newmm)
{
	mmap_assert_write_locked(oldmm);
	mmap_assert_write_locked(newmm);

	if (atomic_read(&oldmm->uprobes_state.nr_anon))
		visit_anon_probes(oldmm, 0, ULONG_MAX, anon_restore_fn, newmm);
}

static bool probe_live_in_range(struct uprobe *uprobe, const void *arg)
{
	return probe_in_range(uprobe, arg) && uprobe->anon_state == ANON_LIVE;
}

/**
 * uprobe_anon_busy - whether anonymous memory holds breakpoints
 * @vma: an anonymous mapping, its mm's mmap_lock or its own lock held
 * @start: start of the range
 * @end: its end
 *
 * For the mm paths that would move pages of anonymous memory elsewhere
 * (UFFDIO_MOVE) or let reclaim drop them (MADV_FREE) behind the core's
 * back: a page with a probe's breakpoint must stay where it is.  A probe
 * is armed with the mmap_lock held for writing and its VMA locked for
 * writing (arm_anon()), so the answer holds while the caller's lock does.
 *
 * Return: true when a live probe by address has its breakpoint in the range.
 */
bool uprobe_anon_busy(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	struct anon_range range = { vma->vm_mm, start, end };
	struct uprobe *uprobe;
	bool busy = false;

	if (!vma_may_hold_anon(vma))
		return false;
	rcu_read_lock();
	hlist_for_each_entry_rcu(uprobe, owner_bucket(vma->vm_mm), inode_node)
		if (probe_live_in_range(uprobe, &range)) {
			busy = true;
			break;
		}
	rcu_read_unlock();
	return busy;
}

/*
 * Whether the program rewrote @uprobe's instruction at @vaddr around its
 * breakpoint: the bytes after the breakpoint differ.  Read at a hit, in
 * the task's context.
 */
bool anon_insn_changed(struct uprobe *uprobe, unsigned long vaddr)
{
	unsigned int len = arch_uprobe_insn_len(&uprobe->arch);
	u8 now[sizeof(uprobe->arch.insn)];

	len = min_t(unsigned int, len, sizeof(now));
	if (len <= UPROBE_SWBP_INSN_SIZE)
		return false;
	if (copy_from_user(now, (void __user *)(vaddr + UPROBE_SWBP_INSN_SIZE),
			   len - UPROBE_SWBP_INSN_SIZE))
		return false;
	return memcmp(now, (u8 *)&uprobe->arch.insn + UPROBE_SWBP_INSN_SIZE,
		      len - UPROBE_SWBP_INSN_SIZE);
}

/*
 * After a hit found @uprobe's instruction rewritten (anon_insn_changed()):
 * the program's byte goes back in place of the breakpoint, and the probe
 * is lost.  The task runs the new instruction.
 */
void anon_rewritten(struct uprobe *uprobe)
{
	struct mm_struct *mm = uprobe->mm;

	mmap_write_lock(mm);
	if (uprobe_is_live(uprobe) && !insn_bytes_same(uprobe, mm, UPROBE_SWBP_INSN_SIZE)) {
		disarm_anon(uprobe);
		anon_lose(uprobe, -ESTALE);
	}
	mmap_write_unlock(mm);
}

/* ---------------------------------------------------------------------
 * The API
 */

/*
 * The mm of the process that has @pid, with a reference (mmput()), if the
 * caller may probe it; or an ERR_PTR.  The permission is checked under
 * the task's exec_update_lock (mm_access()), so that an execve() that
 * changes the task's credentials cannot slip in between the check and
 * the mm it hands over.
 */
static struct mm_struct *pid_mm(struct pid *pid)
{
	struct task_struct *task = get_pid_task(pid, PIDTYPE_PID);
	struct mm_struct *mm;

	if (!task)
		return ERR_PTR(-ESRCH);
	if (task->flags & PF_KTHREAD)
		mm = ERR_PTR(-EINVAL);
	else if (task->flags & PF_EXITING)
		mm = ERR_PTR(-ESRCH);
	else
		mm = mm_access(task, PTRACE_MODE_ATTACH_REALCREDS) ?: ERR_PTR(-ESRCH);
	put_task_struct(task);
	return mm;
}

/*
 * What is at @vaddr of @mm: a file's place (*@inode, with a reference,
 * and *@offset), or anonymous memory (*@inode NULL); or why it cannot be
 * probed.
 */
static int place_of(struct mm_struct *mm, unsigned long vaddr, struct inode **inode,
		    loff_t *offset)
{
	struct vm_area_struct *vma;
	int err = 0;

	*inode = NULL;
	if (mmap_read_lock_killable(mm))
		return -EINTR;
	vma = vma_lookup(mm, vaddr);
	if (!vma || !(vma->vm_flags & VM_EXEC))
		err = -EFAULT;
	else if (vma->vm_file ? !valid_vma(vma, true) : !anon_exec_vma(vma))
		err = -EOPNOTSUPP;
	else if (vma->vm_file)
		*inode = igrab(file_inode(vma->vm_file));
	if (*inode)
		*offset = vaddr_to_offset(vma, vaddr);
	mmap_read_unlock(mm);
	return err;
}

/*
 * Attaches @uc to address @vaddr of @mm, whose address space the caller
 * holds (mmget()) and was allowed to probe (pid_mm()).
 */
struct uprobe *register_in_mm(struct mm_struct *mm, unsigned long vaddr,
			      struct uprobe_consumer *uc)
{
	struct uprobe *uprobe;
	struct inode *inode;
	loff_t offset;
	int err;

	err = place_of(mm, vaddr, &inode, &offset);
	if (err)
		return ERR_PTR(err);
	mmgrab(mm);
	uprobe = register_consumer(inode, inode ? offset : vaddr, 0, uc, mm);
	iput(inode);
	if (IS_ERR(uprobe))
		mmdrop(mm);
	return uprobe;
}

/**
 * uprobe_register_pid - attach a consumer to an address of one process
 * @pid: the process: the one whose thread has this struct pid now, as
 *	find_get_pid() or pidfd_pid() give it; NULL for none
 * @vaddr: the probed address in it
 * @uc: the consumer: its handler and/or ret_handler, and optional filter
 *	and notify
 *
 * In a mapping of a file, the probe is the file's at the offset @vaddr
 * maps, armed in this process only, its threads included and forked
 * children not.  In anonymous executable memory (code written at run
 * time), it is armed in the process's own page, and lasts as long as the
 * code there does: when the memory is unmapped or moved, the code
 * rewritten, or the process exits or execs, @uc->notify() is told
 * (UPROBE_NOTICE_LOST).  Unregistered with uprobe_unregister_nosync(), as
 * any probe.
 *
 * A struct pid names a process for as long as the process lives: once it
 * has exited, the call fails with -ESRCH, even if a new process has the
 * same number by then.  The caller must be allowed to ptrace the process
 * (PTRACE_MODE_ATTACH_REALCREDS), checked against the caller's
 * credentials when it calls.  Called from a handler, the process is found
 * and the permission checked at the call, and the rest finishes later
 * (-EINPROGRESS; see uprobe_register()).  Sleeps.
 *
 * Return: the probe, or an ERR_PTR: -ESRCH for no process (@pid NULL, or
 * no task has it any more) or one that is exiting; -EINVAL for a kernel
 * thread or a consumer without handlers; -EACCES when the caller may not
 * ptrace the process; -EINTR when interrupted by a fatal signal; -EFAULT
 * for an address that is not mapped executable; -EOPNOTSUPP for memory
 * that cannot be probed (shared, hugetlb, special mappings) or an
 * instruction that cannot; -EBUSY when the code changed meanwhile;
 * -ENOEXEC, -ENOMEM as uprobe_register().
 */
struct uprobe *uprobe_register_pid(struct pid *pid, unsigned long vaddr,
				   struct uprobe_consumer *uc)
{
	struct uprobe *uprobe;
	struct mm_struct *mm;

	if (!uc->handler && !uc->ret_handler)
		return ERR_PTR(-EINVAL);
	mm = pid_mm(pid);
	if (IS_ERR(mm))
		return ERR_CAST(mm);
	if (in_uprobe_callback())
		uprobe = defer_register(NULL, vaddr, 0, mm, uc);
	else
		uprobe = register_in_mm(mm, vaddr, uc);
	mmput(mm);
	return uprobe;
}
EXPORT_SYMBOL_GPL(uprobe_register_pid);
