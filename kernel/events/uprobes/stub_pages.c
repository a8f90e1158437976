// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprobes core, stub pages: where the jumps that stand for breakpoints
 * lead (jumps.c).
 *
 * A stub page is a special mapping of an mm within reach of the probed
 * code (arch_uprobe_stub_reach()), as near it as there is room, at most
 * STUB_PAGES_MAX of them per mm.  A stub serves one probed address, and
 * holds what the architecture writes there (arch_uprobe_stub_code()):
 * the syscall that enters the kernel, the ways out, and a copy of the
 * probed instruction when it can run there.  A task may be anywhere in a
 * stub, preempted, when its probe leaves or its jump goes: so a stub is
 * never given to another address, and stub pages go with the mm only.
 * Stubs are handed out in order under the mm's mmap_lock (write) and
 * found under RCU without it (stub_at()); fork gives the child copies.
 */

#include <linux/cacheflush.h>
#include <linux/error-injection.h>

#include "stubs.h"

static vm_fault_t stub_fault(const struct vm_special_mapping *sm,
			     struct vm_area_struct *vma, struct vm_fault *vmf);

static const struct vm_special_mapping stub_mapping = {
	.name = "[uprobes]",
	.fault = stub_fault,
	.mremap = xol_mremap,
};

static unsigned long stub_vaddr(struct stub_page *sp, unsigned int i)
{
	return sp->vaddr + i * UPROBE_STUB_BYTES;
}

/**
 * next_stub_site - the next site a walk of for_each_stub_site() comes to
 * @c: the walk's cursor, its @sp NULL at the start
 *
 * Under rcu_read_lock() or the mm's mmap_lock.
 *
 * Return: the site, or NULL at the end.
 */
struct stub_site *next_stub_site(struct stub_cursor *c)
{
	struct list_head *head = &c->area->stub_pages;
	struct stub_page *sp = c->sp ?: list_entry_rcu(head->next, struct stub_page, node);

	while (&sp->node != head) {
		/* Pairs with the release in add_stub(): the site is filled in. */
		if (!sp->hops && !READ_ONCE(sp->gone) && c->i < smp_load_acquire(&sp->used)) {
			c->sp = sp;
			return &sp->sites[c->i++];
		}
		sp = list_entry_rcu(sp->node.next, struct stub_page, node);
		c->i = 0;
	}
	c->sp = sp;
	return NULL;
}

/*
 * The stub page of @area that holds @vaddr, or NULL (rcu_read_lock() or
 * the mm's mmap_lock).  A page the process unmapped holds nothing.
 */
static __always_inline struct stub_page *find_stub_page(struct xol_area *area,
							unsigned long vaddr)
{
	struct stub_page *sp;

	list_for_each_entry_rcu(sp, &area->stub_pages, node, true)
		if (vaddr - sp->vaddr < PAGE_SIZE && !READ_ONCE(sp->gone))
			return sp;
	return NULL;
}

/*
 * The site of the stub of @sp, a page of stubs, that holds @addr, with
 * @addr's offset in the stub in *@offset; NULL when @addr is in no stub
 * handed out.
 */
static __always_inline struct stub_site *site_in(struct stub_page *sp, unsigned long addr,
						 unsigned long *offset)
{
	unsigned int i = (addr - sp->vaddr) / UPROBE_STUB_BYTES;

	/* Pairs with the release in add_stub(). */
	if (i >= smp_load_acquire(&sp->used))
		return NULL;
	*offset = addr - stub_vaddr(sp, i);
	return &sp->sites[i];
}

/*
 * The site of the stub of @area that holds @addr, in a page of stubs, not
 * of hops (rcu_read_lock()).
 */
static __always_inline struct stub_site *site_at(struct xol_area *area, unsigned long addr,
						 unsigned long *offset)
{
	struct stub_page *sp = find_stub_page(area, addr);

	return sp && !sp->hops ? site_in(sp, addr, offset) : NULL;
}

/* The site whose hop of @sp starts at @addr, or NULL (rcu_read_lock()). */
static struct stub_site *hop_site(struct xol_area *area, struct stub_page *sp,
				  unsigned long addr)
{
	/* Pairs with the release in set_hop(). */
	unsigned int i, used = smp_load_acquire(&sp->used);
	unsigned long offset;
	struct stub_site *site;

	for (i = 0; i < used; i++) {
		if (sp->hop[i].vaddr != addr)
			continue;
		site = site_at(area, sp->hop[i].stub, &offset);
		return site && !offset ? site : NULL;
	}
	return NULL;
}

