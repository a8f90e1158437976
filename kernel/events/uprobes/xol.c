// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprobes core, the XOL area: XOL_PAGES_MAX pages of an mm's address
 * space, mapped at the first need, of which only the first has memory
 * from the start.  Slot 0 holds the return-probe trampoline; the others
 * hold copies of probed instructions, run out of line.  A task may keep a
 * slot of its own, where its run-direct instructions go, until it exits.
 *
 * A step runs in its probe's slot: the first XOL_PROBE_SLOTS slots of the
 * second page are the probes', each probe stepped anywhere has one index
 * of them (uprobe_probe_slot()), and in every mm its slot holds its
 * instruction from its first step there on.  Any number of the mm's
 * threads step it there at once.  A slot's code changes only when its
 * index has passed to another probe, after every step of the old one
 * ended: never between two steps of one probe, nor by turns for probes
 * stepped by turns, so that no instruction cache (nor an emulator's cache
 * of translated code) is asked to catch up with code rewritten under it
 * at every step.  A step whose probe has no slot (other probes hold them
 * all) takes a slot of the first page for itself, and writes it.
 * XOL_SHARED_SLOTS of the first page are never kept, so that such a step
 * always finds one without memory to allocate; kept slots go to the other
 * pages when the first has no more to give.  So up to XOL_SLOTS - 1 -
 * XOL_PROBE_SLOTS - XOL_SHARED_SLOTS threads run directly at once; past
 * that a thread steps.
 *
 * Slots are taken without a lock (test_and_set_bit()).  The page of a
 * slot is allocated by the first task that takes a slot in it, and set
 * with cmpxchg(): a page, once there, stays until the mm goes, so a task
 * that holds a slot may use its page without a lock.  The area and the
 * mm's stub pages go with the mm; fork gives the child its own first
 * page, and copies of the stub pages.
 */

#include "internal.h"

static vm_fault_t xol_fault(const struct vm_special_mapping *sm,
			    struct vm_area_struct *vma, struct vm_fault *vmf)
{
	struct xol_area *area = mm_xol_area(vma->vm_mm);
	unsigned long i = vmf->pgoff - vma->vm_pgoff;
	struct page *page;

	if (!area || i >= XOL_PAGES_MAX)
		return VM_FAULT_SIGBUS;
	/* Pairs with the cmpxchg() in xol_slot_page(). */
	page = smp_load_acquire(&area->pages[i]);
	if (!page)
		return VM_FAULT_SIGBUS;
	get_page(page);
	vmf->page = page;
	return 0;
}

int xol_mremap(const struct vm_special_mapping *sm, struct vm_area_struct *new_vma)
{
	return -EPERM;
}

/*
 * The mapping resolves to the pages of whichever mm it is in, so that a
 * forked child, which copies the mapping, gets pages of its own at the
 * same address (uprobe_dup_mmap()).
 */
static const struct vm_special_mapping xol_mapping = {
	.name = "[uprobes]",
	.fault = xol_fault,
	.mremap = xol_mremap,
};

static void free_xol_area(struct xol_area *area)
{
	int i;

	free_stub_pages(area);
	xa_destroy(&area->no_pun);
	for (i = 0; i < XOL_PAGES_MAX; i++)
		if (area->pages[i])
			__free_page(area->pages[i]);
	kfree(area);
}

/* Fills @len bytes at @dst with breakpoints, as many as fit whole. */
static void fill_swbp(void *dst, size_t len)
{
	uprobe_opcode_t swbp = UPROBE_SWBP_INSN;
	size_t i;

	if (sizeof(swbp) == 1) {
		memset(dst, *(u8 *)&swbp, len);
		return;
	}
	for (i = 0; i + sizeof(swbp) <= len; i += sizeof(swbp))
		memcpy(dst + i, &swbp, sizeof(swbp));
}

/*
 * A page for code, of XOL slots or stubs, all breakpoints: nothing in it
 * runs unnoticed.
 */
struct page *alloc_swbp_page(void)
{
	struct page *page = alloc_page(GFP_HIGHUSER);
	void *kaddr;

	if (!page)
		return NULL;
	kaddr = kmap_local_page(page);
	fill_swbp(kaddr, PAGE_SIZE);
	kunmap_local(kaddr);
	return page;
}

/*
 * A new area for @vaddr, holding the trampoline for the current task's mm
 * (the parent's, at fork).
 */
static struct xol_area *alloc_xol_area(unsigned long vaddr)
{
	struct xol_area *area = kzalloc(sizeof(*area), GFP_KERNEL);
	unsigned long len;
	void *tramp;

