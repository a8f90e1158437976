// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprobes core, stubs: a jump in place of the breakpoint
 *
 * Once a probe is hit in an mm, an instruction the architecture allows
 * (arch_uprobe_can_jump()) gets there, in place of its breakpoint, a jump
 * to a stub of its own in a stub page within reach.  The stub enters the
 * kernel by the uprobe syscall, which costs less than the breakpoint's
 * trap, and uprobe_stub_hit() goes on as after the breakpoint.
 *
 * Writing the jump (write_jump()): the breakpoint is in its first byte
 * already; the other bytes are written, every CPU that runs the mm
 * serializes, then the first byte is written.  A task that runs the place
 * meanwhile takes the breakpoint or the whole jump, both right.  Taking it
 * out (take_jump_out()) runs the same steps backwards, before the
 * breakpoint itself goes.  Both hold mmap_lock for writing, like every
 * write of text here.  Only the mm's own copy of the page changes.
 *
 * Lifetime: a task may be anywhere in a stub, preempted, when its probe
 * leaves or the jump goes.  So a stub serves one probed address for the
 * life of the mm, and is never given to another; stub pages go with the
 * mm.  At the syscall the kernel checks where the task came from: the
 * jump's place, or if the jump went meanwhile, the place that maps the
 * probe's file offset now (stub_source()); the hit is handled there.  If
 * the probe went too, the task is sent back to run that place again: the
 * original instruction, or while the probe's removal is under way, the
 * jump again.  A signal that finds a task in a stub before the syscall is
 * delivered as at the probed address, with what the stub did undone
 * (leave_stub()); a debugger's step trap at the entry of a stub is taken
 * for the breakpoint (uprobe_stub_step_trap()).
 */

#include <linux/sysctl.h>

#include "internal.h"

/* debug.uprobes-jumps: 0 takes every jump out, and gives no new one. */
static int uprobe_jumps_on = 1;

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
static struct stub_site *stub_starting_at(struct mm_struct *mm, unsigned long addr)
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
static bool site_serves(struct stub_site *site, struct uprobe *uprobe, unsigned long vaddr)
{
	return site->vaddr == vaddr && !memcmp(site->insn, uprobe->arch.insn, sizeof(site->insn));
}

/*
 * The stub for @uprobe at @vaddr of @mm: the one made for this instruction
 * at @vaddr before if any (a stub never serves another), else a new one;
 * 0 if there is none.  No room within reach ends the tries in this mm.
 */
