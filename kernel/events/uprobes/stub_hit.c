// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprobes core, hits through a stub: the uprobe syscall.
 *
 * At the syscall the kernel checks where the task came from: the jump's
 * place, or if the jump went meanwhile, the place that maps the probe's
 * file offset now (stub_source()); the hit is handled there as after the
 * breakpoint (handle_hit()).  If the probe went too, the task is sent
 * back to run that place again: the original instruction, or while the
 * probe's removal is under way, the jump again.  A debugger's step trap
 * at the entry of a stub is taken for the breakpoint
 * (uprobe_stub_step_trap()).
 */

#include "stubs.h"

/*
 * Where the current task came to @stub from, after an mremap() moved
 * the text at @site: the jump's place, else the place that maps the
 * site's file offset now, which a jump to @stub is preferred at; 0 if
 * none does.  Apart from stub_source(), so that the hit of text that never
 * moved pays nothing for the look (the stack of this one is zeroed on
 * each call, under CONFIG_INIT_STACK_ALL_ZERO).
 */
noinline unsigned long moved_stub_source(struct stub_site *site, unsigned long stub)
{
	struct mm_struct *mm = current->mm;
	unsigned long vaddr = site->vaddr, found = 0;
	struct vm_area_struct *vma;
	struct vma_iterator vmi;
	u8 code[UPROBE_JUMP_BYTES];

	/* A punned jump leads to the site's hop, which leads to @stub. */
	stub = READ_ONCE(site->hop) ?: stub;

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
 * Where the straight way out of @stub, which serves @site, leads: to the
 * copy, or with none, to the jump to the next instruction, which stands
 * for the jump's target here.
 */
unsigned long stub_straight(struct stub_site *site, unsigned long stub)
{
	return site->len ? stub + UPROBE_STUB_COPY : site->next;
}

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
		    arch_uprobe_can_jump(&uprobe->arch, current, regs))
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
 * uprobe_stub_site_hit - a task came through the stub of @site
 * @regs: its registers, as the stub left them at its syscall
 * @site: the site (uprobe_stub_site()) of the stub it came through
 *
 * The registers are put back as they were before the jump, and the hit
 * is handled as a hit of the breakpoint the jump stands for, at the place
 * the task came from (stub_source()); where that place or the probe went
 * meanwhile, the task is sent back to run the probed address again.  It
 * goes on through the stub's way out where it can (which costs less than
 * the return from a trap), else straight to where the hit took it.
 */
void uprobe_stub_site_hit(struct pt_regs *regs, struct stub_site *site)
{
	unsigned long stub = site->stub;
	struct arch_uprobe_stub_saved saved;
	struct uprobe_task *utask;

	if (!arch_uprobe_stub_enter(regs, &saved))
		return;
	handle_stub_hit(site, regs, stub);
	/* A step has its own way back; the rest goes out through the stub. */
	utask = current->utask;
	if (!utask || utask->state == UPROBE_TASK_RUNNING)
		arch_uprobe_stub_exit(regs, stub, &saved, stub_straight(site, stub));
}

/**
 * uprobe_stub_hit - the uprobe syscall: a task came through a stub
 * @regs: its registers, as the stub left them at its syscall
 * @stub: where the stub would start, if the syscall is a stub's
 *
 * uprobe_stub_site_hit() for the stub that starts at @stub.
 *
 * Return: false, with nothing changed, when no stub of the current mm
 * starts at @stub.
 */
bool uprobe_stub_hit(struct pt_regs *regs, unsigned long stub)
{
	struct stub_site *site = uprobe_stub_site(stub);

	if (!site)
		return false;
	uprobe_stub_site_hit(regs, site);
	return true;
}

/*
 * Sets the ip where a trap on the breakpoint at @vaddr leaves it: the one
 * that uprobe_get_swbp_addr() takes back to @vaddr (past the breakpoint
 * on x86, at it on arm64).
 */
static void set_ip_as_trapped(struct pt_regs *regs, unsigned long vaddr)
{
	instruction_pointer_set(regs, vaddr);
	instruction_pointer_set(regs, 2 * vaddr - uprobe_get_swbp_addr(regs));
}

/**
 * uprobe_stub_step_trap - a single-step trap in user mode, not uprobes'
 * @regs: the task's registers
 *
 * A debugger stepped the task over a jump to a stub, or to a hop: the
 * trap is taken for the breakpoint the jump stands for, so that the
 * debugger sees the probed instruction done in one step, and never the
 * stub.  Runs in the step trap's handler (#DB on x86): takes no lock.
 *
 * Return: true when the trap was at the entry of a stub.
 */
bool uprobe_stub_step_trap(struct pt_regs *regs)
{
	struct mm_struct *mm = current->mm;
	struct stub_site *site;

	if (!mm || !test_bit(MMF_HAS_UPROBES, &mm->flags))
		return false;
	site = stub_starting_at(mm, instruction_pointer(regs)) ?:
	       hop_at(mm, instruction_pointer(regs));
	if (!site)
		return false;
	set_ip_as_trapped(regs, site->vaddr);
	set_thread_flag(TIF_UPROBE);
	return true;
}