	if (!area)
		return NULL;
	area->pages[0] = alloc_swbp_page();
	if (!area->pages[0]) {
		kfree(area);
		return NULL;
	}
	area->vaddr = vaddr;
	init_waitqueue_head(&area->wq);
	mutex_init(&area->probe_slot_lock);
	bitmap_set(area->slots, XOL_SLOTS_PER_PAGE, XOL_PROBE_SLOTS);
	INIT_LIST_HEAD(&area->stub_pages);
	xa_init(&area->no_pun);
	tramp = arch_uprobe_trampoline(&len);
	/* At 0, by the contract: the architecture adds nothing after it. */
	arch_uprobe_copy_ixol(area->pages[0], 0, tramp,
			      min_t(unsigned long, len, UPROBE_XOL_SLOT_BYTES));
	set_bit(0, area->slots);
	return area;
}

static void publish_xol_area(struct mm_struct *mm, struct xol_area *area)
{
	/* The area is filled in before lockless readers can see it. */
	smp_store_release(&mm->uprobes_state.xol_area, area);
	set_bit(MMF_HAS_UPROBES, &mm->flags);
}

/**
 * arch_uprobe_xol_vaddr - where to map the XOL area of @mm
 * @mm: the current task's mm
 * @len: the length of the area
 *
 * The default: a free range as high as the mm has one.
 *
 * Return: the address, or a -errno.
 */
unsigned long __weak arch_uprobe_xol_vaddr(struct mm_struct *mm, unsigned long len)
{
	return get_unmapped_area(NULL, TASK_SIZE - len, len, 0, 0);
}

/* Maps a new XOL area into @mm. */
static int map_xol_area(struct mm_struct *mm)
{
	struct vm_area_struct *vma;
	struct xol_area *area;
	unsigned long vaddr;
	int err = 0;

	if (mmap_write_lock_killable(mm))
		return -EINTR;
	if (mm->uprobes_state.xol_area)
		goto unlock;
	vaddr = arch_uprobe_xol_vaddr(mm, XOL_PAGES_MAX * PAGE_SIZE);
	if (IS_ERR_VALUE(vaddr)) {
		err = vaddr;
		goto unlock;
	}
	area = alloc_xol_area(vaddr);
	if (!area) {
		err = -ENOMEM;
		goto unlock;
	}
	vma = _install_special_mapping(mm, vaddr, XOL_PAGES_MAX * PAGE_SIZE,
				       VM_EXEC | VM_MAYEXEC | VM_DONTEXPAND | VM_IO,
				       &xol_mapping);
	if (IS_ERR(vma)) {
		err = PTR_ERR(vma);
		goto free_area;
	}
	publish_xol_area(mm, area);
	goto unlock;

free_area:
	free_xol_area(area);
unlock:
	mmap_write_unlock(mm);
	return err;
}

/* The current mm's XOL area, mapped at the first call; NULL on failure. */
struct xol_area *get_xol_area(void)
{
	struct mm_struct *mm = current->mm;

	if (!mm_xol_area(mm) && map_xol_area(mm))
		return NULL;
	return mm_xol_area(mm);
}

/* The page of @slot, allocated if it is the first slot taken in it. */
static struct page *xol_slot_page(struct xol_area *area, unsigned long slot)
{
	struct page **pagep = &area->pages[slot / XOL_SLOTS_PER_PAGE];
	struct page *page, *old;

	/* Pairs with the cmpxchg() below: a published page is filled in. */
	page = smp_load_acquire(pagep);
	if (page)
		return page;
	page = alloc_swbp_page();
	if (!page)
		return NULL;
	/* Full barrier: the page is filled in before the fault can see it. */
	old = cmpxchg(pagep, NULL, page);
	if (!old)
		return page;
	__free_page(page);
	return old;
}

/* The page of the slot at @vaddr, which the caller holds. */
static struct page *xol_vaddr_page(struct xol_area *area, unsigned long vaddr)
{
	unsigned long slot = (vaddr - area->vaddr) / UPROBE_XOL_SLOT_BYTES;

	/* Pairs with the cmpxchg() of xol_slot_page(). */
	return smp_load_acquire(&area->pages[slot / XOL_SLOTS_PER_PAGE]);
}

static unsigned long slot_vaddr(struct xol_area *area, unsigned long slot)
{
	return area->vaddr + slot * UPROBE_XOL_SLOT_BYTES;
}

/*
 * A free slot of @area from @first up to (not including) @end, taken
 * without a lock: its number, or @end if there is none.
 */
static unsigned long xol_try_slot(struct xol_area *area, unsigned long first,
				  unsigned long end)
{
	unsigned long slot;

	do {
		slot = find_next_zero_bit(area->slots, end, first);
		if (slot >= end)
			return end;
	} while (test_and_set_bit(slot, area->slots));
	return slot;
}

/*
 * A free slot of @area's first page for a step, its address.  Threads
 * take slots without a lock; only when every slot of the page is in use
 * does one wait for another's step to end.  0 when a fatal signal cuts
 * the wait short.
 */