/*
 * stub_at(), and in *@hop whether @addr is a hop's rather than in a stub.
 */
static struct stub_site *site_of(struct mm_struct *mm, unsigned long addr,
				 unsigned long *offset, bool *hop)
{
	struct xol_area *area = mm_xol_area(mm);
	struct stub_site *site = NULL;
	struct stub_page *sp;

	*hop = false;
	if (!area)
		return NULL;
	rcu_read_lock();
	sp = find_stub_page(area, addr);
	if (sp && !sp->hops) {
		site = site_in(sp, addr, offset);
	} else if (sp) {
		site = hop_site(area, sp, addr);
		*offset = 0;
		*hop = true;
	}
	rcu_read_unlock();
	return site;
}

/*
 * The site of the stub of @mm that holds @addr, with @addr's offset in
 * the stub in *@offset; or the site whose hop starts at @addr, at offset
 * 0 (a task there has run nothing of the stub yet); NULL when @addr is in
 * neither.  The site lives as long as @mm.
 */
struct stub_site *stub_at(struct mm_struct *mm, unsigned long addr,
			  unsigned long *offset)
{
	bool hop;

	return site_of(mm, addr, offset, &hop);
}

/*
 * The site of the stub of @mm that starts at @addr, or NULL.  A hop is
 * not a stub: a syscall is never a hop's.  Inline in the hit's lookup
 * (uprobe_stub_site()).
 */
static __always_inline struct stub_site *starting_site(struct mm_struct *mm,
						       unsigned long addr)
{
	struct xol_area *area = mm_xol_area(mm);
	struct stub_site *site = NULL;
	unsigned long offset;

	if (!area)
		return NULL;
	rcu_read_lock();
	site = site_at(area, addr, &offset);
	rcu_read_unlock();
	return site && !offset ? site : NULL;
}

struct stub_site *stub_starting_at(struct mm_struct *mm, unsigned long addr)
{
	return starting_site(mm, addr);
}

/**
 * uprobe_stub_site - the site of the current mm's stub that starts at @addr
 * @addr: a user address
 *
 * Takes no lock, and may run with interrupts masked: arm64 asks it at an
 * svc, before any of a system call's work.  A site lives as long as its
 * mm (stub pages are never freed before), so the current task may keep
 * the pointer.
 *
 * Return: the site, or NULL when no stub handed out in the mm starts at
 * @addr.
 */
struct stub_site *uprobe_stub_site(unsigned long addr)
{
	struct mm_struct *mm = current->mm;

	return mm ? starting_site(mm, addr) : NULL;
}

/* The site whose hop of @mm starts at @addr, or NULL. */
struct stub_site *hop_at(struct mm_struct *mm, unsigned long addr)
{
	struct stub_site *site;
	unsigned long offset;
	bool hop;

	site = site_of(mm, addr, &offset, &hop);
	return hop ? site : NULL;
}

static vm_fault_t stub_fault(const struct vm_special_mapping *sm,
			     struct vm_area_struct *vma, struct vm_fault *vmf)
{
	struct xol_area *area = mm_xol_area(vma->vm_mm);
	vm_fault_t ret = VM_FAULT_SIGBUS;
	struct stub_page *sp;

	if (!area || vmf->pgoff != vma->vm_pgoff)
		return ret;
	rcu_read_lock();
	sp = find_stub_page(area, vma->vm_start);
	if (sp && sp->vaddr == vma->vm_start) {
		get_page(sp->page);
		vmf->page = sp->page;
		ret = 0;
	}
	rcu_read_unlock();
	return ret;
}

static void free_stub_page(struct stub_page *sp)
{
	if (sp->page)
		__free_page(sp->page);
	kfree(sp);
}

/* Frees the stub pages of @area, whose mm is gone. */
void free_stub_pages(struct xol_area *area)
{
	struct stub_page *sp, *next;

	list_for_each_entry_safe(sp, next, &area->stub_pages, node)
		free_stub_page(sp);
}

/*
 * A stub page for @vaddr, all breakpoints, no stub handed out.  NULL may
 * be injected (fail_function), to test what a lack of memory leaves.
 */
static noinline struct stub_page *alloc_stub_page(unsigned long vaddr)
{
	struct stub_page *sp = kzalloc(sizeof(*sp), GFP_KERNEL);

	if (!sp)
		return NULL;
	sp->page = alloc_swbp_page();
	if (!sp->page) {
		kfree(sp);
		return NULL;
	}
	sp->vaddr = vaddr;
	return sp;
}
ALLOW_ERROR_INJECTION(alloc_stub_page, NULL);

