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

#include "internal.h"

#define STUBS_PER_PAGE		(PAGE_SIZE / UPROBE_STUB_BYTES)
#define STUB_PAGES_MAX		16	/* per mm */

/**
 * struct stub_site - the probed place a stub serves
 * @vaddr: the probed address the stub was made for
 * @next: the address of the instruction after it, where the stub's jump
 *	back leads
 * @inode: the probed file (compared, never dereferenced)
 * @offset: the probed offset in @inode
 * @insn: the instruction the stub was made for
 * @len: the length of the stub's copy of it, 0 if it has none
 * @moved: mremap() moved the text at @vaddr since (set under mmap_lock
 *	for writing, never cleared): stub_source() must look for the jump
 * @reported: bit 0: a fault inside the jump was logged (jump_fault_report())
 */
struct stub_site {
	unsigned long vaddr;
	unsigned long next;
	struct inode *inode;
	loff_t offset;
	u8 insn[MAX_UINSN_BYTES];
	u8 len;
	bool moved;
	unsigned long reported;
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

/* stub_pages.c */
struct stub_site *stub_at(struct mm_struct *mm, unsigned long addr,
			  unsigned long *offset);
struct stub_site *stub_starting_at(struct mm_struct *mm, unsigned long addr);
bool site_serves(struct stub_site *site, struct uprobe *uprobe, unsigned long vaddr);
unsigned long get_stub(struct mm_struct *mm, struct xol_area *area,
		       struct uprobe *uprobe, unsigned long vaddr);

/* jumps.c */
bool read_jump_bytes(struct mm_struct *mm, unsigned long vaddr, u8 *code);

/* stub_hit.c */
unsigned long stub_source(struct stub_site *site, unsigned long stub);
unsigned long stub_straight(struct stub_site *site, unsigned long stub);

#endif /* _KERNEL_EVENTS_UPROBES_STUBS_H */
