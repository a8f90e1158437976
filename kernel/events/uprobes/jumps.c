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
 * Writing the jump (write_jump()): the breakpoint is in its first bytes
 * already (x86: one byte); the jump's other bytes are written, every CPU
 * that runs the mm serializes, then its first bytes are written.  A task
 * that runs the place meanwhile takes the breakpoint or the whole jump,
 * both right.  Where the breakpoint is as wide as the jump (arm64: a brk
 * replaced by a b, both of which the architecture allows to be swapped
 * under a running CPU), that is one write.  Taking it
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

/*
 * A jump replaces a breakpoint of BP bytes (1 on x86, as wide as the jump
 * on arm64); the jump's bytes past those are written first.
 */
#define BP	UPROBE_SWBP_INSN_SIZE

/* Whether @code starts with the breakpoint of probes in files. */
static bool is_swbp_at(const u8 *code)
{
	uprobe_opcode_t swbp = UPROBE_SWBP_INSN;

	return !memcmp(code, &swbp, BP);
}

/* The bytes of @uprobe's instruction, as its file has them. */
static const u8 *insn_bytes(struct uprobe *uprobe)
{
	return (const u8 *)&uprobe->arch.insn;
}

/* The length of @uprobe's instruction. */
static unsigned int insn_len(struct uprobe *uprobe)
{
	return arch_uprobe_insn_len(&uprobe->arch);
}

/* The UPROBE_JUMP_BYTES at @vaddr of @mm, if they are in one page. */
bool read_jump_bytes(struct mm_struct *mm, unsigned long vaddr, u8 *code)
{
	return offset_in_page(vaddr) <= PAGE_SIZE - UPROBE_JUMP_BYTES &&
	       !read_mm_bytes(mm, vaddr, code, UPROBE_JUMP_BYTES, NULL);
}

/**
 * arch_uprobe_pun_window - where a jump over a short instruction may lead
 * @vaddr: the probed address
 * @len: the probed instruction's length, less than UPROBE_JUMP_BYTES
 * @code: the UPROBE_JUMP_BYTES bytes at @vaddr, as in the file
 * @lo: set to the lowest target
 * @hi: set to the highest
 *
 * The default: an architecture that does not pun jumps has none.
 *
 * Return: false if there is no window.
 */
bool __weak arch_uprobe_pun_window(unsigned long vaddr, unsigned int len, const u8 *code,
				   unsigned long *lo, unsigned long *hi)
{
	return false;
}

/* The bytes of the jump of @site that are the probed instruction's own. */
static unsigned int jump_own_bytes(const struct stub_site *site)
{
	return min_t(unsigned long, site->next - site->vaddr, UPROBE_JUMP_BYTES);
}

/*
 * The site of the jump at @vaddr of @mm: to its stub, or punned, to its
 * hop; NULL if the code there is no such jump.
 */
static struct stub_site *jump_site(struct mm_struct *mm, unsigned long vaddr)
{
	u8 code[UPROBE_JUMP_BYTES];
	struct stub_site *site;
	unsigned long target;

	if (!read_jump_bytes(mm, vaddr, code))
		return NULL;
	target = arch_uprobe_jump_target(code, vaddr);
	if (!target)
		return NULL;
	site = stub_starting_at(mm, target) ?: hop_at(mm, target);
	return site && site->vaddr == vaddr ? site : NULL;
}

/* Whether the code at @vaddr of @mm is a jump to its stub, or to its hop. */
bool has_stub_jump(struct mm_struct *mm, unsigned long vaddr)
{
	return jump_site(mm, vaddr);
}

/*
 * Why a place of an mm has no jump (punned or not, despite the name, which
 * is for the common case): the values of xol_area.no_pun.
 */
enum no_pun_why {
	NO_PUN_PLACE = 1,	/* no room in its window, or its text or mapping */
	NO_PUN_HOP_LIMIT,	/* the mm's pages of hops ran out */
};

/*
 * Remembers that @vaddr of @area's mm has no punned jump, and @why.  With
 * NO_PUN_MAX places remembered, no other place of the mm gets a punned
 * jump until some are forgotten (no_pun_forget()).  Under the mm's
 * mmap_lock held for writing, as every change of what it remembers.
 */