/*
 * Writes @len bytes of @code at @addr, in the stub page @sp, through the
 * kernel's mapping of its page; instruction fetch sees them before any
 * jump leads there (flush_icache_range(): nothing on x86).
 */
static void write_stub_page(struct stub_page *sp, unsigned long addr, const void *code,
			    size_t len)
{
	void *kaddr = kmap_local_page(sp->page) + (addr - sp->vaddr);

	memcpy(kaddr, code, len);
	flush_dcache_page(sp->page);
	flush_icache_range((unsigned long)kaddr, (unsigned long)kaddr + len);
	kunmap_local(kaddr);
}

/*
 * Whether every stub of @sp is within reach of a jump at @vaddr, and of
 * one at @hop if that is not 0.
 */
static bool stub_page_reaches(struct stub_page *sp, unsigned long vaddr, unsigned long hop)
{
	unsigned long reach = arch_uprobe_stub_reach();

	if (hop && !stub_page_reaches(sp, hop, 0))
		return false;
	return sp->vaddr + reach >= vaddr && sp->vaddr + PAGE_SIZE <= vaddr + reach;
}

/*
 * A free page of @mm as near @vaddr as can be, within @reach of it: the
 * highest below it, else the lowest above.  Near the probed code, a stub
 * is also likely within reach of the data a RIP-relative copy refers to.
 */
static unsigned long near_unmapped_area(struct mm_struct *mm, unsigned long vaddr,
					unsigned long hop, unsigned long reach)
{
	struct vm_unmapped_area_info info = {
		.flags = VM_UNMAPPED_AREA_TOPDOWN,
		.length = PAGE_SIZE,
	};
	unsigned long low = max(vaddr, hop ?: vaddr), high = min(vaddr, hop ?: vaddr);
	unsigned long addr;

	/* Within reach of both the probed address and the hop, if any. */
	info.low_limit = max(PAGE_ALIGN(mmap_min_addr), PAGE_SIZE);
	if (low > info.low_limit + reach)
		info.low_limit = PAGE_ALIGN(low - reach);
	info.high_limit = vaddr & PAGE_MASK;
	addr = info.low_limit < info.high_limit ? vm_unmapped_area(&info) : -ENOMEM;
	if (!IS_ERR_VALUE(addr))
		return addr;
	info.flags = 0;
	info.low_limit = max(PAGE_ALIGN(vaddr), info.low_limit);
	info.high_limit = min(high + reach, mm->task_size) & PAGE_MASK;
	if (info.low_limit >= info.high_limit)
		return -ENOMEM;
	return vm_unmapped_area(&info);
}

/* Maps a new page of stubs, or of hops, into @mm at @addr; NULL if it cannot. */
static struct stub_page *map_page_at(struct mm_struct *mm, struct xol_area *area,
				     unsigned long addr, bool hops)
{
	struct vm_area_struct *vma;
	struct stub_page *sp;

	mmap_assert_write_locked(mm);

	sp = alloc_stub_page(addr);
	if (!sp)
		return NULL;
	sp->hops = hops;
	vma = _install_special_mapping(mm, addr, PAGE_SIZE,
				       VM_EXEC | VM_MAYEXEC | VM_DONTEXPAND | VM_IO,
				       &stub_mapping);
	if (IS_ERR(vma)) {
		free_stub_page(sp);
		return NULL;
	}
	list_add_tail_rcu(&sp->node, &area->stub_pages);
	if (hops)
		area->nr_hop_pages++;
	else
		area->nr_stub_pages++;
	return sp;
}

/*
 * Maps a new stub page into @mm within reach of @vaddr, and of @hop if
 * not 0; NULL if it cannot.
 */
static struct stub_page *map_stub_page(struct mm_struct *mm, struct xol_area *area,
				       unsigned long vaddr, unsigned long hop)
{
	unsigned long reach = arch_uprobe_stub_reach(), addr;

	if (!reach || area->nr_stub_pages >= STUB_PAGES_MAX)
		return NULL;
	addr = near_unmapped_area(mm, vaddr, hop, reach);
	if (IS_ERR_VALUE(addr))
		return NULL;
	return map_page_at(mm, area, addr, false);
}

/*
 * Hands out the next stub of @sp, for @uprobe at @vaddr, entered from the
 * hop at @hop (0: from the jump at @vaddr): its address, or 0 when the
 * instruction cannot be copied there.
 */
