// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_process: probes by process and address (uprobe_register_pid()),
 * in code this program writes at run time into anonymous memory (as a JIT
 * does) and in its own file, and registration from handlers, driven
 * through the test module's "pid", "prep" and "onhit" commands.  On a
 * kernel without them (the module then refuses those commands with
 * EOPNOTSUPP), every test is skipped.
 *
 * The code written: a function that returns its argument plus one, and
 * one that returns a constant (the constant is what a rewrite changes).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/userfaultfd.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "uprobe_util.h"

typedef long (*jit_fn)(long);

/* Code: "return x + 1" and "return K", with K's place in the second. */
#ifdef __aarch64__
static const uint32_t add1_code[] = {
	0x91000400,	/* add x0, x0, #1 */
	0xd65f03c0,	/* ret */
};

static void const_code(uint32_t *code, uint16_t k)
{
	code[0] = 0x52800000 | ((uint32_t)k << 5);	/* mov w0, #k */
	code[1] = 0xd65f03c0;				/* ret */
}

#define CONST_LEN	8

/* A trap a program writes into its own code: brk #0, not uprobes' brk. */
static const uint32_t own_trap[] = { 0xd4200000 };
#else
static const uint8_t add1_code[] = {
	0x48, 0x8d, 0x47, 0x01,	/* lea 0x1(%rdi),%rax */
	0xc3,			/* ret */
};

static void const_code(uint8_t *code, uint16_t k)
{
	code[0] = 0xb8;		/* mov $k,%eax */
	memcpy(code + 1, &(uint32_t){ k }, 4);
	code[5] = 0xc3;		/* ret */
}

#define CONST_LEN	6

/* A trap a program writes into its own code, as a JIT pads with it. */
static const uint8_t own_trap[] = { 0xcc };	/* int3 */
#endif

/* A page of anonymous code: where, and how long the code written is. */
struct jit {
	uint8_t *page;
	size_t len;
};

static size_t page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* Writes @len bytes of @code at the start of @j's page, which is writable. */
static void jit_write(struct jit *j, const void *code, size_t len)
{
	memcpy(j->page, code, len);
	__builtin___clear_cache((char *)j->page, (char *)j->page + len);
	j->len = len;
}

/*
 * A new page holding @code: writable and executable at once (@wx false),
 * or written, then made executable and not writable (@wx true).
 */
static int jit_make(struct jit *j, const void *code, size_t len, bool wx)
{
	int prot = PROT_READ | PROT_WRITE | (wx ? 0 : PROT_EXEC);

	j->page = mmap(NULL, page_size(), prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (j->page == MAP_FAILED)
		return -errno;
	jit_write(j, code, len);
	if (wx && mprotect(j->page, page_size(), PROT_READ | PROT_EXEC))
		return -errno;
	return 0;
}

static long jit_call(const struct jit *j, long x)
{
	return ((jit_fn)(uintptr_t)j->page)(x);
}

/* Registers slot @id at address @addr of process @pid, with @opts. */
static int reg_pid(int id, pid_t pid, const void *addr, const char *opts)
{
	return test_mod_ctl("pid %d %d 0x%lx %s", id, pid, (unsigned long)addr, opts);
}

/* Waits up to 5 s for a log line (@id, @kind, @value): whether it came. */
static bool log_waits_for(int id, char kind, int value)
{
	int i;

	for (i = 0; i < 500; i++) {
		if (test_mod_log_count(id, kind, value))
			return true;
		usleep(10000);
	}
	return false;
}

TARGET long proc_add(long a, long b)
{
	return a + b;
}

/* Calls proc_add() @n times: how many of the calls gave the right sum. */
static int call_add(int n)
{
	int i, right = 0;

	for (i = 0; i < n; i++)
		right += proc_add(i, 1) == i + 1;
	return right;
}

FIXTURE(proc) {
	bool loaded;
	struct jit j;
};

FIXTURE_SETUP(proc)
{
	self->j.page = MAP_FAILED;
	if (!getenv("UPROBE_TEST_MODULE"))
		SKIP(return, "UPROBE_TEST_MODULE is not set: no test module to load");
	ASSERT_EQ(0, kmod_load(getenv("UPROBE_TEST_MODULE"), TEST_MOD_NAME, ""));
	self->loaded = true;
	/*
	 * "pid" without an address: EINVAL, or EOPNOTSUPP where the kernel has
	 * no uprobe_register_pid(), nor registration from handlers.  A setup
	 * that skips gets no teardown: the module is unloaded here.
	 */
	if (test_mod_ctl("pid 0") == -EOPNOTSUPP) {
		ASSERT_EQ(0, kmod_unload(TEST_MOD_NAME));
		SKIP(return, "the kernel has no uprobe_register_pid()");
	}
	ASSERT_NE(0UL, self_offset(proc_add));
}

FIXTURE_TEARDOWN(proc)
{
	if (self->loaded)
		EXPECT_EQ(0, kmod_unload(TEST_MOD_NAME));
	if (self->j.page != MAP_FAILED)
		munmap(self->j.page, page_size());
}

struct caller {
	const struct jit *j;
	long from, n, wrong;
};

static void *call_jit(void *arg)
{
	struct caller *c = arg;
	long i;

	for (i = c->from; i < c->from + c->n; i++)
		c->wrong += jit_call(c->j, i) != i + 1;
	return NULL;
}

/*
 * Two threads call code in anonymous memory: every call is counted, with
 * its argument and its result, and the results are right; unregistered,
 * the page is exactly what the program wrote.
 */
TEST_F(proc, jit_counts_every_call)
{
	struct caller c[2] = { { &self->j, 0, 500 }, { &self->j, 1000, 500 } };
	long args, rets, want_args = 0;
	pthread_t t;
	int i;

	ASSERT_EQ(0, jit_make(&self->j, add1_code, sizeof(add1_code), false));
	ASSERT_EQ(0, reg_pid(0, getpid(), self->j.page, "h r"));
	ASSERT_EQ(0, pthread_create(&t, NULL, call_jit, &c[0]));
	call_jit(&c[1]);
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, c[0].wrong + c[1].wrong);
	EXPECT_EQ(1000, test_mod_hits(0));
	EXPECT_EQ(1000, test_mod_counts(0).rets);
	for (i = 0; i < 2; i++)
		want_args += c[i].n * c[i].from + c[i].n * (c[i].n - 1) / 2;
	ASSERT_EQ(0, test_mod_sums(0, &args, &rets));
	EXPECT_EQ(want_args, args);
	EXPECT_EQ(want_args + 1000, rets);
	ASSERT_EQ(0, test_mod_ctl("unreg 0"));
	EXPECT_EQ(0, memcmp(self->j.page, add1_code, sizeof(add1_code)));
	EXPECT_EQ(8, jit_call(&self->j, 7));
	EXPECT_EQ(1000, test_mod_hits(0));
	EXPECT_EQ(0, test_mod_log_count(0, 'L', -ESTALE));
}

