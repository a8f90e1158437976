// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprobes core, arming: a probe's breakpoints in every process that maps
 * its file.  Breakpoints are written into the processes' own copies of
 * the text (text.c); an SDT counter counts the mms a probe is armed in;
 * a walk visits every mapping of a file once for a whole batch of probes
 * (walk_batch()), and a new mapping is armed as it comes (arm_new_vma()).
 * Forks are held off during a walk, so that none copies a mapping the
 * walk has not seen yet.  Every write of text holds the mm's mmap_lock
 * for writing; see core.c for the lock order.
 */

#include <linux/error-injection.h>
#include <linux/sort.h>

#include "internal.h"

/*
 * An SDT counter that could not be incremented when its probe was armed
 * in @mm, because the counter's page was not mapped yet (delayed_lock).
 */
struct delayed_ref_ctr {
	struct list_head node;
	struct uprobe *uprobe;
	struct mm_struct *mm;
};

static DEFINE_MUTEX(delayed_lock);
static LIST_HEAD(delayed_ref_ctrs);
DEFINE_STATIC_PERCPU_RWSEM(dup_mmap_sem);

/* ---------------------------------------------------------------------
 * SDT counters (ref_ctr_offset): one increment per mm the probe is armed in
 */

/*
 * Whether @vma is where the program keeps the SDT counter at file offset
 * @offset of @inode: a private writable mapping of it.  A loader maps a
 * library whole and read-only first, then its segments over that: the
 * counter is in the data segment, not in that first mapping.
 */
static bool ref_ctr_vma(struct vm_area_struct *vma, struct inode *inode, loff_t offset)
{
	return vma_maps(vma, inode, offset) &&
	       (vma->vm_flags & (VM_WRITE | VM_MAYSHARE)) == VM_WRITE;
}

/* The mapping of @uprobe's file in @mm that holds its counter, or NULL. */
static struct vm_area_struct *find_ref_ctr_vma(struct uprobe *uprobe,
					       struct mm_struct *mm)
{
	VMA_ITERATOR(vmi, mm, 0);
	struct vm_area_struct *vma;

	for_each_vma(vmi, vma)
		if (ref_ctr_vma(vma, uprobe->inode, uprobe->ref_ctr_offset))
			return vma;
	return NULL;
}

/* Adds @d to the counter at @vaddr of @mm, in the mm's own copy of the page. */
static int add_to_ref_ctr(struct mm_struct *mm, unsigned long vaddr, short d)
{
	struct page *page = get_mm_page(mm, vaddr, true);
	short *count;
	int err = 0;

	if (IS_ERR(page))
		return PTR_ERR(page);
	count = kmap_local_page(page) + offset_in_page(vaddr);
	if (*count + d < 0 || *count + d > SHRT_MAX)
		err = -ERANGE;
	else
		*count += d;
	kunmap_local(count);
	if (!err)
		set_page_dirty_lock(page);
	put_page(page);
	return err;
}

static struct delayed_ref_ctr *find_delayed(struct uprobe *uprobe, struct mm_struct *mm)
{
	struct delayed_ref_ctr *d;

	lockdep_assert_held(&delayed_lock);

	list_for_each_entry(d, &delayed_ref_ctrs, node)
		if (d->uprobe == uprobe && d->mm == mm)
			return d;
	return NULL;
}

static void drop_delayed(struct delayed_ref_ctr *d)
{
	list_del(&d->node);
	kfree(d);
}

/*
 * Counts the probe's arming (@d = 1) or disarming (-1) in @mm.  A counter
 * whose page is not mapped yet is counted when it is (uprobe_mmap()).
 */
static int update_ref_ctr(struct uprobe *uprobe, struct mm_struct *mm, short d)
{
	struct delayed_ref_ctr *delayed;
	struct vm_area_struct *vma;
	int err = 0;

	if (!uprobe->ref_ctr_offset)
		return 0;
	mutex_lock(&delayed_lock);
	delayed = find_delayed(uprobe, mm);
	if (delayed) {
		if (d < 0)
			drop_delayed(delayed);
		goto unlock;
	}
	vma = find_ref_ctr_vma(uprobe, mm);
	if (vma) {
		err = add_to_ref_ctr(mm, offset_to_vaddr(vma, uprobe->ref_ctr_offset), d);
	} else if (d > 0) {
		delayed = kzalloc(sizeof(*delayed), GFP_KERNEL);
		if (!delayed) {
			err = -ENOMEM;
			goto unlock;
		}
		delayed->uprobe = uprobe;
		delayed->mm = mm;
		list_add(&delayed->node, &delayed_ref_ctrs);
	}
unlock:
	mutex_unlock(&delayed_lock);
	if (err)
		pr_warn_ratelimited("uprobes: SDT counter of inode %lu at 0x%llx in pid %d: error %d\n",
				    uprobe->inode->i_ino, uprobe->ref_ctr_offset,
				    current->pid, err);
	return err;
}

