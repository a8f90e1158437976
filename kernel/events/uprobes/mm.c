// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprobes core, the mm's hooks: what mm/ and fork call, in one place.
 * Each hook says what it owes the mm and hands the work to the part
 * that does it: arming new mappings (arm.c), probes in anonymous memory
 * (anon.c), jumps (jumps.c), the XOL area and stub pages (xol.c), SDT
 * counters (arm.c).  All run with the mm's mmap_lock held as each says.
 */

#include "internal.h"

/**
 * uprobe_mmap - arm the probes a new mapping covers
 * @vma: the new (or changed) mapping; its mm's mmap_lock is held for write
 *
 * Also counts the SDT counters that waited for this mapping.
 *
 * Return: 0.  A probe that cannot be armed does not fail the mapping.
 */
int uprobe_mmap(struct vm_area_struct *vma)
{
	if (!atomic_read(&uprobes_count) || !vma->vm_file)
		return 0;
	arm_new_vma(vma);
	return 0;
}

/**
 * uprobe_munmap - a mapping is going away
 * @vma: the mapping
 * @start: start of the range unmapped
 * @end: its end
 *
 * Nothing to undo in a file's mapping: the breakpoints go with the
 * process's copies of the pages, and an SDT counter counts arming, which
 * the mm keeps.  A probe in anonymous memory loses its place.
 */
void uprobe_munmap(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	anon_munmap(vma, start, end);
}

/**
 * uprobe_munmap_prepare - a range of an mm is about to be unmapped
 * @mm: the mm, whose mmap_lock is held for writing
 * @start: start of the range (munmap(), a MAP_FIXED mapping over it, the
 *	place an mremap() moves to)
 * @end: its end
 *
 * Before the vmas go: the jumps that lead into a stub page of the range
 * give way to their breakpoints (stub_pages_unmap()), and what the mm
 * knows of places there that have no punned jump is forgotten.
 */
void uprobe_munmap_prepare(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	struct xol_area *area;

	if (!test_bit(MMF_HAS_UPROBES, &mm->flags))
		return;
	area = mm_xol_area(mm);
	if (area)
		stub_pages_unmap(mm, area, start, end);
	jumps_forget_range(mm, start, end);
}

/**
 * uprobe_mremap - text is about to move
 * @vma: the mapping it is in, its mm's mmap_lock held for writing
 * @start: start of the range that moves
 * @end: its end
 *
 * The jumps to stubs of a file's text give way to breakpoints
 * (jumps_mremap()); probes in anonymous memory lose their place.
 */
void uprobe_mremap(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	jumps_mremap(vma, start, end);
	anon_mremap(vma, start, end);
}

/**
 * uprobe_mprotect - the protection of a range of an mm changed
 * @mm: the mm, whose mmap_lock is held for writing
 * @start: start of the range
 * @end: its end
 *
 * Probes in anonymous memory made writable and not executable are held,
 * their breakpoints out; those made executable again are armed again.
 * What the mm knows of places there that can have no jump is forgotten:
 * the new protection may allow one.
 */
void uprobe_mprotect(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	anon_mprotect(mm, start, end);
	jumps_forget_range(mm, start, end);
}

/**
 * uprobe_mprotect_write - a range of an mm is about to become writable
 * @mm: the mm, whose mmap_lock is held for writing
 * @start: start of the range
 * @end: its end
 *
 * Before the new protection: a store of the process there must find no
 * jump to a stub in the bytes it changes (a punned jump's last bytes are
 * the next instructions').  The jumps of the range give way to their
 * breakpoints; the text written then gets a jump again only once it is
 * as the file has it, and not writable.
 */
void uprobe_mprotect_write(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	mmap_assert_write_locked(mm);
	jumps_out_range(mm, start, end - start);
}

/**
 * uprobe_foreign_write - another task is about to write into an mm
 * @mm: the mm, whose mmap_lock the writer holds for reading
 * @addr: where
 * @len: how many bytes
 *
 * ptrace, /proc/PID/mem and the other writers through
 * __access_remote_vm(): the jumps to stubs whose bytes the write meets
 * are taken out first, so that a debugger's breakpoint after a punned
 * jump does not change where that jump leads.  (process_vm_writev() does
 * not force its writes: it cannot write the mappings punned jumps are
 * made in, which are not writable.)  Takes mmap_lock for writing
 * meanwhile, and gives it back for reading.
 *
 * Return: 0, or -EINTR if the writer was killed (the lock is then not held).
 */
int uprobe_foreign_write(struct mm_struct *mm, unsigned long addr, unsigned long len)
{
	if (!test_bit(MMF_HAS_UPROBES, &mm->flags) || !jumps_in_range(mm, addr, len))
		return 0;
	mmap_read_unlock(mm);
	if (mmap_write_lock_killable(mm))
		return -EINTR;
	jumps_out_range(mm, addr, len);
	mmap_write_downgrade(mm);
	return 0;
}