/*
 * The program writes its own trap instruction over the probed one, in
 * writable and executable memory, as a JIT pads code it dropped:
 * unregistering leaves the program's trap in place.
 */
TEST_F(proc, jit_own_trap_kept)
{
	ASSERT_EQ(0, jit_make(&self->j, add1_code, sizeof(add1_code), false));
	ASSERT_EQ(0, reg_pid(0, getpid(), self->j.page, "h"));
	EXPECT_EQ(2, jit_call(&self->j, 1));
	EXPECT_EQ(1, test_mod_hits(0));
	memcpy(self->j.page, own_trap, sizeof(own_trap));
	ASSERT_EQ(0, test_mod_ctl("unreg 0"));
	EXPECT_EQ(0, memcmp(self->j.page, own_trap, sizeof(own_trap)))
		TH_LOG("unregistering put the probed instruction back over the program's trap");
	EXPECT_EQ(0, memcmp(self->j.page + sizeof(own_trap),
			    (const uint8_t *)add1_code + sizeof(own_trap),
			    sizeof(add1_code) - sizeof(own_trap)));
}

/*
 * /proc/self/uprobes shows a probe in anonymous memory with "[anon]" for
 * its file and its address for the offset, armed by a breakpoint that
 * never gets a jump there ("anonymous-memory"; "no-jumps" on a kernel
 * without jumps to stubs), and no more once it is unregistered.
 */
TEST_F(proc, proc_uprobes_anon_line)
{
	char line[512], want[128];

	if (kernel_lacks(_metadata, have_proc_uprobes(), "/proc/PID/uprobes"))
		return;
	ASSERT_EQ(0, jit_make(&self->j, add1_code, sizeof(add1_code), false));
	ASSERT_EQ(0, reg_pid(0, getpid(), self->j.page, "h"));
	EXPECT_EQ(2, jit_call(&self->j, 1));
	ASSERT_EQ(0, proc_uprobes_line(0, self->j.page, line, sizeof(line)));
	snprintf(want, sizeof(want), "%lx [anon]+0x%lx ", (unsigned long)self->j.page,
		 (unsigned long)self->j.page);
	EXPECT_EQ(0, strncmp(line, want, strlen(want))) TH_LOG("line: %s", line);
	snprintf(want, sizeof(want), " breakpoint %s\n",
		 have_uprobe_jumps() ? "anonymous-memory" : "no-jumps");
	EXPECT_NE(NULL, strstr(line, want)) TH_LOG("line: %s", line);
	ASSERT_EQ(0, test_mod_ctl("unreg 0"));
	EXPECT_EQ(-1, proc_uprobes_line(0, self->j.page, line, sizeof(line)))
		TH_LOG("still shown after unregistering: %s", line);
}

#ifndef __aarch64__
static sigjmp_buf trap_escape;
/* The signal jit_call_trapped() caught, with the ip and the address it gave. */
static int trap_sig;
static uintptr_t trap_ip, trap_addr;