/* Counts the delayed counters that the new mapping @vma brings in. */
static void apply_delayed_ref_ctrs(struct vm_area_struct *vma)
{
	struct delayed_ref_ctr *d, *tmp;
	struct inode *inode = file_inode(vma->vm_file);

	if (list_empty_careful(&delayed_ref_ctrs))
		return;
	mutex_lock(&delayed_lock);
	list_for_each_entry_safe(d, tmp, &delayed_ref_ctrs, node) {
		if (d->mm != vma->vm_mm || !ref_ctr_vma(vma, inode, d->uprobe->ref_ctr_offset))
			continue;
		add_to_ref_ctr(vma->vm_mm, offset_to_vaddr(vma, d->uprobe->ref_ctr_offset), 1);
		drop_delayed(d);
	}
	mutex_unlock(&delayed_lock);
}

void drop_delayed_of_mm(struct mm_struct *mm)
{
	struct delayed_ref_ctr *d, *tmp;

	if (list_empty_careful(&delayed_ref_ctrs))
		return;
	mutex_lock(&delayed_lock);
	list_for_each_entry_safe(d, tmp, &delayed_ref_ctrs, node)
		if (d->mm == mm)
			drop_delayed(d);
	mutex_unlock(&delayed_lock);
}

/* ---------------------------------------------------------------------
 * Breakpoints
 */

/* Whether any consumer of @uprobe wants it armed in @mm. */
bool any_consumer_wants(struct uprobe *uprobe, struct mm_struct *mm)
{
	struct uprobe_consumer *uc;
	bool wants = false;
	int idx;

	idx = srcu_read_lock(&uprobes_srcu);
	list_for_each_entry_srcu(uc, &uprobe->consumers, cons_node,
				 srcu_read_lock_held(&uprobes_srcu)) {
		wants = consumer_wants(uc, mm);
		if (wants)
			break;
	}
	srcu_read_unlock(&uprobes_srcu, idx);
	return wants;
}

/*
 * Arms @uprobe at @vaddr of @tb's mapping.  Already armed there (a
 * breakpoint is in place) is success: arming is idempotent, and counts
 * the SDT counter only when it writes the breakpoint.  For a consumer
 * that wants no jump (@no_jump), a jump there is taken out.
 */
static int install_breakpoint(struct uprobe *uprobe, struct text_batch *tb,
			      unsigned long vaddr, bool no_jump)
{
	struct vm_area_struct *vma = tb->vma;
	struct mm_struct *mm = vma->vm_mm;
	const u8 *insn = (const u8 *)&uprobe->arch.insn;
	uprobe_opcode_t now = 0;
	int err;

	mmap_assert_write_locked(mm);

	err = prepare_insn(uprobe, vma->vm_file, mm, vaddr);
	if (err)
		return err;
	/* Code of the compat mode runs only in a compat mm, and no other. */
	if (uprobe->compat != arch_uprobe_is_compat(mm))
		return -EOPNOTSUPP;
	/* A jump whose bytes hold @vaddr would lead elsewhere with it. */
	err = jumps_out_around(mm, vaddr);
	if (err)
		return err;
	err = read_mm_bytes(mm, vaddr, &now, UPROBE_SWBP_INSN_SIZE, NULL);
	if (err)
		return err;
	if (is_swbp_insn(&now) || has_stub_jump(mm, vaddr))
		return no_jump ? take_jump_out(mm, vaddr, insn) : 0;
	if (memcmp(&now, insn, UPROBE_SWBP_INSN_SIZE))
		return -EBUSY;	/* the process changed its text there */
	err = update_ref_ctr(uprobe, mm, 1);
	if (err)
		return err;
	/* Before the breakpoint: a thread of @mm may trap on it at once. */
	set_bit(MMF_HAS_UPROBES, &mm->flags);
	err = text_batch_write(tb, vaddr, UPROBE_SWBP_INSN, false);
	if (err)
		update_ref_ctr(uprobe, mm, -1);
	return err;
}