static unsigned long add_stub(struct stub_page *sp, struct uprobe *uprobe, unsigned long vaddr,
			      unsigned long hop)
{
	struct stub_site *site = &sp->sites[sp->used];
	unsigned long stub = stub_vaddr(sp, sp->used);
	u8 code[UPROBE_STUB_BYTES];
	size_t copy_len;

	if (!arch_uprobe_stub_code(&uprobe->arch, vaddr, stub, code, &copy_len))
		return 0;
	write_stub_page(sp, stub, code, sizeof(code));
	site->vaddr = vaddr;
	site->next = vaddr + arch_uprobe_insn_len(&uprobe->arch);
	site->stub = stub;
	site->inode = uprobe->inode;
	site->offset = uprobe->offset;
	memcpy(site->insn, &uprobe->arch.insn, sizeof(site->insn));
	site->len = copy_len;
	site->hop = hop;
	/* The site is filled in before lockless readers can see it. */
	smp_store_release(&sp->used, sp->used + 1);
	return stub;
}

/* @site, made for the same instruction before, now serves @uprobe. */
static void site_reuse(struct stub_site *site, struct uprobe *uprobe)
{
	WRITE_ONCE(site->inode, uprobe->inode);
	WRITE_ONCE(site->offset, uprobe->offset);
}

/*
 * The stub for @uprobe at @vaddr of @mm: the one made for this instruction
 * at @vaddr before if any (a stub never serves another), else a new one;
 * 0 if there is none.  No room within reach ends the tries in this mm.
 */
unsigned long get_stub(struct mm_struct *mm, struct xol_area *area,
		       struct uprobe *uprobe, unsigned long vaddr, unsigned long hop)
{
	struct stub_page *sp, *room = NULL;
	struct stub_site *site;
	unsigned long stub;

	mmap_assert_write_locked(mm);

	for_each_stub_site(area, site) {
		if (!site_serves(site, uprobe, vaddr) || site->hop != hop)
			continue;
		site_reuse(site, uprobe);
		return site->stub;
	}
	list_for_each_entry(sp, &area->stub_pages, node) {
		if (!sp->hops && !sp->gone && sp->used < STUBS_PER_PAGE &&
		    stub_page_reaches(sp, vaddr, hop)) {
			room = sp;
			break;
		}
	}
	if (!room)
		room = map_stub_page(mm, area, vaddr, hop);
	if (!room) {
		area->no_stubs = true;
		return 0;
	}
	stub = add_stub(room, uprobe, vaddr, hop);
	/* Out of reach from here, it would be from any stub page near it. */
	if (!stub)
		WRITE_ONCE(uprobe->stub_refused, true);
	return stub;
}

/*
 * Hops: a punned jump (jumps.c) leads to an address the bytes after the
 * probed instruction choose, within a window (arch_uprobe_pun_window());
 * a hop there, in a page of hops, jumps on to the stub.  The window's
 * pages must be free user memory that the process will not want: above
 * mmap_min_addr, below the highest address an mmap() gets without a hint,
 * clear of the room the stack and the heap grow into.
 */

/* The first address of [@lo, @hi] in [@start, @end) where a hop fits, or 0. */
static unsigned long hop_fit(unsigned long lo, unsigned long hi, unsigned long start,
			     unsigned long end)
{
	unsigned long t = max(lo, start);

	return t <= hi && t + UPROBE_JUMP_BYTES <= end ? t : 0;
}

/* A place for a new hop in @sp's page within [@lo, @hi], or 0. */
static unsigned long hop_in_page(struct stub_page *sp, unsigned long lo, unsigned long hi)
{
	unsigned long t = hop_fit(lo, hi, sp->vaddr, sp->vaddr + PAGE_SIZE);
	unsigned int i;

	if (!t || sp->used >= HOPS_PER_PAGE)
		return 0;
again:
	for (i = 0; i < sp->used; i++) {
		if (t + UPROBE_JUMP_BYTES <= sp->hop[i].vaddr ||
		    sp->hop[i].vaddr + UPROBE_JUMP_BYTES <= t)
			continue;
		/* Past the hop in the way, and look again from the first. */
		t = hop_fit(sp->hop[i].vaddr + UPROBE_JUMP_BYTES, hi, sp->vaddr,
			    sp->vaddr + PAGE_SIZE);
		if (!t)
			return 0;
		goto again;
	}
	return t;
}