static void on_trap(int sig, siginfo_t *si, void *uc)
{
	trap_sig = sig;
	trap_addr = (uintptr_t)si->si_addr;
	trap_ip = ((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
	siglongjmp(trap_escape, 1);
}

/* Calls @j with SIGTRAP and SIGILL caught: the signal, 0 for none. */
static int jit_call_trapped(const struct jit *j)
{
	struct sigaction sa = { .sa_sigaction = on_trap, .sa_flags = SA_SIGINFO };
	struct sigaction old_trap, old_ill;

	trap_sig = 0;
	if (sigaction(SIGTRAP, &sa, &old_trap) || sigaction(SIGILL, &sa, &old_ill))
		return -errno;
	if (!sigsetjmp(trap_escape, 1))
		jit_call(j, 1);
	sigaction(SIGTRAP, &old_trap, NULL);
	sigaction(SIGILL, &old_ill, NULL);
	return trap_sig;
}

/*
 * The program's own int3 at a probed address, while the probe is
 * registered: executed, it is the program's (SIGTRAP past it), with no
 * hit; the program's byte written back is left alone by unregistering.
 */
TEST_F(proc, jit_own_trap_is_the_programs)
{
	ASSERT_EQ(0, jit_make(&self->j, add1_code, sizeof(add1_code), false));
	ASSERT_EQ(0, reg_pid(0, getpid(), self->j.page, "h"));
	EXPECT_EQ(2, jit_call(&self->j, 1));
	EXPECT_EQ(1, test_mod_hits(0));
	memcpy(self->j.page, own_trap, sizeof(own_trap));
	EXPECT_EQ(SIGTRAP, jit_call_trapped(&self->j))
		TH_LOG("the program's int3 was taken for the probe's");
	EXPECT_EQ((uintptr_t)self->j.page + 1, trap_ip);
	EXPECT_EQ(1, test_mod_hits(0));
	self->j.page[0] = add1_code[0];
	EXPECT_EQ(3, jit_call(&self->j, 2));
	EXPECT_EQ(1, test_mod_hits(0));
	ASSERT_EQ(0, test_mod_ctl("unreg 0"));
	EXPECT_EQ(0, memcmp(self->j.page, add1_code, sizeof(add1_code)));
}

/*
 * The program copies probed code elsewhere (as a moving collector does)
 * and runs the copy: the probe's breakpoint, copied, is an invalid
 * instruction there (SIGILL at it), not a hit.
 */
TEST_F(proc, jit_copied_breakpoint)
{
	struct jit copy;
	uint8_t first;
	int sig;

	ASSERT_EQ(0, jit_make(&self->j, add1_code, sizeof(add1_code), false));
	ASSERT_EQ(0, jit_make(&copy, add1_code, sizeof(add1_code), false));
	ASSERT_EQ(0, reg_pid(0, getpid(), self->j.page, "h"));
	EXPECT_EQ(2, jit_call(&self->j, 1));
	EXPECT_EQ(1, test_mod_hits(0));
	first = self->j.page[0];
	EXPECT_EQ(ANON_BKPT_INSN, first);
	jit_write(&copy, self->j.page, sizeof(add1_code));
	sig = jit_call_trapped(&copy);
	EXPECT_EQ(SIGILL, sig) TH_LOG("byte %#x copied: signal %d", first, sig);
	EXPECT_EQ((uintptr_t)copy.page, trap_ip);
	EXPECT_EQ((uintptr_t)copy.page, trap_addr);
	EXPECT_EQ(1, test_mod_hits(0));
	EXPECT_EQ(3, jit_call(&self->j, 2));
	EXPECT_EQ(2, test_mod_hits(0));
	munmap(copy.page, page_size());
}

/*
 * The program rewrites the probed instruction in writable and executable
 * memory, keeping its first byte: the next call runs the new code with no
 * hit, the probe is lost (-ESTALE), and the page holds what the program
 * wrote.  (On arm64 the breakpoint is the whole instruction: a rewrite
 * replaces it, and there is nothing to see at a hit.)
 */
TEST_F(proc, jit_rewrite_in_place)
{
	uint8_t one[CONST_LEN], two[CONST_LEN];

	const_code(one, 1);
	const_code(two, 2);
	ASSERT_EQ(0, jit_make(&self->j, one, sizeof(one), false));
	ASSERT_EQ(0, reg_pid(0, getpid(), self->j.page, "h"));
	EXPECT_EQ(1, jit_call(&self->j, 0));
	EXPECT_EQ(1, test_mod_hits(0));
	/* As a JIT patches a constant: the bytes after the opcode. */
	memcpy(self->j.page + 1, two + 1, sizeof(two) - 1);
	EXPECT_EQ(2, jit_call(&self->j, 0));
	EXPECT_EQ(2, jit_call(&self->j, 0));
	EXPECT_EQ(1, test_mod_hits(0));
	EXPECT_TRUE(log_waits_for(0, 'L', -ESTALE));
	EXPECT_EQ(0, memcmp(self->j.page, two, sizeof(two)));
	ASSERT_EQ(0, test_mod_ctl("unreg 0"));
	EXPECT_EQ(0, memcmp(self->j.page, two, sizeof(two)));
}
#endif

/*
 * Write-xor-execute: made writable, the page shows the program's code (the
 * breakpoint is held out); written anew and made executable, the new code
 * runs, the probe is lost (-ESTALE).
 */
TEST_F(proc, jit_wx_rewrite)
{
	uint8_t one[CONST_LEN], two[CONST_LEN];

	const_code((void *)one, 1);
	const_code((void *)two, 2);
	ASSERT_EQ(0, jit_make(&self->j, one, sizeof(one), true));
	ASSERT_EQ(0, reg_pid(0, getpid(), self->j.page, "h"));
	EXPECT_EQ(1, jit_call(&self->j, 0));
	ASSERT_EQ(0, mprotect(self->j.page, page_size(), PROT_READ | PROT_WRITE));
	EXPECT_EQ(0, memcmp(self->j.page, one, sizeof(one)));
	jit_write(&self->j, two, sizeof(two));
	ASSERT_EQ(0, mprotect(self->j.page, page_size(), PROT_READ | PROT_EXEC));
	EXPECT_TRUE(log_waits_for(0, 'L', -ESTALE));
	EXPECT_EQ(2, jit_call(&self->j, 0));
	EXPECT_EQ(1, test_mod_hits(0));
	EXPECT_EQ(0, memcmp(self->j.page, two, sizeof(two)));
}

/* Made writable and executable again unchanged, the probe goes on. */
TEST_F(proc, jit_wx_unchanged)
{
	ASSERT_EQ(0, jit_make(&self->j, add1_code, sizeof(add1_code), true));
	ASSERT_EQ(0, reg_pid(0, getpid(), self->j.page, "h"));
	EXPECT_EQ(2, jit_call(&self->j, 1));
	ASSERT_EQ(0, mprotect(self->j.page, page_size(), PROT_READ | PROT_WRITE));
	EXPECT_EQ(0, memcmp(self->j.page, add1_code, sizeof(add1_code)));
	ASSERT_EQ(0, mprotect(self->j.page, page_size(), PROT_READ | PROT_EXEC));
	EXPECT_EQ(3, jit_call(&self->j, 2));
	EXPECT_EQ(2, test_mod_hits(0));
	EXPECT_EQ(0, test_mod_log_count(0, 'L', -ESTALE));
}

/* Unmapped, the code is gone: the probe is lost (-ENXIO). */
TEST_F(proc, jit_unmapped)
{
	ASSERT_EQ(0, jit_make(&self->j, add1_code, sizeof(add1_code), false));
	ASSERT_EQ(0, reg_pid(0, getpid(), self->j.page, "h"));
	EXPECT_EQ(2, jit_call(&self->j, 1));
	ASSERT_EQ(0, munmap(self->j.page, page_size()));
	self->j.page = MAP_FAILED;
	EXPECT_TRUE(log_waits_for(0, 'L', -ENXIO));
	EXPECT_EQ(1, test_mod_hits(0));
}

/*
 * MADV_FREE, then reclaim of the page (MADV_PAGEOUT): the kernel keeps
 * probed code where it is, so the code and its probe are still there, and
 * every call runs right and is counted.  An unprobed page the same way
 * first: reclaim drops it (it reads as zeros), or the test proves nothing.
 */
TEST_F(proc, jit_madv_free_keeps_code)
{
	uint8_t *control;
	INSN_UNIT first;

	control = mmap(NULL, page_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	ASSERT_NE(MAP_FAILED, control);
	memcpy(control, add1_code, sizeof(add1_code));
	ASSERT_EQ(0, madvise(control, page_size(), MADV_FREE));
	ASSERT_EQ(0, madvise(control, page_size(), MADV_PAGEOUT));
	EXPECT_EQ(0, control[0]) TH_LOG("reclaim kept an unprobed page after MADV_FREE");
	munmap(control, page_size());
	ASSERT_EQ(0, jit_make(&self->j, add1_code, sizeof(add1_code), false));
	ASSERT_EQ(0, reg_pid(0, getpid(), self->j.page, "h"));
	EXPECT_EQ(2, jit_call(&self->j, 1));
	ASSERT_EQ(0, madvise(self->j.page, page_size(), MADV_FREE));
	ASSERT_EQ(0, madvise(self->j.page, page_size(), MADV_PAGEOUT));
	/* The breakpoint is in the first unit of code; the rest is the program's. */
	memcpy(&first, self->j.page, sizeof(first));
	EXPECT_EQ((INSN_UNIT)ANON_BKPT_INSN, first);
	ASSERT_EQ(0, memcmp(self->j.page + sizeof(first),
			    (const uint8_t *)add1_code + sizeof(first),
			    sizeof(add1_code) - sizeof(first)));
	EXPECT_EQ(3, jit_call(&self->j, 2));
	EXPECT_EQ(2, test_mod_hits(0));
	EXPECT_EQ(0, test_mod_log_count(0, 'L', -ENXIO));
}

#ifndef UFFDIO_MOVE
/* Linux 6.8's UFFDIO_MOVE, which the build's headers may predate. */
#define UFFD_FEATURE_MOVE	0x10000
struct uffdio_move {
	__u64 dst;
	__u64 src;
	__u64 len;
	__u64 mode;
	__s64 move;
};

#define UFFDIO_MOVE		_IOWR(UFFDIO, 0x05, struct uffdio_move)
#endif

/* A userfaultfd that may move pages, and @dst registered with it; or -errno. */
static int uffd_for_move(void *dst)
{
	struct uffdio_api api = { .api = UFFD_API, .features = UFFD_FEATURE_MOVE };
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)dst, .len = page_size() },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	int fd = syscall(__NR_userfaultfd, O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (ioctl(fd, UFFDIO_API, &api) || ioctl(fd, UFFDIO_REGISTER, &reg)) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* UFFDIO_MOVE of one page from @src to @dst: 0 or -errno. */
static int uffd_move(int fd, void *dst, void *src)
{
	struct uffdio_move move = {
		.dst = (uintptr_t)dst,
		.src = (uintptr_t)src,
		.len = page_size(),
	};

	return ioctl(fd, UFFDIO_MOVE, &move) ? -errno : 0;
}

/*
 * UFFDIO_MOVE would take the breakpoint to another address, where it would
 * trap with no probe: a page with probed code is not moved (EBUSY), and
 * its code and probe stay.  The same move of the same code unprobed works,
 * which shows the refusal is the probe's.
 */
TEST_F(proc, jit_uffd_move_refused)
{
	int prot = PROT_READ | PROT_WRITE | PROT_EXEC;
	uint8_t *dst;
	struct jit moved;
	int fd;

	dst = mmap(NULL, page_size(), prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, dst);
	fd = uffd_for_move(dst);
	ASSERT_LE(0, fd);

	ASSERT_EQ(0, jit_make(&moved, add1_code, sizeof(add1_code), false));
	ASSERT_EQ(0, uffd_move(fd, dst, moved.page));
	EXPECT_EQ(0, memcmp(dst, add1_code, sizeof(add1_code)));
	munmap(moved.page, page_size());
	munmap(dst, page_size());

	dst = mmap(NULL, page_size(), prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, dst);
	close(fd);
	fd = uffd_for_move(dst);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, jit_make(&self->j, add1_code, sizeof(add1_code), false));
	ASSERT_EQ(0, reg_pid(0, getpid(), self->j.page, "h"));
	EXPECT_EQ(2, jit_call(&self->j, 1));
	EXPECT_EQ(-EBUSY, uffd_move(fd, dst, self->j.page));
	EXPECT_EQ(3, jit_call(&self->j, 2));
	EXPECT_EQ(2, test_mod_hits(0));
	close(fd);
	munmap(dst, page_size());
}

/*
 * A child forked while the code is probed has its own copy of the page,
 * with the program's bytes and no probe: its calls are not counted, its
 * results are right; the parent's go on being counted.
 */
TEST_F(proc, jit_fork_child_not_probed)
{
	int status;
	pid_t pid;

	ASSERT_EQ(0, jit_make(&self->j, add1_code, sizeof(add1_code), false));
	ASSERT_EQ(0, reg_pid(0, getpid(), self->j.page, "h"));
	EXPECT_EQ(2, jit_call(&self->j, 1));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		bool same = !memcmp(self->j.page, add1_code, sizeof(add1_code));
		long i, wrong = 0;

		for (i = 0; i < 10; i++)
			wrong += jit_call(&self->j, i) != i + 1;
		_exit(same && !wrong ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		TH_LOG("child status 0x%x", status);
	}
	EXPECT_EQ(0, test_mod_log_count(0, 'h', pid));
	EXPECT_EQ(4, jit_call(&self->j, 3));
	EXPECT_EQ(2, test_mod_hits(0));
}

/* A child that writes code and calls it on a signal, till told to exit. */
static void jit_child(int to_parent, int from_parent)
{
	struct jit j;
	char cmd;
	long i;

	if (jit_make(&j, add1_code, sizeof(add1_code), false))
		_exit(2);
	if (write(to_parent, &j.page, sizeof(j.page)) != sizeof(j.page))
		_exit(3);
	while (read(from_parent, &cmd, 1) == 1 && cmd == 'c')
		for (i = 0; i < 5; i++)
			if (jit_call(&j, i) != i + 1)
				_exit(4);
	_exit(0);
}

/*
 * Another process's code, counted there only; when the process exits, the
 * probe is lost (-ESRCH).
 */
TEST_F(proc, jit_other_process_exits)
{
	int up[2], down[2], status;
	uint8_t *addr;
	pid_t pid;

	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		jit_child(up[1], down[0]);
	}
	close(up[1]);
	close(down[0]);
	ASSERT_EQ(sizeof(addr), read(up[0], &addr, sizeof(addr)));
	ASSERT_EQ(0, reg_pid(0, pid, addr, "h"));
	ASSERT_EQ(1, write(down[1], "c", 1));
	ASSERT_EQ(1, write(down[1], "x", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_EQ(5, test_mod_log_count(0, 'h', pid));
	EXPECT_EQ(5, test_mod_hits(0));
	EXPECT_TRUE(log_waits_for(0, 'L', -ESRCH));
	close(up[0]);
	close(down[1]);
}

/*
 * In the program's file, the probe by pid and address is the file's probe
 * for this process alone: a child's calls are not counted.
 */
TEST_F(proc, file_place_one_process)
{
	int status;
	pid_t pid;

	ASSERT_EQ(0, reg_pid(0, getpid(), proc_add, "h"));
	ASSERT_EQ(3, call_add(3));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(call_add(7) == 7 ? 0 : 1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the child: status %#x", status);
	EXPECT_EQ(0, test_mod_log_count(0, 'h', pid));
	EXPECT_EQ(3, test_mod_log_count(0, 'h', getpid()));
	EXPECT_EQ(3, test_mod_hits(0));
}

/* A process that exited and was not reaped yet: its pid. */
static pid_t zombie(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	usleep(100000);
	return pid;
}

/*
 * Each way a registration by pid is refused, with its errno, and nothing
 * armed: the code is as written, and calls are not counted.
 */
TEST_F(proc, refusals)
{
	uint8_t *rw, *shared;
	pid_t dead;

	ASSERT_EQ(0, jit_make(&self->j, add1_code, sizeof(add1_code), false));
	rw = mmap(NULL, page_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	shared = mmap(NULL, page_size(), PROT_READ | PROT_WRITE | PROT_EXEC,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, rw);
	ASSERT_NE(MAP_FAILED, shared);
	memcpy(rw, add1_code, sizeof(add1_code));
	memcpy(shared, add1_code, sizeof(add1_code));

	dead = zombie();
	EXPECT_EQ(-ESRCH, reg_pid(0, dead, self->j.page, "h"));
	waitpid(dead, NULL, 0);
	EXPECT_EQ(-ESRCH, reg_pid(0, dead, self->j.page, "h"));
	EXPECT_EQ(-EINVAL, reg_pid(0, 2, self->j.page, "h"));	/* kthreadd */
	EXPECT_EQ(-EFAULT, reg_pid(0, getpid(), rw, "h"));
	EXPECT_EQ(-EFAULT, reg_pid(0, getpid(), (void *)(uintptr_t)page_size(), "h"));
	EXPECT_EQ(-EOPNOTSUPP, reg_pid(0, getpid(), shared, "h"));
	EXPECT_EQ(0, memcmp(rw, add1_code, sizeof(add1_code)));
	EXPECT_EQ(0, memcmp(shared, add1_code, sizeof(add1_code)));
	EXPECT_EQ(0, memcmp(self->j.page, add1_code, sizeof(add1_code)));
	EXPECT_EQ(2, jit_call(&self->j, 1));
	EXPECT_EQ(0, test_mod_hits(0));
	munmap(rw, page_size());
	munmap(shared, page_size());
}

/*
 * A caller that may not ptrace the process is refused (-EACCES): a child
 * that gave up root writes the command, on the control file opened before.
 */
TEST_F(proc, refused_without_ptrace_rights)
{
	int fd, status;
	char cmd[128];
	pid_t pid;

	ASSERT_EQ(0, jit_make(&self->j, add1_code, sizeof(add1_code), false));
	fd = open(TEST_MOD_DIR "/ctl", O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	snprintf(cmd, sizeof(cmd), "pid 0 %d 0x%lx h", getpid(), (unsigned long)self->j.page);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(2);
		_exit(write(fd, cmd, strlen(cmd)) < 0 && errno == EACCES ? 0 : 1);
	}
	close(fd);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		TH_LOG("child status 0x%x", status);
	}
	EXPECT_EQ(0, memcmp(self->j.page, add1_code, sizeof(add1_code)));
	EXPECT_EQ(2, jit_call(&self->j, 1));
	EXPECT_EQ(0, test_mod_hits(0));
}

/*
 * The notify() of a lost probe runs in a worker, with the rights of the
 * task that registered its consumer: a child that gave up root probes
 * its own JIT code, and the notice that the code went registers a probe
 * in this process (root's), which it may not ptrace: -EACCES.
 */
TEST_F(proc, lost_notice_has_the_registrant_rights)
{
	char cmd[3][128];
	int fd, i, status;
	pid_t pid;

	ASSERT_EQ(0, jit_make(&self->j, add1_code, sizeof(add1_code), false));
	fd = open(TEST_MOD_DIR "/ctl", O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		snprintf(cmd[0], sizeof(cmd[0]), "pid 0 %d 0x%lx h", getpid(),
			 (unsigned long)self->j.page);
		snprintf(cmd[1], sizeof(cmd[1]), "prep 1 pid %d 0x%lx h", getppid(),
			 (unsigned long)proc_add);
		snprintf(cmd[2], sizeof(cmd[2]), "onhit 0 reg=1 lost");
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534) ||
		    prctl(PR_SET_DUMPABLE, 1))
			_exit(2);
		for (i = 0; i < 3; i++)
			if (write(fd, cmd[i], strlen(cmd[i])) < 0)
				_exit(10 + i);
		if (jit_call(&self->j, 1) != 2 || munmap(self->j.page, page_size()))
			_exit(3);
		pause();
		_exit(0);
	}
	close(fd);
	EXPECT_TRUE(log_waits_for(0, 'L', -ENXIO));
	EXPECT_TRUE(log_waits_for(1, 'q', -EACCES))
		TH_LOG("registered from the notice: q %d, R %d", test_mod_log_count(1, 'q', 0),
		       test_mod_log_count(1, 'R', 0));
	EXPECT_EQ(0, test_mod_log_count(1, 'R', 0));
	ASSERT_EQ(1, call_add(1));
	EXPECT_EQ(0, test_mod_hits(1));
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status)) TH_LOG("child status %#x", status);
}

