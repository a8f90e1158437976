/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the files of the uprobes core share: the probe, the XOL area, and
 * the functions one file calls in another, grouped by file from the
 * bottom layer up.  See core.c for the design, the layers, the lock order
 * and what keeps each object alive; stubs.h for what the stub files share.
 */
#ifndef _KERNEL_EVENTS_UPROBES_INTERNAL_H
#define _KERNEL_EVENTS_UPROBES_INTERNAL_H

#include <linux/cred.h>
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
#include <linux/seq_file.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/security.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/task_work.h>
#include <linux/uprobes.h>
#include <linux/workqueue.h>

#define UPROBES_HASH_BITS	10
#define XOL_PAGES_MAX		32
#define XOL_SLOTS_PER_PAGE	(PAGE_SIZE / UPROBE_XOL_SLOT_BYTES)
#define XOL_SLOTS		(XOL_PAGES_MAX * XOL_SLOTS_PER_PAGE)
/* The probes' slots, at the start of the area's second page (xol.c). */
#define XOL_PROBE_SLOTS		MIN(XOL_SLOTS_PER_PAGE, 512)
#define XOL_SHARED_SLOTS	16	/* never kept by a task: left for steps */
#define UPROBE_SPARE_RETURNS	8	/* return_instances a task keeps for reuse */

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
 * enum anon_state - where a probe in anonymous memory stands
 * @ANON_LIVE: armed while a consumer wants it
 * @ANON_HELD: its breakpoint was taken out while its page is writable and
 *	not executable (a JIT writing code): armed again once the page is
 *	executable again, if the instruction is still the same
 * @ANON_LOST: its place is gone (unmapped, moved, rewritten, the process
 *	gone); it is out of the tables, for good
 *
 * Transitions: LIVE -> HELD -> LIVE under the mm's mmap_lock held for
 * writing, and LIVE or HELD -> LOST under it held at least for reading
 * (anon_set_state()): stable for a holder of it for writing.
 */
enum anon_state {
	ANON_LIVE,
	ANON_HELD,
	ANON_LOST,
};

/**
 * struct uprobe - one probed place
 * @addr_node: in uprobes_by_addr (uprobes_lock; RCU readers)
 * @inode_node: in uprobes_by_inode, by owner (uprobes_lock; RCU readers)
 * @ref: references: one per consumer, plus transient users
 * @register_rwsem: serializes register, unregister and apply
 * @consumers: the consumers, in registration order (register_rwsem;
 *	uprobes_srcu readers)
 * @insn_mutex: guards @insn_state and @arch while they are filled in
 * @insn_state: see enum uprobe_insn_state (read locklessly once READY)
 * @insn_err: why the instruction was refused
 * @compat: @arch holds code of the compat mode (probe_is_compat()); armed
 *	only in mms that run such code (ARCH_UPROBES_COMPAT)
 * @stub_refused: the instruction could not be copied into a stub (a
 *	RIP-relative operand out of reach): no more tries to give the probe
 *	a jump (set once, read locklessly)
 * @inode: the probed file (a reference is held), or NULL for a probe in
 *	anonymous memory
 * @mm: the mm of a probe in anonymous memory (mmgrab()), else NULL
 * @anon_state: a probe in anonymous memory: see enum anon_state
 * @anon_err: why it was lost (ANON_LOST), for its consumers' notify()
 * @offset: the probed offset in @inode, or the address in @mm
 * @ref_ctr_offset: the SDT semaphore's offset in @inode, or 0
 * @unfinished_node: in the list of removals to finish (core.c), with a
 *	reference, while @unfinished
 * @unfinished: the walk that disarmed the probe failed somewhere: it
 *	stays in the tables until a walk succeeds (register_rwsem)
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
	bool compat;
	bool stub_refused;
	struct inode *inode;
	struct mm_struct *mm;
	enum anon_state anon_state;
	int anon_err;
	loff_t offset;
	loff_t ref_ctr_offset;
	struct list_head unfinished_node;
	bool unfinished;
	struct llist_node free_node;
	struct rcu_head rcu;
	unsigned int probe_slot;	/* its XOL probe slot + 1, or 0 (tables.c) */
	unsigned long probe_slot_tag;
	struct arch_uprobe arch;
};

