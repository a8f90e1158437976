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

/* The stub page of @area that holds @vaddr, or NULL (rcu_read_lock()). */
static struct stub_page *find_stub_page(struct xol_area *area, unsigned long vaddr)
{
	struct stub_page *sp;

	list_for_each_entry_rcu(sp, &area->stub_pages, node)
		if (vaddr - sp->vaddr < PAGE_SIZE)
			return sp;
	return NULL;
}

/*
 * The site of the stub of @mm that holds @addr, with @addr's offset in
 * the stub in *@offset; NULL when @addr is in no stub handed out.  The
 * site lives as long as @mm.
 */
struct stub_site *stub_at(struct mm_struct *mm, unsigned long addr,
			  unsigned long *offset)
{
	struct xol_area *area = mm_xol_area(mm);
	struct stub_site *site = NULL;
	struct stub_page *sp;
	unsigned int i;

	if (!area)
		return NULL;
	rcu_read_lock();
	sp = find_stub_page(area, addr);
	if (sp) {
		i = (addr - sp->vaddr) / UPROBE_STUB_BYTES;
		/* Pairs with the release in add_stub(). */
		if (i < smp_load_acquire(&sp->used)) {
			site = &sp->sites[i];
			*offset = addr - stub_vaddr(sp, i);
		}
	}
	rcu_read_unlock();
	return site;
}

/* The site of the stub of @mm that starts at @addr, or NULL. */
struct stub_site *stub_starting_at(struct mm_struct *mm, unsigned long addr)
{
	unsigned long offset;
	struct stub_site *site = stub_at(mm, addr, &offset);

	return site && !offset ? site : NULL;
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

/* A stub page for @vaddr, all breakpoints, no stub handed out. */
static struct stub_page *alloc_stub_page(unsigned long vaddr)
{
	struct stub_page *sp = kzalloc(sizeof(*sp), GFP_KERNEL);
	void *kaddr;