/* Prepares slot @id on proc_add, for "onhit". */
static int prep_add(int id, const char *opts)
{
	return test_mod_ctl("prep %d %s 0x%lx %s", id, self_path(), self_offset(proc_add), opts);
}

/*
 * A handler registers a second consumer: the call says -EINPROGRESS, the
 * registration is done when the hit is over (the call has returned), and
 * the new consumer counts from the next hit on.
 */
TEST_F(proc, handler_registers)
{
	ASSERT_EQ(0, reg_pid(0, getpid(), proc_add, "h"));
	ASSERT_EQ(0, prep_add(1, "h"));
	ASSERT_EQ(0, test_mod_ctl("onhit 0 reg=1"));
	ASSERT_EQ(1, call_add(1));
	EXPECT_EQ(1, test_mod_log_count(1, 'q', -EINPROGRESS));
	EXPECT_EQ(1, test_mod_log_count(1, 'R', 0));
	EXPECT_EQ(0, test_mod_hits(1));
	ASSERT_EQ(10, call_add(10));
	EXPECT_EQ(11, test_mod_hits(0));
	EXPECT_EQ(10, test_mod_hits(1));
}

/*
 * A registration by pid made by a handler has the rights of the task that
 * hit the probe, checked at the call: a child that gave up root hits a
 * probe root put in its JIT code, whose handler registers a probe in this
 * process (root's), which the child may not ptrace: -EACCES, and no probe.
 */
