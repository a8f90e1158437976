// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprobes core, arming: breakpoints written into the probed processes'
 * own copies of the text (never the page cache), the SDT counters that
 * count the mms a probe is armed in, the walks over every mapping of a
 * probed file, and the hooks that arm new mappings and keep fork from
 * missing a walk.  Every write of text holds the mm's mmap_lock for
 * writing; see core.c for the lock order.
 */

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
 * Writing a probed process's memory
 */

/*
 * Whether a mapping of a file with @flags may hold breakpoints: a private
 * one.  Arming also wants it executable; disarming looks at every such
 * mapping, since mprotect() may have taken the exec bit away from an
 * armed one.
 */
bool valid_vm_flags(vm_flags_t flags, bool arming)
{
	vm_flags_t bad = VM_HUGETLB | VM_MAYSHARE;

	if (arming)
		return (flags & (bad | VM_EXEC)) == VM_EXEC;
	return !(flags & bad);
}

/* Whether @vma may hold breakpoints: a mapping of a file, valid_vm_flags(). */
bool valid_vma(struct vm_area_struct *vma, bool arming)
{
	return vma->vm_file && valid_vm_flags(vma->vm_flags, arming);
}

/*
 * The page at @vaddr in @mm, for writing when @write: a write breaks
 * copy-on-write, so the page is then this mm's own.
 */
static struct page *get_mm_page(struct mm_struct *mm, unsigned long vaddr, bool write)
{
	unsigned int flags = FOLL_FORCE | (write ? FOLL_WRITE : 0);
	struct page *page;
	long got;

	lockdep_assert_held(&mm->mmap_lock);

	got = get_user_pages_remote(mm, vaddr, 1, flags, &page, NULL);
	if (got != 1)
		return ERR_PTR(got < 0 ? got : -EFAULT);
	return page;
}

/*
 * Reads @len bytes at @vaddr of @mm; *@copy (if not NULL) tells whether
 * they come from the mm's own copy of the page rather than the file's.
 */
int read_mm_bytes(struct mm_struct *mm, unsigned long vaddr, void *buf, size_t len,
		  bool *copy)
{
	struct page *page = get_mm_page(mm, vaddr, false);
	void *kaddr;

	if (IS_ERR(page))
		return PTR_ERR(page);
	kaddr = kmap_local_page(page);
	memcpy(buf, kaddr + offset_in_page(vaddr), len);
	kunmap_local(kaddr);
	if (copy)
		*copy = PageAnon(page);
	put_page(page);
	return 0;
}

/*
 * Writes @len bytes of text at @vaddr into @page, which @vma maps there,
 * as ptrace does: with what the architecture's caches need for the
 * processes to run the new text.
 */
static void copy_text_to_page(struct vm_area_struct *vma, struct page *page,
			      unsigned long vaddr, const void *buf, size_t len)
{
	void *kaddr = kmap_local_page(page);

	/* sparc64's takes a non-const source, which it only reads. */
	copy_to_user_page(vma, page, vaddr, kaddr + offset_in_page(vaddr), (void *)buf,
			  len);
	kunmap_local(kaddr);
}

/* Writes @len bytes at @vaddr of @mm, in the mm's own copy of the page. */
static int poke_mm_page(struct mm_struct *mm, unsigned long vaddr, const void *buf,
			size_t len)
{
	struct vm_area_struct *vma = vma_lookup(mm, vaddr);
	struct page *page;

	if (!vma)
		return -EFAULT;
	page = get_mm_page(mm, vaddr, true);
	if (IS_ERR(page))
		return PTR_ERR(page);
	copy_text_to_page(vma, page, vaddr, buf, len);
	set_page_dirty_lock(page);
	put_page(page);
	return 0;
}

/*
 * Writes @len bytes of text at @vaddr of @mm, then makes every CPU that
 * runs @mm serialize (none goes on with the old bytes once this returns)
 * and writes them once more.  The second write is for CPUs emulated by
 * translating code, as QEMU's multi-threaded TCG does: a translation of
 * the page made while the first write landed can keep the old bytes for
 * good, and only a write once it exists drops it.  Seen there: threads ran
 * past a breakpoint armed since, every time, and a jump taken out stayed.
 * On hardware the second write stores what is there already.
 */
int write_mm_text(struct mm_struct *mm, unsigned long vaddr, const void *buf, size_t len)
{
	int err;

	mmap_assert_write_locked(mm);

	err = poke_mm_page(mm, vaddr, buf, len);
	if (err)
		return err;
	arch_uprobe_sync_mm(mm);
	return poke_mm_page(mm, vaddr, buf, len);
}