/**
 * struct xol_area - the per-mm page of XOL slots and the trampoline, and
 *	the mm's stub pages
 * @vaddr: where the area is mapped in the mm (XOL_PAGES_MAX pages)
 * @pages: its pages: the first (slot 0 holds the return-probe trampoline)
 *	from the start, each other one from when a slot in it is first taken;
 *	set once by cmpxchg(), read with acquire, freed with the mm
 * @slots: the slots in use; lockless: test_and_set_bit() takes one.
 *	The probes' slots are always set: never taken, never freed
 * @wq: tasks waiting for a free slot (only when all are in use)
 * @probe_slot_lock: writers of the probes' slots
 * @probe_slot_tags: the tag of the probe each probe slot holds the
 *	instruction of (struct uprobe.probe_slot_tag), or 0; written under
 *	@probe_slot_lock once the code is, read with acquire
 * @stub_pages: the mm's stub pages (mmap_lock write; RCU readers); only
 *	ever added to until the mm goes
 * @nr_stub_pages: how many there are (mmap_lock write)
 * @nr_hop_pages: how many of them are pages of hops (mmap_lock write)
 * @no_stubs: a stub could not be had: no more tries in this mm
 * @no_pun: the addresses of this mm where a punned jump could not be
 *	had, each with why (enum no_pun_why, jumps.c): no more tries there;
 *	forgotten with the text there (mmap_lock write)
 * @nr_no_pun: how many addresses @no_pun holds, at most NO_PUN_MAX
 *	(mmap_lock write)
 * @no_pun_full: @no_pun is full: no more punned jumps in the mm until
 *	some of it is forgotten (mmap_lock write; read locklessly)
 */
struct xol_area {
	unsigned long vaddr;
	struct page *pages[XOL_PAGES_MAX];
	DECLARE_BITMAP(slots, XOL_SLOTS);
	wait_queue_head_t wq;
	struct mutex probe_slot_lock;	/* writers of the probe slots */
	unsigned long probe_slot_tags[XOL_PROBE_SLOTS];
	struct list_head stub_pages;
	unsigned int nr_stub_pages;
	unsigned int nr_hop_pages;
	bool no_stubs;
	struct xarray no_pun;
	unsigned int nr_no_pun;
	bool no_pun_full;
};

extern struct srcu_struct uprobes_srcu;
extern atomic_t uprobes_count;

static inline struct uprobe *get_uprobe(struct uprobe *uprobe)
{
	refcount_inc(&uprobe->ref);
	return uprobe;
}

static inline bool uprobe_is_live(struct uprobe *uprobe)
{
	return !hlist_unhashed_lockless(&uprobe->addr_node);
}

static inline loff_t vaddr_to_offset(struct vm_area_struct *vma, unsigned long vaddr)
{
	return ((loff_t)vma->vm_pgoff << PAGE_SHIFT) + (vaddr - vma->vm_start);
}

static inline unsigned long offset_to_vaddr(struct vm_area_struct *vma, loff_t offset)
{
	return vma->vm_start + offset - ((loff_t)vma->vm_pgoff << PAGE_SHIFT);
}

static inline struct xol_area *mm_xol_area(struct mm_struct *mm)
{
	/* Pairs with the release in publish_xol_area(). */
	return smp_load_acquire(&mm->uprobes_state.xol_area);
}

/* Whether @utask is in a single-step, from its start to its fixups. */
static inline bool utask_stepping(struct uprobe_task *utask)
{
	return utask->state == UPROBE_TASK_STEPPING ||
	       utask->state == UPROBE_TASK_STEPPED ||
	       utask->state == UPROBE_TASK_STEP_ABANDON;
}

/*
 * Whether @uc's handlers run in the current task: not those of a consumer
 * of another process, nor of one a handler is unregistering (defer.c).
 */
static inline bool consumer_runs(struct uprobe_consumer *uc)
{
	return !READ_ONCE(uc->leaving) && (!uc->mm || uc->mm == current->mm);
}