TEST_F(proc, handler_registration_has_the_hitting_task_rights)
{
	int ready[2], go[2], status;
	pid_t pid;
	char c;

	ASSERT_EQ(0, jit_make(&self->j, add1_code, sizeof(add1_code), false));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534) ||
		    prctl(PR_SET_DUMPABLE, 1) || write(ready[1], "r", 1) != 1 ||
		    read(go[0], &c, 1) != 1)
			_exit(2);
		_exit(jit_call(&self->j, 1) == 2 ? 0 : 3);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));
	ASSERT_EQ(0, reg_pid(0, pid, self->j.page, "h"));
	ASSERT_EQ(0, test_mod_ctl("prep 1 pid %d 0x%lx h", getpid(), (unsigned long)proc_add));
	ASSERT_EQ(0, test_mod_ctl("onhit 0 reg=1"));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status %#x", status);
	EXPECT_EQ(1, test_mod_hits(0));
	EXPECT_EQ(1, test_mod_log_count(1, 'q', -EACCES))
		TH_LOG("the handler's call: q %d, R %d", test_mod_log_count(1, 'q', -EINPROGRESS),
		       test_mod_log_count(1, 'R', 0));
	usleep(100000);
	EXPECT_EQ(0, test_mod_log_count(1, 'R', 0));
	ASSERT_EQ(1, call_add(1));
	EXPECT_EQ(0, test_mod_hits(1));
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
}

