// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprobes core, a process's text: the bottom layer, which knows nothing of
 * consumers or hits.
 *
 * Reading and writing a process's memory: a write goes into the process's
 * own copy of the page, made the way ptrace makes one (a forced write
 * through get_user_pages_remote() breaks copy-on-write), so the page
 * cache and the file are never written; the CPUs that run the mm are
 * then made to serialize.  A text_batch does that for the breakpoints of
 * one mapping with one serialization for them all.  Putting back the
 * last byte of the file drops the copy, so that the process maps the
 * file's page again.  Every write holds the mm's mmap_lock for writing.
 *
 * The probed instruction: read once, from the file (or from the mm, for
 * anonymous memory), and analysed by the architecture for the mode its
 * code runs in (prepare_insn()); what a trap at an address with no probe
 * was (is_trap_insn()).
 */

#include <linux/elf.h>
#include <linux/error-injection.h>
#include <linux/unaligned.h>

#include "internal.h"

/* ---------------------------------------------------------------------
 * Where breakpoints may go
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

/* Whether @vma maps file offset @offset of @inode. */
bool vma_maps(struct vm_area_struct *vma, struct inode *inode, loff_t offset)
{
	return vma->vm_file && file_inode(vma->vm_file) == inode &&
	       offset >= vaddr_to_offset(vma, vma->vm_start) &&
	       offset < vaddr_to_offset(vma, vma->vm_end);
}

/* ---------------------------------------------------------------------
 * Reading and writing a process's memory
 */

/*
 * The page at @vaddr in @mm, for writing when @write: a write breaks
 * copy-on-write, so the page is then this mm's own.
 */
struct page *get_mm_page(struct mm_struct *mm, unsigned long vaddr, bool write)
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

/*
 * Writes @len bytes at @vaddr of @mm, in the mm's own copy of the page.
 * An error may be injected (fail_function), to test what a failed arming
 * leaves.
 */