unsigned long xol_take_slot(struct xol_area *area)
{
	unsigned long slot;

	for (;;) {
		slot = xol_try_slot(area, 1, XOL_SLOTS_PER_PAGE);
		if (slot < XOL_SLOTS_PER_PAGE)
			return slot_vaddr(area, slot);
		if (wait_event_killable(area->wq,
					!bitmap_full(area->slots, XOL_SLOTS_PER_PAGE)))
			return 0;
	}
}

/*
 * @insn (@len bytes) at the probe slot @index of @area, for the probe
 * whose tag is @tag: written unless the slot holds it already, and then
 * the slot's address; 0 without memory for the page.
 */
unsigned long xol_probe_slot(struct xol_area *area, unsigned int index, unsigned long tag,
			     const u8 *insn, size_t len)
{
	unsigned long slot = XOL_SLOTS_PER_PAGE + index;
	unsigned long vaddr = slot_vaddr(area, slot);
	unsigned long *held = &area->probe_slot_tags[index];
	struct page *page;

	/* Pairs with the release below: the code is there, caches told. */
	if (smp_load_acquire(held) == tag)
		return vaddr;
	page = xol_slot_page(area, slot);
	if (!page)
		return 0;
	mutex_lock(&area->probe_slot_lock);
	if (*held != tag) {
		arch_uprobe_copy_ixol(page, vaddr, (void *)insn, len);
		/* The code first: pairs with the acquire above. */
		smp_store_release(held, tag);
	}
	mutex_unlock(&area->probe_slot_lock);
	return vaddr;
}

/*
 * A slot for the current task to keep (uprobe_task.own_slot): in the first
 * page while that leaves XOL_SHARED_SLOTS of it to steps, else in the
 * other pages.  0 when all are taken, or there is no memory for a page.
 */
unsigned long xol_take_own_slot(struct xol_area *area)
{
	unsigned long slot = xol_try_slot(area, 1, XOL_SLOTS_PER_PAGE);

	/* Taken before counted: racing takers cannot all squeeze in. */
	if (slot < XOL_SLOTS_PER_PAGE) {
		if (bitmap_weight(area->slots, XOL_SLOTS_PER_PAGE) <=
		    XOL_SLOTS_PER_PAGE - XOL_SHARED_SLOTS)
			return slot_vaddr(area, slot);
		xol_free_slot(area, slot_vaddr(area, slot));
	}
	slot = xol_try_slot(area, XOL_SLOTS_PER_PAGE, XOL_SLOTS);
	if (slot >= XOL_SLOTS)
		return 0;
	if (!xol_slot_page(area, slot)) {
		xol_free_slot(area, slot_vaddr(area, slot));
		return 0;
	}
	return slot_vaddr(area, slot);
}

/* Gives back the slot at @vaddr: one taken, or a probe slot, which stays. */
void xol_free_slot(struct xol_area *area, unsigned long vaddr)
{
	unsigned long slot = (vaddr - area->vaddr) / UPROBE_XOL_SLOT_BYTES;

	if (WARN_ON_ONCE(!slot || slot >= XOL_SLOTS))
		return;
	if (slot >= XOL_SLOTS_PER_PAGE && slot < XOL_SLOTS_PER_PAGE + XOL_PROBE_SLOTS)
		return;
	clear_bit(slot, area->slots);
	/* The freed slot is visible before the check for waiters. */
	smp_mb__after_atomic();
	if (wq_has_sleeper(&area->wq))
		wake_up(&area->wq);
}

/*
 * The slot gets @insn, written by arch_uprobe_copy_ixol().  A slot that
 * holds @insn already is left alone: the next hit of the same probe finds
 * it so, and code rewritten on every hit is slow to run (an emulator
 * translates it anew; a CPU may flush its pipeline).
 */
void xol_write_slot(struct xol_area *area, unsigned long vaddr,
		    const u8 *insn, size_t len)
{
	struct page *page = xol_vaddr_page(area, vaddr);
	void *kaddr = kmap_local_page(page) + offset_in_page(vaddr);
	bool same = !memcmp(kaddr, insn, len);

	kunmap_local(kaddr);
	if (!same)
		arch_uprobe_copy_ixol(page, vaddr, (void *)insn, len);
}

/**
 * arch_uprobe_copy_ixol - write code into a page of the XOL area
 * @page: the page
 * @vaddr: where in the area the code goes; 0 for the trampoline, at the
 *	start of the first page
 * @src: the code
 * @len: its length, at most UPROBE_XOL_SLOT_BYTES
 *
 * The default: the code, then breakpoints to the end of its slot, so that
 * nothing past it runs unnoticed.  An architecture whose instruction cache
 * must be told of new code, or that puts more after it, has its own.
 */