/*
 * Disarms @uprobe at @vaddr of @tb's mapping, if it is armed there.  An
 * error may be injected (fail_function), to test removals cut short.
 */
static noinline int remove_breakpoint(struct uprobe *uprobe, struct text_batch *tb,
				      unsigned long vaddr)
{
	struct mm_struct *mm = tb->vma->vm_mm;
	const u8 *insn = (const u8 *)&uprobe->arch.insn;
	uprobe_opcode_t now = 0, orig = 0;
	bool copy;
	int err;

	mmap_assert_write_locked(mm);

	/* Not READY: never armed.  READY: arch.insn holds the original text. */
	if (smp_load_acquire(&uprobe->insn_state) != INSN_READY)
		return 0;
	err = take_jump_out(mm, vaddr, insn);
	if (err)
		return err;
	err = read_mm_bytes(mm, vaddr, &now, UPROBE_SWBP_INSN_SIZE, &copy);
	if (err)
		return err;
	if (!copy || !is_swbp_insn(&now))
		return 0;
	memcpy(&orig, insn, UPROBE_SWBP_INSN_SIZE);
	err = text_batch_write(tb, vaddr, orig, true);
	if (err)
		return err;
	update_ref_ctr(uprobe, mm, -1);
	jumps_retry_around(mm, vaddr);
	return 0;
}
ALLOW_ERROR_INJECTION(remove_breakpoint, ERRNO);

/* ---------------------------------------------------------------------
 * Arming and disarming in every process that maps the file
 */

/*
 * One mapping to visit: @start in @mm maps the file from page @pgoff on,
 * @len bytes (an mm_users reference is held).
 */
struct map_site {
	struct mm_struct *mm;
	unsigned long start;
	unsigned long len;
	pgoff_t pgoff;
};

/*
 * Lists in @sites (room for @max) the mappings of @inode's pages @first to
 * @last that are valid for @arming (else for disarming); the number there
 * are, which may exceed @max.
 */
static int collect_sites(struct inode *inode, pgoff_t first, pgoff_t last, bool arming,
			 struct map_site *sites, int max)
{
	struct address_space *mapping = inode->i_mapping;
	struct vm_area_struct *vma;
	int n = 0;

	i_mmap_lock_read(mapping);
	vma_interval_tree_foreach(vma, &mapping->i_mmap, first, last) {
		if (!valid_vma(vma, arming))
			continue;
		if (n < max) {
			if (!mmget_not_zero(vma->vm_mm))
				continue;
			sites[n] = (struct map_site){ vma->vm_mm, vma->vm_start,
						      vma->vm_end - vma->vm_start, vma->vm_pgoff };
		}
		n++;
	}
	i_mmap_unlock_read(mapping);
	return n;
}

static void put_sites(struct map_site *sites, int n)
{
	while (n--)
		mmput(sites[n].mm);
	kfree(sites);
}

/*
 * The mappings of @inode's pages @first to @last, in a new array
 * (*@sitesp) that the caller frees with put_sites(); their number, or
 * -ENOMEM.  Nothing may be allocated under i_mmap_rwsem, so the array is
 * sized first.
 */
static int list_sites(struct inode *inode, pgoff_t first, pgoff_t last, bool arming,
		      struct map_site **sitesp)
{
	struct map_site *sites = NULL;
	int max = 0, n;

	for (;;) {
		n = collect_sites(inode, first, last, arming, sites, max);
		if (n <= max)
			break;
		put_sites(sites, max);
		max = n + 4;
		sites = kcalloc(max, sizeof(*sites), GFP_KERNEL);
		if (!sites)
			return -ENOMEM;
	}
	*sitesp = sites;
	return n;
}

/* Whether @vma, a mapping of @uprobe's file, has @uprobe's place at @vaddr. */
static bool vma_holds(struct vm_area_struct *vma, struct uprobe *uprobe, unsigned long vaddr)
{
	return vaddr >= vma->vm_start && vaddr < vma->vm_end &&
	       vaddr_to_offset(vma, vaddr) == uprobe->offset;
}