/**
 * arch_uprobe_sync_mm - every CPU that runs @mm stops using its old text
 * @mm: an mm whose text changed
 *
 * The default does nothing: the architecture's rules for text written
 * through another mapping (copy_to_user_page()) are enough.
 */
void __weak arch_uprobe_sync_mm(struct mm_struct *mm)
{
}

/**
 * uprobe_write_opcode - write a breakpoint, or an original instruction back
 * @auprobe: the probed instruction
 * @mm: the mm, whose mmap_lock the caller holds for writing
 * @vaddr: where
 * @opcode: what: UPROBE_SWBP_INSN_SIZE bytes of it
 *
 * For the set_swbp() of an architecture; the core writes its breakpoints
 * in batches (text_batch_write()).
 *
 * Return: 0 or a -errno.
 */
int uprobe_write_opcode(struct arch_uprobe *auprobe, struct mm_struct *mm,
			unsigned long vaddr, uprobe_opcode_t opcode)
{
	return write_mm_text(mm, vaddr, &opcode, UPROBE_SWBP_INSN_SIZE);
}

/* One breakpoint written, or the original put back, under a text_batch. */
struct text_write {
	unsigned long vaddr;
	uprobe_opcode_t opcode;
	bool drop_copy;
};

/*
 * The breakpoint writes of one mapping under one hold of mmap_lock, done
 * as write_mm_text() does one, but with one serialization of the mm's
 * CPUs for them all: each byte is written at once, and again after the
 * serialization, by text_batch_end().  Without room for them (@writes
 * NULL, or full), each write serializes on its own.
 */
struct text_batch {
	struct vm_area_struct *vma;
	struct text_write *writes;
	unsigned int n, max;
};

/* A batch of up to @max writes in @vma, whose mm's mmap_lock is held. */
static void text_batch_start(struct text_batch *tb, struct vm_area_struct *vma,
			     unsigned int max)
{
	mmap_assert_write_locked(vma->vm_mm);

	tb->vma = vma;
	tb->n = 0;
	tb->writes = max > 1 ? kvmalloc_array(max, sizeof(*tb->writes), GFP_KERNEL) : NULL;
	tb->max = tb->writes ? max : 0;
}

static void drop_page_copy(struct vm_area_struct *vma, unsigned long vaddr);

/*
 * Writes @opcode (UPROBE_SWBP_INSN_SIZE bytes of it) at @vaddr of the
 * batch's mapping; when it puts the file's text back (@drop_copy), the
 * mm's copy of the page is dropped if it no longer differs from the
 * file's, once the text is final.
 */
static int text_batch_write(struct text_batch *tb, unsigned long vaddr,
			    uprobe_opcode_t opcode, bool drop_copy)
{
	struct mm_struct *mm = tb->vma->vm_mm;
	int err;

	if (tb->n == tb->max) {
		err = write_mm_text(mm, vaddr, &opcode, UPROBE_SWBP_INSN_SIZE);
		if (!err && drop_copy)
			drop_page_copy(tb->vma, vaddr);
		return err;
	}
	err = poke_mm_page(mm, vaddr, &opcode, UPROBE_SWBP_INSN_SIZE);
	if (!err)
		tb->writes[tb->n++] = (struct text_write){ vaddr, opcode, drop_copy };
	return err;
}

/*
 * Writes again the bytes of @w (@n writes in @vma, in address order) that
 * fall in the page of the first, with one look-up of the page; after the
 * last of them, drops the mm's copy of the page if a byte of the file was
 * put back there and the copy is now the same as the file's.  The number
 * of writes done.
 */
static unsigned int rewrite_page(struct vm_area_struct *vma, struct text_write *w,
				 unsigned int n)
{
	unsigned long page_start = w->vaddr & PAGE_MASK;
	struct page *page = get_mm_page(vma->vm_mm, w->vaddr, true);
	bool drop = false;
	unsigned int i;

	for (i = 0; i < n && (w[i].vaddr & PAGE_MASK) == page_start; i++)
		drop |= w[i].drop_copy;
	if (IS_ERR(page))
		return i;
	for (n = 0; n < i; n++)
		copy_text_to_page(vma, page, w[n].vaddr, &w[n].opcode, UPROBE_SWBP_INSN_SIZE);
	set_page_dirty_lock(page);
	put_page(page);
	if (drop)
		drop_page_copy(vma, page_start);
	return i;
}