/* Whether @uc wants its probe in @mm: its process's (if any) and its filter's. */
static inline bool consumer_wants(struct uprobe_consumer *uc, struct mm_struct *mm)
{
	if (uc->mm && uc->mm != mm)
		return false;
	return !uc->filter || uc->filter(uc, mm);
}

/* A probe of a batch of registrations, with the consumer that comes. */
struct batch_probe {
	struct uprobe *uprobe;
	struct uprobe_consumer *uc;
};

/**
 * enum walk_op - what a walk over a file's mappings does to its probes
 * @WALK_DISARM: disarm each probe where no consumer wants it any more
 * @WALK_ARM: arm each probe where its consumer wants it
 * @WALK_UNJUMP: put the breakpoint back in place of each probe's jump
 */
enum walk_op {
	WALK_DISARM,
	WALK_ARM,
	WALK_UNJUMP,
};

/* text.c: a process's text */
bool valid_vm_flags(vm_flags_t flags, bool arming);
bool valid_vma(struct vm_area_struct *vma, bool arming);
bool vma_maps(struct vm_area_struct *vma, struct inode *inode, loff_t offset);
struct page *get_mm_page(struct mm_struct *mm, unsigned long vaddr, bool write);
int read_mm_bytes(struct mm_struct *mm, unsigned long vaddr, void *buf, size_t len,
		  bool *copy);
int write_mm_text(struct mm_struct *mm, unsigned long vaddr, const void *buf, size_t len);
int read_anon_insn(struct mm_struct *mm, unsigned long vaddr, void *buf, size_t len);
struct folio *get_file_folio(struct address_space *mapping, pgoff_t index,
			     struct file *file);
int prepare_insn(struct uprobe *uprobe, struct file *file, struct mm_struct *mm,
		 unsigned long vaddr);

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

void text_batch_start(struct text_batch *tb, struct vm_area_struct *vma, unsigned int max);
int text_batch_write(struct text_batch *tb, unsigned long vaddr, uprobe_opcode_t opcode,
		     bool drop_copy);
void text_batch_end(struct text_batch *tb);

/* tables.c: the probe tables */
struct hlist_head *owner_bucket(const void *owner);
struct uprobe *try_get_uprobe(struct uprobe *uprobe);
void put_uprobe(struct uprobe *uprobe);
int uprobe_probe_slot(struct uprobe *uprobe, unsigned long *tag);
struct uprobe *find_uprobe_srcu(struct inode *inode, struct mm_struct *mm, loff_t offset);
struct uprobe *get_or_add_uprobe(struct inode *inode, struct mm_struct *mm,
				 loff_t offset, loff_t ref_ctr_offset);
bool unhash_uprobe(struct uprobe *uprobe);
typedef unsigned int (*probe_fill_fn)(struct uprobe **list, unsigned int max, const void *ctx);
int snapshot_uprobes(probe_fill_fn fill, const void *ctx, struct uprobe ***listp);
int get_live_uprobes(struct uprobe ***listp);
void put_uprobe_list(struct uprobe **list, unsigned int n);
typedef bool (*probe_match_fn)(struct uprobe *uprobe, const void *arg);
typedef void (*probe_visit_fn)(struct uprobe *uprobe, void *ctx);
int collect_probes(const void *owner, probe_match_fn match, const void *arg,
		   struct uprobe ***listp);
void visit_probes(const void *owner, probe_match_fn match, const void *arg,
		  probe_visit_fn fn, void *ctx);
void visit_probes_one_by_one(const void *owner, probe_match_fn match, const void *arg,
			     probe_visit_fn fn, void *ctx);

/* task.c: per-task state */
void utask_set_state(struct uprobe_task *utask, enum uprobe_task_state state);
void release_signals(void);
struct uprobe_task *alloc_utask(void);
struct return_instance *take_return_instances(struct uprobe_task *utask,
					      struct return_instance *keep);
struct return_instance *alloc_return_instance(struct uprobe_task *utask);
void put_return_instance(struct uprobe_task *utask, struct return_instance *ri);
void free_return_instances(struct uprobe_task *utask, struct return_instance *ri,
			   struct return_instance *keep);