/* A handler unregisters its own consumer: no hit of it after that one. */
TEST_F(proc, handler_unregisters_itself)
{
	ASSERT_EQ(0, reg_pid(0, getpid(), proc_add, "h"));
	ASSERT_EQ(0, test_mod_ctl("onhit 0 unreg"));
	ASSERT_EQ(1, call_add(1));
	EXPECT_EQ(1, test_mod_log_count(0, 'u', 0));
	EXPECT_EQ(1, test_mod_log_count(0, 'U', 0));
	ASSERT_EQ(10, call_add(10));
	EXPECT_EQ(1, test_mod_hits(0));
	EXPECT_EQ(-ENOENT, test_mod_ctl("unreg 0"));
}

/*
 * In one hit, a handler registers a consumer at its own place and
 * unregisters itself: the calls run in that order, so the place is never
 * without a probe, and the new consumer counts every later call.
 */
TEST_F(proc, handler_swaps_itself)
{
	ASSERT_EQ(0, reg_pid(0, getpid(), proc_add, "h"));
	ASSERT_EQ(0, prep_add(1, "h"));
	ASSERT_EQ(0, test_mod_ctl("onhit 0 reg=1 unreg"));
	ASSERT_EQ(1, call_add(1));
	EXPECT_EQ(1, test_mod_log_count(1, 'R', 0));
	EXPECT_EQ(1, test_mod_log_count(0, 'U', 0));
	ASSERT_EQ(10, call_add(10));
	EXPECT_EQ(1, test_mod_hits(0));
	EXPECT_EQ(10, test_mod_hits(1));
}

/* A grandchild in a new pid namespace calls proc_add once: 0 when it did. */
static int call_add_in_new_pid_ns(void)
{
	int status;
	pid_t pid;

	if (unshare(CLONE_NEWPID))
		return 2;
	pid = fork();
	if (pid < 0)
		return 3;
	if (pid == 0)
		_exit(call_add(1) == 1 ? 0 : 5);
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status) ?
	       0 : 4;
}

/*
 * A handler that runs in a task of another pid namespace registers a
 * probe by process, named in this one: the process is the one the writer
 * of the "prep" command named (the module holds its struct pid), not
 * whatever has that number where the handler runs.
 */
TEST_F(proc, handler_in_other_pid_ns)
{
	int status;
	pid_t pid;

	ASSERT_EQ(0, jit_make(&self->j, add1_code, sizeof(add1_code), false));
	ASSERT_EQ(0, test_mod_ctl("reg 0 %s 0x%lx h", self_path(), self_offset(proc_add)));
	ASSERT_EQ(0, test_mod_ctl("prep 1 pid %d 0x%lx h", getpid(),
				  (unsigned long)self->j.page));
	ASSERT_EQ(0, test_mod_ctl("onhit 0 reg=1"));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(call_add_in_new_pid_ns());
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		TH_LOG("child status 0x%x", status);
	}
	EXPECT_EQ(1, test_mod_hits(0));
	EXPECT_EQ(1, test_mod_log_count(1, 'q', -EINPROGRESS));
	EXPECT_TRUE(log_waits_for(1, 'R', 0)) {
		TH_LOG("the queued registration failed: %d R(-ESRCH) lines",
		       test_mod_log_count(1, 'R', -ESRCH));
	}
	EXPECT_EQ(6, jit_call(&self->j, 5));
	EXPECT_EQ(1, test_mod_hits(1));
	EXPECT_EQ(1, test_mod_log_count(1, 'h', getpid()));
}

/* A handler registers a probe by address in anonymous memory. */
TEST_F(proc, handler_registers_jit_probe)
{
	ASSERT_EQ(0, jit_make(&self->j, add1_code, sizeof(add1_code), false));
	ASSERT_EQ(0, reg_pid(0, getpid(), proc_add, "h"));
	ASSERT_EQ(0, test_mod_ctl("prep 1 pid %d 0x%lx h", getpid(),
				  (unsigned long)self->j.page));
	ASSERT_EQ(0, test_mod_ctl("onhit 0 reg=1"));
	ASSERT_EQ(1, call_add(1));
	EXPECT_EQ(1, test_mod_log_count(1, 'R', 0));
	EXPECT_EQ(6, jit_call(&self->j, 5));
	EXPECT_EQ(1, test_mod_hits(1));
}

#define SWAP_THREADS	8
#define SWAP_CALLS	200	/* by each thread */
#define SWAP_OLD_DI	0x100000000L	/* the first argument the old consumer sets */
#define SWAP_NEW_DI	0x200000000L	/* the one the new consumer sets */

/*
 * Who counted a call, as its result says (the handler that ran last), in
 * the order they come in a thread.
 */
enum swap_counted { BY_OLD, BY_NEITHER, BY_NEW };

/* One call of proc_add() in handler_calls_under_threads. */
struct swap_call {
	long arg;
	long start, end;	/* swap_clock before and after it */
	enum swap_counted by;
};

static struct swap_call swap_calls[SWAP_THREADS][SWAP_CALLS];
static long swap_clock;

static void *add_in_thread(void *arg)
{
	struct swap_call *calls = swap_calls[(long)arg];
	long i, ret;

	for (i = 0; i < SWAP_CALLS; i++) {
		calls[i].arg = (long)arg * 1000 + i + 1;
		calls[i].start = __atomic_fetch_add(&swap_clock, 1, __ATOMIC_SEQ_CST);
		ret = proc_add(calls[i].arg, 1);
		calls[i].end = __atomic_fetch_add(&swap_clock, 1, __ATOMIC_SEQ_CST);
		if (ret == calls[i].arg + 1)
			calls[i].by = BY_NEITHER;
		else if (ret == SWAP_OLD_DI + 1)
			calls[i].by = BY_OLD;
		else if (ret == SWAP_NEW_DI + 1)
			calls[i].by = BY_NEW;
		else
			return (void *)-1L;
	}
	return NULL;
}

/*
 * Eight threads hit the place while one of the handlers registers another
 * consumer and unregisters its own: each is done once, a call is counted
 * at most once, by one of them or by neither (between the two), and the
 * new consumer counts every call made once the call that registered it
 * has returned.  Each consumer sets the first argument, to a value of its
 * own: a call's result says whether the old one counted it (alone), the
 * new one, or neither.  The new one, which runs after the old in one hit,
 * would see the old one's value: its sum of first arguments says it never
 * did.  In each thread the calls counted by the old consumer come first,
 * then those by neither, then those by the new one.  With @hold, the
 * swap is made while another hit runs the old handler, which returns only
 * once the new consumer is registered: that hit's walk of the consumers
 * spans the swap, and must not run the new one after the old.
 */
