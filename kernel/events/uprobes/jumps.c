// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprobes core, jumps: a jump to a stub in place of a breakpoint
 *
 * Once a probe is hit in an mm, an instruction the architecture allows
 * (arch_uprobe_can_jump()) gets there, in place of its breakpoint, a jump
 * to a stub of its own (stub_pages.c).  The stub enters the kernel by the
 * uprobe syscall, which costs less than the breakpoint's trap
 * (stub_hit.c).
 *
 * Writing the jump (write_jump()): the breakpoint is in its first byte
 * already; the other bytes are written, every CPU that runs the mm
 * serializes, then the first byte is written.  A task that runs the place
 * meanwhile takes the breakpoint or the whole jump, both right.  Taking it
 * out (take_jump_out()) runs the same steps backwards, before the
 * breakpoint itself goes.  Both hold mmap_lock for writing, like every
 * write of text.  Only the mm's own copy of the page changes.
 *
 * Jumps give way to breakpoints when text moves (jumps_mremap()), when a
 * consumer that wants none comes, and all at once when the sysctl
 * debug.uprobes-jumps is set to 0.  A fault inside a jump's bytes is
 * reported once per stub (jump_fault_report()).
 */

#include <linux/sysctl.h>

#include "stubs.h"

/* debug.uprobes-jumps: 0 takes every jump out, and gives no new one. */
static int uprobe_jumps_on = 1;

/* The UPROBE_JUMP_BYTES at @vaddr of @mm, if they are in one page. */
bool read_jump_bytes(struct mm_struct *mm, unsigned long vaddr, u8 *code)
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
void jumps_mremap(struct vm_area_struct *vma, unsigned long start, unsigned long end)
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
	 * jump would run the stub of a probe at another place (anon.c).
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