void drop_return_instances(struct uprobe_task *utask, struct return_instance *keep);

/* The current task's uprobe_task, made at its first hit; NULL without memory. */
static inline struct uprobe_task *get_utask(void)
{
	return current->utask ?: alloc_utask();
}

/* xol.c: the XOL area */
int xol_mremap(const struct vm_special_mapping *sm, struct vm_area_struct *new_vma);
struct xol_area *get_xol_area(void);
struct page *alloc_swbp_page(void);
unsigned long xol_take_slot(struct xol_area *area);
unsigned long xol_probe_slot(struct xol_area *area, unsigned int index, unsigned long tag,
			     const u8 *insn, size_t len);
unsigned long xol_take_own_slot(struct xol_area *area);
void xol_free_slot(struct xol_area *area, unsigned long vaddr);
void xol_write_slot(struct xol_area *area, unsigned long vaddr,
		    const u8 *insn, size_t len);
u8 xol_swap_byte(struct xol_area *area, unsigned long vaddr, u8 byte);
void xol_dup(struct mm_struct *oldmm, struct mm_struct *newmm);
int xol_dup_dontfork(struct mm_struct *oldmm, struct mm_struct *newmm);
int map_dontfork_again(struct mm_struct *oldmm, struct mm_struct *newmm, unsigned long start,
		       unsigned long len, const struct vm_special_mapping *sm);
void xol_free(struct mm_struct *mm);

/* core.c: consumers */
struct uprobe *register_consumer(struct inode *inode, loff_t offset, loff_t ref_ctr_offset,
				 struct uprobe_consumer *uc, struct mm_struct *mm);

/* arm.c: breakpoints in every process that maps a file */
bool any_consumer_wants(struct uprobe *uprobe, struct mm_struct *mm);
void drop_delayed_of_mm(struct mm_struct *mm);
int walk_batch(struct inode *inode, struct batch_probe *probes, unsigned int n,
	       enum walk_op op);
int walk_mappings(struct uprobe *uprobe, struct uprobe_consumer *uc);
void remove_from_mm(struct uprobe *uprobe, struct mm_struct *mm);
void arm_new_vma(struct vm_area_struct *vma);
bool probe_in_vma(struct uprobe *uprobe, const void *vma);
void arm_fork_begin(void);
void arm_fork_end(void);

/* anon.c: probes in anonymous memory */
bool anon_exec_vma(struct vm_area_struct *vma);
struct uprobe *find_anon_uprobe(struct vm_area_struct *vma, unsigned long vaddr);
int walk_anon(struct uprobe *uprobe, struct uprobe_consumer *uc);
void remove_from_anon(struct uprobe *uprobe);
bool is_anon_swbp(struct mm_struct *mm, const uprobe_opcode_t *insn);
bool anon_trap_is_programs(struct uprobe *uprobe, unsigned long vaddr);
bool anon_insn_changed(struct uprobe *uprobe, unsigned long vaddr);
void visit_anon_probes(struct mm_struct *mm, unsigned long start, unsigned long end,
		       void (*fn)(struct uprobe *uprobe, void *ctx), void *ctx);
void anon_rewritten(struct uprobe *uprobe);
void anon_munmap(struct vm_area_struct *vma, unsigned long start, unsigned long end);
void anon_mremap(struct vm_area_struct *vma, unsigned long start, unsigned long end);
void anon_mprotect(struct mm_struct *mm, unsigned long start, unsigned long end);
void anon_fork_start(struct mm_struct *oldmm, struct mm_struct *mm);
void anon_fork_restore(struct mm_struct *oldmm, struct mm_struct *newmm);
bool anon_busy(struct vm_area_struct *vma, unsigned long start, unsigned long end);

/* process.c: probes by process */
struct uprobe *register_in_mm(struct mm_struct *mm, unsigned long vaddr,
			      struct uprobe_consumer *uc);

/* defer.c: registration from handlers */
bool in_uprobe_callback(void);
struct uprobe *defer_register(struct inode *inode, loff_t offset, loff_t ref_ctr_offset,
			      struct mm_struct *mm, struct uprobe_consumer *uc);
