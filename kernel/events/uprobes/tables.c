// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprobes core, the probe tables: every live probe, by (owner, offset)
 * for the hits and by owner for the walks over a mapping; the owner is a
 * file's inode, or the mm of a probe in anonymous memory.
 *
 * Writers hold uprobes_lock; readers walk under RCU and take a reference
 * (refcount_inc_not_zero()) on what they keep, except a hit, which keeps
 * the probe by uprobes_srcu alone (find_uprobe_srcu()).  The last
 * put_uprobe() frees the probe after an SRCU grace period (the hits),
 * then an RCU one (the readers of the tables).
 *
 * A list of probes taken from the tables is never short: it is counted
 * under RCU, allocated outside, and counted again until it fits
 * (snapshot_uprobes()); without memory for a list, visit_probes() finds
 * the probes one at a time.
 *
 * A probe that is stepped gets, at its first step, a probe slot: an index
 * among the XOL_PROBE_SLOTS slots that every mm's XOL area keeps for
 * probes (xol.c), its own until the probe is freed, and a tag that no
 * other probe has (a count of the probes given slots, which a 32-bit
 * kernel would take 2^32 of them to wrap), by which an area tells whether
 * the slot holds the probe's instruction or that of an earlier holder of
 * the index.  The index is freed with the probe, when no step of it can
 * be under way.
 */

#include <linux/sort.h>

#include "internal.h"

DEFINE_SRCU(uprobes_srcu);
atomic_t uprobes_count = ATOMIC_INIT(0);

static DEFINE_SPINLOCK(uprobes_lock);
static DEFINE_IDA(probe_slots);
static DEFINE_MUTEX(probe_slot_lock);	/* assigns probe slots and tags */
static unsigned long probe_slot_last_tag;	/* probe_slot_lock */
static struct hlist_head uprobes_by_addr[1 << UPROBES_HASH_BITS];
static struct hlist_head uprobes_by_inode[1 << UPROBES_HASH_BITS];

/* ---------------------------------------------------------------------
 * Probes and references
 */

/* What a probe is keyed by: its file's inode, or its mm. */
static const void *uprobe_owner(struct inode *inode, struct mm_struct *mm)
{
	return inode ? (const void *)inode : (const void *)mm;
}

static struct hlist_head *addr_bucket(const void *owner, loff_t offset)
{
	return &uprobes_by_addr[hash_64((unsigned long)owner ^ offset, UPROBES_HASH_BITS)];
}

/* The bucket of the probes of a file (@owner its inode) or of an mm. */
struct hlist_head *owner_bucket(const void *owner)
{
	return &uprobes_by_inode[hash_ptr((void *)owner, UPROBES_HASH_BITS)];
}

/*
 * A reference for what outlives a hit, which found @uprobe under
 * uprobes_srcu without one: NULL if the probe is on its way out.
 */
struct uprobe *try_get_uprobe(struct uprobe *uprobe)
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
	llist_for_each_entry_safe(uprobe, next, list, free_node) {
		if (uprobe->mm)
			mmdrop(uprobe->mm);
		if (uprobe->probe_slot)
			ida_free(&probe_slots, uprobe->probe_slot - 1);
		kfree_rcu(uprobe, rcu);
	}
}

static DECLARE_WORK(free_uprobes_work, free_uprobes);

/*
 * The inode goes at once: a hit only compares it.  The mm of a probe in
 * anonymous memory goes with the probe (free_uprobes()): mmdrop() is not
 * for every caller's context.
 */
void put_uprobe(struct uprobe *uprobe)
{
	if (!refcount_dec_and_test(&uprobe->ref))
		return;
	iput(uprobe->inode);
	if (llist_add(&uprobe->free_node, &uprobes_to_free))
		schedule_work(&free_uprobes_work);
}

/**
 * uprobe_probe_slot - the probe slot of @uprobe, assigned at the first call
 * @uprobe: a probe the caller holds a reference on, about to be stepped
 * @tag: set to the probe's tag
 *
 * Return: the index of its slot among the XOL_PROBE_SLOTS, or -ENOSPC
 * when other probes hold them all (-ENOMEM without memory).
 */