static void no_pun(struct xol_area *area, unsigned long vaddr, enum no_pun_why why)
{
	void *old;

	if (area->nr_no_pun >= NO_PUN_MAX) {
		WRITE_ONCE(area->no_pun_full, true);
		return;
	}
	old = xa_store(&area->no_pun, vaddr, xa_mk_value(why), GFP_KERNEL_ACCOUNT);
	if (!old)
		area->nr_no_pun++;
}

/* Forgets what @area remembers of the places from @start to @end. */
static void no_pun_forget(struct xol_area *area, unsigned long start, unsigned long end)
{
	unsigned long index;
	void *entry;

	xa_for_each_range(&area->no_pun, index, entry, start, end - 1) {
		xa_erase(&area->no_pun, index);
		area->nr_no_pun--;
	}
	if (area->nr_no_pun < NO_PUN_MAX)
		WRITE_ONCE(area->no_pun_full, false);
}

/**
 * jumps_forget_range - text from @start to @end of @mm goes (munmap, mremap)
 * @mm: the mm, its mmap_lock held for writing
 * @start: start of the range
 * @end: its end
 *
 * What the mm remembers of the places there having no punned jump is
 * forgotten: another mapping may come there.
 */
void jumps_forget_range(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	struct xol_area *area = mm_xol_area(mm);

	mmap_assert_write_locked(mm);

	if (area)
		no_pun_forget(area, start, end);
}

/*
 * Where the jump of @uprobe at @vaddr of @mm leads: its stub for an
 * instruction as long as the jump; for a shorter one, a hop in the window
 * the bytes after it leave (arch_uprobe_pun_window()), which leads to the
 * stub.  0 if there is none.  A place that failed is not tried again.
 */
static unsigned long jump_target(struct uprobe *uprobe, struct mm_struct *mm,
				 struct xol_area *area, unsigned long vaddr)
{
	unsigned long lo, hi, hop, stub;

	if (insn_len(uprobe) >= UPROBE_JUMP_BYTES)
		return get_stub(mm, area, uprobe, vaddr, 0);
	if (!arch_uprobe_pun_window(vaddr, insn_len(uprobe), insn_bytes(uprobe), &lo, &hi))
		return 0;
	hop = get_old_hop(mm, area, uprobe, vaddr);
	if (hop && hop >= lo && hop <= hi)
		return hop;
	hop = get_hop(mm, area, lo, hi);
	stub = hop ? get_stub(mm, area, uprobe, vaddr, hop) : 0;
	if (!stub) {
		no_pun(area, vaddr, area->nr_hop_pages >= HOP_PAGES_MAX ?
				    NO_PUN_HOP_LIMIT : NO_PUN_PLACE);
		return 0;
	}
	set_hop(mm, area, hop, stub);
	return hop;
}

/*
 * Replaces the breakpoint of @uprobe at @vaddr of @mm with a jump to a
 * stub, in the order that leaves no torn instruction (see the top of this
 * file).  Only the instruction's own bytes change: a punned jump's last
 * bytes are those already there.  All of them must be as in the file: no
 * breakpoint of a probe near, no jump, no change by the process.
 */
static void write_jump(struct uprobe *uprobe, struct mm_struct *mm,
		       struct xol_area *area, unsigned long vaddr)
{
	u8 now[UPROBE_JUMP_BYTES], jump[UPROBE_JUMP_BYTES];
	unsigned int own = min_t(unsigned int, insn_len(uprobe), UPROBE_JUMP_BYTES);
	unsigned long target;

	mmap_assert_write_locked(mm);

	if (!read_jump_bytes(mm, vaddr, now) || !is_swbp_at(now))
		return;
	if (memcmp(now + BP, insn_bytes(uprobe) + BP, UPROBE_JUMP_BYTES - BP)) {
		/* Until a breakpoint in its bytes goes (jumps_retry_around()). */
		no_pun(area, vaddr, NO_PUN_PLACE);
		return;
	}
	target = jump_target(uprobe, mm, area, vaddr);
	if (!target)
		return;
	arch_uprobe_jump(vaddr, target, jump);
	if (WARN_ON_ONCE(memcmp(jump + own, now + own, UPROBE_JUMP_BYTES - own)))
		return;
	if (own > BP && write_mm_text(mm, vaddr + BP, jump + BP, own - BP))
		return;
	if (write_mm_text(mm, vaddr, jump, BP) && own > BP)
		write_mm_text(mm, vaddr + BP, now + BP, own - BP);
}