/**
 * uprobe_foreign_read - another task read @len bytes at @addr of @mm
 * @mm: the mm, whose mmap_lock the reader holds for reading
 * @addr: where
 * @buf: what it read
 * @len: how many bytes
 *
 * The bytes of a jump to a stub read as the breakpoint and the original
 * bytes it stands for: what taking it out would leave.  A debugger that
 * reads a word or a byte, writes its own breakpoint and writes back what
 * it read never writes back a jump, after uprobe_foreign_write() took it
 * out: the jump's first byte over the instruction's others would lead
 * nowhere, a punned jump with a changed byte elsewhere.
 */
void uprobe_foreign_read(struct mm_struct *mm, unsigned long addr, void *buf,
			 unsigned long len)
{
	if (test_bit(MMF_HAS_UPROBES, &mm->flags))
		jumps_mask_range(mm, addr, buf, len);
}

/**
 * uprobe_foreign_read_masks - whether a read of @mm must go through masks
 * @mm: the mm, whose mmap_lock the reader holds
 * @addr: where the read starts
 * @len: how many bytes
 *
 * process_vm_readv() copies the pages it pinned after it has given
 * mmap_lock back, too late to mask the jumps they hold; where this says
 * so, it reads through access_remote_vm(), which copies and masks under
 * one hold of the lock (uprobe_foreign_read()).  Jumps are written with
 * the lock held for writing: the answer holds while the caller's lock does.
 *
 * Return: true when a jump to a stub meets [@addr, @addr + @len).
 */
bool uprobe_foreign_read_masks(struct mm_struct *mm, unsigned long addr, unsigned long len)
{
	mmap_assert_locked(mm);
	return test_bit(MMF_HAS_UPROBES, &mm->flags) && jumps_in_range(mm, addr, len);
}

/**
 * uprobe_anon_busy - whether anonymous memory holds breakpoints
 * @vma: an anonymous mapping, its mm's mmap_lock or its own lock held
 * @start: start of the range
 * @end: its end
 *
 * For the mm paths that would move pages of anonymous memory elsewhere
 * (UFFDIO_MOVE) or let reclaim drop them (MADV_FREE) behind the core's
 * back: a page with a probe's breakpoint must stay where it is.  The
 * answer holds while the caller's lock does.
 *
 * Return: true when a live probe by address has its breakpoint in the range.
 */
bool uprobe_anon_busy(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	return anon_busy(vma, start, end);
}

/**
 * uprobe_start_dup_mmap - fork is about to copy mappings
 *
 * Until uprobe_end_dup_mmap(), no walk over a file's mappings runs, so
 * that none misses the child.
 */
void uprobe_start_dup_mmap(void)
{
	arm_fork_begin();
}

/**
 * uprobe_end_dup_mmap - fork is done copying mappings
 */
void uprobe_end_dup_mmap(void)
{
	arm_fork_end();
}

/**
 * uprobe_dup_mmap - fork is about to copy an mm
 * @oldmm: the parent's, its mmap_lock held for writing
 * @newmm: the child's, a copy of the parent's struct, its mappings not yet
 *
 * The child will have the parent's breakpoints and jumps, in its copies
 * of the pages; it needs its own XOL page behind the copied XOL mapping,
 * where its pending returns (uprobe_copy_process()) lead, and its own
 * copies of the stub pages the jumps lead to.  Without memory for them
 * the child has none, and uprobe_dup_mmap_copied() fails the fork.  The parent's probes in
 * anonymous memory are none of the child's: their breakpoints are taken
 * out of its copies once made (uprobe_dup_mmap_copied()).
 */
void uprobe_dup_mmap(struct mm_struct *oldmm, struct mm_struct *newmm)
{
	anon_fork_start(oldmm, newmm);
	if (test_bit(MMF_HAS_UPROBES, &oldmm->flags))
		set_bit(MMF_HAS_UPROBES, &newmm->flags);
	xol_dup(oldmm, newmm);
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
 * parts of the XOL mapping that the program kept from fork
 * (MADV_DONTFORK) are mapped again in the child.
 *
 * Return: 0, or -ENOMEM when the child could not have its own XOL area
 * and stub pages (uprobe_dup_mmap()) or their mapping: its copies of the
 * parent's jumps and pending returns would lead into nothing, so the fork
 * fails.
 */
int uprobe_dup_mmap_copied(struct mm_struct *oldmm, struct mm_struct *newmm)
{
	int err;

	if (mm_xol_area(oldmm) && !mm_xol_area(newmm))
		return -ENOMEM;
	err = xol_dup_dontfork(oldmm, newmm);
	if (err)
		return err;
	anon_fork_restore(oldmm, newmm);
	return 0;
}

/**
 * uprobe_clear_state - an mm is torn down
 * @mm: the mm
 *
 * Its SDT counters waiting for a mapping are forgotten; its XOL area and
 * stub pages are freed.
 */
void uprobe_clear_state(struct mm_struct *mm)
{
	drop_delayed_of_mm(mm);
	xol_free(mm);
}