static unsigned long get_stub(struct mm_struct *mm, struct xol_area *area,
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

/* The UPROBE_JUMP_BYTES at @vaddr of @mm, if they are in one page. */
static bool read_jump_bytes(struct mm_struct *mm, unsigned long vaddr, u8 *code)
{
	return offset_in_page(vaddr) <= PAGE_SIZE - UPROBE_JUMP_BYTES &&
	       !read_mm_bytes(mm, vaddr, code, UPROBE_JUMP_BYTES, NULL);
}

/* Whether the code at @vaddr of @mm is a jump to its stub. */
bool has_stub_jump(struct mm_struct *mm, unsigned long vaddr)
{
	u8 code[UPROBE_JUMP_BYTES];

	return read_jump_bytes(mm, vaddr, code) &&
	       stub_starting_at(mm, arch_uprobe_jump_target(code, vaddr));
}

/*
 * Replaces the breakpoint of @uprobe at @vaddr of @mm with a jump to a
 * stub, in the order that leaves no torn instruction (see the top of this
 * file).
 */
static void write_jump(struct uprobe *uprobe, struct mm_struct *mm,
		       struct xol_area *area, unsigned long vaddr)
{
	u8 now[UPROBE_JUMP_BYTES], jump[UPROBE_JUMP_BYTES];
	unsigned long stub;

	mmap_assert_write_locked(mm);

	if (!read_jump_bytes(mm, vaddr, now) || now[0] != UPROBE_SWBP_INSN ||
	    memcmp(now + 1, uprobe->arch.insn + 1, UPROBE_JUMP_BYTES - 1))
		return;
	stub = get_stub(mm, area, uprobe, vaddr);
	if (!stub)
		return;
	arch_uprobe_jump(vaddr, stub, jump);
	if (write_mm_text(mm, vaddr + 1, jump + 1, UPROBE_JUMP_BYTES - 1))
		return;
	if (write_mm_text(mm, vaddr, jump, 1))
		write_mm_text(mm, vaddr + 1, now + 1, UPROBE_JUMP_BYTES - 1);
}

/*
 * Puts the breakpoint back in place of a jump to a stub at @vaddr of @mm,
 * with the bytes of @insn after it.
 */
int take_jump_out(struct mm_struct *mm, unsigned long vaddr, const u8 *insn)
{
	uprobe_opcode_t swbp = UPROBE_SWBP_INSN;
	int err;

	mmap_assert_write_locked(mm);

	if (!has_stub_jump(mm, vaddr))
		return 0;
	err = write_mm_text(mm, vaddr, &swbp, sizeof(swbp));
	if (err)
		return err;
	return write_mm_text(mm, vaddr + 1, insn + 1, UPROBE_JUMP_BYTES - 1);
}

/*
 * Text of a file's mapping is about to move (uprobe_mremap()): a jump to a
 * stub is relative: moved, it would lead elsewhere.  The jumps of the
 * range give way to breakpoints, which move with the text and still work;
 * a hit at the new place makes a new jump there.
 */
void stubs_mremap(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	struct mm_struct *mm = vma->vm_mm;
	struct xol_area *area = mm_xol_area(mm);
	struct stub_site *site;
	struct stub_page *sp;
	unsigned int i;

	if (!area || !vma->vm_file)
		return;
	mmap_assert_write_locked(mm);

	list_for_each_entry(sp, &area->stub_pages, node) {
		for (i = 0; i < sp->used; i++) {
			site = &sp->sites[i];
			if (site->vaddr < start || site->vaddr >= end)
				continue;
			WRITE_ONCE(site->moved, true);
			take_jump_out(mm, site->vaddr, site->insn);
		}
	}
}

/*
 * Whether @uprobe may have jumps: they are on (debug.uprobes-jumps), its
 * instruction went into a stub where it was tried, and no consumer of it
 * wants none.
 */
static bool jumps_wanted(struct uprobe *uprobe)
{
	struct uprobe_consumer *uc;
	bool wanted = true;
	int idx;

	if (!READ_ONCE(uprobe_jumps_on) || READ_ONCE(uprobe->stub_refused))
		return false;
	idx = srcu_read_lock(&uprobes_srcu);
	list_for_each_entry_srcu(uc, &uprobe->consumers, cons_node,
				 srcu_read_lock_held(&uprobes_srcu)) {
		if (uc->no_jump) {
			wanted = false;
			break;
		}
	}
	srcu_read_unlock(&uprobes_srcu, idx);
	return wanted;
}

/*
 * Whether @uprobe may have a jump at @vaddr, for the task whose registers
 * at the probed instruction are @regs.
 */
bool may_jump(struct uprobe *uprobe, struct pt_regs *regs, unsigned long vaddr)
{
	/*
	 * Not in anonymous memory, whose code its JIT may copy: a copy of a
	 * jump would run the stub of a probe at another place (process.c).
	 * The acquire pairs with the release that made the probe READY.
	 */
	return uprobe->inode && smp_load_acquire(&uprobe->insn_state) == INSN_READY &&
	       arch_uprobe_can_jump(&uprobe->arch, regs) &&
	       offset_in_page(vaddr) <= PAGE_SIZE - UPROBE_JUMP_BYTES &&
	       jumps_wanted(uprobe);
}

/*
 * After a hit by the breakpoint at @vaddr, when may_jump(): gives @uprobe
 * a jump to a stub there if the mm has room.  Whether jumps are wanted is
 * asked again under mmap_lock, which every taking out of jumps holds: a
 * jump is never written after the walk that was to take it out.
 */
void try_jump(struct uprobe *uprobe, unsigned long vaddr)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct xol_area *area;

	area = get_xol_area();
	if (!area || READ_ONCE(area->no_stubs) || mmap_write_lock_killable(mm))
		return;
	vma = vma_lookup(mm, vaddr);
	if (vma && valid_vma(vma, true) && vma_maps(vma, uprobe->inode, uprobe->offset) &&
	    offset_to_vaddr(vma, uprobe->offset) == vaddr && uprobe_is_live(uprobe) &&
	    jumps_wanted(uprobe))
		write_jump(uprobe, mm, area, vaddr);
	mmap_write_unlock(mm);
}