/*
 * The site of a jump at @vaddr of @mm that was half taken out: its first
 * byte the breakpoint again, its others still the jump's (the write of
 * the others failed); NULL if there is none.
 */
static struct stub_site *half_jump_site(struct mm_struct *mm, unsigned long vaddr)
{
	u8 code[UPROBE_JUMP_BYTES], jump[UPROBE_JUMP_BYTES];
	struct xol_area *area = mm_xol_area(mm);
	struct stub_site *site;

	if (!area || !read_jump_bytes(mm, vaddr, code) || !is_swbp_at(code))
		return NULL;
	for_each_stub_site(area, site) {
		if (site->vaddr != vaddr || jump_own_bytes(site) <= BP)
			continue;
		arch_uprobe_jump(vaddr, site->hop ?: site->stub, jump);
		if (!memcmp(code + BP, jump + BP, jump_own_bytes(site) - BP))
			return site;
	}
	return NULL;
}

/*
 * Puts the breakpoint back in place of a jump to a stub at @vaddr of @mm,
 * with the bytes of @insn after it: those of the probed instruction (a
 * punned jump's others never changed).  A jump that an earlier call left
 * half taken out is taken out whole.
 */
int take_jump_out(struct mm_struct *mm, unsigned long vaddr, const u8 *insn)
{
	uprobe_opcode_t swbp = UPROBE_SWBP_INSN;
	struct stub_site *site;
	unsigned int own;
	int err;

	mmap_assert_write_locked(mm);

	site = jump_site(mm, vaddr) ?: half_jump_site(mm, vaddr);
	if (!site)
		return 0;
	own = jump_own_bytes(site);
	err = write_mm_text(mm, vaddr, &swbp, sizeof(swbp));
	if (err || own <= BP)
		return err;
	return write_mm_text(mm, vaddr + BP, insn + BP, own - BP);
}

/*
 * A breakpoint is about to be written at @vaddr of @mm: a jump whose
 * bytes hold @vaddr (a punned one, or one over an instruction that a
 * probe at @vaddr would cut in two) would lead elsewhere.  Such jumps are
 * taken out first; their probes then stay on their breakpoints while this
 * one is there (write_jump() finds it in their bytes, jumps_retry_around()
 * lets them try again once it goes).
 */
int jumps_out_around(struct mm_struct *mm, unsigned long vaddr)
{
	struct xol_area *area = mm_xol_area(mm);
	struct stub_site *site;
	int err = 0;

	if (!area)
		return 0;
	mmap_assert_write_locked(mm);

	for_each_stub_site(area, site) {
		if (vaddr > site->vaddr && vaddr < site->vaddr + UPROBE_JUMP_BYTES)
			err = err ?: take_jump_out(mm, site->vaddr, site->insn);
	}
	return err;
}

/*
 * The breakpoint at @vaddr of @mm is gone: the places before it that it
 * kept from a punned jump may have one again.
 */
void jumps_retry_around(struct mm_struct *mm, unsigned long vaddr)
{
	struct xol_area *area = mm_xol_area(mm);

	if (!area || vaddr < UPROBE_JUMP_BYTES)
		return;
	no_pun_forget(area, vaddr - (UPROBE_JUMP_BYTES - 1), vaddr);
}

/* Whether the jump bytes of @site meet [@addr, @addr + @len). */
static bool site_meets(const struct stub_site *site, unsigned long addr, unsigned long len)
{
	return site->vaddr < addr + len && addr < site->vaddr + UPROBE_JUMP_BYTES;
}

/*
 * Whether a stub of @mm was made for a place whose jump bytes meet
 * [@addr, @addr + @len): a jump may be there.  Takes no lock.
 */