void __weak arch_uprobe_copy_ixol(struct page *page, unsigned long vaddr, void *src,
				  unsigned long len)
{
	void *kaddr = kmap_local_page(page) + offset_in_page(vaddr);
	size_t tail = UPROBE_XOL_SLOT_BYTES - offset_in_page(vaddr) % UPROBE_XOL_SLOT_BYTES;

	memcpy(kaddr, src, len);
	fill_swbp(kaddr + len, tail - len);
	flush_dcache_page(page);
	kunmap_local(kaddr);
}

/**
 * arch_uprobe_trampoline - the code return probes return to
 * @psize: set to its length
 *
 * The default is a breakpoint, which the trap brings to the core like any
 * other: uprobe_notify_resume() knows its address.
 *
 * Return: the code.
 */
void * __weak arch_uprobe_trampoline(unsigned long *psize)
{
	static uprobe_opcode_t swbp = UPROBE_SWBP_INSN;

	*psize = UPROBE_SWBP_INSN_SIZE;
	return &swbp;
}

/* The byte at @vaddr, in a slot the caller holds, becomes @byte: the old one. */
u8 xol_swap_byte(struct xol_area *area, unsigned long vaddr, u8 byte)
{
	struct page *page = xol_vaddr_page(area, vaddr);
	u8 *kaddr = kmap_local_page(page) + offset_in_page(vaddr);
	u8 old = *kaddr;

	*kaddr = byte;
	flush_dcache_page(page);
	kunmap_local(kaddr);
	return old;
}

/**
 * uprobe_get_trampoline_vaddr - where return probes return to
 *
 * Return: the address of the current mm's trampoline, or
 * UPROBE_NO_TRAMPOLINE_VADDR if it has none.
 */
unsigned long uprobe_get_trampoline_vaddr(void)
{
	struct xol_area *area = current->mm ? mm_xol_area(current->mm) : NULL;

	return area ? area->vaddr : UPROBE_NO_TRAMPOLINE_VADDR;
}

/*
 * Fork gives @newmm, a copy of @oldmm's struct, its own XOL page behind
 * the copied XOL mapping, and its own copies of the stub pages; without
 * memory for all of them, none (the fork then fails).
 */
void xol_dup(struct mm_struct *oldmm, struct mm_struct *newmm)
{
	struct xol_area *old = mm_xol_area(oldmm), *area;

	if (!old)
		return;
	area = alloc_xol_area(old->vaddr);
	if (!area)
		return;
	if (dup_stub_pages(old, area)) {
		free_xol_area(area);
		return;
	}
	publish_xol_area(newmm, area);
}

/**
 * map_dontfork_again - map in a child what fork left out of one mapping
 * @oldmm: the parent's mm
 * @newmm: its forked child's
 * @start: the start of the kernel's mapping @sm in @oldmm
 * @len: its length
 * @sm: the XOL or a stub page mapping
 *
 * The parts of the mapping that the program marked MADV_DONTFORK, which
 * fork did not copy, are mapped again in the child at the same place:
 * its copies of the jumps and pending returns lead there, to its own
 * pages (xol_dup()).
 *
 * Return: 0, or -errno.
 */
int map_dontfork_again(struct mm_struct *oldmm, struct mm_struct *newmm, unsigned long start,
		       unsigned long len, const struct vm_special_mapping *sm)
{
	VMA_ITERATOR(vmi, oldmm, start);
	struct vm_area_struct *vma, *copy;

	mmap_assert_write_locked(oldmm);
	mmap_assert_write_locked(newmm);
	for_each_vma_range(vmi, vma, start + len) {
		if (!(vma->vm_flags & VM_DONTCOPY) || !vma_is_special_mapping(vma, sm))
			continue;
		copy = _install_special_mapping(newmm, vma->vm_start, vma->vm_end - vma->vm_start,
						vma->vm_flags & ~VM_DONTCOPY, sm);
		if (IS_ERR(copy))
			return PTR_ERR(copy);
	}
	return 0;
}

/*
 * The XOL and stub page mappings of @oldmm that the program kept from
 * fork, mapped again in its child @newmm: 0, or -errno.
 */
int xol_dup_dontfork(struct mm_struct *oldmm, struct mm_struct *newmm)
{
	struct xol_area *area = mm_xol_area(newmm);
	int err;

	if (!area)
		return 0;
	err = map_dontfork_again(oldmm, newmm, area->vaddr, XOL_PAGES_MAX * PAGE_SIZE,
				 &xol_mapping);
	return err ?: stub_pages_dup_dontfork(oldmm, newmm, area);
}

/* Frees the XOL area and stub pages of @mm, which is torn down. */
void xol_free(struct mm_struct *mm)
{
	if (mm->uprobes_state.xol_area)
		free_xol_area(mm->uprobes_state.xol_area);
	mm->uprobes_state.xol_area = NULL;
}