/* The room [*@start, *@end) of @mm that a hop page must keep clear of. */
static bool hop_room(struct mm_struct *mm, int which, unsigned long *start,
		     unsigned long *end)
{
	struct vm_area_struct *vma;
	unsigned long size;

	switch (which) {
	case 0:		/* the stack's growth, to its rlimit */
		vma = vma_lookup(mm, mm->start_stack);
		if (!vma || !(vma->vm_flags & VM_GROWSDOWN))
			return false;
		size = min_t(unsigned long, rlimit(RLIMIT_STACK), SZ_1G) + stack_guard_gap;
		*end = vma->vm_start;
		*start = *end > size ? *end - size : 0;
		return true;
	case 1:		/* the heap's, as brk() may still make it */
		*start = mm->start_brk;
		*end = max(mm->brk, mm->start_brk +
			   min(rlimit(RLIMIT_DATA), (unsigned long)SZ_1G));
		return true;
	}
	return false;
}

/* Whether a hop page at @addr of @mm would stand in the room of the stack or heap. */
static bool hop_in_room(struct mm_struct *mm, unsigned long addr)
{
	unsigned long start, end;
	int which;

	for (which = 0; which < 2; which++)
		if (hop_room(mm, which, &start, &end) &&
		    addr < end && addr + PAGE_SIZE > start)
			return true;
	return false;
}

/* The highest address a hop page of @mm may end at. */
static unsigned long hop_high(struct mm_struct *mm)
{
#ifdef DEFAULT_MAP_WINDOW
	return min(mm->task_size, DEFAULT_MAP_WINDOW);
#else
	return mm->task_size;
#endif
}

/* A free page of @mm for a hop in [@lo, @hi], mapped; 0 if none. */
static unsigned long map_hop_page(struct mm_struct *mm, struct xol_area *area,
				  unsigned long lo, unsigned long hi)
{
	struct vm_unmapped_area_info info = { .length = PAGE_SIZE };
	unsigned long low = max(PAGE_ALIGN(mmap_min_addr), PAGE_SIZE);
	unsigned long addr, t;
	struct stub_page *sp;

	if (area->nr_hop_pages >= HOP_PAGES_MAX || lo > hi)
		return 0;
	info.low_limit = max(lo & PAGE_MASK, low);
	info.high_limit = min((hi & PAGE_MASK) + PAGE_SIZE, hop_high(mm));
	while (info.low_limit + PAGE_SIZE <= info.high_limit) {
		addr = vm_unmapped_area(&info);
		if (IS_ERR_VALUE(addr))
			return 0;
		t = hop_fit(lo, hi, addr, addr + PAGE_SIZE);
		if (t && !hop_in_room(mm, addr)) {
			sp = map_page_at(mm, area, addr, true);
			return sp ? t : 0;
		}
		info.low_limit = addr + PAGE_SIZE;
	}
	return 0;
}

/**
 * get_hop - a place for a hop in [@lo, @hi] of @mm
 * @mm: the mm, write-locked
 * @area: its xol_area
 * @lo: the lowest address the punned jump may lead to
 * @hi: the highest
 *
 * In a page of hops already mapped if one has room, else in a new one.
 * Nothing leads there yet: set_hop() writes the hop.
 *
 * Return: the hop's address, or 0.
 */
unsigned long get_hop(struct mm_struct *mm, struct xol_area *area,
		      unsigned long lo, unsigned long hi)
{
	struct stub_page *sp;
	unsigned long t;

	mmap_assert_write_locked(mm);

	list_for_each_entry(sp, &area->stub_pages, node) {
		if (!sp->hops || sp->gone)
			continue;
		t = hop_in_page(sp, lo, hi);
		if (t)
			return t;
	}
	return map_hop_page(mm, area, lo, hi);
}

/*
 * The hop of a punned jump made for @uprobe's instruction at @vaddr of @mm
 * before, which still leads to its stub; 0 if none.  A probe that comes
 * and goes again takes no new hop and stub each time.
 */
unsigned long get_old_hop(struct mm_struct *mm, struct xol_area *area,
			  struct uprobe *uprobe, unsigned long vaddr)
{
	struct stub_site *site;

	mmap_assert_write_locked(mm);

	for_each_stub_site(area, site) {
		if (site->hop && site_serves(site, uprobe, vaddr) &&
		    hop_at(mm, site->hop) == site) {
			site_reuse(site, uprobe);
			return site->hop;
		}
	}
	return 0;
}