/*
 * Serializes the mm's CPUs once and writes every byte of the batch again,
 * a page at a time (the batch is in address order).
 */
static void text_batch_end(struct text_batch *tb)
{
	unsigned int done = 0;

	if (tb->n)
		arch_uprobe_sync_mm(tb->vma->vm_mm);
	while (done < tb->n)
		done += rewrite_page(tb->vma, tb->writes + done, tb->n - done);
	kvfree(tb->writes);
}

/*
 * After a breakpoint was taken out of the page at @vaddr: when the page is
 * the mm's copy and holds nothing but the file's content, drop the copy,
 * so that the mm maps the file's page again and the memory is given back.
 */
static void drop_page_copy(struct vm_area_struct *vma, unsigned long vaddr)
{
	pgoff_t index = vma->vm_pgoff + ((vaddr - vma->vm_start) >> PAGE_SHIFT);
	struct page *page;
	struct folio *folio;
	void *mine, *theirs;
	bool same;

	if (vma->vm_flags & VM_WRITE)
		return;
	page = get_mm_page(vma->vm_mm, vaddr, false);
	if (IS_ERR(page))
		return;
	folio = get_file_folio(vma->vm_file->f_mapping, index, vma->vm_file);
	if (!folio || !PageAnon(page)) {
		if (folio)
			folio_put(folio);
		put_page(page);
		return;
	}
	mine = kmap_local_page(page);
	theirs = kmap_local_folio(folio, offset_in_folio(folio, (loff_t)index << PAGE_SHIFT));
	same = !memcmp(mine, theirs, PAGE_SIZE);
	kunmap_local(theirs);
	kunmap_local(mine);
	folio_put(folio);
	put_page(page);
	if (same)
		zap_page_range_single(vma, vaddr & PAGE_MASK, PAGE_SIZE, NULL);
}

/* ---------------------------------------------------------------------
 * SDT counters (ref_ctr_offset): one increment per mm the probe is armed in
 */

/* Whether @vma maps file offset @offset of @inode. */
bool vma_maps(struct vm_area_struct *vma, struct inode *inode, loff_t offset)
{
	return vma->vm_file && file_inode(vma->vm_file) == inode &&
	       offset >= vaddr_to_offset(vma, vma->vm_start) &&
	       offset < vaddr_to_offset(vma, vma->vm_end);
}

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

/* Disarms @uprobe at @vaddr of @tb's mapping, if it is armed there. */
static int remove_breakpoint(struct uprobe *uprobe, struct text_batch *tb,
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
	return 0;
}

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
 * New mappings, fork, exec and exit
 */

static int cmp_uprobe_offset(const void *a, const void *b)
{
	loff_t x = (*(struct uprobe * const *)a)->offset;
	loff_t y = (*(struct uprobe * const *)b)->offset;

	return x < y ? -1 : x > y;
}

/* Which probes of a bucket fill_probes() takes. */
struct bucket_match {
	const void *owner;
	probe_match_fn match;
	const void *arg;
};

/*
 * Fills @list (room for @max) with the probes in a bucket that @ctx, a
 * struct bucket_match, takes, each with a reference: how many there are,
 * which may exceed @max (then @list holds the first @max).
 */
static unsigned int fill_probes(struct uprobe **list, unsigned int max, const void *ctx)
{
	const struct bucket_match *bm = ctx;
	struct uprobe *uprobe;
	unsigned int n = 0;

	rcu_read_lock();
	hlist_for_each_entry_rcu(uprobe, owner_bucket(bm->owner), inode_node) {
		if (!bm->match(uprobe, bm->arg))
			continue;
		if (n < max) {
			if (!try_get_uprobe(uprobe))
				continue;
			list[n] = uprobe;
		}
		n++;
	}
	rcu_read_unlock();
	return n;
}

/*
 * The probes in @owner's bucket (a file's inode, or an mm) that @match
 * takes, with references, in offset order, in a new array (*@listp, which
 * the caller frees with put_uprobe_list()): their number, or -ENOMEM.
 * The list is never short (snapshot_uprobes()).
 */
int collect_probes(const void *owner, probe_match_fn match, const void *arg,
		   struct uprobe ***listp)
{
	struct bucket_match bm = { owner, match, arg };
	int n = snapshot_uprobes(fill_probes, &bm, listp);

	if (n > 0)
		sort(*listp, n, sizeof(**listp), cmp_uprobe_offset, NULL);
	return n;
}

