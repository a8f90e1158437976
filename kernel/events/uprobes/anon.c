// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprobes core, probes in anonymous memory: a probe keyed by (mm,
 * address) in a process's private executable memory with no file, code a
 * JIT wrote (uprobe_register_pid(), process.c), armed in that mm's own
 * page.
 *
 * A forked child is not probed.  It gets copies of the parent's pages,
 * breakpoints included: fork puts the original bytes back in the child's
 * copies once they are copied, still under the parent's mmap_lock, which
 * every arming and disarming holds, and before the child can run or be
 * seen (anon_fork_restore(); the write gives the child its own page).
 *
 * Other paths that would carry a probed page elsewhere behind the core's
 * back ask anon_busy() first (uprobe_anon_busy()): UFFDIO_MOVE refuses to
 * move it (EBUSY), MADV_FREE leaves it in place.
 *
 * A probe in anonymous memory lives as long as its place does (enum
 * anon_state):
 *  - unmapped (munmap(), a mapping over it, MADV_DONTNEED), or the process
 *    gone (exit, exec): lost, with nothing to undo (anon_munmap());
 *  - moved by mremap(): its breakpoint is taken out first, and the probe
 *    is lost (anon_mremap());
 *  - made writable and not executable by mprotect(), as a JIT does before
 *    it writes code: its breakpoint is taken out and the probe held; made
 *    executable again, it is armed again if the instruction is unchanged,
 *    else lost (anon_mprotect());
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
 * The breakpoint written here is the architecture's for anonymous memory
 * (arch_uprobe_anon_swbp()): where it has one, a trapping instruction that
 * programs do not write (x86-64: an opcode that is none in 64-bit mode),
 * so that the program's own breakpoint instruction at a probed address,
 * which a JIT writes as padding, is never taken for the probe's.
 * Unregistering puts back the byte the breakpoint replaced, while the
 * probe's breakpoint is there, and leaves the page alone otherwise (the
 * program wrote there since).  A trap on the program's own breakpoint at
 * a probed address is the program's (anon_trap_is_programs()).  Where
 * the architecture has no such instruction, the two cannot be told apart.
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

/**
 * arch_uprobe_anon_swbp - the breakpoint of probes in anonymous memory
 * @mm: the mm it is written in
 *
 * Return: the default: UPROBE_SWBP_INSN.
 */
uprobe_opcode_t __weak arch_uprobe_anon_swbp(struct mm_struct *mm)
{
	return UPROBE_SWBP_INSN;
}

/* Whether @insn, read in @mm's anonymous memory, is a probe's breakpoint. */
bool is_anon_swbp(struct mm_struct *mm, const uprobe_opcode_t *insn)
{
	uprobe_opcode_t swbp = arch_uprobe_anon_swbp(mm);

	return !memcmp(insn, &swbp, UPROBE_SWBP_INSN_SIZE);
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
	uprobe_opcode_t now = 0, swbp = arch_uprobe_anon_swbp(mm);
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
	if (is_anon_swbp(mm, &now))
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
	if (err || !is_anon_swbp(mm, &now))
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
void visit_anon_probes(struct mm_struct *mm, unsigned long start, unsigned long end,
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

/*
 * The protection of [@start, @end) of @mm changed: its probes made
 * writable and not executable are held, their breakpoints out; those made
 * executable again are armed again (anon_release()).
 */
void anon_mprotect(struct mm_struct *mm, unsigned long start, unsigned long end)
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

/*
 * Fork copied @oldmm into @newmm, both write-locked: the bytes that the
 * parent's breakpoints replaced go back in the child's copies of the
 * pages.  The parent's probes are those that were copied: arming and
 * disarming need its mmap_lock.
 */
void anon_fork_restore(struct mm_struct *oldmm, struct mm_struct *newmm)
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

/*
 * Whether a live probe has its breakpoint in [@start, @end) of @vma.  A
 * probe is armed with the mmap_lock held for writing and its VMA locked
 * for writing (arm_anon()), so the answer holds while the caller holds
 * either lock.
 */
bool anon_busy(struct vm_area_struct *vma, unsigned long start, unsigned long end)
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
 * Whether the trap at @vaddr, where @uprobe is, was on a breakpoint
 * instruction the program wrote there itself, not on the probe's: the
 * program gets the trap.  Read at a hit, in the task's context.
 */
bool anon_trap_is_programs(struct uprobe *uprobe, unsigned long vaddr)
{
	uprobe_opcode_t now = 0;

	if (copy_from_user(&now, (void __user *)vaddr, UPROBE_SWBP_INSN_SIZE))
		return false;
	return is_trap_insn(&now) && !is_anon_swbp(uprobe->mm, &now);
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
