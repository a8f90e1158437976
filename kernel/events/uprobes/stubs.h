/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the stub files of the uprobes core share (ARCH_UPROBES_JUMPS):
 * stub_pages.c hands out the stubs, jumps.c writes the jumps to them,
 * stub_hit.c takes the hits that come through them, stub_leave.c takes a
 * task out of one for a signal, an rseq abort or a trap.  What the rest
 * of the core calls is in internal.h.
 */
#ifndef _KERNEL_EVENTS_UPROBES_STUBS_H
#define _KERNEL_EVENTS_UPROBES_STUBS_H

#include <linux/string.h>
#include <linux/unaligned.h>

#include "internal.h"

#define STUBS_PER_PAGE		(PAGE_SIZE / UPROBE_STUB_BYTES)
#define STUB_PAGES_MAX		16	/* per mm */
#define HOP_PAGES_MAX		64	/* per mm */
#define NO_PUN_MAX		1024	/* places known to have no punned jump, per mm */

/**
 * struct stub_site - the probed place a stub serves
 * @vaddr: the probed address the stub was made for
 * @next: the address of the instruction after it, where the stub's jump
 *	back leads
 * @stub: the stub's own address
 * @inode: the probed file (compared, never dereferenced)
 * @offset: the probed offset in @inode
 * @insn: the instruction the stub was made for
 * @len: the length of the stub's copy of it, 0 if it has none
 * @hop: where the jump at @vaddr leads, when it is a punned jump over an
 *	instruction shorter than it (a hop to the stub there); 0 when it
 *	leads to the stub itself
 * @moved: mremap() moved the text at @vaddr since (set under mmap_lock
 *	for writing, never cleared): stub_source() must look for the jump
 * @reported: bit 0: a fault inside the jump was logged (jump_fault_report())
 */
struct stub_site {
	unsigned long vaddr;
	unsigned long next;
	unsigned long stub;
	struct inode *inode;
	loff_t offset;
	u8 insn[sizeof_field(struct arch_uprobe, insn)];
	u8 len;
	unsigned long hop;
	bool moved;
	unsigned long reported;
};

/**
 * struct stub_hop - a jump to a stub, where a punned jump leads
 * @vaddr: its address (the punned jump's target)
 * @stub: the stub it jumps to
 */
struct stub_hop {
	unsigned long vaddr;
	unsigned long stub;
};

#define HOPS_PER_PAGE	(STUBS_PER_PAGE * sizeof(struct stub_site) / sizeof(struct stub_hop))

/**
 * struct stub_page - a page of stubs, mapped within reach of its sites
 * @node: in xol_area.stub_pages
 * @vaddr: where the page is mapped in the mm
 * @page: the page
 * @used: the stubs or hops handed out, in order (release: each is set
 *	first)
 * @hops: a page of hops (@hop), not of stubs (@sites)
 * @gone: the process unmapped it (mmap_lock write; RCU readers): no jump
 *	leads there any more, nothing is handed out of it, no address
 *	is found in it
 * @sites: what each stub serves
 * @hop: the hops, in no order
 */
struct stub_page {
	struct list_head node;
	unsigned long vaddr;
	struct page *page;
	unsigned int used;
	bool hops;
	bool gone;
	union {
		struct stub_site sites[STUBS_PER_PAGE];
		struct stub_hop hop[HOPS_PER_PAGE];
	};
};

/* Where a walk of for_each_stub_site() stands. */
struct stub_cursor {
	struct xol_area *area;
	struct stub_page *sp;
	unsigned int i;
};

struct stub_site *next_stub_site(struct stub_cursor *c);

/*
 * Each @site handed out of the stub pages of @xol that are in use, pages
 * of hops left out; under rcu_read_lock() or the mm's mmap_lock.
 */
#define for_each_stub_site(xol, site)					\
	for (struct stub_cursor __cursor = { .area = (xol) };		\
	     ((site) = next_stub_site(&__cursor));)

/*
 * Whether @site is a stub made for @uprobe's instruction at @vaddr.  The
 * hit asks it for each copy: word by word, inline, where a build for size
 * calls memcmp().
 */
static __always_inline bool site_serves(struct stub_site *site, struct uprobe *uprobe,
					unsigned long vaddr)
{
	const u8 *insn = (const u8 *)&uprobe->arch.insn;
	size_t i;

	if (site->vaddr != vaddr)
		return false;
	if (sizeof(site->insn) % sizeof(u32))
		return !memcmp(site->insn, insn, sizeof(site->insn));
	for (i = 0; i < sizeof(site->insn); i += sizeof(u32)) {
		if (get_unaligned((const u32 *)(site->insn + i)) !=
		    get_unaligned((const u32 *)(insn + i)))
			return false;
	}
	return true;
}

/* stub_pages.c */
struct stub_site *stub_at(struct mm_struct *mm, unsigned long addr,
			  unsigned long *offset);
struct stub_site *stub_starting_at(struct mm_struct *mm, unsigned long addr);
unsigned long get_stub(struct mm_struct *mm, struct xol_area *area,
		       struct uprobe *uprobe, unsigned long vaddr, unsigned long hop);
unsigned long get_hop(struct mm_struct *mm, struct xol_area *area,
		      unsigned long lo, unsigned long hi);
unsigned long get_old_hop(struct mm_struct *mm, struct xol_area *area,
			  struct uprobe *uprobe, unsigned long vaddr);
void set_hop(struct mm_struct *mm, struct xol_area *area, unsigned long hop,
	     unsigned long stub);
struct stub_site *hop_at(struct mm_struct *mm, unsigned long addr);

/* jumps.c */
bool read_jump_bytes(struct mm_struct *mm, unsigned long vaddr, u8 *code);

/* stub_hit.c */
unsigned long moved_stub_source(struct stub_site *site, unsigned long stub);
unsigned long stub_straight(struct stub_site *site, unsigned long stub);

/*
 * Where the current task came to @stub from: the address of @site, as
 * long as no mremap() moved the text there.  Whether the jump is still
 * there does not matter: the task took it, and the instruction it stands
 * for is done for the task at that place, or run again there if the probe
 * went.  Moved text is looked for (moved_stub_source()).
 */
static inline unsigned long stub_source(struct stub_site *site, unsigned long stub)
{
	/* Text that never moved: the jump's place, without a look. */
	if (!READ_ONCE(site->moved))
		return site->vaddr;
	return moved_stub_source(site, stub);
}

#endif /* _KERNEL_EVENTS_UPROBES_STUBS_H */