int uprobe_probe_slot(struct uprobe *uprobe, unsigned long *tag)
{
	/* Pairs with the release below: the tag is set before the slot. */
	unsigned int slot = smp_load_acquire(&uprobe->probe_slot);
	int index = 0;

	if (!slot) {
		mutex_lock(&probe_slot_lock);
		if (!uprobe->probe_slot) {
			index = ida_alloc_max(&probe_slots, XOL_PROBE_SLOTS - 1, GFP_KERNEL);
			if (index >= 0) {
				uprobe->probe_slot_tag = ++probe_slot_last_tag;
				/* The tag first: pairs with the acquire above. */
				smp_store_release(&uprobe->probe_slot, index + 1);
			}
		}
		slot = uprobe->probe_slot;
		mutex_unlock(&probe_slot_lock);
		if (index < 0)
			return index;
	}
	*tag = uprobe->probe_slot_tag;
	return slot - 1;
}

/* ---------------------------------------------------------------------
 * Lookups
 */

/*
 * The probe at @offset of @inode (@mm NULL), or at address @offset of
 * @mm's anonymous memory (@inode NULL), that still has references, or
 * NULL; with one more for the caller if @get.  The caller holds
 * rcu_read_lock().
 */
static __always_inline struct uprobe *lookup_uprobe(struct inode *inode,
						    struct mm_struct *mm,
						    loff_t offset, bool get)
{
	struct hlist_head *bucket = addr_bucket(uprobe_owner(inode, mm), offset);
	struct uprobe *uprobe;

	hlist_for_each_entry_rcu(uprobe, bucket, addr_node) {
		if (uprobe->inode == inode && uprobe->mm == mm && uprobe->offset == offset &&
		    (get ? refcount_inc_not_zero(&uprobe->ref) : refcount_read(&uprobe->ref)))
			return uprobe;
	}
	return NULL;
}

/* The probe at (@inode or @mm, @offset) with a reference, or NULL. */
static struct uprobe *find_uprobe(struct inode *inode, struct mm_struct *mm, loff_t offset)
{
	struct uprobe *uprobe;

	rcu_read_lock();
	uprobe = lookup_uprobe(inode, mm, offset, true);
	rcu_read_unlock();
	return uprobe;
}

/*
 * The probe at (@inode or @mm, @offset), without a reference, for a hit:
 * the caller holds uprobes_srcu.  A probe with references left when the
 * hit held uprobes_srcu already is freed after the hit (put_uprobe()).
 */
struct uprobe *find_uprobe_srcu(struct inode *inode, struct mm_struct *mm, loff_t offset)
{
	struct uprobe *uprobe;

	RCU_LOCKDEP_WARN(!srcu_read_lock_held(&uprobes_srcu), "a hit without uprobes_srcu");
	rcu_read_lock();
	uprobe = lookup_uprobe(inode, mm, offset, false);
	rcu_read_unlock();
	return uprobe;
}

/* ---------------------------------------------------------------------
 * Adding and removing
 */

/* A probe of @inode, or of @mm's anonymous memory (@inode NULL). */
static struct uprobe *alloc_uprobe(struct inode *inode, struct mm_struct *mm,
				   loff_t offset, loff_t ref_ctr_offset)
{
	struct uprobe *uprobe = kzalloc(sizeof(*uprobe), GFP_KERNEL);

	if (!uprobe)
		return NULL;
	refcount_set(&uprobe->ref, 1);
	init_rwsem(&uprobe->register_rwsem);
	INIT_LIST_HEAD(&uprobe->consumers);
	INIT_LIST_HEAD(&uprobe->unfinished_node);
	mutex_init(&uprobe->insn_mutex);
	uprobe->offset = offset;
	uprobe->ref_ctr_offset = ref_ctr_offset;
	if (!inode) {
		mmgrab(mm);
		uprobe->mm = mm;
		return uprobe;
	}
	uprobe->inode = igrab(inode);
	if (!uprobe->inode) {
		kfree(uprobe);
		return NULL;
	}
	return uprobe;
}

/*
 * The probe at (@inode or @mm, @offset), made if there is none, with a
 * reference for the caller.  A probe keeps the SDT counter it was made
 * with, or none: any other (none included, against one) is refused.
 */
