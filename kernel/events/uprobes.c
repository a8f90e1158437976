// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprobes core: breakpoints in user text, keyed by (inode, offset).
 *
 * Probes.  A struct uprobe is one place in one file.  Probes live in two
 * hash tables: by (inode, offset), which the hit path reads under RCU
 * without a lock, and by inode, which uprobe_mmap() walks to find the
 * probes a new mapping covers.  A probe is in the tables while it has
 * consumers; references (refcount) keep it alive past that for the steps
 * and pending returns that still use it.
 *
 * Arming.  A breakpoint is written into the probed process's private copy
 * of the page, made the way ptrace makes one (a forced write through
 * get_user_pages_remote() breaks copy-on-write): the page cache and the
 * file are never written.  Disarming writes the original byte back and,
 * when the copy is then the same as the file's page, unmaps the copy so
 * that the process maps the file's page again.  walk_mappings()
 * walks the file's mappings to arm or disarm every process; uprobe_mmap()
 * arms each new mapping; fork keeps the breakpoints because the child
 * copies the parent's pages.
 *
 * Hits.  The int3 trap only flags the task (TIF_UPROBE); the work is done
 * in uprobe_notify_resume() on the way back to user mode, where the
 * consumers' handlers may sleep.  The probed instruction is then emulated
 * by the architecture; or, when only the ip needs fixing afterwards, run
 * from the task's own slot of the per-mm XOL ("execute out of line") area
 * followed by a jump back, with no further trap; or copied to a slot and
 * single-stepped there, with fixups after the step.  Once hit, a probe
 * whose instruction allows it gets a jump to a stub in place of its
 * breakpoint, and later hits come in by the uprobe syscall instead of the
 * trap ("Stubs" below).  A return probe replaces
 * the return address with the XOL area's trampoline, which brings the
 * task back to uprobe_handle_trampoline() when the function returns.
 *
 * Locking, outermost first:
 *
 *   uprobe->register_rwsem	register/unregister/apply of one probe
 *     dup_mmap_sem (write)	no fork copies a mapping while it is walked
 *       mapping->i_mmap_rwsem	read, only to list the file's mappings
 *       mm->mmap_lock (write)	every breakpoint write and removal
 *         uprobe->insn_mutex	reading and analysing the instruction
 *         delayed_lock		SDT counters waiting for their mapping
 *     uprobes_lock		writers of the two hash tables
 *
 * A hit whose handlers ask for the probe's removal takes register_rwsem
 * (read), then mmap_lock, like register does.
 *
 * What keeps alive what a hit touches, so that a hit writes nothing
 * shared with other CPUs:
 *   the probe		uprobes_srcu, held from the lookup to the end of the
 *			hit; no reference is taken.  The lookup reads the
 *			VMA under RCU and keeps the answer if mm_lock_seq
 *			shows no writer of the mappings meanwhile, else
 *			takes mmap_lock (read); a hit through a stub needs
 *			no VMA (the stub's site names the file offset).  The
 *			last put_uprobe() frees the probe after an SRCU
 *			grace period, then an RCU one.  What outlives the hit
 *			takes a reference, if the probe still has any: a
 *			step, a pending return, and the removal or jump left
 *			for after uprobes_srcu (hits_done()).
 *   consumers		uprobes_srcu; uprobe_unregister_sync() waits.
 *   XOL area, stubs	the mm's, until it goes; stub pages are found under
 *			RCU and never removed before.
 *   the uprobe_task	the task's own.
 *
 * uprobe_mmap() runs under mmap_lock (write) from mm, so it never takes
 * register_rwsem: it reads the consumer lists under uprobes_srcu, and the
 * i_mmap_rwsem a new mapping is linked under orders it against a
 * concurrent register or unregister.  Readers of the hash tables hold
 * rcu_read_lock(); readers of consumer lists hold uprobes_srcu (handlers
 * may sleep); uprobe_unregister_sync() waits for those.
 */

#include <linux/highmem.h>
#include <linux/kdebug.h>
#include <linux/llist.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/pagemap.h>
#include <linux/percpu-rwsem.h>
#include <linux/ptrace.h>
#include <linux/rmap.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/security.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/task_work.h>
#include <linux/uprobes.h>
#include <linux/workqueue.h>

#define UPROBES_HASH_BITS	10
#define XOL_SLOTS		(PAGE_SIZE / UPROBE_XOL_SLOT_BYTES)
#define XOL_SHARED_SLOTS	16	/* never kept by a task: left for steps */
#define STUBS_PER_PAGE		(PAGE_SIZE / UPROBE_STUB_BYTES)
#define STUB_PAGES_MAX		16	/* per mm */

/**
 * enum uprobe_insn_state - whether a probe's instruction is known
 * @INSN_UNREAD: not read yet (its page was not at hand at registration)
 * @INSN_READY: read and analysed: the probe can be armed
 * @INSN_REFUSED: cannot be probed; uprobe->insn_err says why
 */
enum uprobe_insn_state {
	INSN_UNREAD,
	INSN_READY,
	INSN_REFUSED,
};

/**
 * struct uprobe - one probed place
 * @addr_node: in uprobes_by_addr (uprobes_lock; RCU readers)
 * @inode_node: in uprobes_by_inode (uprobes_lock; RCU readers)
 * @ref: references: one per consumer, plus transient users
 * @register_rwsem: serializes register, unregister and apply
 * @consumers: the consumers, in registration order (register_rwsem;
 *	uprobes_srcu readers)
 * @insn_mutex: guards @insn_state and @arch while they are filled in
 * @insn_state: see enum uprobe_insn_state (read locklessly once READY)
 * @insn_err: why the instruction was refused
 * @inode: the probed file (a reference is held)
 * @offset: the probed offset in @inode
 * @ref_ctr_offset: the SDT semaphore's offset in @inode, or 0
 * @free_node: in uprobes_to_free, after the last put
 * @rcu: frees the probe after the RCU readers of the tables
 * @arch: the analysed instruction
 */
struct uprobe {
	struct hlist_node addr_node;
	struct hlist_node inode_node;
	refcount_t ref;
	struct rw_semaphore register_rwsem;
	struct list_head consumers;
	struct mutex insn_mutex;	/* guards insn_state, insn_err, arch */
	enum uprobe_insn_state insn_state;
	int insn_err;
	struct inode *inode;
	loff_t offset;
	loff_t ref_ctr_offset;
	struct llist_node free_node;
	struct rcu_head rcu;
	struct arch_uprobe arch;
};

/**
 * struct xol_area - the per-mm page of XOL slots and the trampoline, and
 *	the mm's stub pages
 * @vaddr: where the page is mapped in the mm
 * @page: the page (slot 0 holds the return-probe trampoline)
 * @slots: the slots in use; lockless: test_and_set_bit() takes one
 * @wq: tasks waiting for a free slot (only when all are in use)
 * @stub_pages: the mm's stub pages (mmap_lock write; RCU readers); only
 *	ever added to until the mm goes
 * @nr_stub_pages: how many there are (mmap_lock write)
 * @no_stubs: a stub could not be had: no more tries in this mm
 */
struct xol_area {
	unsigned long vaddr;
	struct page *page;
	DECLARE_BITMAP(slots, XOL_SLOTS);
	wait_queue_head_t wq;
	struct list_head stub_pages;
	unsigned int nr_stub_pages;
	bool no_stubs;
};

/**
 * struct stub_site - the probed place a stub serves
 * @vaddr: the probed address the stub was made for
 * @inode: the probed file (compared, never dereferenced)
 * @offset: the probed offset in @inode
 * @insn: the instruction the stub was made for
 * @len: the length of the stub's copy of it, 0 if it has none
 * @moved: mremap() moved the text at @vaddr since (set under mmap_lock
 *	for writing, never cleared): stub_source() must look for the jump
 */
struct stub_site {
	unsigned long vaddr;
	struct inode *inode;
	loff_t offset;
	u8 insn[MAX_UINSN_BYTES];
	u8 len;
	bool moved;
};

/**
 * struct stub_page - a page of stubs, mapped within reach of its sites
 * @node: in xol_area.stub_pages
 * @vaddr: where the page is mapped in the mm
 * @page: the page
 * @used: the stubs handed out, in order (release: @sites is set first)
 * @sites: what each stub serves
 */
struct stub_page {
	struct list_head node;
	unsigned long vaddr;
	struct page *page;
	unsigned int used;
	struct stub_site sites[STUBS_PER_PAGE];
};

/*
 * An SDT counter that could not be incremented when its probe was armed
 * in @mm, because the counter's page was not mapped yet (delayed_lock).
 */
struct delayed_ref_ctr {
	struct list_head node;
	struct uprobe *uprobe;
	struct mm_struct *mm;
};

static DEFINE_SPINLOCK(uprobes_lock);
static struct hlist_head uprobes_by_addr[1 << UPROBES_HASH_BITS];
static struct hlist_head uprobes_by_inode[1 << UPROBES_HASH_BITS];
static atomic_t uprobes_count = ATOMIC_INIT(0);

DEFINE_STATIC_SRCU(uprobes_srcu);
DEFINE_STATIC_PERCPU_RWSEM(dup_mmap_sem);

static DEFINE_MUTEX(delayed_lock);
static LIST_HEAD(delayed_ref_ctrs);

/* ---------------------------------------------------------------------
 * The probe tables
 */

static struct hlist_head *addr_bucket(struct inode *inode, loff_t offset)
{
	return &uprobes_by_addr[hash_64((unsigned long)inode ^ offset, UPROBES_HASH_BITS)];
}

static struct hlist_head *inode_bucket(struct inode *inode)
{
	return &uprobes_by_inode[hash_ptr(inode, UPROBES_HASH_BITS)];
}

static struct uprobe *get_uprobe(struct uprobe *uprobe)
{
	refcount_inc(&uprobe->ref);
	return uprobe;
}

/*
 * A reference for what outlives a hit, which found @uprobe under
 * uprobes_srcu without one: NULL if the probe is on its way out.
 */
static struct uprobe *try_get_uprobe(struct uprobe *uprobe)
{
	return refcount_inc_not_zero(&uprobe->ref) ? uprobe : NULL;
}

/*
 * Probes whose last reference went, freed after the hits under
 * uprobes_srcu, then after the readers of the tables under RCU.  The wait
 * for the hits is expedited, and one for every probe freed meanwhile:
 * a normal grace period started by call_srcu() would hold up the
 * expedited ones of uprobe_unregister_sync(), which tracers call at each
 * close of an event.
 */
static LLIST_HEAD(uprobes_to_free);

static void free_uprobes(struct work_struct *work)
{
	struct llist_node *list = llist_del_all(&uprobes_to_free);
	struct uprobe *uprobe, *next;

	synchronize_srcu_expedited(&uprobes_srcu);
	llist_for_each_entry_safe(uprobe, next, list, free_node)
		kfree_rcu(uprobe, rcu);
}

static DECLARE_WORK(free_uprobes_work, free_uprobes);

/* The inode goes at once: a hit only compares it. */
static void put_uprobe(struct uprobe *uprobe)
{
	if (!refcount_dec_and_test(&uprobe->ref))
		return;
	iput(uprobe->inode);
	if (llist_add(&uprobe->free_node, &uprobes_to_free))
		schedule_work(&free_uprobes_work);
}

/*
 * The probe at (@inode, @offset) that still has references, or NULL;
 * with one more for the caller if @get.  The caller holds rcu_read_lock().
 */
static struct uprobe *lookup_uprobe(struct inode *inode, loff_t offset, bool get)
{
	struct uprobe *uprobe;

	hlist_for_each_entry_rcu(uprobe, addr_bucket(inode, offset), addr_node) {
		if (uprobe->inode == inode && uprobe->offset == offset &&
		    (get ? refcount_inc_not_zero(&uprobe->ref) : refcount_read(&uprobe->ref)))
			return uprobe;
	}
	return NULL;
}

/* The probe at (@inode, @offset) with a reference, or NULL. */
static struct uprobe *find_uprobe(struct inode *inode, loff_t offset)
{
	struct uprobe *uprobe;

	rcu_read_lock();
	uprobe = lookup_uprobe(inode, offset, true);
	rcu_read_unlock();
	return uprobe;
}

/*
 * The probe at (@inode, @offset), without a reference, for a hit: the
 * caller holds uprobes_srcu.  A probe with references left when the hit
 * held uprobes_srcu already is freed after the hit (put_uprobe()).
 */
static struct uprobe *find_uprobe_srcu(struct inode *inode, loff_t offset)
{
	struct uprobe *uprobe;

	RCU_LOCKDEP_WARN(!srcu_read_lock_held(&uprobes_srcu), "a hit without uprobes_srcu");
	rcu_read_lock();
	uprobe = lookup_uprobe(inode, offset, false);
	rcu_read_unlock();
	return uprobe;
}

static bool uprobe_is_live(struct uprobe *uprobe)
{
	return !hlist_unhashed_lockless(&uprobe->addr_node);
}

static struct uprobe *alloc_uprobe(struct inode *inode, loff_t offset,
				   loff_t ref_ctr_offset)
{
	struct uprobe *uprobe = kzalloc(sizeof(*uprobe), GFP_KERNEL);

	if (!uprobe)
		return NULL;
	refcount_set(&uprobe->ref, 1);
	init_rwsem(&uprobe->register_rwsem);
	INIT_LIST_HEAD(&uprobe->consumers);
	mutex_init(&uprobe->insn_mutex);
	uprobe->inode = igrab(inode);
	uprobe->offset = offset;
	uprobe->ref_ctr_offset = ref_ctr_offset;
	if (!uprobe->inode) {
		kfree(uprobe);
		return NULL;
	}
	return uprobe;
}

/*
 * The probe at (@inode, @offset), made if there is none, with a reference
 * for the caller.  A probe keeps the SDT counter it was made with, or
 * none: any other (none included, against one) is refused.
 */
static struct uprobe *get_or_add_uprobe(struct inode *inode, loff_t offset,
					loff_t ref_ctr_offset)
{
	struct uprobe *uprobe, *old;

	uprobe = alloc_uprobe(inode, offset, ref_ctr_offset);
	if (!uprobe)
		return ERR_PTR(-ENOMEM);
	spin_lock(&uprobes_lock);
	old = find_uprobe(inode, offset);
	if (!old) {
		hlist_add_head_rcu(&uprobe->addr_node, addr_bucket(inode, offset));
		hlist_add_head_rcu(&uprobe->inode_node, inode_bucket(inode));
		atomic_inc(&uprobes_count);
	}
	spin_unlock(&uprobes_lock);
	if (!old)
		return uprobe;
	put_uprobe(uprobe);
	if (old->ref_ctr_offset != ref_ctr_offset) {
		pr_warn("uprobes: inode %lu offset 0x%llx has SDT counter 0x%llx, not 0x%llx\n",
			old->inode->i_ino, old->offset, old->ref_ctr_offset, ref_ctr_offset);
		put_uprobe(old);
		return ERR_PTR(-EINVAL);
	}
	return old;
}

static void remove_uprobe(struct uprobe *uprobe)
{
	lockdep_assert_held_write(&uprobe->register_rwsem);

	spin_lock(&uprobes_lock);
	hlist_del_init_rcu(&uprobe->addr_node);
	hlist_del_rcu(&uprobe->inode_node);
	atomic_dec(&uprobes_count);
	spin_unlock(&uprobes_lock);
}

/* ---------------------------------------------------------------------
 * The probed instruction
 */

/*
 * The folio of @mapping at @index, read if need be through @file; without
 * a file only a cached folio or shmem is used (a network filesystem may
 * need the file to read).  NULL when it cannot be had now.
 */
static struct folio *get_file_folio(struct address_space *mapping, pgoff_t index,
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

/*
 * Reads and analyses the probed instruction once: 0 when the probe can be
 * armed, -EAGAIN when the instruction cannot be read without @file, or
 * why it cannot be probed.
 */
static int prepare_insn(struct uprobe *uprobe, struct file *file)
{
	int err;

	/* Pairs with the release below: READY means @arch is filled in. */
	if (smp_load_acquire(&uprobe->insn_state) == INSN_READY)
		return 0;
	mutex_lock(&uprobe->insn_mutex);
	err = uprobe->insn_err;
	if (uprobe->insn_state != INSN_UNREAD)
		goto unlock;
	err = copy_from_file(uprobe->inode, file, uprobe->offset, uprobe->arch.insn,
			     sizeof(uprobe->arch.insn));
	if (err)
		goto unlock;
	err = arch_uprobe_analyze_insn(&uprobe->arch, false);
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

/* ---------------------------------------------------------------------
 * Writing a probed process's memory
 */

static loff_t vaddr_to_offset(struct vm_area_struct *vma, unsigned long vaddr)
{
	return ((loff_t)vma->vm_pgoff << PAGE_SHIFT) + (vaddr - vma->vm_start);
}

static unsigned long offset_to_vaddr(struct vm_area_struct *vma, loff_t offset)
{
	return vma->vm_start + offset - ((loff_t)vma->vm_pgoff << PAGE_SHIFT);
}

/*
 * Whether a mapping of a file with @flags may hold breakpoints: a private
 * one.  Arming also wants it executable; disarming looks at every such
 * mapping, since mprotect() may have taken the exec bit away from an
 * armed one.
 */
static bool valid_vm_flags(vm_flags_t flags, bool arming)
{
	vm_flags_t bad = VM_HUGETLB | VM_MAYSHARE;

	if (arming)
		return (flags & (bad | VM_EXEC)) == VM_EXEC;
	return !(flags & bad);
}

/* Whether @vma may hold breakpoints: a mapping of a file, valid_vm_flags(). */
static bool valid_vma(struct vm_area_struct *vma, bool arming)
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
static int read_mm_bytes(struct mm_struct *mm, unsigned long vaddr, void *buf, size_t len,
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

/* Writes @len bytes at @vaddr of @mm, in the mm's own copy of the page. */
static int write_mm_bytes(struct mm_struct *mm, unsigned long vaddr, const void *buf,
			  size_t len)
{
	struct page *page = get_mm_page(mm, vaddr, true);
	void *kaddr;

	if (IS_ERR(page))
		return PTR_ERR(page);
	kaddr = kmap_local_page(page);
	memcpy(kaddr + offset_in_page(vaddr), buf, len);
	kunmap_local(kaddr);
	set_page_dirty_lock(page);
	put_page(page);
	return 0;
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
static bool vma_maps(struct vm_area_struct *vma, struct inode *inode, loff_t offset)
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

static void drop_delayed_of_mm(struct mm_struct *mm)
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

/* Jumps to stubs, which stand for breakpoints (see "Stubs" below). */
static bool has_stub_jump(struct mm_struct *mm, unsigned long vaddr);
static int take_jump_out(struct mm_struct *mm, unsigned long vaddr, const u8 *insn);

/*
 * Arms @uprobe at @vaddr of @vma.  Already armed there (a breakpoint is in
 * place) is success: arming is idempotent, and counts the SDT counter
 * only when it writes the breakpoint.
 */
static int install_breakpoint(struct uprobe *uprobe, struct vm_area_struct *vma,
			      unsigned long vaddr)
{
	struct mm_struct *mm = vma->vm_mm;
	uprobe_opcode_t swbp = UPROBE_SWBP_INSN, now;
	int err;

	mmap_assert_write_locked(mm);

	if (arch_uprobe_is_ia32(mm))
		return -EOPNOTSUPP;
	err = prepare_insn(uprobe, vma->vm_file);
	if (err)
		return err;
	err = read_mm_bytes(mm, vaddr, &now, sizeof(now), NULL);
	if (err)
		return err;
	if (now == swbp || has_stub_jump(mm, vaddr))
		return 0;
	if (now != uprobe->arch.insn[0])
		return -EBUSY;	/* the process changed its text there */
	err = update_ref_ctr(uprobe, mm, 1);
	if (err)
		return err;
	err = write_mm_bytes(mm, vaddr, &swbp, sizeof(swbp));
	if (err) {
		update_ref_ctr(uprobe, mm, -1);
		return err;
	}
	set_bit(MMF_HAS_UPROBES, &mm->flags);
	return 0;
}

/* Disarms @uprobe at @vaddr of @vma, if it is armed there. */
static int remove_breakpoint(struct uprobe *uprobe, struct vm_area_struct *vma,
			     unsigned long vaddr)
{
	struct mm_struct *mm = vma->vm_mm;
	uprobe_opcode_t now;
	bool copy;
	int err;

	mmap_assert_write_locked(mm);

	/* Not READY: never armed.  READY: arch.insn holds the original byte. */
	if (smp_load_acquire(&uprobe->insn_state) != INSN_READY)
		return 0;
	err = take_jump_out(mm, vaddr, uprobe->arch.insn);
	if (err)
		return err;
	err = read_mm_bytes(mm, vaddr, &now, sizeof(now), &copy);
	if (err)
		return err;
	if (!copy || now != UPROBE_SWBP_INSN)
		return 0;
	err = write_mm_bytes(mm, vaddr, uprobe->arch.insn, 1);
	if (err)
		return err;
	drop_page_copy(vma, vaddr);
	update_ref_ctr(uprobe, mm, -1);
	return 0;
}

/* ---------------------------------------------------------------------
 * Consumers
 */

static bool consumer_wants(struct uprobe_consumer *uc, struct mm_struct *mm)
{
	return !uc->filter || uc->filter(uc, mm);
}

/* Whether any consumer of @uprobe wants it armed in @mm. */
static bool any_consumer_wants(struct uprobe *uprobe, struct mm_struct *mm)
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

static bool has_consumer(struct uprobe *uprobe, struct uprobe_consumer *uc)
{
	struct uprobe_consumer *each;

	lockdep_assert_held(&uprobe->register_rwsem);

	list_for_each_entry(each, &uprobe->consumers, cons_node)
		if (each == uc)
			return true;
	return false;
}

/* ---------------------------------------------------------------------
 * Arming and disarming in every process that maps the file
 */

/* One place to visit: @vaddr in @mm (an mm_users reference is held). */
struct map_site {
	struct mm_struct *mm;
	unsigned long vaddr;
};

/*
 * Lists in @sites (room for @max) the mappings of @uprobe's place that are
 * valid for @arming; the number there are, which may exceed @max.
 */
static int collect_sites(struct uprobe *uprobe, bool arming, struct map_site *sites,
			 int max)
{
	struct address_space *mapping = uprobe->inode->i_mapping;
	pgoff_t pgoff = uprobe->offset >> PAGE_SHIFT;
	struct vm_area_struct *vma;
	int n = 0;

	i_mmap_lock_read(mapping);
	vma_interval_tree_foreach(vma, &mapping->i_mmap, pgoff, pgoff) {
		if (!valid_vma(vma, arming))
			continue;
		if (n < max) {
			if (!mmget_not_zero(vma->vm_mm))
				continue;
			sites[n].mm = vma->vm_mm;
			sites[n].vaddr = offset_to_vaddr(vma, uprobe->offset);
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
 * The mappings of @uprobe's place, in a new array (*@sitesp) that the
 * caller frees with put_sites(); their number, or -ENOMEM.  Nothing may be
 * allocated under i_mmap_rwsem, so the array is sized first.
 */
static int list_sites(struct uprobe *uprobe, bool arming, struct map_site **sitesp)
{
	struct map_site *sites = NULL;
	int max = 0, n;

	for (;;) {
		n = collect_sites(uprobe, arming, sites, max);
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

/* The mapping of @uprobe's place at @vaddr in @mm, if it is still there. */
static struct vm_area_struct *site_vma(struct uprobe *uprobe, struct mm_struct *mm,
				       unsigned long vaddr, bool arming)
{
	struct vm_area_struct *vma = vma_lookup(mm, vaddr);

	if (!vma || !valid_vma(vma, arming) || file_inode(vma->vm_file) != uprobe->inode ||
	    vaddr_to_offset(vma, vaddr) != uprobe->offset)
		return NULL;
	return vma;
}

/*
 * Arms @uprobe where @uc wants it (@uc non-NULL), or disarms it where no
 * consumer wants it any more (@uc NULL), in every process mapping it.
 */
static int walk_mappings(struct uprobe *uprobe, struct uprobe_consumer *uc)
{
	bool arming = !!uc;
	struct map_site *sites;
	struct vm_area_struct *vma;
	int n, i, err = 0, one;

	lockdep_assert_held_write(&uprobe->register_rwsem);

	if (!mapping_mapped(uprobe->inode->i_mapping))
		return 0;
	percpu_down_write(&dup_mmap_sem);
	n = list_sites(uprobe, arming, &sites);
	if (n < 0) {
		err = n;
		goto unlock_dup;
	}
	for (i = 0; i < n; i++) {
		struct mm_struct *mm = sites[i].mm;

		mmap_write_lock(mm);
		vma = site_vma(uprobe, mm, sites[i].vaddr, arming);
		one = 0;
		if (vma && arming && consumer_wants(uc, mm))
			one = install_breakpoint(uprobe, vma, sites[i].vaddr);
		else if (vma && !arming && !any_consumer_wants(uprobe, mm))
			one = remove_breakpoint(uprobe, vma, sites[i].vaddr);
		mmap_write_unlock(mm);
		/* A process that cannot take the probe does not fail the rest. */
		if (one && one != -EOPNOTSUPP && one != -EBUSY && !err)
			err = one;
	}
	put_sites(sites, n);
unlock_dup:
	percpu_up_write(&dup_mmap_sem);
	return err;
}

/* Disarms @uprobe in every vma of @mm where it is armed. */
static void remove_from_mm(struct uprobe *uprobe, struct mm_struct *mm)
{
	VMA_ITERATOR(vmi, mm, 0);
	struct vm_area_struct *vma;

	mmap_write_lock(mm);
	for_each_vma(vmi, vma)
		if (valid_vma(vma, false) && vma_maps(vma, uprobe->inode, uprobe->offset))
			remove_breakpoint(uprobe, vma, offset_to_vaddr(vma, uprobe->offset));
	mmap_write_unlock(mm);
}

/* ---------------------------------------------------------------------
 * The consumer API
 */

/*
 * Reads the instruction at registration when a mapping of the file gives
 * the means to (some filesystems read only through an open file).
 */
static int prepare_insn_early(struct uprobe *uprobe)
{
	struct address_space *mapping = uprobe->inode->i_mapping;
	pgoff_t pgoff = uprobe->offset >> PAGE_SHIFT;
	struct vm_area_struct *vma;
	struct file *file = NULL;
	int err;

	i_mmap_lock_read(mapping);
	vma_interval_tree_foreach(vma, &mapping->i_mmap, pgoff, pgoff) {
		file = get_file(vma->vm_file);
		break;
	}
	i_mmap_unlock_read(mapping);
	err = prepare_insn(uprobe, file);
	if (file)
		fput(file);
	return err == -EAGAIN ? 0 : err;
}

/* Takes @uc off @uprobe, disarms where no one wants the probe any more. */
static void unregister_consumer(struct uprobe *uprobe, struct uprobe_consumer *uc)
{
	lockdep_assert_held_write(&uprobe->register_rwsem);

	list_del_rcu(&uc->cons_node);
	walk_mappings(uprobe, NULL);
	if (list_empty(&uprobe->consumers))
		remove_uprobe(uprobe);
}

static int check_register_args(struct inode *inode, loff_t offset,
			       loff_t ref_ctr_offset, struct uprobe_consumer *uc)
{
	struct address_space *mapping = inode->i_mapping;

	if (!uc->handler && !uc->ret_handler)
		return -EINVAL;
	if (!mapping->a_ops->read_folio && !shmem_mapping(mapping))
		return -EIO;
	if (offset < 0 || offset >= i_size_read(inode))
		return -EINVAL;
	if (ref_ctr_offset < 0 || ref_ctr_offset >= i_size_read(inode) ||
	    !IS_ALIGNED(ref_ctr_offset, sizeof(short)))
		return -EINVAL;
	return 0;
}

/**
 * uprobe_register - attach a consumer to a place in a file
 * @inode: the file
 * @offset: the place: an offset in @inode
 * @ref_ctr_offset: offset in @inode of an SDT semaphore (a short) to count
 *	in every process the probe is armed in, or 0
 * @uc: the consumer: its handler and/or ret_handler, and optional filter
 *
 * Arms the probe in every process that maps the place and that @uc's
 * filter wants, and in every later mapping.  Sleeps.
 *
 * Return: the probe, to give to uprobe_unregister_nosync() and
 * uprobe_apply(); or an ERR_PTR: -EINVAL for a bad offset or a consumer
 * without handlers, or a place already probed with another SDT counter;
 * -EOPNOTSUPP for an instruction that cannot be probed; -ENOEXEC for
 * bytes that are no instruction; -ENOMEM.
 */
struct uprobe *uprobe_register(struct inode *inode, loff_t offset,
			       loff_t ref_ctr_offset, struct uprobe_consumer *uc)
{
	struct uprobe *uprobe;
	int err;

	err = check_register_args(inode, offset, ref_ctr_offset, uc);
	if (err)
		return ERR_PTR(err);
retry:
	uprobe = get_or_add_uprobe(inode, offset, ref_ctr_offset);
	if (IS_ERR(uprobe))
		return uprobe;
	down_write(&uprobe->register_rwsem);
	if (!uprobe_is_live(uprobe)) {
		up_write(&uprobe->register_rwsem);
		put_uprobe(uprobe);
		goto retry;
	}
	err = prepare_insn_early(uprobe);
	if (err)
		goto remove;
	list_add_tail_rcu(&uc->cons_node, &uprobe->consumers);
	err = walk_mappings(uprobe, uc);
	if (err)
		goto unregister;
	up_write(&uprobe->register_rwsem);
	return uprobe;

unregister:
	unregister_consumer(uprobe, uc);
	up_write(&uprobe->register_rwsem);
	synchronize_srcu(&uprobes_srcu);
	put_uprobe(uprobe);
	return ERR_PTR(err);
remove:
	if (list_empty(&uprobe->consumers))
		remove_uprobe(uprobe);
	up_write(&uprobe->register_rwsem);
	put_uprobe(uprobe);
	return ERR_PTR(err);
}
EXPORT_SYMBOL_GPL(uprobe_register);

/**
 * uprobe_apply - follow a change of a consumer's filter
 * @uprobe: the probe, from uprobe_register()
 * @uc: one of its consumers
 * @add: true: arm where @uc's filter now wants the probe; false: disarm
 *	where no consumer's filter wants it any more
 *
 * Return: 0, -ENOENT if @uc is not a consumer of @uprobe, or an error from
 * arming.
 */
int uprobe_apply(struct uprobe *uprobe, struct uprobe_consumer *uc, bool add)
{
	int err = -ENOENT;

	down_write(&uprobe->register_rwsem);
	if (has_consumer(uprobe, uc))
		err = walk_mappings(uprobe, add ? uc : NULL);
	up_write(&uprobe->register_rwsem);
	return err;
}
EXPORT_SYMBOL_GPL(uprobe_apply);

/**
 * uprobe_unregister_nosync - detach a consumer
 * @uprobe: the probe, from uprobe_register()
 * @uc: the consumer
 *
 * Disarms the probe where no remaining consumer wants it.  The consumer's
 * handlers may still be running when this returns: call
 * uprobe_unregister_sync() (once for a batch) before freeing @uc.
 */
void uprobe_unregister_nosync(struct uprobe *uprobe, struct uprobe_consumer *uc)
{
	down_write(&uprobe->register_rwsem);
	if (WARN_ON_ONCE(!has_consumer(uprobe, uc))) {
		up_write(&uprobe->register_rwsem);
		return;
	}
	unregister_consumer(uprobe, uc);
	up_write(&uprobe->register_rwsem);
	put_uprobe(uprobe);
}
EXPORT_SYMBOL_GPL(uprobe_unregister_nosync);

/**
 * uprobe_unregister_sync - wait for the handlers of detached consumers
 *
 * When this returns, no handler of a consumer detached before the call
 * is running or will run.  The wait is expedited: the tracers call this
 * once per event they disable, and the readers it waits for are only
 * handlers running right now.
 */
void uprobe_unregister_sync(void)
{
	synchronize_srcu_expedited(&uprobes_srcu);
}
EXPORT_SYMBOL_GPL(uprobe_unregister_sync);

/* ---------------------------------------------------------------------
 * New mappings, fork, exec and exit
 */

/*
 * Grows @list (of *@n probes, room for *@max) by @uprobe, with a
 * reference; false when out of memory.
 */
static bool add_to_list(struct uprobe ***list, int *n, int *max, struct uprobe *uprobe)
{
	struct uprobe **bigger;

	if (*n == *max) {
		bigger = krealloc_array(*list, *max * 2 + 8, sizeof(**list), GFP_ATOMIC);
		if (!bigger)
			return false;
		*list = bigger;
		*max = *max * 2 + 8;
	}
	(*list)[(*n)++] = uprobe;
	return true;
}

/* The probes of @vma's file in the range it maps, with references. */
static int probes_in_vma(struct vm_area_struct *vma, struct uprobe ***list)
{
	struct inode *inode = file_inode(vma->vm_file);
	struct uprobe *uprobe;
	int n = 0, max = 0;

	*list = NULL;
	rcu_read_lock();
	hlist_for_each_entry_rcu(uprobe, inode_bucket(inode), inode_node) {
		if (!vma_maps(vma, uprobe->inode, uprobe->offset) ||
		    !refcount_inc_not_zero(&uprobe->ref))
			continue;
		if (!add_to_list(list, &n, &max, uprobe)) {
			put_uprobe(uprobe);
			break;
		}
	}
	rcu_read_unlock();
	return n;
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
	struct uprobe **list;
	int n, i;

	if (!atomic_read(&uprobes_count) || !vma->vm_file)
		return 0;
	mmap_assert_write_locked(vma->vm_mm);

	apply_delayed_ref_ctrs(vma);
	if (!valid_vma(vma, true))
		return 0;
	n = probes_in_vma(vma, &list);
	for (i = 0; i < n; i++) {
		if (any_consumer_wants(list[i], vma->vm_mm))
			install_breakpoint(list[i], vma, offset_to_vaddr(vma, list[i]->offset));
		put_uprobe(list[i]);
	}
	kfree(list);
	return 0;
}

/**
 * uprobe_munmap - a mapping is going away
 * @vma: the mapping
 * @start: start of the range unmapped
 * @end: its end
 *
 * Nothing to undo: the breakpoints go with the process's copies of the
 * pages, and an SDT counter counts arming, which the mm keeps.
 */
void uprobe_munmap(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
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

/* ---------------------------------------------------------------------
 * The XOL area: one page per mm, slot 0 the trampoline, the rest slots
 */

static struct xol_area *mm_xol_area(struct mm_struct *mm)
{
	/* Pairs with the release in publish_xol_area(). */
	return smp_load_acquire(&mm->uprobes_state.xol_area);
}

static vm_fault_t xol_fault(const struct vm_special_mapping *sm,
			    struct vm_area_struct *vma, struct vm_fault *vmf)
{
	struct xol_area *area = mm_xol_area(vma->vm_mm);

	if (!area || vmf->pgoff != vma->vm_pgoff)
		return VM_FAULT_SIGBUS;
	get_page(area->page);
	vmf->page = area->page;
	return 0;
}

static int xol_mremap(const struct vm_special_mapping *sm, struct vm_area_struct *new_vma)
{
	return -EPERM;
}

/*
 * The mapping resolves to the page of whichever mm it is in, so that a
 * forked child, which copies the mapping, gets a page of its own at the
 * same address (uprobe_dup_mmap()).
 */
static const struct vm_special_mapping xol_mapping = {
	.name = "[uprobes]",
	.fault = xol_fault,
	.mremap = xol_mremap,
};

static void free_stub_page(struct stub_page *sp);

static void free_xol_area(struct xol_area *area)
{
	struct stub_page *sp, *next;

	list_for_each_entry_safe(sp, next, &area->stub_pages, node)
		free_stub_page(sp);
	if (area->page)
		__free_page(area->page);
	kfree(area);
}

/* A new area for @vaddr, holding the trampoline. */
static struct xol_area *alloc_xol_area(unsigned long vaddr)
{
	struct xol_area *area = kzalloc(sizeof(*area), GFP_KERNEL);
	const u8 *tramp;
	size_t len;
	void *kaddr;

	if (!area)
		return NULL;
	area->page = alloc_page(GFP_HIGHUSER | __GFP_ZERO);
	if (!area->page) {
		kfree(area);
		return NULL;
	}
	area->vaddr = vaddr;
	init_waitqueue_head(&area->wq);
	INIT_LIST_HEAD(&area->stub_pages);
	tramp = arch_uretprobe_trampoline(&len);
	kaddr = kmap_local_page(area->page);
	memcpy(kaddr, tramp, min_t(size_t, len, UPROBE_XOL_SLOT_BYTES));
	kunmap_local(kaddr);
	set_bit(0, area->slots);
	return area;
}

static void publish_xol_area(struct mm_struct *mm, struct xol_area *area)
{
	/* The area is filled in before lockless readers can see it. */
	smp_store_release(&mm->uprobes_state.xol_area, area);
	set_bit(MMF_HAS_UPROBES, &mm->flags);
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
	vaddr = get_unmapped_area(NULL, 0, PAGE_SIZE, 0, 0);
	if (IS_ERR_VALUE(vaddr)) {
		err = vaddr;
		goto unlock;
	}
	area = alloc_xol_area(vaddr);
	if (!area) {
		err = -ENOMEM;
		goto unlock;
	}
	vma = _install_special_mapping(mm, vaddr, PAGE_SIZE,
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
static struct xol_area *get_xol_area(void)
{
	struct mm_struct *mm = current->mm;

	if (!mm_xol_area(mm) && map_xol_area(mm))
		return NULL;
	return mm_xol_area(mm);
}

/*
 * A free slot of @area, taken without a lock, as long as more than @keep
 * stay free: its address, or 0.
 */
static unsigned long xol_try_slot(struct xol_area *area, unsigned int keep)
{
	unsigned long slot;

	do {
		if (keep && bitmap_weight(area->slots, XOL_SLOTS) >= XOL_SLOTS - keep)
			return 0;
		slot = find_first_zero_bit(area->slots, XOL_SLOTS);
		if (slot >= XOL_SLOTS)
			return 0;
	} while (test_and_set_bit(slot, area->slots));
	return area->vaddr + slot * UPROBE_XOL_SLOT_BYTES;
}

/*
 * A free slot of @area, its address.  Threads take slots without a lock;
 * only when every slot is in use does one wait for another's step to end.
 * 0 when a fatal signal cuts the wait short.
 */
static unsigned long xol_take_slot(struct xol_area *area)
{
	unsigned long vaddr;

	for (;;) {
		vaddr = xol_try_slot(area, 0);
		if (vaddr)
			return vaddr;
		if (wait_event_killable(area->wq, !bitmap_full(area->slots, XOL_SLOTS)))
			return 0;
	}
}

/*
 * A slot for the current task to keep (uprobe_task.own_slot), or 0 when
 * taking one would leave fewer than XOL_SHARED_SLOTS for steps.
 */
static unsigned long xol_take_own_slot(struct xol_area *area)
{
	return xol_try_slot(area, XOL_SHARED_SLOTS);
}

static void xol_free_slot(struct xol_area *area, unsigned long vaddr)
{
	unsigned long slot = (vaddr - area->vaddr) / UPROBE_XOL_SLOT_BYTES;

	if (WARN_ON_ONCE(!slot || slot >= XOL_SLOTS))
		return;
	clear_bit(slot, area->slots);
	/* The freed slot is visible before the check for waiters. */
	smp_mb__after_atomic();
	if (wq_has_sleeper(&area->wq))
		wake_up(&area->wq);
}

/*
 * The slot gets @insn, then breakpoints: nothing past it runs unnoticed.
 * A slot that holds @insn already is left alone: the next hit of the same
 * probe finds it so, and code rewritten on every hit is slow to run (an
 * emulator translates it anew; a CPU may flush its pipeline).
 */
static void xol_write_slot(struct xol_area *area, unsigned long vaddr,
			   const u8 *insn, size_t len)
{
	void *kaddr = kmap_local_page(area->page) + (vaddr - area->vaddr);

	if (memcmp(kaddr, insn, len)) {
		memcpy(kaddr, insn, len);
		memset(kaddr + len, UPROBE_SWBP_INSN, UPROBE_XOL_SLOT_BYTES - len);
		flush_dcache_page(area->page);
	}
	kunmap_local(kaddr);
}

/* ---------------------------------------------------------------------
 * Stubs: a jump in place of the breakpoint
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
static struct stub_site *stub_at(struct mm_struct *mm, unsigned long addr,
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
	return add_stub(room, uprobe, vaddr);
}

/* The UPROBE_JUMP_BYTES at @vaddr of @mm, if they are in one page. */
static bool read_jump_bytes(struct mm_struct *mm, unsigned long vaddr, u8 *code)
{
	return offset_in_page(vaddr) <= PAGE_SIZE - UPROBE_JUMP_BYTES &&
	       !read_mm_bytes(mm, vaddr, code, UPROBE_JUMP_BYTES, NULL);
}

/* Whether the code at @vaddr of @mm is a jump to its stub. */
static bool has_stub_jump(struct mm_struct *mm, unsigned long vaddr)
{
	u8 code[UPROBE_JUMP_BYTES];
	unsigned long offset;
	struct stub_site *site;

	if (!read_jump_bytes(mm, vaddr, code))
		return false;
	site = stub_at(mm, arch_uprobe_jump_target(code, vaddr), &offset);
	return site && !offset;
}

/*
 * Replaces the breakpoint of @uprobe at @vaddr of @mm with a jump to a
 * stub, in the order that leaves no torn instruction (see above).
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
	if (write_mm_bytes(mm, vaddr + 1, jump + 1, UPROBE_JUMP_BYTES - 1))
		return;
	arch_uprobe_sync_mm(mm);
	if (write_mm_bytes(mm, vaddr, jump, 1))
		write_mm_bytes(mm, vaddr + 1, now + 1, UPROBE_JUMP_BYTES - 1);
}

/*
 * Puts the breakpoint back in place of a jump to a stub at @vaddr of @mm,
 * with the bytes of @insn after it.
 */
static int take_jump_out(struct mm_struct *mm, unsigned long vaddr, const u8 *insn)
{
	uprobe_opcode_t swbp = UPROBE_SWBP_INSN;
	int err;

	mmap_assert_write_locked(mm);

	if (!has_stub_jump(mm, vaddr))
		return 0;
	err = write_mm_bytes(mm, vaddr, &swbp, sizeof(swbp));
	if (err)
		return err;
	arch_uprobe_sync_mm(mm);
	return write_mm_bytes(mm, vaddr + 1, insn + 1, UPROBE_JUMP_BYTES - 1);
}

/**
 * uprobe_mremap - text is about to move
 * @vma: the mapping it is in, its mm's mmap_lock held for writing
 * @start: start of the range that moves
 * @end: its end
 *
 * A jump to a stub is relative: moved, it would lead elsewhere.  The jumps
 * of the range give way to breakpoints, which move with the text and still
 * work; a hit at the new place makes a new jump there.
 */
void uprobe_mremap(struct vm_area_struct *vma, unsigned long start, unsigned long end)
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
 * Whether the architecture lets @uprobe have a jump at @vaddr, for the
 * task whose registers at the probed instruction are @regs.
 */
static bool may_jump(struct uprobe *uprobe, struct pt_regs *regs, unsigned long vaddr)
{
	/* The acquire pairs with the release that made the probe READY. */
	return smp_load_acquire(&uprobe->insn_state) == INSN_READY &&
	       arch_uprobe_can_jump(&uprobe->arch, regs) &&
	       offset_in_page(vaddr) <= PAGE_SIZE - UPROBE_JUMP_BYTES;
}

/*
 * After a hit by the breakpoint at @vaddr, when may_jump(): gives @uprobe
 * a jump to a stub there if the mm has room.
 */
static void try_jump(struct uprobe *uprobe, unsigned long vaddr)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct xol_area *area;

	area = get_xol_area();
	if (!area || READ_ONCE(area->no_stubs) || mmap_write_lock_killable(mm))
		return;
	vma = vma_lookup(mm, vaddr);
	if (vma && valid_vma(vma, true) && vma_maps(vma, uprobe->inode, uprobe->offset) &&
	    offset_to_vaddr(vma, uprobe->offset) == vaddr && uprobe_is_live(uprobe))
		write_jump(uprobe, mm, area, vaddr);
	mmap_write_unlock(mm);
}

/*
 * Where the current task came to @stub from: the address of @site, as
 * long as no mremap() moved the text there.  Whether the jump is still
 * there does not matter: the task took it, and the instruction it stands
 * for is done for the task at that place, or run again there if the probe
 * went.  Moved text is looked for: the jump's place, else the place that
 * maps the site's file offset now, which a jump to @stub is preferred at;
 * 0 if none does.
 */
static unsigned long stub_source(struct stub_site *site, unsigned long stub)
{
	struct mm_struct *mm = current->mm;
	unsigned long vaddr = site->vaddr, found = 0;
	struct vm_area_struct *vma;
	struct vma_iterator vmi;
	u8 code[UPROBE_JUMP_BYTES];

	/* Text that never moved: the jump's place, without a look. */
	if (!READ_ONCE(site->moved))
		return vaddr;
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
 * A task about to take a signal in a stub, before its syscall, is put back
 * at the probed address as it was there: the handler, a debugger or a
 * core dump never sees the stub, and the task goes through the jump again
 * after the handler.  One at the jump back after the stub's copy is put
 * just past the probed instruction.  (One at the copy is stepped over it
 * first: stub_copy_finish().)
 */
static void leave_stub(struct pt_regs *regs)
{
	unsigned long ip = instruction_pointer(regs), offset, source;
	struct mm_struct *mm = current->mm;
	struct stub_site *site;

	if (!mm || !test_bit(MMF_HAS_UPROBES, &mm->flags))
		return;
	site = stub_at(mm, ip, &offset);
	if (!site || arch_uprobe_stub_leave(regs, offset))
		return;
	if (site->len && offset == UPROBE_STUB_COPY + site->len) {
		/* At the jump back: the copy ran. */
		instruction_pointer_set(regs, site->vaddr + site->len);
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
	unsigned long offset;

	if (!mm || !test_bit(MMF_HAS_UPROBES, &mm->flags))
		return false;
	site = stub_at(mm, instruction_pointer(regs), &offset);
	if (!site || offset)
		return false;
	instruction_pointer_set(regs, site->vaddr + UPROBE_SWBP_INSN_SIZE);
	set_thread_flag(TIF_UPROBE);
	return true;
}

/* A copy of each stub page of @old for a forked child's @area. */
static void dup_stub_pages(struct xol_area *old, struct xol_area *area)
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

/**
 * uprobe_get_trampoline_vaddr - where return probes return to
 *
 * Return: the address of the current mm's trampoline, or -1 if it has none.
 */
unsigned long uprobe_get_trampoline_vaddr(void)
{
	struct xol_area *area = current->mm ? mm_xol_area(current->mm) : NULL;

	return area ? area->vaddr : -1UL;
}

/**
 * uprobe_dup_mmap - fork copies an mm
 * @oldmm: the parent's
 * @newmm: the child's, with the parent's mappings copied
 *
 * The child has the parent's breakpoints and jumps already, in its copies
 * of the pages; it needs its own XOL page behind the copied XOL mapping,
 * where its pending returns (uprobe_copy_process()) lead, and its own
 * copies of the stub pages the jumps lead to.
 */
void uprobe_dup_mmap(struct mm_struct *oldmm, struct mm_struct *newmm)
{
	struct xol_area *old = mm_xol_area(oldmm), *area;

	if (test_bit(MMF_HAS_UPROBES, &oldmm->flags))
		set_bit(MMF_HAS_UPROBES, &newmm->flags);
	if (!old)
		return;
	area = alloc_xol_area(old->vaddr);
	if (!area)
		return;
	dup_stub_pages(old, area);
	publish_xol_area(newmm, area);
}

/**
 * uprobe_clear_state - an mm is torn down
 * @mm: the mm
 */
void uprobe_clear_state(struct mm_struct *mm)
{
	drop_delayed_of_mm(mm);
	if (mm->uprobes_state.xol_area)
		free_xol_area(mm->uprobes_state.xol_area);
	mm->uprobes_state.xol_area = NULL;
}

/* ---------------------------------------------------------------------
 * Per-task state
 */

/* The checked transitions of enum uprobe_task_state. */
static void utask_set_state(struct uprobe_task *utask, enum uprobe_task_state state)
{
	static const u8 allowed[] = {
		[UPROBE_TASK_RUNNING] = BIT(UPROBE_TASK_STEPPING) | BIT(UPROBE_TASK_FINISHING) |
					BIT(UPROBE_TASK_STUB_STEPPING),
		[UPROBE_TASK_STEPPING] = BIT(UPROBE_TASK_STEPPED) | BIT(UPROBE_TASK_STEP_ABANDON),
		[UPROBE_TASK_STEPPED] = BIT(UPROBE_TASK_RUNNING),
		[UPROBE_TASK_STEP_ABANDON] = BIT(UPROBE_TASK_RUNNING),
		[UPROBE_TASK_FINISHING] = BIT(UPROBE_TASK_RUNNING),
		[UPROBE_TASK_STUB_STEPPING] = BIT(UPROBE_TASK_RUNNING),
	};

	WARN_ONCE(!(allowed[utask->state] & BIT(state)),
		  "uprobes: task state %d -> %d\n", utask->state, state);
	utask->state = state;
}

/* Whether @utask is in a single-step, from its start to its fixups. */
static bool utask_stepping(struct uprobe_task *utask)
{
	return utask->state == UPROBE_TASK_STEPPING ||
	       utask->state == UPROBE_TASK_STEPPED ||
	       utask->state == UPROBE_TASK_STEP_ABANDON;
}

/* Signals held back while the task was in a step or finishing are due. */
static void release_signals(void)
{
	spin_lock_irq(&current->sighand->siglock);
	recalc_sigpending();
	spin_unlock_irq(&current->sighand->siglock);
}

static struct uprobe_task *get_utask(void)
{
	if (!current->utask)
		current->utask = kzalloc(sizeof(*current->utask), GFP_KERNEL);
	return current->utask;
}

static void free_return_instance(struct return_instance *ri)
{
	put_uprobe(ri->uprobe);
	kfree(ri);
}

/* Drops the newest pending returns down to (not including) @keep. */
static void drop_return_instances(struct uprobe_task *utask, struct return_instance *keep)
{
	struct return_instance *ri;

	while (utask->return_instances != keep) {
		ri = utask->return_instances;
		utask->return_instances = ri->next;
		utask->depth--;
		free_return_instance(ri);
	}
}

/**
 * uprobe_free_utask - a task exits or execs
 * @t: the task
 *
 * Its pending returns and any step in progress are forgotten.
 */
void uprobe_free_utask(struct task_struct *t)
{
	struct uprobe_task *utask = t->utask;
	struct xol_area *area;

	if (!utask)
		return;
	drop_return_instances(utask, NULL);
	if (utask->active_uprobe)
		put_uprobe(utask->active_uprobe);
	area = t->mm ? mm_xol_area(t->mm) : NULL;
	if (utask->xol_vaddr && area)
		xol_free_slot(area, utask->xol_vaddr);
	if (utask->own_slot && area)
		xol_free_slot(area, utask->own_slot);
	kfree(utask);
	t->utask = NULL;
}

/* A copy of @utask's pending returns for a forked child; false on ENOMEM. */
static bool dup_return_instances(struct uprobe_task *child, struct uprobe_task *utask)
{
	struct return_instance *ri, *copy, **tail = &child->return_instances;

	for (ri = utask->return_instances; ri; ri = ri->next) {
		copy = kmemdup(ri, sizeof(*ri), GFP_KERNEL);
		if (!copy)
			return false;
		get_uprobe(copy->uprobe);
		copy->next = NULL;
		*tail = copy;
		tail = &copy->next;
		child->depth++;
	}
	return true;
}

/**
 * uprobe_copy_process - a task is being created
 * @t: the new task, still a copy of current
 * @flags: its clone flags
 *
 * A thread starts with no uprobes state.  A forked process runs on a copy
 * of the parent's stack, with the parent's return addresses replaced by
 * the trampoline: it gets a copy of the parent's pending returns.
 */
void uprobe_copy_process(struct task_struct *t, unsigned long flags)
{
	struct uprobe_task *utask = current->utask;

	t->utask = NULL;
	if (!utask || !utask->return_instances)
		return;
	if ((flags & CLONE_VM) && !(flags & CLONE_VFORK))
		return;
	t->utask = kzalloc(sizeof(*t->utask), GFP_KERNEL);
	if (!t->utask)
		return;
	if (!dup_return_instances(t->utask, utask))
		pr_warn_ratelimited("uprobes: pid %d: pending returns lost at fork\n", t->pid);
}

/* ---------------------------------------------------------------------
 * Return probes
 */

/*
 * Drops the pending returns whose frames are gone: those below the stack
 * pointer @sp (a longjmp() left them), and the one at @sp itself unless
 * the return address there is still the trampoline (@chained).
 */
static void drop_dead_returns(struct uprobe_task *utask, unsigned long sp, bool chained)
{
	struct return_instance *keep = utask->return_instances;

	while (keep && (keep->stack < sp || (keep->stack == sp && !chained)))
		keep = keep->next;
	drop_return_instances(utask, keep);
}

/*
 * At the entry of a function probed with return handlers: replaces its
 * return address with the trampoline and remembers the original.  Past
 * MAX_URETPROBE_DEPTH pending returns the new one is not taken: the outer
 * frames keep theirs.
 */
static void prepare_uretprobe(struct uprobe *uprobe, struct pt_regs *regs,
			      unsigned long bp_vaddr)
{
	struct uprobe_task *utask = current->utask;
	unsigned long sp = user_stack_pointer(regs), tramp, orig;
	struct xol_area *area = get_xol_area();
	struct return_instance *ri;
	bool chained;

	if (!area)
		return;
	ri = kzalloc(sizeof(*ri), GFP_KERNEL);
	if (!ri)
		return;
	/* The pending return outlives the hit: it holds a reference. */
	ri->uprobe = try_get_uprobe(uprobe);
	if (!ri->uprobe)
		goto free;
	tramp = area->vaddr;
	orig = arch_uretprobe_hijack_return_addr(tramp, regs);
	if (orig == -1UL)
		goto put_uprobe;
	/* A tail call from a function whose return is pending. */
	chained = orig == tramp;
	drop_dead_returns(utask, sp, chained);
	if (utask->depth >= MAX_URETPROBE_DEPTH) {
		pr_warn_ratelimited("uprobes: pid %d: more than %d pending returns\n",
				    current->pid, MAX_URETPROBE_DEPTH);
		if (!chained)
			arch_uretprobe_hijack_return_addr(orig, regs);
		goto put_uprobe;
	}
	if (chained) {
		if (!utask->return_instances) {
			force_sig(SIGSEGV);
			goto put_uprobe;
		}
		orig = utask->return_instances->orig_ret_vaddr;
	}
	ri->func = bp_vaddr;
	ri->stack = sp;
	ri->orig_ret_vaddr = orig;
	ri->chained = chained;
	ri->next = utask->return_instances;
	utask->return_instances = ri;
	utask->depth++;
	return;

put_uprobe:
	put_uprobe(ri->uprobe);
free:
	kfree(ri);
}

static void run_ret_handlers(struct return_instance *ri, struct pt_regs *regs)
{
	struct uprobe_consumer *uc;
	int idx;

	idx = srcu_read_lock(&uprobes_srcu);
	list_for_each_entry_srcu(uc, &ri->uprobe->consumers, cons_node,
				 srcu_read_lock_held(&uprobes_srcu))
		if (uc->ret_handler)
			uc->ret_handler(uc, ri->func, regs);
	srcu_read_unlock(&uprobes_srcu, idx);
}

/**
 * uprobe_handle_trampoline - a probed function returned to the trampoline
 * @regs: the task's registers, with the stack as the function left it
 *
 * The returning frame is the oldest pending return below the stack
 * pointer; newer ones are frames a longjmp() skipped, dropped without
 * their handlers.  The returning frame's handlers run, and those of the
 * functions that tail-called from it (chained), newest first; then the
 * task goes on at the original return address.  A task with no pending
 * return here gets SIGILL.
 */
void uprobe_handle_trampoline(struct pt_regs *regs)
{
	struct uprobe_task *utask = current->utask;
	unsigned long sp = user_stack_pointer(regs);
	struct return_instance *ri, *last = NULL, *keep;

	if (utask)
		for (ri = utask->return_instances; ri && ri->stack < sp; ri = ri->next)
			last = ri;
	if (!last) {
		force_sig(SIGILL);
		return;
	}
	keep = last->next;
	instruction_pointer_set(regs, last->orig_ret_vaddr);
	for (ri = utask->return_instances; ri != keep; ri = ri->next)
		if (ri->stack == last->stack)
			run_ret_handlers(ri, regs);
	drop_return_instances(utask, keep);
}

/* ---------------------------------------------------------------------
 * Hits
 */

/*
 * The probe at @vaddr of @vma, if it is a mapping a probe can be hit in.
 * The VMA may be read without mmap_lock: each field is read once.
 */
static struct uprobe *find_vma_uprobe(struct vm_area_struct *vma, unsigned long vaddr)
{
	struct file *file = READ_ONCE(vma->vm_file);

	if (!file || !valid_vm_flags(READ_ONCE(vma->vm_flags), false))
		return NULL;
	return find_uprobe_srcu(file_inode(file), vaddr_to_offset(vma, vaddr));
}

/*
 * The probe at @vaddr of @mm looked up without mmap_lock: the VMA is read
 * under RCU (VMAs and files are freed after a grace period), and what was
 * read is kept only if no writer of the mappings started or ended
 * meanwhile (mm_lock_seq).  False when that cannot be told.
 */
static bool find_uprobe_speculative(struct mm_struct *mm, unsigned long vaddr,
				    struct uprobe **found)
{
#ifdef CONFIG_PER_VMA_LOCK
	struct vm_area_struct *vma;
	unsigned int seq;
	bool sure;

	rcu_read_lock();
	seq = raw_read_seqcount(&mm->mm_lock_seq);
	if (seq & 1) {
		rcu_read_unlock();
		return false;
	}
	vma = vma_lookup(mm, vaddr);
	*found = vma ? find_vma_uprobe(vma, vaddr) : NULL;
	sure = !read_seqcount_retry(&mm->mm_lock_seq, seq);
	rcu_read_unlock();
	return sure;
#else
	return false;
#endif
}

/*
 * The probe armed at @bp_vaddr of the current mm, without a reference
 * (the caller holds uprobes_srcu); NULL when there is none, with
 * *@is_swbp telling whether a breakpoint is still there (a trap of the
 * program's own) or not (the probe went away since the trap: the
 * instruction is restarted).
 */
static struct uprobe *find_active_uprobe(unsigned long bp_vaddr, bool *is_swbp)
{
	struct mm_struct *mm = current->mm;
	struct uprobe *uprobe = NULL;
	struct vm_area_struct *vma;
	uprobe_opcode_t opcode;

	if (!find_uprobe_speculative(mm, bp_vaddr, &uprobe)) {
		mmap_read_lock(mm);
		vma = vma_lookup(mm, bp_vaddr);
		uprobe = vma ? find_vma_uprobe(vma, bp_vaddr) : NULL;
		mmap_read_unlock(mm);
	}
	if (uprobe)
		return uprobe;
	*is_swbp = !copy_from_user(&opcode, (void __user *)bp_vaddr, sizeof(opcode)) &&
		   opcode == UPROBE_SWBP_INSN;
	return NULL;
}

/*
 * Runs the entry handlers of @uprobe's consumers, in registration order;
 * true when each asked to be removed from this mm.
 */
static bool run_handlers(struct uprobe *uprobe, struct pt_regs *regs, bool *want_ret)
{
	struct uprobe_task *utask = current->utask;
	struct uprobe_consumer *uc;
	bool remove = true;
	int rc;

	utask->auprobe = &uprobe->arch;
	list_for_each_entry_srcu(uc, &uprobe->consumers, cons_node,
				 srcu_read_lock_held(&uprobes_srcu)) {
		rc = 0;
		if (uc->handler) {
			rc = uc->handler(uc, regs);
			WARN_ONCE(rc & ~UPROBE_HANDLER_MASK,
				  "uprobes: handler %ps returned %d\n", uc->handler, rc);
		}
		remove &= rc == UPROBE_HANDLER_REMOVE;
		if (uc->ret_handler)
			*want_ret = true;
	}
	utask->auprobe = NULL;
	return remove;
}

/* The handlers asked the probe out of this mm: unless a filter keeps it. */
static void handlers_remove(struct uprobe *uprobe)
{
	struct mm_struct *mm = current->mm;

	down_read(&uprobe->register_rwsem);
	if (!any_consumer_wants(uprobe, mm))
		remove_from_mm(uprobe, mm);
	up_read(&uprobe->register_rwsem);
}

/*
 * Runs @uprobe's instruction out of line without a step, when it can: the
 * task's own slot gets a copy followed by a jump back, and the task goes
 * there.  Nothing comes back to the kernel; a signal that finds the task
 * in the copy is delivered as if at the probed place (leave_own_slot()).
 */
static bool run_direct(struct uprobe *uprobe, struct pt_regs *regs, unsigned long bp_vaddr)
{
	struct uprobe_task *utask = current->utask;
	u8 code[UPROBE_XOL_SLOT_BYTES];
	struct xol_area *area;
	size_t len, insn_len;

	len = arch_uprobe_xol_direct(&uprobe->arch, regs, bp_vaddr, code, &insn_len);
	if (!len)
		return false;
	area = get_xol_area();
	if (!area)
		return false;
	if (!utask->own_slot)
		utask->own_slot = xol_take_own_slot(area);
	if (!utask->own_slot)
		return false;
	xol_write_slot(area, utask->own_slot, code, len);
	utask->own_bp_vaddr = bp_vaddr;
	utask->own_len = insn_len;
	instruction_pointer_set(regs, utask->own_slot);
	return true;
}

/* Where @ip in the task's own slot stands for in the probed code, or 0. */
static unsigned long own_slot_origin(struct uprobe_task *utask, unsigned long ip)
{
	if (!utask || !utask->own_slot || ip < utask->own_slot ||
	    ip > utask->own_slot + utask->own_len)
		return 0;
	return utask->own_bp_vaddr + (ip - utask->own_slot);
}

/*
 * A task about to take a signal in its own slot is moved to the same
 * point of the probed code, so that no signal frame, debugger or core dump
 * sees the XOL page: past the probed instruction when it is at the jump
 * back; at the breakpoint when the copy did not complete (it trapped, or
 * the task is dying).
 */
static void leave_own_slot(struct uprobe_task *utask, struct pt_regs *regs)
{
	unsigned long origin = own_slot_origin(utask, instruction_pointer(regs));

	if (origin)
		instruction_pointer_set(regs, origin);
}

/* The byte just past the copy in the task's own slot becomes @byte: the old one. */
static u8 own_slot_poke(struct xol_area *area, struct uprobe_task *utask, u8 byte)
{
	unsigned long vaddr = utask->own_slot + utask->own_len;
	u8 *kaddr = kmap_local_page(area->page) + (vaddr - area->vaddr);
	u8 old = *kaddr;

	*kaddr = byte;
	flush_dcache_page(area->page);
	kunmap_local(kaddr);
	return old;
}

/*
 * A signal found the task at the copy in its own slot, which has not run
 * or has run in part (a rep string instruction interrupted half-way).
 * Sent back to the probed address, the task would hit the breakpoint and
 * report the same execution twice.  So the signal waits: the jump back
 * becomes a breakpoint, and the task runs the copy to it, from where
 * own_slot_finished() takes it on past the probed instruction.  False when
 * the task cannot finish the copy so (no area): it is then sent back.
 */
static bool own_slot_finish(struct uprobe_task *utask)
{
	struct xol_area *area = mm_xol_area(current->mm);

	if (!area)
		return false;
	utask->own_end = own_slot_poke(area, utask, UPROBE_SWBP_INSN);
	arch_uprobe_watch_traps(&utask->autask);
	utask_set_state(utask, UPROBE_TASK_FINISHING);
	return true;
}

/*
 * The copy run by own_slot_finish() ended: @done, at the breakpoint after
 * it (the ip is just past it); or not, when it trapped or the task is
 * dying.  The slot gets its jump back again, and the task goes on past
 * the probed instruction, or where leave_own_slot() puts it.
 */
static void own_slot_finished(struct uprobe_task *utask, struct pt_regs *regs, bool done)
{
	struct xol_area *area = mm_xol_area(current->mm);

	if (area)
		own_slot_poke(area, utask, utask->own_end);
	arch_uprobe_unwatch_traps(&utask->autask);
	utask_set_state(utask, UPROBE_TASK_RUNNING);
	if (done)
		instruction_pointer_set(regs, utask->own_bp_vaddr + utask->own_len);
	else
		leave_own_slot(utask, regs);
}

/* The breakpoint after the copy came: the signals it held are due. */
static void handle_own_slot_end(struct uprobe_task *utask, struct pt_regs *regs)
{
	unsigned long end = utask->own_slot + utask->own_len + UPROBE_SWBP_INSN_SIZE;

	own_slot_finished(utask, regs, !WARN_ON_ONCE(instruction_pointer(regs) != end));
	release_signals();
}

/*
 * Sets the task up to step @uprobe's instruction in an XOL slot; the
 * step trap brings it back to handle_step().  False when it cannot
 * (no area, no slot): the hit is then given up and restarted.
 */
static bool start_step(struct uprobe *uprobe, struct pt_regs *regs, unsigned long bp_vaddr)
{
	struct uprobe_task *utask = current->utask;
	struct xol_area *area = get_xol_area();
	unsigned long slot;
	const u8 *insn;
	size_t len;

	/* The step outlives the hit: it holds a reference. */
	if (!area || !try_get_uprobe(uprobe))
		return false;
	slot = xol_take_slot(area);
	if (!slot)
		goto put_uprobe;
	insn = arch_uprobe_xol_insn(&uprobe->arch, &len);
	xol_write_slot(area, slot, insn, len);
	if (arch_uprobe_pre_xol(&uprobe->arch, &utask->autask, regs, slot))
		goto free_slot;
	utask->active_uprobe = uprobe;
	utask->bp_vaddr = bp_vaddr;
	utask->xol_vaddr = slot;
	utask_set_state(utask, UPROBE_TASK_STEPPING);
	return true;

free_slot:
	xol_free_slot(area, slot);
put_uprobe:
	put_uprobe(uprobe);
	return false;
}

/**
 * enum hit_end - how a hit ended
 * @HIT_IGNORED: not handled (no task state, or the probe is not READY)
 * @HIT_DONE: the handlers ran and the instruction is carried out
 * @HIT_REMOVE: the same, and the handlers asked the probe out of the mm,
 *	which the caller does once out of uprobes_srcu (hits_done())
 */
enum hit_end {
	HIT_IGNORED,
	HIT_DONE,
	HIT_REMOVE,
};

/*
 * A hit of @uprobe at @bp_vaddr, the registers as at the probed
 * instruction: the handlers run, then the instruction is carried out
 * (by the copy at @copy, if not 0 and not emulated).  The caller holds
 * uprobes_srcu, which keeps @uprobe.
 */
static enum hit_end handle_hit(struct uprobe *uprobe, struct pt_regs *regs,
			       unsigned long bp_vaddr, unsigned long copy)
{
	enum hit_end end = HIT_DONE;
	bool want_ret = false;

	/* An armed probe is READY; the acquire makes its arch visible. */
	if (!get_utask() || smp_load_acquire(&uprobe->insn_state) != INSN_READY)
		return HIT_IGNORED;
	if (run_handlers(uprobe, regs, &want_ret))
		end = HIT_REMOVE;
	else if (want_ret && instruction_pointer(regs) == bp_vaddr)
		prepare_uretprobe(uprobe, regs, bp_vaddr);
	/* A handler that moved the ip has taken the task elsewhere. */
	if (instruction_pointer(regs) != bp_vaddr)
		return end;
	if (arch_uprobe_emulate(&uprobe->arch, regs))
		return end;
	if (copy)
		instruction_pointer_set(regs, copy);
	else if (!run_direct(uprobe, regs, bp_vaddr))
		start_step(uprobe, regs, bp_vaddr);
	return end;
}

/*
 * What a hit of @uprobe at @vaddr leaves to do once out of uprobes_srcu,
 * where it may wait for locks that holders of them wait for the hits
 * under: the removal the handlers asked for, else the jump, if @jump.
 * @uprobe is a reference of the caller's, which this drops.
 */
static void hits_done(struct uprobe *uprobe, enum hit_end end, unsigned long vaddr, bool jump)
{
	if (end == HIT_REMOVE)
		handlers_remove(uprobe);
	else if (end == HIT_DONE && jump)
		try_jump(uprobe, vaddr);
	put_uprobe(uprobe);
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
	uprobe = find_uprobe_srcu(READ_ONCE(site->inode), READ_ONCE(site->offset));
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
	struct uprobe_task *utask;
	struct stub_site *site;
	unsigned long offset;

	site = current->mm ? stub_at(current->mm, stub, &offset) : NULL;
	if (!site || offset)
		return false;
	if (!arch_uprobe_stub_enter(regs))
		return true;
	handle_stub_hit(site, regs, stub);
	/* A step has its own way back; the rest goes out through the stub. */
	utask = current->utask;
	if (!utask || utask->state == UPROBE_TASK_RUNNING)
		arch_uprobe_stub_exit(regs, stub);
	return true;
}

/* A breakpoint hit: the trap left the ip just past it. */
static void handle_breakpoint(struct pt_regs *regs)
{
	unsigned long bp_vaddr = instruction_pointer(regs) - UPROBE_SWBP_INSN_SIZE;
	struct uprobe *uprobe, *later = NULL;
	bool is_swbp = false, jump;
	enum hit_end end;
	int idx;

	if (bp_vaddr == uprobe_get_trampoline_vaddr()) {
		uprobe_handle_trampoline(regs);
		return;
	}
	idx = srcu_read_lock(&uprobes_srcu);
	uprobe = find_active_uprobe(bp_vaddr, &is_swbp);
	if (!uprobe) {
		srcu_read_unlock(&uprobes_srcu, idx);
		if (is_swbp)
			force_sig(SIGTRAP);
		else
			instruction_pointer_set(regs, bp_vaddr);
		return;
	}
	instruction_pointer_set(regs, bp_vaddr);
	/* Asked before the hit: a step of the instruction sets TF. */
	jump = may_jump(uprobe, regs, bp_vaddr);
	end = handle_hit(uprobe, regs, bp_vaddr, 0);
	if (end == HIT_REMOVE || (end == HIT_DONE && jump))
		later = try_get_uprobe(uprobe);
	srcu_read_unlock(&uprobes_srcu, idx);
	if (later)
		hits_done(later, end, bp_vaddr, jump);
}

/* The step ended (or was abandoned): fix the task up and free the slot. */
static void handle_step(struct uprobe_task *utask, struct pt_regs *regs)
{
	struct uprobe *uprobe = utask->active_uprobe;
	struct xol_area *area = mm_xol_area(current->mm);
	int err = 0;

	if (utask->state == UPROBE_TASK_STEPPED)
		err = arch_uprobe_post_xol(&uprobe->arch, &utask->autask, regs,
					   utask->xol_vaddr, utask->bp_vaddr);
	else
		arch_uprobe_abort_xol(&uprobe->arch, &utask->autask, regs, utask->bp_vaddr);
	utask_set_state(utask, UPROBE_TASK_RUNNING);
	put_uprobe(uprobe);
	utask->active_uprobe = NULL;
	if (area)
		xol_free_slot(area, utask->xol_vaddr);
	utask->xol_vaddr = 0;
	release_signals();
	if (err) {
		pr_warn_ratelimited("uprobes: pid %d: the probed instruction at 0x%lx could not complete (%d)\n",
				    current->pid, utask->bp_vaddr, err);
		force_sig(SIGILL);
	}
}

/*
 * A signal found the task at the copy in a stub: the hit is reported
 * already, and sent back to the probed address the task would come
 * through the stub again and report it twice.  So the signal waits while
 * the task is stepped over the copy (handle_stub_step()).  False when the
 * task is elsewhere, or dying (it is then put back at the probed address).
 */
static bool stub_copy_finish(struct uprobe_task *utask, struct pt_regs *regs)
{
	unsigned long ip = instruction_pointer(regs), offset;
	struct stub_site *site = stub_at(current->mm, ip, &offset);

	if (!site || !site->len || offset != UPROBE_STUB_COPY)
		return false;
	if (__fatal_signal_pending(current)) {
		instruction_pointer_set(regs, site->vaddr);
		return false;
	}
	utask->bp_vaddr = site->vaddr;
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
static void stub_copy_stepped(struct uprobe_task *utask, struct pt_regs *regs, bool done)
{
	unsigned long ip = instruction_pointer(regs);

	arch_uprobe_step_copy_end(&utask->autask, regs);
	utask_set_state(utask, UPROBE_TASK_RUNNING);
	instruction_pointer_set(regs, utask->bp_vaddr + (done ? ip - utask->xol_vaddr : 0));
	utask->xol_vaddr = 0;
}

/* The step trap after a stub's copy: the signals it held are due. */
static void handle_stub_step(struct uprobe_task *utask, struct pt_regs *regs)
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
static bool stub_copy_deny_signal(struct uprobe_task *utask, struct pt_regs *regs)
{
	if (!__fatal_signal_pending(current) &&
	    !arch_uprobe_xol_was_trapped(&utask->autask))
		return true;
	stub_copy_stepped(utask, regs, false);
	return false;
}

/**
 * uprobe_notify_resume - the work of a hit, on the way back to user mode
 * @regs: the task's registers
 */
void uprobe_notify_resume(struct pt_regs *regs)
{
	struct uprobe_task *utask = current->utask;

	clear_thread_flag(TIF_UPROBE);
	if (utask && (utask->state == UPROBE_TASK_STEPPED ||
		      utask->state == UPROBE_TASK_STEP_ABANDON))
		handle_step(utask, regs);
	else if (utask && utask->state == UPROBE_TASK_FINISHING)
		handle_own_slot_end(utask, regs);
	else if (utask && utask->state == UPROBE_TASK_STUB_STEPPING)
		handle_stub_step(utask, regs);
	else
		handle_breakpoint(regs);
}

/**
 * uprobe_pre_sstep_notifier - a breakpoint trap in user mode
 * @regs: the task's registers
 *
 * Return: true when the trap may be ours (the mm has had probes): it is
 * then handled on the way back to user mode.
 */
bool uprobe_pre_sstep_notifier(struct pt_regs *regs)
{
	struct mm_struct *mm = current->mm;

	if (!mm || !test_bit(MMF_HAS_UPROBES, &mm->flags))
		return false;
	set_thread_flag(TIF_UPROBE);
	return true;
}

/**
 * uprobe_post_sstep_notifier - a single-step trap in user mode
 * @regs: the task's registers
 *
 * Return: true when it ends a step of ours.
 */
bool uprobe_post_sstep_notifier(struct pt_regs *regs)
{
	struct uprobe_task *utask = current->utask;

	if (!utask || (utask->state != UPROBE_TASK_STEPPING &&
		       utask->state != UPROBE_TASK_STUB_STEPPING))
		return false;
	if (utask->state == UPROBE_TASK_STEPPING)
		utask_set_state(utask, UPROBE_TASK_STEPPED);
	set_thread_flag(TIF_UPROBE);
	return true;
}

/*
 * Whether a signal must wait for the task, running in its own slot, to
 * finish the copy there (see own_slot_finish()).
 */
static bool own_slot_deny_signal(struct uprobe_task *utask, struct pt_regs *regs)
{
	bool give_up = __fatal_signal_pending(current);

	if (utask->state == UPROBE_TASK_FINISHING) {
		give_up |= arch_uprobe_xol_was_trapped(&utask->autask);
		if (!give_up)
			return true;
		own_slot_finished(utask, regs, false);
		return false;
	}
	if (utask->own_slot && instruction_pointer(regs) == utask->own_slot &&
	    !give_up && own_slot_finish(utask))
		return true;
	leave_own_slot(utask, regs);
	return false;
}

/**
 * uprobe_deny_signal - hold signals back while a probed instruction runs
 *	out of line
 *
 * A signal is never delivered in the XOL page or a stub.  One that comes
 * between the start of a step and its fixups waits for them; so does one
 * that finds the task before the end of the copy in its own slot
 * (own_slot_finish()) or at the copy in a stub (stub_copy_finish()).  If
 * the instruction itself trapped, or the signal is fatal, the step or copy
 * is given up first: the task is put back at the probed address, and the
 * signal delivered there.  A signal that finds the task at the jump back in
 * its own slot is delivered just past the probed instruction.
 *
 * Return: true when signal delivery is to wait.
 */
bool uprobe_deny_signal(void)
{
	struct task_struct *t = current;
	struct uprobe_task *utask = t->utask;
	struct pt_regs *regs = task_pt_regs(t);

	leave_stub(regs);
	if (!utask)
		return false;
	if (utask->state == UPROBE_TASK_STUB_STEPPING) {
		if (!stub_copy_deny_signal(utask, regs))
			return false;
	} else if (!utask_stepping(utask) && !stub_copy_finish(utask, regs) &&
		   !own_slot_deny_signal(utask, regs)) {
		return false;
	}
	spin_lock_irq(&t->sighand->siglock);
	clear_tsk_thread_flag(t, TIF_SIGPENDING);
	spin_unlock_irq(&t->sighand->siglock);
	if (utask->state == UPROBE_TASK_STEPPING &&
	    (__fatal_signal_pending(t) || arch_uprobe_xol_was_trapped(&utask->autask))) {
		utask_set_state(utask, UPROBE_TASK_STEP_ABANDON);
		set_tsk_thread_flag(t, TIF_UPROBE);
	}
	return true;
}

/**
 * uprobe_get_trap_addr - the address to report for a trap
 * @regs: the task's registers
 *
 * Return: the probed address while its instruction runs out of line (in
 * a slot or a stub), else the ip.
 */
unsigned long uprobe_get_trap_addr(struct pt_regs *regs)
{
	struct uprobe_task *utask = current->utask;
	unsigned long ip = instruction_pointer(regs), offset;
	unsigned long origin = own_slot_origin(utask, ip);
	struct stub_site *site;

	if (utask && (utask_stepping(utask) || utask->state == UPROBE_TASK_STUB_STEPPING))
		return utask->bp_vaddr;
	site = current->mm ? stub_at(current->mm, ip, &offset) : NULL;
	if (site && site->len && offset >= UPROBE_STUB_COPY)
		return site->vaddr + offset - UPROBE_STUB_COPY;
	return origin ?: ip;
}

void __init uprobes_init(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(uprobes_by_addr); i++) {
		INIT_HLIST_HEAD(&uprobes_by_addr[i]);
		INIT_HLIST_HEAD(&uprobes_by_inode[i]);
	}
}