static void swap_under_threads(struct __test_metadata *_metadata, bool hold)
{
	long before, new_before, sum[3] = { 0 }, args, rets, last_old_end = -1;
	int counted[3] = { 0 }, t, i, late_missed = 0, out_of_order = 0;
	pthread_t th[SWAP_THREADS];
	struct swap_call *c;
	char opts[64];
	void *ret;

	snprintf(opts, sizeof(opts), "h di=%#lx", SWAP_OLD_DI);
	ASSERT_EQ(0, reg_pid(0, getpid(), proc_add, opts));
	snprintf(opts, sizeof(opts), "h di=%#lx", SWAP_NEW_DI);
	ASSERT_EQ(0, prep_add(1, opts));
	ASSERT_EQ(0, test_mod_ctl("onhit 0 reg=1 unreg%s", hold ? " hold" : ""));
	for (t = 0; t < SWAP_THREADS; t++)
		ASSERT_EQ(0, pthread_create(&th[t], NULL, add_in_thread, (void *)(long)t));
	for (t = 0; t < SWAP_THREADS; t++) {
		ASSERT_EQ(0, pthread_join(th[t], &ret));
		EXPECT_EQ(NULL, ret) TH_LOG("thread %d: a result no handler gives", t);
	}
	EXPECT_EQ(1, test_mod_log_count(1, 'q', -EINPROGRESS));
	EXPECT_EQ(1, test_mod_log_count(1, 'R', 0));
	EXPECT_EQ(1, test_mod_log_count(0, 'u', 0));
	EXPECT_EQ(1, test_mod_log_count(0, 'U', 0));

	for (t = 0; t < SWAP_THREADS; t++) {
		for (i = 0; i < SWAP_CALLS; i++) {
			c = &swap_calls[t][i];
			counted[c->by]++;
			sum[c->by] += c->arg;
			if (c->by == BY_OLD && c->end > last_old_end)
				last_old_end = c->end;
			if (i && c->by < swap_calls[t][i - 1].by)
				out_of_order++;
		}
	}
	for (t = 0; t < SWAP_THREADS; t++)
		for (i = 0; i < SWAP_CALLS; i++)
			late_missed += swap_calls[t][i].start > last_old_end &&
				       swap_calls[t][i].by != BY_NEW;
	TH_LOG("calls counted by the old consumer %d, by neither %d, by the new %d",
	       counted[BY_OLD], counted[BY_NEITHER], counted[BY_NEW]);
	EXPECT_LT(0, counted[BY_OLD]);
	EXPECT_LT(0, counted[BY_NEW]);
	/* Each hit of a consumer is a call of its own: none counted twice. */
	EXPECT_EQ(counted[BY_OLD], test_mod_hits(0));
	EXPECT_EQ(counted[BY_NEW], test_mod_hits(1));
	/* Each saw the first argument of the calls it counted, not the other's. */
	ASSERT_EQ(0, test_mod_sums(0, &args, &rets));
	EXPECT_EQ(sum[BY_OLD], args);
	ASSERT_EQ(0, test_mod_sums(1, &args, &rets));
	EXPECT_EQ(sum[BY_NEW], args) TH_LOG("%ld calls counted by both", args / SWAP_OLD_DI);
	EXPECT_EQ(0, out_of_order) TH_LOG("calls counted before others of their thread");
	/* The call that registered it returned after the last by the old one began. */
	EXPECT_EQ(0, late_missed) TH_LOG("calls after the swap missed by the new consumer");

	if (hold)
		EXPECT_LT(1, counted[BY_OLD]) TH_LOG("no other hit ran the old handler meanwhile");
	before = test_mod_hits(0);
	new_before = test_mod_hits(1);
	call_add(100);
	EXPECT_EQ(before, test_mod_hits(0));
	EXPECT_EQ(new_before + 100, test_mod_hits(1));
}

TEST_F(proc, handler_calls_under_threads)
{
	swap_under_threads(_metadata, false);
}

/* The swap made while another hit's walk of the consumers is under way. */
TEST_F(proc, handler_swap_spans_a_walk)
{
	swap_under_threads(_metadata, true);
}

/* Defines "p:uproc/EVENT /proc/PID:0xADDR ARGS" (or r:); 0 or -errno. */
static int define_at(char kind, const char *event, pid_t pid, const void *addr, const char *args)
{
	return uprobe_event_add("%c:uproc/%s /proc/%d:0x%lx %s", kind, event, pid,
				(unsigned long)addr, args);
}

/* Whether the error_log has a line with @text. */
static bool error_logged(const char *text)
{
	char *log = tfs_read("error_log");
	bool found = log && strstr(log, text);

	free(log);
	return found;
}

/*
 * uprobe_events by process and address: entry and return events on code in
 * anonymous memory record every call's argument and result; the code
 * unmapped, the error_log says the probe was lost.
 */
TEST_F(proc, tracer_jit_events)
{
	char want[64], *trace;
	long i;

	tracing_reset();
	ASSERT_EQ(0, jit_make(&self->j, add1_code, sizeof(add1_code), false));
#ifdef __aarch64__
	ASSERT_EQ(0, define_at('p', "jit", getpid(), self->j.page, "x=%x0:s64"));
#else
	ASSERT_EQ(0, define_at('p', "jit", getpid(), self->j.page, "x=%di:s64"));
#endif
	ASSERT_EQ(0, define_at('r', "jitr", getpid(), self->j.page, "rv=$retval:s64"));
	ASSERT_EQ(0, event_enable("uproc", "jit", 1));
	ASSERT_EQ(0, event_enable("uproc", "jitr", 1));
	for (i = 1; i <= 3; i++)
		EXPECT_EQ(i * 10 + 1, jit_call(&self->j, i * 10));
	EXPECT_EQ(3, profile_hits("jit"));
	EXPECT_EQ(3, profile_hits("jitr"));
	trace = trace_read();
	ASSERT_NE(NULL, trace);
	for (i = 1; i <= 3; i++) {
		snprintf(want, sizeof(want), " x=%ld", i * 10);
		EXPECT_EQ(1, count_lines(trace, want)) TH_LOG("%s", want);
		snprintf(want, sizeof(want), " rv=%ld", i * 10 + 1);
		EXPECT_EQ(1, count_lines(trace, want)) TH_LOG("%s", want);
	}
	free(trace);
	ASSERT_EQ(0, munmap(self->j.page, page_size()));
	self->j.page = MAP_FAILED;
	for (i = 0; i < 500 && !error_logged("Probe lost: its code was unmapped or moved"); i++)
		usleep(10000);
	EXPECT_TRUE(error_logged("Probe lost: its code was unmapped or moved"));
	tracing_reset();
}

/*
 * A probe of another process, at a place of a file this one maps, shows
 * in this process's /proc/PID/uprobes as not-armed to a reader who may
 * trace every process, and not at all to one who may not: an unprivileged
 * process learns nothing of others' probes there.
 */