struct uprobe *get_or_add_uprobe(struct inode *inode, struct mm_struct *mm,
				 loff_t offset, loff_t ref_ctr_offset)
{
	const void *owner = uprobe_owner(inode, mm);
	struct uprobe *uprobe, *old;

	uprobe = alloc_uprobe(inode, mm, offset, ref_ctr_offset);
	if (!uprobe)
		return ERR_PTR(-ENOMEM);
	spin_lock(&uprobes_lock);
	old = find_uprobe(inode, mm, offset);
	if (!old) {
		hlist_add_head_rcu(&uprobe->addr_node, addr_bucket(owner, offset));
		hlist_add_head_rcu(&uprobe->inode_node, owner_bucket(owner));
		atomic_inc(&uprobes_count);
		if (mm)
			atomic_inc(&mm->uprobes_state.nr_anon);
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

/*
 * Takes @uprobe out of the tables, unless it is out already (a probe in
 * anonymous memory leaves them when it loses its place, anon.c): true
 * if this call did.
 */
bool unhash_uprobe(struct uprobe *uprobe)
{
	bool was_live;

	spin_lock(&uprobes_lock);
	was_live = uprobe_is_live(uprobe);
	if (was_live) {
		hlist_del_init_rcu(&uprobe->addr_node);
		hlist_del_rcu(&uprobe->inode_node);
		atomic_dec(&uprobes_count);
		if (uprobe->mm)
			atomic_dec(&uprobe->mm->uprobes_state.nr_anon);
	}
	spin_unlock(&uprobes_lock);
	return was_live;
}

/* ---------------------------------------------------------------------
 * Lists of probes
 */

/*
 * Counts @uprobe into a list being filled (room for @max, *@n so far),
 * and puts it there with a reference while there is room.  A probe on its
 * way out (no references left) is left out.
 */
static void fill_one(struct uprobe **list, unsigned int max, unsigned int *n,
		     struct uprobe *uprobe)
{
	if (*n < max) {
		if (!try_get_uprobe(uprobe))
			return;
		list[*n] = uprobe;
	}
	(*n)++;
}

/*
 * Fills @list (room for @max) with the live probes, each with a reference;
 * the number there are, which may exceed @max.
 */
static unsigned int collect_live_uprobes(struct uprobe **list, unsigned int max,
					 const void *unused)
{
	struct uprobe *uprobe;
	unsigned int i, n = 0;

	rcu_read_lock();
	for (i = 0; i < ARRAY_SIZE(uprobes_by_addr); i++) {
		hlist_for_each_entry_rcu(uprobe, &uprobes_by_addr[i], addr_node)
			fill_one(list, max, &n, uprobe);
	}
	rcu_read_unlock();
	return n;
}

/* Drops the references of @n probes of @list, and frees it. */
void put_uprobe_list(struct uprobe **list, unsigned int n)
{
	while (n--)
		put_uprobe(list[n]);
	kvfree(list);
}

/**
 * snapshot_uprobes - a list of probes that is never short
 * @fill: fills a list of the room it is given with probes, each with a
 *	reference, and says how many there are, which may be more
 * @ctx: @fill's argument
 * @listp: the list, a new array that the caller frees with put_uprobe_list()
 *
 * @fill walks under RCU, where nothing can be allocated: the list is
 * allocated between walks, and the walk done again while it was too small.
 *
 * Return: the number of probes in the list, or -ENOMEM.
 */
int snapshot_uprobes(probe_fill_fn fill, const void *ctx, struct uprobe ***listp)
{
	struct uprobe **list = NULL;
	unsigned int max = 0, n;

	for (;;) {
		n = fill(list, max, ctx);
		if (n <= max)
			break;
		put_uprobe_list(list, max);
		max = n + 16;
		list = kvcalloc(max, sizeof(*list), GFP_KERNEL);
		if (!list)
			return -ENOMEM;
	}
	*listp = list;
	return n;
}

/*
 * The live probes, each with a reference, in a new array (*@listp) that
 * the caller frees with put_uprobe_list(); their number, or -ENOMEM.
 */
int get_live_uprobes(struct uprobe ***listp)
{
	return snapshot_uprobes(collect_live_uprobes, NULL, listp);
}

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
		if (bm->match(uprobe, bm->arg))
			fill_one(list, max, &n, uprobe);
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
void visit_probes_one_by_one(const void *owner, probe_match_fn match, const void *arg,
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

void __init uprobes_init(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(uprobes_by_addr); i++) {
		INIT_HLIST_HEAD(&uprobes_by_addr[i]);
		INIT_HLIST_HEAD(&uprobes_by_inode[i]);
	}
}