/*
 * The probe in @owner's bucket that @match takes with the lowest offset
 * at or above @from, with a reference; NULL when there is none.  A walk
 * of the bucket for each probe, but no memory: for visit_probes().
 */
static struct uprobe *next_probe(const void *owner, probe_match_fn match, const void *arg,
				 loff_t from)
{
	struct uprobe *uprobe, *best;

	do {
		best = NULL;
		rcu_read_lock();
		hlist_for_each_entry_rcu(uprobe, owner_bucket(owner), inode_node) {
			if (uprobe->offset < from || (best && uprobe->offset >= best->offset) ||
			    !refcount_read(&uprobe->ref) || !match(uprobe, arg))
				continue;
			best = uprobe;
		}
		/* Lost a race with its last put: look again. */
		if (best && !try_get_uprobe(best))
			best = ERR_PTR(-EAGAIN);
		rcu_read_unlock();
	} while (IS_ERR(best));
	return best;
}

/*
 * Calls @fn on each probe in @owner's bucket that @match takes, in offset
 * order, with a reference held: found one at a time, for when there is
 * no memory for a list of them.
 */
static void visit_probes_one_by_one(const void *owner, probe_match_fn match, const void *arg,
				    void (*fn)(struct uprobe *uprobe, void *ctx), void *ctx)
{
	struct uprobe *uprobe;
	loff_t next;

	for (uprobe = next_probe(owner, match, arg, 0); uprobe;
	     uprobe = next_probe(owner, match, arg, next)) {
		next = uprobe->offset + 1;
		fn(uprobe, ctx);
		put_uprobe(uprobe);
	}
}

/**
 * visit_probes - call a function on each probe of a bucket, all of them
 * @owner: the bucket's owner: a file's inode, or an mm
 * @match: which of its probes
 * @arg: @match's argument
 * @fn: called on each, in offset order, with a reference held
 * @ctx: @fn's argument
 *
 * Never stops short: when there is no memory for a list of them, the
 * probes are found one at a time.  @fn may sleep.
 */
void visit_probes(const void *owner, probe_match_fn match, const void *arg,
		  void (*fn)(struct uprobe *uprobe, void *ctx), void *ctx)
{
	struct uprobe **list;
	int n, i;

	n = collect_probes(owner, match, arg, &list);
	if (n < 0) {
		visit_probes_one_by_one(owner, match, arg, fn, ctx);
		return;
	}
	for (i = 0; i < n; i++)
		fn(list[i], ctx);
	put_uprobe_list(list, n);
}

static bool probe_in_vma(struct uprobe *uprobe, const void *vma)
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
 * uprobe_mmap - arm the probes a new mapping covers
 * @vma: the new (or changed) mapping; its mm's mmap_lock is held for write
 *
 * Also counts the SDT counters that waited for this mapping.
 *
 * Return: 0.  A probe that cannot be armed does not fail the mapping.
 */
int uprobe_mmap(struct vm_area_struct *vma)
{
	struct text_batch tb;
	struct uprobe **list;
	int n, i;

	if (!atomic_read(&uprobes_count) || !vma->vm_file)
		return 0;
	mmap_assert_write_locked(vma->vm_mm);

	apply_delayed_ref_ctrs(vma);
	if (!valid_vma(vma, true))
		return 0;
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
	return 0;
}

/**
 * uprobe_munmap - a mapping is going away
 * @vma: the mapping
 * @start: start of the range unmapped
 * @end: its end
 *
 * Nothing to undo: the breakpoints go with the process's copies of the
 * pages, and an SDT counter counts arming, which the mm keeps.  A probe
 * in anonymous memory loses its place (process.c).
 */
void uprobe_munmap(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	anon_munmap(vma, start, end);
}

/**
 * uprobe_mremap - text is about to move
 * @vma: the mapping it is in, its mm's mmap_lock held for writing
 * @start: start of the range that moves
 * @end: its end
 *
 * The jumps to stubs of a file's text give way to breakpoints
 * (stubs_mremap()); probes in anonymous memory lose their place.
 */
void uprobe_mremap(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	stubs_mremap(vma, start, end);
	anon_mremap(vma, start, end);
}

/* Fork holds this across dup_mmap(), so that no walk misses the child. */
void uprobe_start_dup_mmap(void)
{
	percpu_down_read(&dup_mmap_sem);
}

void uprobe_end_dup_mmap(void)
{
	percpu_up_read(&dup_mmap_sem);
}