/* The mapping of @uprobe's place at @vaddr in @mm, if it is still there. */
static struct vm_area_struct *site_vma(struct uprobe *uprobe, struct mm_struct *mm,
				       unsigned long vaddr, bool arming)
{
	struct vm_area_struct *vma = vma_lookup(mm, vaddr);

	if (!vma || !valid_vma(vma, arming) || file_inode(vma->vm_file) != uprobe->inode ||
	    !vma_holds(vma, uprobe, vaddr))
		return NULL;
	return vma;
}

static int cmp_batch_offset(const void *a, const void *b)
{
	loff_t x = ((const struct batch_probe *)a)->uprobe->offset;
	loff_t y = ((const struct batch_probe *)b)->uprobe->offset;

	return x < y ? -1 : x > y;
}

/* The first of @n probes (sorted by offset) at or past file offset @offset. */
static unsigned int first_probe_from(struct batch_probe *probes, unsigned int n,
				     loff_t offset)
{
	unsigned int lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (probes[mid].uprobe->offset < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether an error of arming one process fails the walk. */
static bool arming_error_counts(int err)
{
	return err && err != -EOPNOTSUPP && err != -EBUSY;
}

/* Does @op to @probe at @vaddr of @tb's mapping: 0 or -errno. */
static int walk_one(struct batch_probe *probe, struct text_batch *tb, unsigned long vaddr,
		    enum walk_op op)
{
	struct mm_struct *mm = tb->vma->vm_mm;
	struct uprobe *uprobe = probe->uprobe;

	switch (op) {
	case WALK_ARM:
		if (!consumer_wants(probe->uc, mm))
			return 0;
		return install_breakpoint(uprobe, tb, vaddr, probe->uc->no_jump);
	case WALK_DISARM:
		if (any_consumer_wants(uprobe, mm))
			return 0;
		return remove_breakpoint(uprobe, tb, vaddr);
	case WALK_UNJUMP:
		/* READY: arch.insn holds what the jump replaced. */
		if (smp_load_acquire(&uprobe->insn_state) != INSN_READY)
			return 0;
		return take_jump_out(mm, vaddr, (const u8 *)&uprobe->arch.insn);
	}
	return 0;
}

/*
 * Does @op, in the mapping @site, to each of @probes (sorted by offset)
 * that it maps; the first error that counts, or 0.
 */
static int walk_site(struct map_site *site, struct batch_probe *probes, unsigned int n,
		     enum walk_op op)
{
	bool arming = op == WALK_ARM;
	loff_t base = (loff_t)site->pgoff << PAGE_SHIFT;
	struct mm_struct *mm = site->mm;
	unsigned int i = first_probe_from(probes, n, base), end;
	struct vm_area_struct *vma = NULL;
	struct text_batch tb;
	unsigned long vaddr;
	int err = 0, one;

	end = first_probe_from(probes, n, base + site->len);
	if (i == end)
		return 0;
	mmap_write_lock(mm);
	for (; i < end; i++) {
		struct uprobe *uprobe = probes[i].uprobe;

		vaddr = site->start + (uprobe->offset - base);
		if (!vma || !vma_holds(vma, uprobe, vaddr)) {
			if (vma)
				text_batch_end(&tb);
			vma = site_vma(uprobe, mm, vaddr, arming);
			if (!vma)
				continue;
			text_batch_start(&tb, vma, end - i);
		}
		one = walk_one(&probes[i], &tb, vaddr, op);
		/* A process that cannot take the probe does not fail the rest. */
		if (arming_error_counts(one) && !err)
			err = one;
	}
	if (vma)
		text_batch_end(&tb);
	mmap_write_unlock(mm);
	return err;
}

/**
 * walk_batch - arm or disarm probes of one file in every process mapping it
 * @inode: the file
 * @probes: its probes, each with the consumer that comes (sorted here)
 * @n: their number
 * @op: see enum walk_op
 *
 * Each mapping is visited once for all the probes it maps, under one hold
 * of its mm's mmap_lock, with one serialization of the mm's CPUs for all
 * the breakpoints written there (text_batch).
 *
 * Return: 0, or the first error of arming that counts.
 */
int walk_batch(struct inode *inode, struct batch_probe *probes, unsigned int n,
	       enum walk_op op)
{
	struct map_site *sites;
	int nsites, i, err = 0, one;

	if (!n || !mapping_mapped(inode->i_mapping))
		return 0;
	sort(probes, n, sizeof(*probes), cmp_batch_offset, NULL);
	percpu_down_write(&dup_mmap_sem);
	nsites = list_sites(inode, probes[0].uprobe->offset >> PAGE_SHIFT,
			    probes[n - 1].uprobe->offset >> PAGE_SHIFT, op == WALK_ARM, &sites);
	if (nsites < 0) {
		err = nsites;
		goto unlock_dup;
	}
	for (i = 0; i < nsites; i++) {
		one = walk_site(&sites[i], probes, n, op);
		if (one && !err)
			err = one;
	}
	put_sites(sites, nsites);
unlock_dup:
	percpu_up_write(&dup_mmap_sem);
	return err;
}

/*
 * Arms @uprobe where @uc wants it (@uc non-NULL), or disarms it where no
 * consumer wants it any more (@uc NULL), in every process mapping it.
 */
int walk_mappings(struct uprobe *uprobe, struct uprobe_consumer *uc)
{
	struct batch_probe one = { .uprobe = uprobe, .uc = uc };

	lockdep_assert_held_write(&uprobe->register_rwsem);

	if (!uprobe->inode)
		return walk_anon(uprobe, uc);
	return walk_batch(uprobe->inode, &one, 1, uc ? WALK_ARM : WALK_DISARM);
}

/* Disarms @uprobe in every vma of @mm where it is armed. */
void remove_from_mm(struct uprobe *uprobe, struct mm_struct *mm)
{
	VMA_ITERATOR(vmi, mm, 0);
	struct vm_area_struct *vma;
	struct text_batch tb;

	if (!uprobe->inode) {
		remove_from_anon(uprobe);
		return;
	}
	mmap_write_lock(mm);
	for_each_vma(vmi, vma) {
		if (!valid_vma(vma, false) || !vma_maps(vma, uprobe->inode, uprobe->offset))
			continue;
		text_batch_start(&tb, vma, 1);
		remove_breakpoint(uprobe, &tb, offset_to_vaddr(vma, uprobe->offset));
		text_batch_end(&tb);
	}
	mmap_write_unlock(mm);
}

/* ---------------------------------------------------------------------
 * New mappings and forks
 */

/* Whether @vma maps @uprobe's place in its file: a probe_match_fn. */
bool probe_in_vma(struct uprobe *uprobe, const void *vma)
{
	return vma_maps((struct vm_area_struct *)vma, uprobe->inode, uprobe->offset);
}

/* The probes of @vma's file in the range it maps, with references. */
static int probes_in_vma(struct vm_area_struct *vma, struct uprobe ***list)
{
	return collect_probes(file_inode(vma->vm_file), probe_in_vma, vma, list);
}

/* Arms @uprobe in the new mapping of batch @tb, if a consumer wants it. */
static void arm_in_new_vma(struct uprobe *uprobe, void *tb)
{
	struct vm_area_struct *vma = ((struct text_batch *)tb)->vma;

	if (any_consumer_wants(uprobe, vma->vm_mm))
		install_breakpoint(uprobe, tb, offset_to_vaddr(vma, uprobe->offset), false);
}

/**
 * arm_new_vma - arm the probes a new mapping of a file covers
 * @vma: the new (or changed) mapping; its mm's mmap_lock is held for write
 *
 * Also counts the SDT counters that waited for this mapping.  A probe
 * that cannot be armed does not fail the mapping.
 */
void arm_new_vma(struct vm_area_struct *vma)
{
	struct text_batch tb;
	struct uprobe **list;
	int n, i;

	mmap_assert_write_locked(vma->vm_mm);

	apply_delayed_ref_ctrs(vma);
	if (!valid_vma(vma, true))
		return;
	n = probes_in_vma(vma, &list);
	text_batch_start(&tb, vma, max(n, 0));
	if (n >= 0) {
		for (i = 0; i < n; i++)
			arm_in_new_vma(list[i], &tb);
		put_uprobe_list(list, n);
	} else {
		/* No memory for a list: one probe at a time, each write on its own. */
		visit_probes_one_by_one(file_inode(vma->vm_file), probe_in_vma, vma,
					arm_in_new_vma, &tb);
	}
	text_batch_end(&tb);
}

/*
 * A fork is copying mappings, from arm_fork_begin() to arm_fork_end(): no
 * walk runs meanwhile, so that none misses the child.
 */
void arm_fork_begin(void)
{
	percpu_down_read(&dup_mmap_sem);
}

void arm_fork_end(void)
{
	percpu_up_read(&dup_mmap_sem);
}