static noinline int poke_mm_page(struct mm_struct *mm, unsigned long vaddr, const void *buf,
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
ALLOW_ERROR_INJECTION(poke_mm_page, ERRNO);

/*
 * Writes @len bytes of text at @vaddr of @mm, then makes every CPU that
 * runs @mm serialize (arch_uprobe_sync_mm()), as an architecture asks of
 * code written while other CPUs may run it: none goes on with the old
 * bytes once this returns.  An error may be injected (fail_function), to
 * test what a failed write leaves.
 */
noinline int write_mm_text(struct mm_struct *mm, unsigned long vaddr, const void *buf,
			   size_t len)
{
	int err;

	mmap_assert_write_locked(mm);

	err = poke_mm_page(mm, vaddr, buf, len);
	if (err)
		return err;
	arch_uprobe_sync_mm(mm);
	return 0;
}
ALLOW_ERROR_INJECTION(write_mm_text, ERRNO);

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

/*
 * Reads @len bytes of text at @vaddr of @mm (mmap_lock held), zero past
 * the end of its mapping: the probed instruction, for prepare_insn().
 */
int read_anon_insn(struct mm_struct *mm, unsigned long vaddr, void *buf, size_t len)
{
	struct vm_area_struct *vma = vma_lookup(mm, vaddr);
	size_t first;
	int err;

	mmap_assert_locked(mm);

	memset(buf, 0, len);
	if (!vma)
		return -EFAULT;
	len = min_t(size_t, len, vma->vm_end - vaddr);
	first = min_t(size_t, len, PAGE_SIZE - offset_in_page(vaddr));
	err = read_mm_bytes(mm, vaddr, buf, first, NULL);
	if (!err && len > first)
		err = read_mm_bytes(mm, vaddr + first, buf + first, len - first, NULL);
	return err;
}

/* ---------------------------------------------------------------------
 * Batches of writes in one mapping
 */

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

/* A batch of up to @max writes in @vma, whose mm's mmap_lock is held. */
void text_batch_start(struct text_batch *tb, struct vm_area_struct *vma,
		      unsigned int max)
{
	mmap_assert_write_locked(vma->vm_mm);

	tb->vma = vma;
	tb->n = 0;
	tb->writes = max > 1 ? kvmalloc_array(max, sizeof(*tb->writes), GFP_KERNEL) : NULL;
	tb->max = tb->writes ? max : 0;
}

/*
 * Writes @opcode (UPROBE_SWBP_INSN_SIZE bytes of it) at @vaddr of the
 * batch's mapping; when it puts the file's text back (@drop_copy), the
 * mm's copy of the page is dropped if it no longer differs from the
 * file's, once the text is final.
 */
int text_batch_write(struct text_batch *tb, unsigned long vaddr,
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
void text_batch_end(struct text_batch *tb)
{
	unsigned int done = 0;

	if (tb->n)
		arch_uprobe_sync_mm(tb->vma->vm_mm);
	while (done < tb->n)
		done += rewrite_page(tb->vma, tb->writes + done, tb->n - done);
	kvfree(tb->writes);
}

/* ---------------------------------------------------------------------
 * The probed instruction
 */

/*
 * The folio of @mapping at @index, read if need be through @file; without
 * a file only a cached folio or shmem is used (a network filesystem may
 * need the file to read).  NULL when it cannot be had now.
 */
struct folio *get_file_folio(struct address_space *mapping, pgoff_t index,
			     struct file *file)
{
	struct folio *folio = filemap_get_folio(mapping, index);

	if (!IS_ERR(folio)) {
		if (folio_test_uptodate(folio))
			return folio;
		folio_put(folio);
	}
	if (shmem_mapping(mapping))
		folio = shmem_read_folio(mapping, index);
	else if (file)
		folio = read_mapping_folio(mapping, index, file);
	else
		return NULL;
	return IS_ERR(folio) ? NULL : folio;
}

/* Copies @len bytes of the file from @offset, zeroes past its end. */
static int copy_from_file(struct inode *inode, struct file *file, loff_t offset,
			  void *buf, size_t len)
{
	loff_t size = i_size_read(inode);
	struct folio *folio;
	size_t chunk;

	memset(buf, 0, len);
	if (offset + len > size)
		len = offset < size ? size - offset : 0;
	while (len) {
		chunk = min_t(size_t, len, PAGE_SIZE - offset_in_page(offset));
		folio = get_file_folio(inode->i_mapping, offset >> PAGE_SHIFT, file);
		if (!folio)
			return -EAGAIN;
		memcpy_from_file_folio(buf, folio, offset, chunk);
		folio_put(folio);
		buf += chunk;
		offset += chunk;
		len -= chunk;
	}
	return 0;
}

#ifdef CONFIG_ARCH_UPROBES_COMPAT
/*
 * Whether the probed file holds code of the compat mode: an ELF file says
 * so by its machine (UPROBE_COMPAT_MACHINE); any other file, and
 * anonymous memory, runs as its mm does (@mm_compat).  0, or -EAGAIN when
 * the header cannot be read without @file.
 */
static int probe_is_compat(struct uprobe *uprobe, struct file *file, bool mm_compat)
{
	u8 ehdr[EI_NIDENT + 4];
	int err;

	uprobe->compat = mm_compat;
	if (!uprobe->inode)
		return 0;
	err = copy_from_file(uprobe->inode, file, 0, ehdr, sizeof(ehdr));
	if (err)
		return err;
	if (!memcmp(ehdr, ELFMAG, SELFMAG) && ehdr[EI_DATA] == ELFDATA2LSB)
		uprobe->compat = get_unaligned_le16(&ehdr[EI_NIDENT + 2]) ==
				 UPROBE_COMPAT_MACHINE;
	return 0;
}

/* Analyses the probed instruction for the mode of its file's code. */
static int analyze_insn(struct uprobe *uprobe, struct file *file, struct mm_struct *mm,
			unsigned long vaddr)
{
	int err = probe_is_compat(uprobe, file, mm && arch_uprobe_is_compat(mm));

	return err ?: arch_uprobe_analyze_compat(&uprobe->arch, uprobe->compat);
}
#else
/*
 * Analyses the probed instruction for @mm, at @vaddr there: not before a
 * process maps it (-EAGAIN).  The architecture's uprobes code has the
 * last word on the analysis' verdict (arch_uprobe_review_insn()).
 */
static int analyze_insn(struct uprobe *uprobe, struct file *file, struct mm_struct *mm,
			unsigned long vaddr)
{
	int err;

	if (!mm)
		return -EAGAIN;
	err = arch_uprobe_analyze_insn(&uprobe->arch, mm, vaddr);
	return arch_uprobe_review_insn(&uprobe->arch, mm, vaddr, err);
}
#endif

/*
 * Reads and analyses the probed instruction once (analyze_insn()), for
 * @mm at @vaddr (NULL: no process maps it): 0 when the probe can be
 * armed, -EAGAIN when that cannot be told yet (the instruction cannot be
 * read without @file, or must be analysed in a process that maps it), or
 * why it cannot be probed.  A probe in anonymous memory reads it from its
 * mm, whose mmap_lock the caller holds.
 */
int prepare_insn(struct uprobe *uprobe, struct file *file, struct mm_struct *mm,
		 unsigned long vaddr)
{
	int err;

	/* Pairs with the release below: READY means @arch is filled in. */
	if (smp_load_acquire(&uprobe->insn_state) == INSN_READY)
		return 0;
	mutex_lock(&uprobe->insn_mutex);
	err = uprobe->insn_err;
	if (uprobe->insn_state != INSN_UNREAD)
		goto unlock;
	if (uprobe->inode)
		err = copy_from_file(uprobe->inode, file, uprobe->offset, &uprobe->arch.insn,
				     sizeof(uprobe->arch.insn));
	else
		err = read_anon_insn(uprobe->mm, uprobe->offset, &uprobe->arch.insn,
				     sizeof(uprobe->arch.insn));
	if (!err)
		err = analyze_insn(uprobe, file, mm, vaddr);
	if (err == -EAGAIN)
		goto unlock;
	if (err) {
		uprobe->insn_err = err;
		uprobe->insn_state = INSN_REFUSED;
	} else {
		/* @arch before READY: the lockless readers rely on it. */
		smp_store_release(&uprobe->insn_state, INSN_READY);
	}
unlock:
	mutex_unlock(&uprobe->insn_mutex);
	return err;
}

/**
 * arch_uprobe_insn_len - the length of the probed instruction
 * @auprobe: the analysed instruction
 *
 * Return: the default, for instructions of one size: the breakpoint's.
 */
unsigned int __weak arch_uprobe_insn_len(struct arch_uprobe *auprobe)
{
	return UPROBE_SWBP_INSN_SIZE;
}

/**
 * arch_uprobe_review_insn - a second look at the analysis of an instruction
 * @auprobe: the instruction, as arch_uprobe_analyze_insn() left it
 * @mm: the mm it was analysed for
 * @vaddr: its address there
 * @err: what arch_uprobe_analyze_insn() returned: 0, or the errno it
 *	refused the instruction with
 *
 * For an architecture whose analysis is shared with kprobes: it takes
 * here, with a way of its own to carry them out, the instructions that
 * only uprobes can (those that read user memory, say), and refuses those
 * that the shared analysis lets through but uprobes cannot carry out.
 *
 * Return: 0 if the probe can be armed, else the errno that refuses it: by
 * default @err.
 */
int __weak arch_uprobe_review_insn(struct arch_uprobe *auprobe, struct mm_struct *mm,
				   unsigned long vaddr, int err)
{
	return err;
}

/**
 * arch_uprobe_refusal - the class of an instruction the analysis refused
 * @auprobe: the instruction, as arch_uprobe_analyze_insn() (or
 *	arch_uprobe_analyze_compat()) left it when it failed on it
 * @err: the errno it failed with
 *
 * Return: the default, for an architecture that does not tell:
 * UPROBE_REFUSED_NONE.
 */
enum uprobe_refusal __weak arch_uprobe_refusal(struct arch_uprobe *auprobe, int err)
{
	return UPROBE_REFUSED_NONE;
}

/**
 * is_swbp_insn - is @insn the breakpoint of uprobes?
 * @insn: UPROBE_SWBP_INSN_SIZE bytes of text, zero-extended
 *
 * Return: the default: whether it is UPROBE_SWBP_INSN.
 */
bool __weak is_swbp_insn(uprobe_opcode_t *insn)
{
	uprobe_opcode_t swbp = UPROBE_SWBP_INSN;

	return !memcmp(insn, &swbp, UPROBE_SWBP_INSN_SIZE);
}

/**
 * is_trap_insn - does @insn trap as a breakpoint does?
 * @insn: UPROBE_SWBP_INSN_SIZE bytes of text, zero-extended
 *
 * A trap at an address with no probe is the program's own when the
 * instruction there is one (it gets SIGTRAP), else the probe went away
 * since the trap (the instruction is run again).
 *
 * Return: the default: is_swbp_insn().
 */
bool __weak is_trap_insn(uprobe_opcode_t *insn)
{
	return is_swbp_insn(insn);
}
