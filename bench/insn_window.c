// SPDX-License-Identifier: GPL-2.0
/*
 * insn_window: a QEMU TCG plugin (QEMU 7.2, plugin API 1) that counts the
 * guest instructions executed in each function of the guest kernel, and
 * in each page of user memory, between two marks: for `make breakdown`.
 *
 * Arguments (-plugin insn_window.so,map=M,start=A,stop=B,out=F):
 *   map    the kernel's System.map: its text symbols name the buckets of
 *          kernel addresses (an instruction counts for the symbol at or
 *          below it)
 *   start  the address whose execution opens a window (hex)
 *   stop   the address whose execution closes it (hex)
 *   out    the file where each window closed is written: a line
 *          "window N", then "COUNT<TAB>BUCKET" for every bucket that ran
 *          in it, BUCKET a symbol or "user:0xPAGE"
 *
 * Every instruction adds one to its bucket by an inline operation (no
 * call), so the guest runs nearly as fast as without the plugin; a mark
 * copies the counters (start) or writes their difference (stop).  The
 * counters are not atomic: run QEMU with one thread for all vCPUs
 * (-icount, or -accel tcg,thread=single).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define KERNEL_START	0xffff800000000000ULL
#define USER_PAGES	(1 << 16)	/* user pages told apart, at most */

struct symbol {
	uint64_t addr;
	char *name;
};

static struct symbol *symbols;
static size_t nsymbols;
static uint64_t user_page[USER_PAGES];	/* the page of bucket nsymbols + 2 + i */
static size_t nbuckets;			/* symbols, "kernel:other", "user:other", pages */
static uint64_t *counts, *opened;
static uint64_t start_addr, stop_addr;
static FILE *out;
static unsigned int windows;

static int by_addr(const void *a, const void *b)
{
	const struct symbol *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Reads the text symbols of System.map @path; 0 or -1. */
static int read_map(const char *path)
{
	FILE *f = fopen(path, "r");
	char type, name[512];
	size_t room = 0;
	uint64_t addr;

	if (!f)
		return -1;
	while (fscanf(f, "%" SCNx64 " %c %511s", &addr, &type, name) == 3) {
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (nsymbols == room) {
			room = room ? 2 * room : 65536;
			symbols = realloc(symbols, room * sizeof(*symbols));
			if (!symbols)
				return -1;
		}
		symbols[nsymbols].addr = addr;
		symbols[nsymbols].name = strdup(name);
		nsymbols++;
	}
	fclose(f);
	qsort(symbols, nsymbols, sizeof(*symbols), by_addr);
	return nsymbols ? 0 : -1;
}

/* The bucket of a kernel address: its symbol's, or "kernel:other". */
static size_t kernel_bucket(uint64_t addr)
{
	size_t lo = 0, hi = nsymbols;

	if (addr < symbols[0].addr)
		return nsymbols;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (symbols[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The bucket of a user address: its page's, or "user:other" when full. */
static size_t user_bucket(uint64_t addr)
{
	uint64_t page = addr & ~0xfffULL;
	size_t i = (page >> 12) * 0x9e3779b97f4a7c15ULL % USER_PAGES;
	size_t tries;

	for (tries = 0; tries < USER_PAGES; tries++, i = (i + 1) % USER_PAGES) {
		if (user_page[i] == page + 1)
			return nsymbols + 2 + i;
		if (!user_page[i]) {
			user_page[i] = page + 1;
			return nsymbols + 2 + i;
		}
	}
	return nsymbols + 1;
}

static void bucket_name(size_t b, char *buf, size_t len)
{
	if (b < nsymbols)
		snprintf(buf, len, "%s", symbols[b].name);
	else if (b == nsymbols)
		snprintf(buf, len, "kernel:other");
	else if (b == nsymbols + 1)
		snprintf(buf, len, "user:other");
	else
		snprintf(buf, len, "user:0x%" PRIx64, user_page[b - nsymbols - 2] - 1);
}

static void window_open(unsigned int vcpu, void *data)
{
	memcpy(opened, counts, nbuckets * sizeof(*counts));
}

static void window_close(unsigned int vcpu, void *data)
{
	char name[600];
	size_t b;

	fprintf(out, "window %u\n", ++windows);
	for (b = 0; b < nbuckets; b++) {
		if (counts[b] == opened[b])
			continue;
		bucket_name(b, name, sizeof(name));
		fprintf(out, "%" PRIu64 "\t%s\n", counts[b] - opened[b], name);
	}
	fflush(out);
}

static void tb_translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t addr = qemu_plugin_insn_vaddr(insn);
		size_t b = addr >= KERNEL_START ? kernel_bucket(addr) : user_bucket(addr);

		if (addr == start_addr)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, window_open,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
		if (addr == stop_addr)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, window_close,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
		qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
							   &counts[b], 1);
	}
}

static void at_exit(qemu_plugin_id_t id, void *data)
{
	if (out)
		fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *map = NULL, *path = NULL;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "map=", 4))
			map = argv[i] + 4;
		else if (!strncmp(argv[i], "start=", 6))
			start_addr = strtoull(argv[i] + 6, NULL, 16);
		else if (!strncmp(argv[i], "stop=", 5))
			stop_addr = strtoull(argv[i] + 5, NULL, 16);
		else if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
	}
	if (!map || !path || !start_addr || !stop_addr || read_map(map)) {
		fprintf(stderr, "insn_window: needs map=, start=, stop= and out=\n");
		return -1;
	}
	out = fopen(path, "w");
	nbuckets = nsymbols + 2 + USER_PAGES;
	counts = calloc(nbuckets, sizeof(*counts));
	opened = calloc(nbuckets, sizeof(*opened));
	if (!out || !counts || !opened)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_translated);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
