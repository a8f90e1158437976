// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_nojump: the controls that keep a probe's jump out.
 *
 * Uprobes give a probed instruction of 5 bytes or more a jump to a stub once
 * hit (see uprobe_jump.c): they rewrite bytes 1-4 of the instruction too,
 * where the breakpoint leaves them be.  Code that branches into the middle
 * of the probed instruction then runs the jump's bytes.  What keeps them
 * out, checked here (on a kernel with jumps, or on any where noted):
 *  - debug.uprobes-jumps=0 takes every jump out at once, while threads hit
 *    the probe, and gives none until it is 1 again;
 *  - a uprobe event with %nojump keeps its probe to the breakpoint, also
 *    for another event on the same place, and takes out a jump already
 *    there; uprobe_events lists the suffix; a misspelt suffix is refused
 *    (on any kernel);
 *  - a branch into a jumped instruction faults, and the kernel says so,
 *    once, naming the file; with %nojump or the sysctl 0 the branch runs
 *    right (as it does anyway where the kernel has no jumps);
 *  - a RIP-relative load whose operand no stub page can reach gets no
 *    stub, and is not tried again at each hit (a kprobe on try_jump()
 *    counts the tries); it runs right and counts each hit on any kernel.
 * The last two map their code from a file of their own at a fixed low
 * address, with free pages under it: the stub page goes in the highest
 * free page under the probed code, so the test knows where it lands.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "uprobe_asm.h"
#include "uprobe_util.h"

#define GROUP		"unj"
#define KP_GROUP	"unj_kp"
#define JUMPS_SYSCTL	"/proc/sys/debug/uprobes-jumps"
#define PAGE		4096UL
#define CALLS		1000
#define WAIT_MS		10000

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE	0x100000
#endif

/* nj_nop5(x) = x + 1, after a 5-byte nop. */
asm(".pushsection .text\n"
	".globl nj_nop5\n"
	".type nj_nop5, @function\n"
	"nj_nop5:\n"
	"	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
	"	lea 1(%rdi), %rax\n"
	"	ret\n"
	".size nj_nop5, .-nj_nop5\n"
	".popsection\n");

/* The 5 code bytes at @addr, read afresh. */
static void code_at(const void *addr, unsigned char *code)
{
	const unsigned char *p = addr;
	int i;

	for (i = 0; i < 5; i++)
		code[i] = READ_FRESH(p[i]);
}

/* Whether @addr holds a jmp rel32 into this process's [uprobes] mapping. */
static bool jump_in_place(const void *addr)
{
	struct uprobes_maps maps;
	unsigned char code[5];
	unsigned long target;
	int rel;

	code_at(addr, code);
	if (code[0] != 0xe9)
		return false;
	memcpy(&rel, code + 1, sizeof(rel));
	target = (unsigned long)addr + 5 + rel;
	return !uprobes_maps_read(0, &maps) && uprobes_maps_hold(&maps, target);
}

/* Whether @code is the breakpoint, then bytes 1-4 of @orig. */
static bool is_breakpoint(const unsigned char *code, const unsigned char *orig)
{
	return code[0] == 0xcc && !memcmp(code + 1, orig + 1, 4);
}