TEST_F(proc, not_armed_shown_only_to_tracers)
{
	char line[512];
	pid_t other, reader;
	int status;

	tracing_reset();
	other = fork();
	ASSERT_LE(0, other);
	if (!other) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pause();
		_exit(0);
	}
	EXPECT_EQ(0, define_at('p', "other", other, proc_add, ""));
	EXPECT_EQ(0, event_enable("uproc", "other", 1));
	EXPECT_EQ(0, proc_uprobes_line(0, proc_add, line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, " not-armed")) TH_LOG("as root: %s", line);
	reader = fork();
	ASSERT_LE(0, reader);
	if (!reader) {
		/* The uid change drops every capability; dumpable keeps /proc/self its own. */
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534) ||
		    prctl(PR_SET_DUMPABLE, 1))
			_exit(3);
		if (access("/proc/self/uprobes", R_OK))
			_exit(2);
		_exit(proc_uprobes_line(0, proc_add, line, sizeof(line)) ? 0 : 1);
	}
	ASSERT_EQ(reader, waitpid(reader, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("unprivileged reader: status %#x (exit 1: it saw the line)", status);
	kill(other, SIGKILL);
	waitpid(other, &status, 0);
	tracing_reset();
}

/* What uprobe_events refuses of the form, each with its error_log line. */
TEST_F(proc, tracer_refusals)
{
	pid_t dead = zombie();

	tracing_reset();
	waitpid(dead, NULL, 0);
	ASSERT_EQ(0, jit_make(&self->j, add1_code, sizeof(add1_code), false));
	EXPECT_EQ(-ESRCH, define_at('p', "gone", dead, self->j.page, ""));
	EXPECT_TRUE(error_logged("No such process"));
	EXPECT_EQ(-EINVAL, uprobe_event_add("p:uproc/ref /proc/%d:0x%lx(0x10)", getpid(),
					    (unsigned long)self->j.page));
	EXPECT_TRUE(error_logged("Reference counter is only for a file's probe"));
	EXPECT_EQ(-EINVAL, define_at('p', "foffs", getpid(), self->j.page, "v=@+0:u8"));
	EXPECT_TRUE(error_logged("File offset is only for a file's probe"));
	/* Defined, but enabling it where nothing is mapped is refused. */
	ASSERT_EQ(0, define_at('p', "nowhere", getpid(), (void *)(uintptr_t)page_size(), ""));
	EXPECT_EQ(-EFAULT, event_enable("uproc", "nowhere", 1));
	tracing_reset();
}

/* A child calling proc_add until killed, with pid @pid if not 0; or -errno. */
static pid_t fork_calling(pid_t pid)
{
	struct clone_args args = {
		.exit_signal = SIGCHLD,
		.set_tid = pid ? (uintptr_t)&pid : 0,
		.set_tid_size = pid ? 1 : 0,
	};
	long ret = syscall(__NR_clone3, &args, sizeof(args));

	if (ret < 0)
		return -errno;
	if (ret == 0) {
		for (;;) {
			if (call_add(1) != 1)
				_exit(5);
			usleep(1000);
		}
	}
	return ret;
}

static void kill_child(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/*
 * An event names its process once: after that process has exited, a new
 * process with the same pid (pids wrap; clone3() with set_tid makes it
 * happen now) is a stranger.  Enabling the event again is refused with
 * ESRCH and an error_log line, and the new process is never probed,
 * though it calls the function meanwhile (an event on the file counts).
 */
TEST_F(proc, tracer_pid_reused)
{
	pid_t first, second;
	long hits;
	int i;

	tracing_reset();
	first = fork_calling(0);
	ASSERT_LT(0, first);
	ASSERT_EQ(0, define_at('p', "reused", first, proc_add, ""));
	ASSERT_EQ(0, event_enable("uproc", "reused", 1));
	for (i = 0; i < 500 && profile_hits("reused") <= 0; i++)
		usleep(10000);
	EXPECT_LT(0, profile_hits("reused"));
	ASSERT_EQ(0, event_enable("uproc", "reused", 0));
	kill_child(first);
	hits = profile_hits("reused");

	second = fork_calling(first);
	if (second > 0 && second != first)
		kill_child(second);
	ASSERT_EQ(first, second);
	EXPECT_EQ(-ESRCH, event_enable("uproc", "reused", 1));
	EXPECT_TRUE(error_logged("Probe not armed: its process is gone"));
	ASSERT_EQ(0, uprobe_event_add("p:uproc/witness %s:0x%lx", self_path(),
				      self_offset(proc_add)));
	ASSERT_EQ(0, event_enable("uproc", "witness", 1));
	usleep(200000);
	EXPECT_EQ(hits, profile_hits("reused"));
	EXPECT_LT(0, profile_hits("witness")) TH_LOG("the new process made no call");
	event_enable("uproc", "witness", 0);
	event_enable("uproc", "reused", 0);
	kill_child(second);
	tracing_reset();
}

/*
 * perf's uprobe PMU takes the same form, "/proc/PID" as the path and the
 * address as the offset: entry and return events on code in anonymous
 * memory count every call; the process's SDT semaphore, a process that
 * does not exist, and a directory of /proc that is not a process are
 * refused.
 */
TEST_F(proc, perf_pmu_jit)
{
	struct perf_event_attr attr;
	char place[32];
	int fd[2], i;

	if (uprobe_pmu_type() < 0)
		SKIP(return, "no uprobe PMU");
	ASSERT_EQ(0, jit_make(&self->j, add1_code, sizeof(add1_code), false));
	snprintf(place, sizeof(place), "/proc/%d", getpid());
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, uprobe_perf_attr(&attr, place, (unsigned long)self->j.page, i, 0));
		fd[i] = perf_open(&attr, 0, -1);
		ASSERT_LE(0, fd[i]);
	}
	for (i = 0; i < 5; i++)
		EXPECT_EQ(i + 1, jit_call(&self->j, i));
	EXPECT_EQ(5, perf_count(fd[0]));
	EXPECT_EQ(5, perf_count(fd[1]));
	close(fd[0]);
	close(fd[1]);
	EXPECT_EQ(0, memcmp(self->j.page, add1_code, sizeof(add1_code)));

	ASSERT_EQ(0, uprobe_perf_attr(&attr, place, (unsigned long)self->j.page, 0, 0x10));
	EXPECT_EQ(-EINVAL, perf_open(&attr, 0, -1));
	snprintf(place, sizeof(place), "/proc/%d", zombie());
	waitpid(atoi(place + strlen("/proc/")), NULL, 0);
	ASSERT_EQ(0, uprobe_perf_attr(&attr, place, (unsigned long)self->j.page, 0, 0));
	EXPECT_EQ(-ESRCH, perf_open(&attr, 0, -1));
	ASSERT_EQ(0, uprobe_perf_attr(&attr, "/proc/self", (unsigned long)self->j.page, 0, 0));
	EXPECT_EQ(-EINVAL, perf_open(&attr, 0, -1));
}

TEST_HARNESS_MAIN