/*
 * Where the current task came to @stub from, after an mremap() moved
 * the text at @site: the jump's place, else the place that maps the
 * site's file offset now, which a jump to @stub is preferred at; 0 if
 * none does.  Apart from stub_source(), so that the hit of text that never
 * moved pays nothing for the look (the stack of this one is zeroed on
 * each call, under CONFIG_INIT_STACK_ALL_ZERO).
 */
static noinline unsigned long moved_stub_source(struct stub_site *site, unsigned long stub)
{
	struct mm_struct *mm = current->mm;
	unsigned long vaddr = site->vaddr, found = 0;
	struct vm_area_struct *vma;
	struct vma_iterator vmi;
	u8 code[UPROBE_JUMP_BYTES];

	if (!copy_from_user(code, (void __user *)vaddr, sizeof(code)) &&
	    arch_uprobe_jump_target(code, vaddr) == stub)
		return vaddr;
	vma_iter_init(&vmi, mm, 0);
	mmap_read_lock(mm);
	for_each_vma(vmi, vma) {
		if (!vma_maps(vma, READ_ONCE(site->inode), READ_ONCE(site->offset)))
			continue;
		vaddr = offset_to_vaddr(vma, READ_ONCE(site->offset));
		if (!found)
			found = vaddr;
		if (read_jump_bytes(mm, vaddr, code) &&
		    arch_uprobe_jump_target(code, vaddr) == stub) {
			found = vaddr;
			break;
		}
	}
	mmap_read_unlock(mm);
	return found;
}

/*
 * Where the current task came to @stub from: the address of @site, as
 * long as no mremap() moved the text there.  Whether the jump is still
 * there does not matter: the task took it, and the instruction it stands
 * for is done for the task at that place, or run again there if the probe
 * went.  Moved text is looked for (moved_stub_source()).
 */
static unsigned long stub_source(struct stub_site *site, unsigned long stub)
{
	/* Text that never moved: the jump's place, without a look. */
	if (!READ_ONCE(site->moved))
		return site->vaddr;
	return moved_stub_source(site, stub);
}

/*
 * Where the straight way out of @stub, which serves @site, leads: to the
 * copy, or with none, to the jump to the next instruction, which stands
 * for the jump's target here.
 */
static unsigned long stub_straight(struct stub_site *site, unsigned long stub)
{
	return site->len ? stub + UPROBE_STUB_COPY : site->next;
}

/*
 * A task about to take a signal in a stub, before its syscall, is put back
 * at the probed address as it was there: the handler, a debugger or a
 * core dump never sees the stub, and the task goes through the jump again
 * after the handler.  One on a way out is taken where the way out leads
 * (arch_uprobe_stub_leave()), one at the jump back (after the copy, if
 * the stub has one) just past the probed instruction.  (One at the copy
 * is stepped over it first: stub_copy_finish().)
 */
void leave_stub(struct pt_regs *regs)
{
	unsigned long ip = instruction_pointer(regs), offset, source;
	struct mm_struct *mm = current->mm;
	struct stub_site *site;

	if (!mm || !test_bit(MMF_HAS_UPROBES, &mm->flags))
		return;
	site = stub_at(mm, ip, &offset);
	if (!site || arch_uprobe_stub_leave(regs, offset, stub_straight(site, ip - offset)))
		return;
	if (offset == UPROBE_STUB_COPY + site->len) {
		/* At the jump back: the copy, if any, ran. */
		instruction_pointer_set(regs, site->next);
		return;
	}
	if (!arch_uprobe_stub_unwind(regs, offset))
		return;
	source = stub_source(site, ip - offset);
	instruction_pointer_set(regs, source ?: site->vaddr);
}