/* Whether @addr holds the breakpoint, then bytes 1-4 of @orig. */
static bool breakpoint_in_place(const void *addr, const unsigned char *orig)
{
	unsigned char code[5];

	code_at(addr, code);
	return is_breakpoint(code, orig);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits up to WAIT_MS for a jump at @addr: whether it came. */
static bool wait_for_jump(const void *addr)
{
	long end = now_ms() + WAIT_MS;

	while (!jump_in_place(addr)) {
		if (now_ms() > end)
			return false;
		usleep(1000);
	}
	return true;
}

/* @len bytes at @offset of file @path; 0 or -1. */
static int file_bytes(const char *path, unsigned long offset, void *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, buf, len, offset);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

/* Whether @line holds the strings that follow (NULL-ended), in their order. */
static bool in_order(const char *line, ...)
{
	const char *word;
	va_list ap;

	va_start(ap, line);
	while (line && (word = va_arg(ap, const char *))) {
		line = strstr(line, word);
		if (line)
			line += strlen(word);
	}
	va_end(ap);
	return line;
}

/*
 * How many lines of the kernel log report a fault in the jump of the probe
 * on file @name (the path's last component) at @offset, with the sysctl
 * that keeps jumps out; -1 if the log cannot be read.
 */
static int klog_jump_reports(const char *name, const char *offset)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0), len, n = 0;
	char *buf, *line, *save = NULL;

	if (size <= 0)
		return -1;
	buf = malloc(size + 1);
	if (!buf)
		return -1;
	len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (len < 0) {
		free(buf);
		return -1;
	}
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (in_order(line, "bytes into the jump that stands for the probe on", name,
			     offset, "debug.uprobes-jumps=0", NULL))
			n++;
	free(buf);
	return n;
}

/* Whether this kernel has kprobe events, in tracefs. */
static bool have_kprobe_events(void)
{
	return access(TRACEFS "/kprobe_events", W_OK) == 0;
}

/*
 * Every test leaves jumps on and tracing clean, whatever happened: the
 * teardown runs in the parent, after the test's process ended even by a
 * signal.  @path: a code file the test made, removed at the end.
 */
static void put_back(char *path)
{
	uprobe_jumps_sysctl_set(1);
	tracing_reset();
	if (have_kprobe_events())
		tfs_write("kprobe_events", "");
	if (path[0])
		unlink(path);
	path[0] = '\0';
}

/*
 * Code in a file of its own, mapped at a fixed low address where nothing
 * else goes (the mmap area is high), with free pages under it.
 */
#define SPOT_FIRST	0x200000000UL	/* 8 GiB */
#define SPOT_STEP	0x100000000UL
#define SPOT_TRIES	16
#define SPOT_HOLE	0x100000UL	/* left free under the code */

/*
 * Reserves (PROT_NONE) @len bytes at the first of a few fixed addresses
 * that has them free, with SPOT_HOLE free under them, and unmaps its first
 * page and the hole: the address, or 0.
 */