void defer_unregister(struct uprobe *uprobe, struct uprobe_consumer *uc);
void finish_deferred(struct uprobe_task *utask);

/* The task is about to run handlers: calls from them are queued. */
static inline void enter_callbacks(struct uprobe_task *utask)
{
	utask->in_callback++;
}

static inline void leave_callbacks(struct uprobe_task *utask)
{
	WARN_ON_ONCE(!utask->in_callback);
	utask->in_callback--;
}

void notify_consumers(struct uprobe *uprobe, enum uprobe_notice what, int err);

/* hit.c: the hit */

/**
 * enum hit_end - how a hit ended
 * @HIT_IGNORED: not handled (no task state, or the probe is not READY)
 * @HIT_DONE: the handlers ran and the instruction is carried out
 * @HIT_REMOVE: the same, and the handlers asked the probe out of the mm,
 *	which the caller does once out of uprobes_srcu (hits_done())
 * @HIT_STALE: no handler ran: the program rewrote the probed instruction
 *	in anonymous memory, and the probe is to be lost (hits_done(),
 *	anon_rewritten()); the task runs the new instruction
 */
enum hit_end {
	HIT_IGNORED,
	HIT_DONE,
	HIT_REMOVE,
	HIT_STALE,
};

enum hit_end handle_hit(struct uprobe *uprobe, struct pt_regs *regs,
			unsigned long bp_vaddr, unsigned long copy);
void hits_done(struct uprobe *uprobe, enum hit_end end, unsigned long vaddr, bool jump);
void handle_step(struct uprobe_task *utask, struct pt_regs *regs);

/* own_slot.c: the task's own slot */
bool run_direct(struct uprobe *uprobe, struct pt_regs *regs, unsigned long bp_vaddr);
unsigned long own_slot_origin(struct uprobe_task *utask, unsigned long ip);
void leave_own_slot(struct uprobe_task *utask, struct pt_regs *regs);
void own_slot_finished(struct uprobe_task *utask, struct pt_regs *regs, bool done);
void handle_own_slot_end(struct uprobe_task *utask, struct pt_regs *regs);
bool own_slot_deny_signal(struct uprobe_task *utask, struct pt_regs *regs);

/* return.c: return probes */
void leave_trampoline(struct pt_regs *regs);
void prepare_uretprobe(struct uprobe *uprobe, struct pt_regs *regs,
		       unsigned long bp_vaddr);

/*
 * The stub files (ARCH_UPROBES_JUMPS): what the rest of the core calls;
 * without jumps, nothing to do.
 */
#ifdef CONFIG_ARCH_UPROBES_JUMPS
/* stub_pages.c */
void free_stub_pages(struct xol_area *area);
int dup_stub_pages(struct xol_area *old, struct xol_area *area);
int stub_pages_dup_dontfork(struct mm_struct *oldmm, struct mm_struct *newmm,
			    struct xol_area *area);
void stub_pages_unmap(struct mm_struct *mm, struct xol_area *area, unsigned long start,
		      unsigned long end);
void stub_pages_show(struct seq_file *m, struct xol_area *area);
/* jumps.c */
bool has_stub_jump(struct mm_struct *mm, unsigned long vaddr);
int take_jump_out(struct mm_struct *mm, unsigned long vaddr, const u8 *insn);
int jumps_out_around(struct mm_struct *mm, unsigned long vaddr);
void jumps_forget_range(struct mm_struct *mm, unsigned long start, unsigned long end);
void jumps_retry_around(struct mm_struct *mm, unsigned long vaddr);
const char *jump_state(struct uprobe *uprobe, struct mm_struct *mm, struct task_struct *task,
		       unsigned long vaddr, const char **why);
bool jumps_in_range(struct mm_struct *mm, unsigned long addr, unsigned long len);
void jumps_out_range(struct mm_struct *mm, unsigned long addr, unsigned long len);
void jumps_mask_range(struct mm_struct *mm, unsigned long addr, void *buf,
		      unsigned long len);