/* Writes at @hop of @mm, which get_hop() gave, a hop to @stub. */
void set_hop(struct mm_struct *mm, struct xol_area *area, unsigned long hop,
	     unsigned long stub)
{
	struct stub_page *sp;
	u8 code[UPROBE_JUMP_BYTES];

	mmap_assert_write_locked(mm);

	sp = find_stub_page(area, hop);
	if (WARN_ON_ONCE(!sp || !sp->hops || sp->used >= HOPS_PER_PAGE))
		return;
	arch_uprobe_jump(hop, stub, code);
	write_stub_page(sp, hop, code, sizeof(code));
	sp->hop[sp->used].vaddr = hop;
	sp->hop[sp->used].stub = stub;
	/* The hop is written before lockless readers can see it. */
	smp_store_release(&sp->used, sp->used + 1);
}

/* Whether the jump of @site passes through @sp. */
static bool site_leads_into(const struct stub_site *site, const struct stub_page *sp)
{
	return site->stub - sp->vaddr < PAGE_SIZE ||
	       (site->hop && site->hop - sp->vaddr < PAGE_SIZE);
}

/**
 * stub_pages_unmap - stub pages of an mm are about to be unmapped
 * @mm: the mm, write-locked
 * @area: its xol_area
 * @start: start of the range the process unmaps (munmap(), a MAP_FIXED
 *	mapping over it, an mremap() to it)
 * @end: its end
 *
 * Every jump that leads into such a page, to a stub or to a hop, gives
 * way to its breakpoint, before the page goes: no jump ever leads to
 * memory that is not the stub.  The page is gone: nothing is found in
 * it, nothing handed out of it, but it still counts against the limit,
 * so that a process that unmaps its stubs again and again is not given
 * new ones without end.  A task standing in it at that moment faults.
 */
void stub_pages_unmap(struct mm_struct *mm, struct xol_area *area, unsigned long start,
		      unsigned long end)
{
	struct stub_page *dying;
	struct stub_site *site;

	mmap_assert_write_locked(mm);

	list_for_each_entry(dying, &area->stub_pages, node) {
		if (dying->gone || dying->vaddr >= end || dying->vaddr + PAGE_SIZE <= start)
			continue;
		for_each_stub_site(area, site)
			if (site_leads_into(site, dying))
				take_jump_out(mm, site->vaddr, site->insn);
		WRITE_ONCE(dying->gone, true);
	}
}

/*
 * Tells what stub pages @area has, and how many places it knows to have
 * no punned jump, against their limits; none with no @area yet
 * (/proc/PID/uprobes).
 */
void stub_pages_show(struct seq_file *m, struct xol_area *area)
{
	seq_printf(m, "stub-pages %u of %u, hop-pages %u of %u, pun-memos %u of %u\n",
		   area ? area->nr_stub_pages : 0, STUB_PAGES_MAX,
		   area ? area->nr_hop_pages : 0, HOP_PAGES_MAX,
		   area ? area->nr_no_pun : 0, NO_PUN_MAX);
}

/*
 * The stub pages of @oldmm that the program kept from fork, mapped again
 * in its child @newmm, whose XOL @area has copies of them: 0, or -errno.
 */
int stub_pages_dup_dontfork(struct mm_struct *oldmm, struct mm_struct *newmm,
			    struct xol_area *area)
{
	struct stub_page *sp;
	int err;

	list_for_each_entry(sp, &area->stub_pages, node) {
		err = map_dontfork_again(oldmm, newmm, sp->vaddr, PAGE_SIZE, &stub_mapping);
		if (err)
			return err;
	}
	return 0;
}

/*
 * A copy of each stub page of @old for a forked child's @area: 0, or
 * -ENOMEM (the copies made so far are @area's, freed with it).
 */
int dup_stub_pages(struct xol_area *old, struct xol_area *area)
{
	struct stub_page *sp, *copy;

	list_for_each_entry(sp, &old->stub_pages, node) {
		copy = alloc_stub_page(sp->vaddr);
		if (!copy)
			return -ENOMEM;
		copy_highpage(copy->page, sp->page);
		/* The sites, or the hops: they share the place. */
		memcpy(copy->sites, sp->sites, sizeof(sp->sites));
		copy->used = sp->used;
		copy->hops = sp->hops;
		copy->gone = sp->gone;
		list_add_tail(&copy->node, &area->stub_pages);
		if (sp->hops)
			area->nr_hop_pages++;
		else
			area->nr_stub_pages++;
	}
	area->no_stubs = old->no_stubs;
	return 0;
}