static unsigned long free_spot(size_t len)
{
	unsigned long at;
	void *p;
	int i;

	for (i = 0; i < SPOT_TRIES; i++) {
		at = SPOT_FIRST + i * SPOT_STEP;
		p = mmap((void *)(at - SPOT_HOLE), SPOT_HOLE + len, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
		if (p == MAP_FAILED)
			continue;
		if (p != (void *)(at - SPOT_HOLE)) {	/* a kernel that took it as a hint */
			munmap(p, SPOT_HOLE + len);
			continue;
		}
		munmap(p, SPOT_HOLE + PAGE);
		return at;
	}
	return 0;
}

/*
 * Writes @page as the first page of a new file under /tmp (its name in
 * @path, PATH_MAX bytes) and maps it r-x at @at; 0 or -errno.
 */
static int map_code_file(char *path, const unsigned char *page, unsigned long at)
{
	int fd, err = 0;
	void *p;

	snprintf(path, PATH_MAX, "/tmp/uprobe_nojump.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0) {
		path[0] = '\0';
		return -errno;
	}
	if (write(fd, page, PAGE) != (ssize_t)PAGE)
		err = -EIO;
	if (!err) {
		p = mmap((void *)at, PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED_NOREPLACE,
			 fd, 0);
		if (p == MAP_FAILED)
			err = -errno;
		else if (p != (void *)at)
			err = -EEXIST;
	}
	close(fd);
	return err;
}

/* -------------------------------------------------------------- nojump */

FIXTURE(nojump) {
	char path[PATH_MAX];
};

FIXTURE_SETUP(nojump)
{
	self->path[0] = '\0';
	tracing_reset();
	uprobe_jumps_sysctl_set(1);
}

FIXTURE_TEARDOWN_PARENT(nojump)
{
	put_back(self->path);
}

#define HITTERS	2
#define MORE_CALLS	2000

struct hitter {
	pthread_t thread;
	long calls, wrong;
};

static int hitters_done;

/* Calls nj_nop5() until hitters_done, counting calls and wrong results. */
static void *hitter_run(void *arg)
{
	struct hitter *h = arg;
	long x;

	while (!__atomic_load_n(&hitters_done, __ATOMIC_ACQUIRE)) {
		x = h->calls % 1000;
		if (nj_nop5(x) != x + 1)
			h->wrong++;
		__atomic_store_n(&h->calls, h->calls + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static long hitters_calls(struct hitter *h)
{
	long sum = 0;
	int i;

	for (i = 0; i < HITTERS; i++)
		sum += __atomic_load_n(&h[i].calls, __ATOMIC_ACQUIRE);
	return sum;
}

/* Waits up to WAIT_MS for the hitters to make @n calls more: whether they did. */
static bool hitters_go_on(struct hitter *h, long n)
{
	long end = now_ms() + WAIT_MS, want = hitters_calls(h) + n;

	while (hitters_calls(h) < want) {
		if (now_ms() > end)
			return false;
		usleep(1000);
	}
	return true;
}

/*
 * Two threads hit a probed 5-byte nop.  Its jump comes; the sysctl
 * set to 0 puts the breakpoint back at once, with the instruction's bytes
 * 1-4 after it, and no jump comes while the threads go on; set to 1, the
 * jump is back after the next hits.  Every call computes right and is one
 * hit; once the probe goes, the text is the file's.
 */
TEST_F_TIMEOUT(nojump, sysctl_off_and_on_under_threads, 120)
{
	unsigned long off = self_offset(nj_nop5);
	struct hitter h[HITTERS] = {};
	unsigned char orig[5], now[5];
	long calls = 0, wrong = 0;
	int i;

	if (kernel_lacks(_metadata, have_uprobe_jumps(), "jumps to stubs"))
		return;
	ASSERT_NE(0, off);
	ASSERT_EQ(0, file_bytes(self_path(), off, orig, sizeof(orig)));
	code_at(nj_nop5, now);
	ASSERT_EQ(0, memcmp(orig, now, sizeof(orig)));
	ASSERT_EQ(1, uprobe_jumps_sysctl()) TH_LOG("%s: not there, or not 1", JUMPS_SYSCTL);
	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/nop5 %s:0x%lx", self_path(), off));
	ASSERT_EQ(0, event_enable(GROUP, "nop5", 1));

	__atomic_store_n(&hitters_done, 0, __ATOMIC_RELEASE);
	for (i = 0; i < HITTERS; i++)
		ASSERT_EQ(0, pthread_create(&h[i].thread, NULL, hitter_run, &h[i]));
	ASSERT_TRUE(wait_for_jump(nj_nop5))
		TH_LOG("no jump after %ld calls", hitters_calls(h));

	ASSERT_EQ(0, uprobe_jumps_sysctl_set(0));
	code_at(nj_nop5, now);
	EXPECT_TRUE(is_breakpoint(now, orig))
		TH_LOG("at once after 0: %02x %02x %02x %02x %02x",
		       now[0], now[1], now[2], now[3], now[4]);
	EXPECT_TRUE(hitters_go_on(h, MORE_CALLS)) TH_LOG("the threads stopped");
	code_at(nj_nop5, now);
	EXPECT_TRUE(is_breakpoint(now, orig))
		TH_LOG("%d calls after 0: %02x %02x %02x %02x %02x", MORE_CALLS,
		       now[0], now[1], now[2], now[3], now[4]);
	EXPECT_EQ(0, uprobe_jumps_sysctl());

	ASSERT_EQ(0, uprobe_jumps_sysctl_set(1));
	EXPECT_TRUE(wait_for_jump(nj_nop5)) TH_LOG("no jump after 1");

	__atomic_store_n(&hitters_done, 1, __ATOMIC_RELEASE);
	for (i = 0; i < HITTERS; i++) {
		pthread_join(h[i].thread, NULL);
		calls += h[i].calls;
		wrong += h[i].wrong;
	}
	TH_LOG("%ld calls by the threads", calls);
	EXPECT_EQ(0, wrong);
	EXPECT_EQ(calls, profile_hits("nop5"));

	ASSERT_EQ(0, event_enable(GROUP, "nop5", 0));
	ASSERT_EQ(0, tfs_write("uprobe_events", ""));
	code_at(nj_nop5, now);
	EXPECT_EQ(0, memcmp(orig, now, sizeof(orig)))
		TH_LOG("after the probe: %02x %02x %02x %02x %02x",
		       now[0], now[1], now[2], now[3], now[4]);
}

/*
 * Calls nj_nop5() @n times: the number of calls that computed wrong or
 * found no breakpoint (with bytes 1-4 of @orig) at the probe after them.
 */
static long calls_on_breakpoint(const unsigned char *orig, long n)
{
	long i, bad = 0;

	for (i = 0; i < n; i++)
		if (nj_nop5(i) != i + 1 || !breakpoint_in_place(nj_nop5, orig))
			bad++;
	return bad;
}

/*
 * An event with %nojump keeps its probe to the breakpoint over many
 * hits, listed with the suffix (also after %return); a second event
 * without it on the same place gets no jump either while the first is
 * enabled, and gets one at its next hit once the first is disabled; the
 * first enabled again takes that jump out at once.  Each call is one hit
 * of each enabled event.
 */
TEST_F(nojump, suffix_keeps_the_breakpoint)
{
	unsigned long off = self_offset(nj_nop5);
	unsigned char orig[5];
	char want[PATH_MAX + 64], *list;
	int err;

	ASSERT_NE(0, off);
	ASSERT_EQ(0, file_bytes(self_path(), off, orig, sizeof(orig)));
	err = uprobe_event_add("p:" GROUP "/nj %s:0x%lx%%nojump", self_path(), off);
	if (kernel_lacks(_metadata, err != -EINVAL, "%nojump"))
		return;
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/rnj %s:0x%lx%%return%%nojump",
				      self_path(), off));
	list = tfs_read("uprobe_events");
	ASSERT_NE(NULL, list);
	snprintf(want, sizeof(want), "p:" GROUP "/nj %s:0x%016lx%%nojump\n", self_path(), off);
	EXPECT_NE(NULL, strstr(list, want)) TH_LOG("want %s in:\n%s", want, list);
	snprintf(want, sizeof(want), "r:" GROUP "/rnj %s:0x%016lx%%nojump\n", self_path(), off);
	EXPECT_NE(NULL, strstr(list, want)) TH_LOG("want %s in:\n%s", want, list);
	free(list);
	ASSERT_EQ(0, tfs_append("uprobe_events", "-:" GROUP "/rnj"));

	ASSERT_EQ(0, event_enable(GROUP, "nj", 1));
	EXPECT_EQ(0, calls_on_breakpoint(orig, CALLS));
	EXPECT_EQ(CALLS, profile_hits("nj"));

	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/plain %s:0x%lx", self_path(), off));
	ASSERT_EQ(0, event_enable(GROUP, "plain", 1));
	EXPECT_EQ(0, calls_on_breakpoint(orig, CALLS));
	EXPECT_EQ(2 * CALLS, profile_hits("nj"));
	EXPECT_EQ(CALLS, profile_hits("plain"));

	/* The plain event alone: its jump comes, so a jump would be seen. */
	ASSERT_EQ(0, event_enable(GROUP, "nj", 0));
	EXPECT_EQ(2, nj_nop5(1));
	EXPECT_TRUE(jump_in_place(nj_nop5)) TH_LOG("no jump without %%nojump");

	ASSERT_EQ(0, event_enable(GROUP, "nj", 1));
	EXPECT_TRUE(breakpoint_in_place(nj_nop5, orig)) TH_LOG("the jump stayed");
	EXPECT_EQ(0, calls_on_breakpoint(orig, CALLS));
	EXPECT_EQ(3 * CALLS, profile_hits("nj"));
	EXPECT_EQ(2 * CALLS + 1, profile_hits("plain"));
}

/*
 * A misspelt suffix (%nojmp) is refused with EINVAL, leaves nothing, and
 * error_log says so with a caret under the '%'.
 */
TEST_F(nojump, misspelt_suffix_refused)
{
	unsigned long off = self_offset(nj_nop5);
	char line[PATH_MAX + 64], *list, *log, *cmd, *end;
	size_t col, blanks;

	ASSERT_NE(0, off);
	snprintf(line, sizeof(line), "p:" GROUP "/bad %s:0x%lx%%nojmp", self_path(), off);
	col = strchr(line + strlen("p:" GROUP "/bad ") + strlen(self_path()), '%') - line;
	ASSERT_EQ(0, tfs_write("error_log", ""));
	EXPECT_EQ(-EINVAL, tfs_append("uprobe_events", line));
	list = tfs_read("uprobe_events");
	ASSERT_NE(NULL, list);
	EXPECT_STREQ("", list);
	free(list);

	/* "[  TIME] trace_uprobe: error: MSG\n  Command: LINE\n    ^\n" */
	log = tfs_read("error_log");
	ASSERT_NE(NULL, log);
	EXPECT_NE(NULL, strstr(log, "trace_uprobe: error: Invalid probed address suffix\n"))
		TH_LOG("error_log:\n%s", log);
	cmd = strstr(log, "\n  Command: ");
	ASSERT_NE(NULL, cmd) TH_LOG("error_log:\n%s", log);
	cmd += strlen("\n  Command: ");
	end = strchr(cmd, '\n');
	ASSERT_NE(NULL, end);
	*end = '\0';
	EXPECT_STREQ(line, cmd);
	blanks = strspn(end + 1, " ");
	EXPECT_EQ(strlen("  Command: ") + col, blanks);
	EXPECT_EQ('^', end[1 + blanks]);
	free(log);
}

/*
 * A RIP-relative load at the first byte of a code page at A, whose operand
 * is the last quadword of a data page at A + 2 GiB - 4 KiB: 2 GiB - 15
 * bytes past the load's end, just within a rel32.  The stub page would go
 * under A (the pages there are free; those between the code and the data
 * are taken), from where the operand is out of reach: no stub can be made.
 */
#define FAR_SPAN	0x80000000UL
#define FAR_CALLS	50

struct far {
	unsigned long code;
	long *datum;	/* read by the load, through a call the compiler cannot see */
};

static int far_map(char *path, struct far *f)
{
	unsigned char page[PAGE];
	unsigned long datum;
	void *data;
	int disp;

	f->code = free_spot(FAR_SPAN);
	if (!f->code)
		return -ENOMEM;
	data = (void *)(f->code + FAR_SPAN - PAGE);
	munmap(data, PAGE);
	if (mmap(data, PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != data)
		return -EEXIST;
	datum = f->code + FAR_SPAN - sizeof(long);
	f->datum = (long *)datum;
	disp = datum - (f->code + 7);
	memset(page, 0xcc, sizeof(page));
	memcpy(page, "\x48\x8b\x05", 3);	/* mov disp32(%rip), %rax */
	memcpy(page + 3, &disp, sizeof(disp));
	page[7] = 0xc3;				/* ret */
	return map_code_file(path, page, f->code);
}

/* Calls the far load @n times with a new datum each time: how many were wrong. */
static long far_calls(struct far *f, long n)
{
	long (*load)(void) = (long (*)(void))f->code;
	long i, wrong = 0;

	for (i = 0; i < n; i++) {
		*f->datum = 0x5a5a000000000000L + i;
		if (load() != 0x5a5a000000000000L + i)
			wrong++;
	}
	return wrong;
}

/*
 * A probed RIP-relative load whose operand is out of reach of any stub:
 * every call loads the right value and is one hit, and the instruction
 * keeps its breakpoint (no jump: it can have no stub).
 */
TEST_F(nojump, far_rip_load_runs_right)
{
	unsigned char orig[5];
	struct far f;

	ASSERT_EQ(0, far_map(self->path, &f));
	ASSERT_EQ(0, file_bytes(self->path, 0, orig, sizeof(orig)));
	ASSERT_EQ(0, far_calls(&f, 1));
	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/far %s:0x0", self->path));
	ASSERT_EQ(0, event_enable(GROUP, "far", 1));
	EXPECT_EQ(0, far_calls(&f, FAR_CALLS));
	EXPECT_EQ(FAR_CALLS, profile_hits("far"));
	EXPECT_TRUE(breakpoint_in_place((void *)f.code, orig));
}

/*
 * The same load is tried for a stub once, at its first hit; then the
 * probe is marked, and no later hit tries again.  A kprobe on try_jump()
 * counts the tries: 1, where every hit would try without the mark.
 */
TEST_F(nojump, far_rip_load_no_stub_tried_once)
{
	unsigned char orig[5];
	struct far f;
	long tries;

	if (kernel_lacks(_metadata, have_uprobe_jumps(), "jumps to stubs"))
		return;
	if (!have_kprobe_events())
		SKIP(return, "no kprobe events in this kernel");
	ASSERT_EQ(0, far_map(self->path, &f));
	ASSERT_EQ(0, file_bytes(self->path, 0, orig, sizeof(orig)));
	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/far %s:0x0", self->path));
	ASSERT_EQ(0, tfs_append("kprobe_events", "p:" KP_GROUP "/tj try_jump"))
		TH_LOG("no kprobe on try_jump");
	ASSERT_EQ(0, event_enable(KP_GROUP, "tj", 1));
	ASSERT_EQ(0, event_enable(GROUP, "far", 1));

	EXPECT_EQ(0, far_calls(&f, 1));
	tries = kprobe_hits("tj");
	ASSERT_LT(0, tries) TH_LOG("the kprobe saw no try at the first hit: it counts nothing");
	EXPECT_EQ(0, far_calls(&f, FAR_CALLS - 1));
	tries = kprobe_hits("tj");
	TH_LOG("%ld tries over %d hits", tries, FAR_CALLS);
	EXPECT_GE(1, tries);
	EXPECT_EQ(FAR_CALLS, profile_hits("far"));
	EXPECT_TRUE(breakpoint_in_place((void *)f.code, orig));
}

/* -------------------------------------------------------------- hidden */

/*
 * hidden(x), from a file page: 1 when x is 0, through a 5-byte cmp (the
 * probed instruction); else 2, by a branch to the cmp's second byte, where
 * its immediate holds mov $2, %al; nop; ret.
 *
 * Where the kernel puts the stub: in the page under the code, the page's first
 * stub (this mm has no other).  The jump's rel32 is then
 * -(4096 + HIDDEN_CMP + 5) = -0x10fa: bytes 06 ef ff ff, whose first, push
 * %es, is invalid in 64-bit code.  The branch into the jump faults there.
 */
#define HIDDEN_CMP	0xf5	/* the cmp's offset in the page and in the file */
#define HIDDEN_ENTRY	(HIDDEN_CMP - 11)
#define HIDDEN_BYTE1	0x06	/* byte 1 of the jump */
#define HIDDEN_CALLS	10
#define HIDDEN_FAULTED	42	/* the child's exit status after its second fault */
#define HIDDEN_UNKNOWN	43	/* ... when the jump's bytes are not the ones foreseen */

static const unsigned char hidden_code[] = {
	0x31, 0xc0,				/* xor %eax, %eax */
	0x48, 0x85, 0xff,			/* test %rdi, %rdi */
	0x0f, 0x85, 0x01, 0x00, 0x00, 0x00,	/* jnz HIDDEN_CMP + 1 */
	0x3d, 0xb0, 0x02, 0x90, 0xc3,		/* HIDDEN_CMP: cmp $0xc39002b0, %eax */
	0xb8, 0x01, 0x00, 0x00, 0x00,		/* mov $1, %eax */
	0xc3,					/* ret */
};

/* Maps the page of hidden() from a new file named in @path: its address, or 0. */
static unsigned long hidden_map(char *path)
{
	unsigned long code = free_spot(PAGE);
	unsigned char page[PAGE];

	if (!code)
		return 0;
	memset(page, 0xcc, sizeof(page));
	memcpy(page + HIDDEN_ENTRY, hidden_code, sizeof(hidden_code));
	return map_code_file(path, page, code) ? 0 : code;
}

/* What the child that runs hidden() tells its parent. */
struct hidden_report {
	unsigned char code[5];	/* at the cmp after the hits (after the sysctl) */
	bool jump;		/* that is a jump into [uprobes] */
	long wrong;		/* wrong results of the calls from the start */
	long not_kept;		/* of them, calls after which the cmp had no breakpoint */
	long result;		/* of the call into the middle */
	int faults;
	int sig[2];		/* of the first two faults */
	unsigned long ip[2];	/* where they were */
};

FIXTURE(hidden) {
	char path[PATH_MAX];
};

FIXTURE_VARIANT(hidden) {
	const char *suffix;	/* of the event's place */
	bool jumps_off;		/* the child sets debug.uprobes-jumps to 0 */
};

/* A plain event: the branch faults in the jump, if any, else runs right. */
FIXTURE_VARIANT_ADD(hidden, jumps) {
	.suffix = "",
};

FIXTURE_VARIANT_ADD(hidden, nojump) {
	.suffix = "%nojump",
};

FIXTURE_VARIANT_ADD(hidden, sysctl_off) {
	.suffix = "",
	.jumps_off = true,
};

FIXTURE_SETUP(hidden)
{
	self->path[0] = '\0';
	tracing_reset();
	uprobe_jumps_sysctl_set(1);
}

FIXTURE_TEARDOWN_PARENT(hidden)
{
	put_back(self->path);
}

static struct hidden_report *report;
static sigjmp_buf fault_escape;

static void on_fault(int sig, siginfo_t *info, void *ctx)
{
	int n = report->faults++;

	report->sig[n] = sig;
	report->ip[n] = ((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP];
	if (n == 0)
		siglongjmp(fault_escape, 1);
	_exit(HIDDEN_FAULTED);
}

/*
 * The child: HIDDEN_CALLS calls of hidden(0), then the sysctl to 0 if
 * @jumps_off, then hidden(1); a fault there is let happen twice.
 */
static void __noreturn hidden_child(unsigned long code, bool jumps_off)
{
	struct sigaction sa = { .sa_sigaction = on_fault, .sa_flags = SA_SIGINFO };
	struct rlimit no_core = { 0, 0 };
	long (*hidden)(long x) = (long (*)(long x))(code + HIDDEN_ENTRY);
	const void *cmp = (const void *)(code + HIDDEN_CMP);
	int i;

	alarm(20);
	setrlimit(RLIMIT_CORE, &no_core);
	for (i = 0; i < HIDDEN_CALLS; i++) {
		if (hidden(0) != 1)
			report->wrong++;
		if (!breakpoint_in_place(cmp, hidden_code + 11))
			report->not_kept++;
	}
	report->jump = jump_in_place(cmp);
	if (jumps_off && uprobe_jumps_sysctl_set(0))
		_exit(2);
	code_at(cmp, report->code);
	if (report->code[0] == 0xe9 && report->code[1] != HIDDEN_BYTE1)
		_exit(HIDDEN_UNKNOWN);
	if (sigaction(SIGILL, &sa, NULL) || sigaction(SIGSEGV, &sa, NULL) ||
	    sigaction(SIGBUS, &sa, NULL) || sigaction(SIGTRAP, &sa, NULL))
		_exit(3);
	sigsetjmp(fault_escape, 1);
	report->result = hidden(1);
	_exit(0);
}

/*
 * Code branches into the immediate of a probed cmp, which hides an
 * instruction.  With jumps to stubs, a plain event: the cmp has its jump
 * after the first hit, the branch runs the jump's byte 1, push %es,
 * invalid in 64-bit code: SIGILL there, each time (twice here), and the
 * kernel logs it once, naming the file and offset and the sysctl.  With
 * %nojump or debug.uprobes-jumps=0 (set after the jump came) the
 * breakpoint is there and the branch runs right, with nothing logged.  A
 * kernel without jumps, whose breakpoint is one byte, runs the branch
 * right with a plain event, and logs nothing.  Every call from the start
 * computes right and is one hit.
 */
TEST_F(hidden, branch_into_the_probed_instruction)
{
	bool jumps = have_uprobe_jumps();
	bool faults = jumps && !variant->jumps_off && !variant->suffix[0];
	long (*hidden)(long x);
	struct hidden_report *r;
	char offset[32];
	unsigned long code;
	int status, logged, i, err;
	pid_t pid;

	if (variant->jumps_off && kernel_lacks(_metadata, jumps, "debug.uprobes-jumps"))
		return;
	code = hidden_map(self->path);
	ASSERT_NE(0, code);
	hidden = (long (*)(long x))(code + HIDDEN_ENTRY);
	ASSERT_EQ(1, hidden(0));
	ASSERT_EQ(2, hidden(1));
	err = uprobe_event_add("p:" GROUP "/hidden %s:0x%x%s", self->path, HIDDEN_CMP,
			       variant->suffix);
	if (variant->suffix[0] && kernel_lacks(_metadata, err != -EINVAL, "%nojump"))
		return;
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, event_enable(GROUP, "hidden", 1));

	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, r);
	memset(r, 0, sizeof(*r));
	report = r;
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		hidden_child(code, variant->jumps_off);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	TH_LOG("child status %#x, %d faults", status, r->faults);
	for (i = 0; i < r->faults && i < 2; i++)
		TH_LOG("fault %d: signal %d at the cmp%+ld", i, r->sig[i],
		       (long)(r->ip[i] - code - HIDDEN_CMP));
	TH_LOG("code at the cmp: %02x %02x %02x %02x %02x",
	       r->code[0], r->code[1], r->code[2], r->code[3], r->code[4]);
	EXPECT_EQ(0, r->wrong);
	EXPECT_EQ(HIDDEN_CALLS, profile_hits("hidden"));

	if (faults) {
		EXPECT_TRUE(r->jump) TH_LOG("no jump after %d hits", HIDDEN_CALLS);
		ASSERT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == HIDDEN_UNKNOWN)
			TH_LOG("the stub is not first in the page under the code");
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == HIDDEN_FAULTED);
		EXPECT_EQ(2, r->faults);
		for (i = 0; i < 2; i++) {
			EXPECT_EQ(SIGILL, r->sig[i]) TH_LOG("fault %d", i);
			EXPECT_EQ(code + HIDDEN_CMP + 1, r->ip[i]) TH_LOG("fault %d", i);
		}
	} else {
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		EXPECT_EQ(0, r->faults);
		EXPECT_EQ(2, r->result);
		EXPECT_TRUE(is_breakpoint(r->code, hidden_code + 11));
		if (variant->suffix[0])
			EXPECT_EQ(0, r->not_kept) TH_LOG("a jump came with %%nojump");
		if (variant->jumps_off)
			EXPECT_TRUE(r->jump) TH_LOG("no jump before the sysctl");
	}
	munmap(r, sizeof(*r));

	/* The log names the file (its last component) and the offset. */
	snprintf(offset, sizeof(offset), "0x%x", HIDDEN_CMP);
	logged = klog_jump_reports(strrchr(self->path, '/') + 1, offset);
	ASSERT_LE(0, logged) TH_LOG("the kernel log cannot be read");
	EXPECT_EQ(faults ? 1 : 0, logged);
}

TEST_HARNESS_MAIN