/**
 * uprobe_stub_step_trap - a single-step trap in user mode, not ours
 * @regs: the task's registers
 *
 * A debugger stepped the task over a jump to a stub: the trap is taken for
 * the breakpoint the jump stands for, so that the debugger sees the probed
 * instruction done in one step, and never the stub.  Runs in the #DB
 * handler: takes no lock.
 *
 * Return: true when the trap was at the entry of a stub.
 */
bool uprobe_stub_step_trap(struct pt_regs *regs)
{
	struct mm_struct *mm = current->mm;
	struct stub_site *site;

	if (!mm || !test_bit(MMF_HAS_UPROBES, &mm->flags))
		return false;
	site = stub_starting_at(mm, instruction_pointer(regs));
	if (!site)
		return false;
	instruction_pointer_set(regs, site->vaddr + UPROBE_SWBP_INSN_SIZE);
	set_thread_flag(TIF_UPROBE);
	return true;
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

/* ---------------------------------------------------------------------
 * Hits through a stub, and tasks in one when a signal or rseq comes
 */

/* The hit of a task that came through @stub, which serves @site. */
static void handle_stub_hit(struct stub_site *site, struct pt_regs *regs, unsigned long stub)
{
	unsigned long source, copy = 0;
	struct uprobe *uprobe, *later = NULL;
	enum hit_end end;
	int idx;

	source = stub_source(site, stub);
	instruction_pointer_set(regs, source ?: site->vaddr);
	if (!source)
		return;
	idx = srcu_read_lock(&uprobes_srcu);
	/* The place maps the site's file offset (stub_source()). */
	uprobe = find_uprobe_srcu(READ_ONCE(site->inode), NULL, READ_ONCE(site->offset));
	if (uprobe) {
		/* The copy jumps back to the site: not where mremap() moved it. */
		if (site->len && site_serves(site, uprobe, source) &&
		    arch_uprobe_can_jump(&uprobe->arch, regs))
			copy = stub + UPROBE_STUB_COPY;
		end = handle_hit(uprobe, regs, source, copy);
		if (end == HIT_REMOVE)
			later = try_get_uprobe(uprobe);
	}
	srcu_read_unlock(&uprobes_srcu, idx);
	if (later)
		hits_done(later, end, source, false);
}

/**
 * uprobe_stub_hit - the uprobe syscall: a task came through a stub
 * @regs: its registers, as the stub left them at its syscall
 * @stub: where the stub would start, if the syscall is a stub's
 *
 * The registers are put back as they were before the jump, and the hit
 * is handled as a hit of the breakpoint the jump stands for, at the place
 * the task came from (stub_source()); where that place or the probe went
 * meanwhile, the task is sent back to run the probed address again.  It
 * goes on through the stub's way out where it can (which costs less than
 * the return from a trap), else straight to where the hit took it.
 *
 * Return: false, with nothing changed, when no stub of the current mm
 * starts at @stub.
 */
bool uprobe_stub_hit(struct pt_regs *regs, unsigned long stub)
{
	struct arch_uprobe_stub_saved saved;
	struct uprobe_task *utask;
	struct stub_site *site;

	site = current->mm ? stub_starting_at(current->mm, stub) : NULL;
	if (!site)
		return false;
	if (!arch_uprobe_stub_enter(regs, &saved))
		return true;
	handle_stub_hit(site, regs, stub);
	/* A step has its own way back; the rest goes out through the stub. */
	utask = current->utask;
	if (!utask || utask->state == UPROBE_TASK_RUNNING)
		arch_uprobe_stub_exit(regs, stub, &saved, stub_straight(site, stub));
	return true;
}

/**
 * uprobe_is_stub - does a stub of the current mm start at @addr?
 * @addr: a user address
 *
 * Return: true if a stub handed out in the current mm starts at @addr.
 */
bool uprobe_is_stub(unsigned long addr)
{
	return current->mm && stub_starting_at(current->mm, addr);
}

/* The site of the stub of @mm whose copy starts at @ip, or NULL. */
static struct stub_site *stub_copy_at(struct mm_struct *mm, unsigned long ip)
{
	unsigned long offset;
	struct stub_site *site = stub_at(mm, ip, &offset);

	return site && site->len && offset == UPROBE_STUB_COPY ? site : NULL;
}

/*
 * A signal found the task at the copy in a stub: the hit is reported
 * already, and sent back to the probed address the task would come
 * through the stub again and report it twice.  So the signal waits while
 * the task is stepped over the copy (handle_stub_step()).  False when the
 * task is elsewhere, or dying (it is then put back at the probed address).
 */
bool stub_copy_finish(struct uprobe_task *utask, struct pt_regs *regs)
{
	unsigned long ip = instruction_pointer(regs);
	struct stub_site *site = stub_copy_at(current->mm, ip);

	if (!site)
		return false;
	if (__fatal_signal_pending(current)) {
		instruction_pointer_set(regs, site->vaddr);
		return false;
	}
	utask->vaddr = site->vaddr;
	utask->xol_vaddr = ip;
	arch_uprobe_step_copy(&utask->autask, regs);
	utask_set_state(utask, UPROBE_TASK_STUB_STEPPING);
	return true;
}

/*
 * The step over a stub's copy ended: @done, the copy ran (the ip is at the
 * jump back), and the task goes on past the probed instruction; or not
 * (it trapped, or the task is dying), and it goes back to the probed one.
 */
void stub_copy_stepped(struct uprobe_task *utask, struct pt_regs *regs, bool done)
{
	unsigned long ip = instruction_pointer(regs);

	arch_uprobe_step_copy_end(&utask->autask, regs);
	utask_set_state(utask, UPROBE_TASK_RUNNING);
	instruction_pointer_set(regs, utask->vaddr + (done ? ip - utask->xol_vaddr : 0));
	utask->xol_vaddr = 0;
}

/* The step trap after a stub's copy: the signals it held are due. */
void handle_stub_step(struct uprobe_task *utask, struct pt_regs *regs)
{
	/* A rep string instruction stepped one round: step on. */
	if (instruction_pointer(regs) == utask->xol_vaddr)
		return;
	stub_copy_stepped(utask, regs, true);
	release_signals();
}

/*
 * Whether a signal must wait for the task, stepped over a stub's copy, to
 * finish it.
 */
bool stub_copy_deny_signal(struct uprobe_task *utask, struct pt_regs *regs)
{
	if (!__fatal_signal_pending(current) &&
	    !arch_uprobe_xol_was_trapped(current))
		return true;
	stub_copy_stepped(utask, regs, false);
	return false;
}

/*
 * Where a task in a stub stands in the probed code: the probed address
 * before the stub's syscall, and at its copy (which has not run); past the
 * probed instruction at the jump back; on a way out, where it leads.  0
 * when the task is in no stub, or a way out could not be read.
 */
unsigned long stub_origin(struct mm_struct *mm, struct pt_regs *regs)
{
	struct pt_regs left = *regs;
	struct stub_site *site;
	unsigned long offset;

	if (!stub_at(mm, instruction_pointer(regs), &offset))
		return 0;
	/* On a copy of the registers: only where the task stands is asked. */
	leave_stub(&left);
	site = stub_copy_at(mm, instruction_pointer(&left));
	if (site)
		return site->vaddr;
	return stub_at(mm, instruction_pointer(&left), &offset) ? 0 : instruction_pointer(&left);
}

/*
 * For an rseq abort (uprobe_rseq_abort()): a task in a stub is put where
 * it stands in the probed code.  0, or -EFAULT when it is on a way out
 * that could not be read.
 */
int stub_rseq_abort(struct pt_regs *regs)
{
	struct stub_site *site;
	unsigned long offset;

	leave_stub(regs);
	site = stub_copy_at(current->mm, instruction_pointer(regs));
	if (site)
		instruction_pointer_set(regs, site->vaddr);
	else if (stub_at(current->mm, instruction_pointer(regs), &offset))
		return -EFAULT;
	return 0;
}

/* The probed address a trap at @ip in a stub's copy stands for, or 0. */
unsigned long stub_trap_addr(struct mm_struct *mm, unsigned long ip)
{
	unsigned long offset;
	struct stub_site *site = stub_at(mm, ip, &offset);

	if (site && site->len && offset >= UPROBE_STUB_COPY)
		return site->vaddr + offset - UPROBE_STUB_COPY;
	return 0;
}

/*
 * The site of @area whose jump holds @ip past its first byte, with @ip's
 * offset in the jump in *@offset; NULL if none.
 */
static struct stub_site *site_around(struct xol_area *area, unsigned long ip,
				     unsigned long *offset)
{
	struct stub_site *site = NULL;
	struct stub_page *sp;
	unsigned int i, used;

	rcu_read_lock();
	list_for_each_entry_rcu(sp, &area->stub_pages, node) {
		/* Pairs with the release in add_stub(): the sites are filled in. */
		used = smp_load_acquire(&sp->used);
		for (i = 0; i < used && !site; i++) {
			*offset = ip - sp->sites[i].vaddr;
			if (*offset && *offset < UPROBE_JUMP_BYTES)
				site = &sp->sites[i];
		}
	}
	rcu_read_unlock();
	return site;
}

/* Whether a signal of a fault or trap is pending for the current task. */
static bool fault_trap_signal_pending(void)
{
	sigset_t *pending = &current->pending.signal;

	return sigismember(pending, SIGILL) || sigismember(pending, SIGSEGV) ||
	       sigismember(pending, SIGBUS) || sigismember(pending, SIGTRAP);
}

/*
 * A task about to take a fault's signal inside the bytes of a jump, past
 * its first: code that branches into the middle of a probed instruction
 * (an instruction hidden in another's immediate) ran the jump's bytes.
 * That cannot be told at arming; it is told once per stub, here.
 */
void jump_fault_report(struct pt_regs *regs)
{
	unsigned long ip = instruction_pointer(regs), offset;
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	u8 code[UPROBE_JUMP_BYTES];
	struct stub_site *site;
	struct xol_area *area;

	if (!mm || !test_bit(MMF_HAS_UPROBES, &mm->flags) || !fault_trap_signal_pending())
		return;
	area = mm_xol_area(mm);
	site = area ? site_around(area, ip, &offset) : NULL;
	if (!site || copy_from_user(code, (void __user *)site->vaddr, sizeof(code)) ||
	    !stub_starting_at(mm, arch_uprobe_jump_target(code, site->vaddr)) ||
	    test_and_set_bit(0, &site->reported))
		return;
	mmap_read_lock(mm);
	vma = vma_lookup(mm, site->vaddr);
	if (vma && vma->vm_file)
		pr_warn_ratelimited("uprobes: pid %d (%s): a fault at 0x%lx, %lu bytes into the jump that stands for the probe on %pD at 0x%llx: the program branches into the probed instruction; debug.uprobes-jumps=0, or a probe without jumps, keeps its bytes\n",
				    current->pid, current->comm, ip, offset, vma->vm_file,
				    site->offset);
	mmap_read_unlock(mm);
}

/*
 * Puts the breakpoint back in place of every jump, in every process: the
 * probes stay, entered by their breakpoints.
 */
static void all_jumps_out(void)
{
	struct batch_probe one = { };
	struct uprobe **list;
	int n, i;

	n = get_live_uprobes(&list);
	if (n < 0)
		return;
	for (i = 0; i < n; i++) {
		one.uprobe = list[i];
		/* A probe in anonymous memory never has a jump. */
		if (list[i]->inode)
			walk_batch(list[i]->inode, &one, 1, WALK_UNJUMP);
	}
	put_uprobe_list(list, n);
}

static DEFINE_MUTEX(jumps_sysctl_mutex);

static int jumps_sysctl(const struct ctl_table *table, int write, void *buffer,
			size_t *lenp, loff_t *ppos)
{
	int err;

	mutex_lock(&jumps_sysctl_mutex);
	err = proc_dointvec_minmax(table, write, buffer, lenp, ppos);
	if (!err && write && !READ_ONCE(uprobe_jumps_on))
		all_jumps_out();
	mutex_unlock(&jumps_sysctl_mutex);
	return err;
}

static struct ctl_table jumps_table[] = {
	{
		.procname	= "uprobes-jumps",
		.data		= &uprobe_jumps_on,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= jumps_sysctl,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
};

static int __init jumps_sysctl_init(void)
{
	register_sysctl("debug", jumps_table);
	return 0;
}
late_initcall(jumps_sysctl_init);