	if (!sp)
		return NULL;
	sp->page = alloc_page(GFP_HIGHUSER);
	if (!sp->page) {
		kfree(sp);
		return NULL;
	}
	sp->vaddr = vaddr;
	kaddr = kmap_local_page(sp->page);
	memset(kaddr, UPROBE_SWBP_INSN, PAGE_SIZE);
	kunmap_local(kaddr);
	return sp;
}

/* Whether every stub of @sp is within reach of a jump at @vaddr. */
static bool stub_page_reaches(struct stub_page *sp, unsigned long vaddr)
{
	unsigned long reach = arch_uprobe_stub_reach();

	return sp->vaddr + reach >= vaddr && sp->vaddr + PAGE_SIZE <= vaddr + reach;
}

/*
 * A free page of @mm as near @vaddr as can be, within @reach of it: the
 * highest below it, else the lowest above.  Near the probed code, a stub
 * is also likely within reach of the data a RIP-relative copy refers to.
 */
static unsigned long near_unmapped_area(struct mm_struct *mm, unsigned long vaddr,
					unsigned long reach)
{
	struct vm_unmapped_area_info info = {
		.flags = VM_UNMAPPED_AREA_TOPDOWN,
		.length = PAGE_SIZE,
	};
	unsigned long addr;

	info.low_limit = max(PAGE_ALIGN(mmap_min_addr), PAGE_SIZE);
	if (vaddr > info.low_limit + reach)
		info.low_limit = PAGE_ALIGN(vaddr - reach);
	info.high_limit = vaddr & PAGE_MASK;
	addr = vm_unmapped_area(&info);
	if (!IS_ERR_VALUE(addr))
		return addr;
	info.flags = 0;
	info.low_limit = PAGE_ALIGN(vaddr);
	info.high_limit = min(vaddr + reach, mm->task_size) & PAGE_MASK;
	return vm_unmapped_area(&info);
}

/* Maps a new stub page into @mm within reach of @vaddr; NULL if it cannot. */
static struct stub_page *map_stub_page(struct mm_struct *mm, struct xol_area *area,
				       unsigned long vaddr)
{
	unsigned long reach = arch_uprobe_stub_reach(), addr;
	struct vm_area_struct *vma;
	struct stub_page *sp;

	mmap_assert_write_locked(mm);

	if (!reach || area->nr_stub_pages >= STUB_PAGES_MAX)
		return NULL;
	addr = near_unmapped_area(mm, vaddr, reach);
	if (IS_ERR_VALUE(addr))
		return NULL;
	sp = alloc_stub_page(addr);
	if (!sp)
		return NULL;
	vma = _install_special_mapping(mm, addr, PAGE_SIZE,
				       VM_EXEC | VM_MAYEXEC | VM_DONTEXPAND | VM_IO,
				       &stub_mapping);
	if (IS_ERR(vma)) {
		free_stub_page(sp);
		return NULL;
	}
	list_add_tail_rcu(&sp->node, &area->stub_pages);
	area->nr_stub_pages++;
	return sp;
}

/*
 * Hands out the next stub of @sp, for @uprobe at @vaddr: its address, or
 * 0 when the instruction cannot be copied there.
 */
static unsigned long add_stub(struct stub_page *sp, struct uprobe *uprobe, unsigned long vaddr)
{
	struct stub_site *site = &sp->sites[sp->used];
	unsigned long stub = stub_vaddr(sp, sp->used);
	u8 code[UPROBE_STUB_BYTES];
	size_t copy_len;
	void *kaddr;

	if (!arch_uprobe_stub_code(&uprobe->arch, vaddr, stub, code, &copy_len))
		return 0;
	kaddr = kmap_local_page(sp->page);
	memcpy(kaddr + (stub - sp->vaddr), code, sizeof(code));
	kunmap_local(kaddr);
	flush_dcache_page(sp->page);
	site->vaddr = vaddr;
	site->next = vaddr + uprobe->arch.len;
	site->inode = uprobe->inode;
	site->offset = uprobe->offset;
	memcpy(site->insn, uprobe->arch.insn, sizeof(site->insn));
	site->len = copy_len;
	/* The site is filled in before lockless readers can see it. */
	smp_store_release(&sp->used, sp->used + 1);
	return stub;
}

/* Whether @site is a stub made for @uprobe's instruction at @vaddr. */
bool site_serves(struct stub_site *site, struct uprobe *uprobe, unsigned long vaddr)
{
	return site->vaddr == vaddr && !memcmp(site->insn, uprobe->arch.insn, sizeof(site->insn));
}

/*
 * The stub for @uprobe at @vaddr of @mm: the one made for this instruction
 * at @vaddr before if any (a stub never serves another), else a new one;
 * 0 if there is none.  No room within reach ends the tries in this mm.
 */
unsigned long get_stub(struct mm_struct *mm, struct xol_area *area,
		       struct uprobe *uprobe, unsigned long vaddr)
{
	struct stub_page *sp, *room = NULL;
	unsigned long stub;
	unsigned int i;

	mmap_assert_write_locked(mm);

	list_for_each_entry(sp, &area->stub_pages, node) {
		for (i = 0; i < sp->used; i++) {
			if (!site_serves(&sp->sites[i], uprobe, vaddr))
				continue;
			WRITE_ONCE(sp->sites[i].inode, uprobe->inode);
			WRITE_ONCE(sp->sites[i].offset, uprobe->offset);
			return stub_vaddr(sp, i);
		}
		if (!room && sp->used < STUBS_PER_PAGE && stub_page_reaches(sp, vaddr))
			room = sp;
	}
	if (!room)
		room = map_stub_page(mm, area, vaddr);
	if (!room) {
		area->no_stubs = true;
		return 0;
	}
	stub = add_stub(room, uprobe, vaddr);
	/* Out of reach from here, it would be from any stub page near it. */
	if (!stub)
		WRITE_ONCE(uprobe->stub_refused, true);
	return stub;
}

/* A copy of each stub page of @old for a forked child's @area. */
void dup_stub_pages(struct xol_area *old, struct xol_area *area)
{
	struct stub_page *sp, *copy;

	list_for_each_entry(sp, &old->stub_pages, node) {
		copy = alloc_stub_page(sp->vaddr);
		if (!copy) {
			pr_warn_ratelimited("uprobes: pid %d: a stub page lost at fork\n",
					    current->pid);
			continue;
		}
		copy_highpage(copy->page, sp->page);
		memcpy(copy->sites, sp->sites, sizeof(sp->sites));
		copy->used = sp->used;
		list_add_tail(&copy->node, &area->stub_pages);
		area->nr_stub_pages++;
	}
	area->no_stubs = old->no_stubs;
}