bool jumps_in_range(struct mm_struct *mm, unsigned long addr, unsigned long len)
{
	struct xol_area *area = mm_xol_area(mm);
	struct stub_site *site;
	bool found = false;

	if (!area)
		return false;
	rcu_read_lock();
	for_each_stub_site(area, site) {
		if (site_meets(site, addr, len)) {
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/* Takes out the jumps of @mm whose bytes meet [@addr, @addr + @len). */
void jumps_out_range(struct mm_struct *mm, unsigned long addr, unsigned long len)
{
	struct xol_area *area = mm_xol_area(mm);
	struct stub_site *site;

	if (!area)
		return;
	mmap_assert_write_locked(mm);

	for_each_stub_site(area, site)
		if (site_meets(site, addr, len))
			take_jump_out(mm, site->vaddr, site->insn);
}

/*
 * @buf holds the @len bytes at @addr of @mm (mmap_lock held): the bytes
 * of each jump there become those of the breakpoint it stands for, and
 * the instruction's others.  A jump read and written back later by a
 * debugger, after a write of its own took the jump out, would lead
 * nowhere (a punned one elsewhere).
 */
void jumps_mask_range(struct mm_struct *mm, unsigned long addr, void *buf,
		      unsigned long len)
{
	uprobe_opcode_t swbp = UPROBE_SWBP_INSN;
	struct xol_area *area = mm_xol_area(mm);
	struct stub_site *site;
	unsigned long p, end;
	u8 byte;

	if (!area || !jumps_in_range(mm, addr, len))
		return;
	mmap_assert_locked(mm);

	for_each_stub_site(area, site) {
		if (!site_meets(site, addr, len) || jump_site(mm, site->vaddr) != site)
			continue;
		end = site->vaddr + jump_own_bytes(site);
		for (p = max(addr, site->vaddr); p < min(addr + len, end); p++) {
			if (p - site->vaddr < UPROBE_SWBP_INSN_SIZE)
				byte = ((u8 *)&swbp)[p - site->vaddr];
			else
				byte = site->insn[p - site->vaddr];
			((u8 *)buf)[p - addr] = byte;
		}
	}
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

	if (!area)
		return;
	mmap_assert_write_locked(mm);

	no_pun_forget(area, start, end);
	if (!vma->vm_file)
		return;
	for_each_stub_site(area, site) {
		if (site->vaddr < start || site->vaddr >= end)
			continue;
		WRITE_ONCE(site->moved, true);
		take_jump_out(mm, site->vaddr, site->insn);
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
 * Whether a jump over an instruction of @len bytes at @vaddr of this mm is
 * not known to be impossible there; for a punned one, nor while the mm
 * remembers all the places it may (no_pun()).
 */
static bool may_jump_at(unsigned long vaddr, unsigned int len)
{
	struct xol_area *area = mm_xol_area(current->mm);

	if (!area)
		return true;
	if (len < UPROBE_JUMP_BYTES && READ_ONCE(area->no_pun_full))
		return false;
	return !xa_load(&area->no_pun, vaddr);
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
	       arch_uprobe_can_jump(&uprobe->arch, current, regs) &&
	       offset_in_page(vaddr) <= PAGE_SIZE - UPROBE_JUMP_BYTES &&
	       may_jump_at(vaddr, insn_len(uprobe)) &&
	       jumps_wanted(uprobe);
}

/*
 * Whether a jump over an instruction of @len bytes may be written at
 * @vaddr of @vma: no store of the process may change its bytes (nor,
 * past a short instruction, the next instructions' that a punned jump
 * ends with, which must stay within the mapping).
 */
static bool may_jump_in(struct vm_area_struct *vma, unsigned long vaddr, unsigned int len)
{
	if (vma->vm_flags & VM_WRITE)
		return false;
	return len >= UPROBE_JUMP_BYTES || vaddr + UPROBE_JUMP_BYTES <= vma->vm_end;
}

/*
 * Why @uprobe at @vaddr of @mm (mmap_lock held), whose text holds no jump,
 * has none, as far as it can be told without a hit; NULL if its next hit
 * may make one.  @task: one of @mm's tasks, its stack held.
 */
static const char *why_no_jump(struct uprobe *uprobe, struct mm_struct *mm,
			       struct task_struct *task, unsigned long vaddr)
{
	struct xol_area *area = mm_xol_area(mm);
	struct vm_area_struct *vma = vma_lookup(mm, vaddr);
	u8 now[UPROBE_JUMP_BYTES];
	void *memo;

	if (!uprobe->inode)
		return "anonymous-memory";
	if (!READ_ONCE(uprobe_jumps_on))
		return "jumps-off";
	/* Pairs with the release that made it READY: arch is filled in. */
	if (smp_load_acquire(&uprobe->insn_state) != INSN_READY)
		return "not-analysed";
	if (!arch_uprobe_can_jump(&uprobe->arch, task, task_pt_regs(task)))
		return "instruction";
	if (READ_ONCE(uprobe->stub_refused))
		return "no-copy-in-reach";
	if (!jumps_wanted(uprobe))
		return "nojump-consumer";
	if (offset_in_page(vaddr) > PAGE_SIZE - UPROBE_JUMP_BYTES)
		return "page-end";
	if (area && READ_ONCE(area->no_stubs))
		return "stub-limit";
	if (!vma || !may_jump_in(vma, vaddr, insn_len(uprobe)))
		return "writable-or-map-end";
	if (!read_jump_bytes(mm, vaddr, now) ||
	    memcmp(now + BP, insn_bytes(uprobe) + BP, UPROBE_JUMP_BYTES - BP))
		return "text-differs";
	memo = area ? xa_load(&area->no_pun, vaddr) : NULL;
	if (memo)
		return xa_to_value(memo) == NO_PUN_HOP_LIMIT ? "hop-limit" : "no-window";
	if (area && READ_ONCE(area->no_pun_full) && insn_len(uprobe) < UPROBE_JUMP_BYTES)
		return "pun-memo-limit";
	return NULL;
}

/**
 * jump_state - how hits on a probe come in, in an mm
 * @uprobe: the probe
 * @mm: the mm, mmap_lock held
 * @task: one of @mm's tasks, its stack held
 * @vaddr: where @uprobe is in @mm
 * @why: set, for a breakpoint, to why it has no jump: NULL if its next
 *	hit may give it one
 *
 * Return: "jump" (to a stub), "punned-jump" (over an instruction shorter
 * than it, through a hop) or "breakpoint".
 */
const char *jump_state(struct uprobe *uprobe, struct mm_struct *mm, struct task_struct *task,
		       unsigned long vaddr, const char **why)
{
	struct stub_site *site = jump_site(mm, vaddr);

	mmap_assert_locked(mm);

	*why = NULL;
	if (site)
		return site->hop ? "punned-jump" : "jump";
	*why = why_no_jump(uprobe, mm, task, vaddr);
	return "breakpoint";
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
	    jumps_wanted(uprobe)) {
		if (may_jump_in(vma, vaddr, insn_len(uprobe)))
			write_jump(uprobe, mm, area, vaddr);
		else
			no_pun(area, vaddr, NO_PUN_PLACE);
	}
	mmap_write_unlock(mm);
}

/*
 * The site of @area whose jump holds @ip past its first byte, with @ip's
 * offset in the jump in *@offset; NULL if none.
 */
static struct stub_site *site_around(struct xol_area *area, unsigned long ip,
				     unsigned long *offset)
{
	struct stub_site *site, *found = NULL;

	rcu_read_lock();
	for_each_stub_site(area, site) {
		if (!found && ip > site->vaddr && ip < site->vaddr + jump_own_bytes(site)) {
			*offset = ip - site->vaddr;
			found = site;
		}
	}
	rcu_read_unlock();
	return found;
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
	struct stub_site *site;
	struct xol_area *area;

	if (!mm || !test_bit(MMF_HAS_UPROBES, &mm->flags) || !fault_trap_signal_pending())
		return;
	area = mm_xol_area(mm);
	site = area ? site_around(area, ip, &offset) : NULL;
	if (!site)
		return;
	mmap_read_lock(mm);
	vma = vma_lookup(mm, site->vaddr);
	if (vma && vma->vm_file && jump_site(mm, site->vaddr) == site &&
	    !test_and_set_bit(0, &site->reported))
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