void jumps_mremap(struct vm_area_struct *vma, unsigned long start, unsigned long end);
bool may_jump(struct uprobe *uprobe, struct pt_regs *regs, unsigned long vaddr);
void try_jump(struct uprobe *uprobe, unsigned long vaddr);
void jump_fault_report(struct pt_regs *regs);
/* stub_leave.c */
void leave_stub(struct pt_regs *regs);
bool stub_copy_finish(struct uprobe_task *utask, struct pt_regs *regs);
void stub_copy_stepped(struct uprobe_task *utask, struct pt_regs *regs, bool done);
void handle_stub_step(struct uprobe_task *utask, struct pt_regs *regs);
bool stub_copy_deny_signal(struct uprobe_task *utask, struct pt_regs *regs);
unsigned long stub_origin(struct mm_struct *mm, struct pt_regs *regs);
int stub_rseq_abort(struct pt_regs *regs);
unsigned long stub_trap_addr(struct mm_struct *mm, unsigned long ip);
#else
static inline void free_stub_pages(struct xol_area *area)
{
}

static inline void stub_pages_unmap(struct mm_struct *mm, struct xol_area *area,
				    unsigned long start, unsigned long end)
{
}

static inline void stub_pages_show(struct seq_file *m, struct xol_area *area)
{
}

static inline bool has_stub_jump(struct mm_struct *mm, unsigned long vaddr)
{
	return false;
}

static inline int take_jump_out(struct mm_struct *mm, unsigned long vaddr, const u8 *insn)
{
	return 0;
}

static inline int jumps_out_around(struct mm_struct *mm, unsigned long vaddr)
{
	return 0;
}

static inline void jumps_retry_around(struct mm_struct *mm, unsigned long vaddr)
{
}

static inline void jumps_forget_range(struct mm_struct *mm, unsigned long start,
				      unsigned long end)
{
}

static inline const char *jump_state(struct uprobe *uprobe, struct mm_struct *mm,
				     struct task_struct *task, unsigned long vaddr,
				     const char **why)
{
	*why = "no-jumps";
	return "breakpoint";
}

static inline bool jumps_in_range(struct mm_struct *mm, unsigned long addr,
				  unsigned long len)
{
	return false;
}

static inline void jumps_out_range(struct mm_struct *mm, unsigned long addr,
				   unsigned long len)
{
}

static inline void jumps_mask_range(struct mm_struct *mm, unsigned long addr, void *buf,
				    unsigned long len)
{
}

static inline bool may_jump(struct uprobe *uprobe, struct pt_regs *regs, unsigned long vaddr)
{
	return false;
}

static inline void jump_fault_report(struct pt_regs *regs)
{
}

static inline void try_jump(struct uprobe *uprobe, unsigned long vaddr)
{
}

static inline void leave_stub(struct pt_regs *regs)
{
}

static inline int dup_stub_pages(struct xol_area *old, struct xol_area *area)
{
	return 0;
}

static inline int stub_pages_dup_dontfork(struct mm_struct *oldmm, struct mm_struct *newmm,
					  struct xol_area *area)
{
	return 0;
}

static inline void jumps_mremap(struct vm_area_struct *vma, unsigned long start,
				unsigned long end)
{
}

static inline bool stub_copy_finish(struct uprobe_task *utask, struct pt_regs *regs)
{
	return false;
}

static inline void stub_copy_stepped(struct uprobe_task *utask, struct pt_regs *regs,
				     bool done)
{
}

static inline void handle_stub_step(struct uprobe_task *utask, struct pt_regs *regs)
{
}

static inline bool stub_copy_deny_signal(struct uprobe_task *utask, struct pt_regs *regs)
{
	return false;
}

static inline unsigned long stub_origin(struct mm_struct *mm, struct pt_regs *regs)
{
	return 0;
}

static inline int stub_rseq_abort(struct pt_regs *regs)
{
	return 0;
}

static inline unsigned long stub_trap_addr(struct mm_struct *mm, unsigned long ip)
{
	return 0;
}
#endif

#endif /* _KERNEL_EVENTS_UPROBES_INTERNAL_H */
