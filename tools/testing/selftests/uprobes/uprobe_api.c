// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_api: the in-kernel API (uprobe_register(), consumers with handler,
 * ret_handler and filter, UPROBE_HANDLER_REMOVE, uprobe_apply(),
 * uprobe_unregister_nosync() + uprobe_unregister_sync()), driven through the
 * test module uprobe_test_mod.ko ($UPROBE_TEST_MODULE) and its debugfs
 * control file.  Every test loads the module afresh and unloads it at the
 * end; the probes sit on functions of this very program.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "uprobe_util.h"

static long api_body_runs;

TARGET long api_add(long a, long b)
{
	return a + b;
}

/* Counts how often its body really runs. */
TARGET long api_body(long a)
{
	api_body_runs++;
	return a;
}

/*
 * Ten bytes of movabs whose immediate is all int3 bytes, then ret: the bytes
 * inside the instruction are not an instruction boundary.  On arm64, a
 * 4-byte mov of the same value (a logical immediate), then ret: no offset
 * but a multiple of 4 is one.  (gcc has no naked functions on arm64.)
 */
#ifdef __aarch64__
long api_movabs(void);
asm(".pushsection .text\n"
	".globl api_movabs\n"
	".type api_movabs, @function\n"
	"api_movabs:\n"
	"	mov x0, #0xcccccccccccccccc\n"
	"	ret\n"
	".size api_movabs, .-api_movabs\n"
	".popsection\n");
#else
__attribute__((naked)) long api_movabs(void)
{
	asm volatile("movabs $0xcccccccccccccccc, %rax\n\tret\n");
}
#endif

static void call_add(int n)
{
	int i;

	for (i = 0; i < n; i++)
		api_add(i, 1);
}

static int mod_unload(void)
{
	return kmod_unload(TEST_MOD_NAME);
}

static int mod_load(void)
{
	return kmod_load(getenv("UPROBE_TEST_MODULE"), TEST_MOD_NAME, "");
}

/* Registers consumer @id at file offset @offset of this program. */
static int reg_at(int id, unsigned long offset, const char *opts)
{
	return test_mod_ctl("reg %d %s 0x%lx %s", id, self_path(), offset, opts);
}

/* Registers consumer @id on function @fn of this program, with @opts. */
static int reg(int id, const void *fn, const char *opts)
{
	return reg_at(id, self_offset(fn), opts);
}

/* The same, with a filter that admits only process @pid. */
static int reg_pid(int id, const void *fn, const char *opts, pid_t pid)
{
	return test_mod_ctl("reg %d %s 0x%lx %s pid=%d", id, self_path(), self_offset(fn), opts,
		   pid);
}

/* Forks a child that calls api_add() @n times; returns its pid once it ended. */
static pid_t fork_caller(int n)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		call_add(n);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return pid;
}

/* Runs this program anew (exec) to call api_add() @n times; its status. */
static int exec_caller(int n)
{
	char count[16];
	char *const argv[] = { (char *)self_path(), "--call", count, NULL };

	snprintf(count, sizeof(count), "%d", n);
	return run_wait(argv);
}

FIXTURE(api) {
	bool loaded;
};

FIXTURE_SETUP(api)
{
	if (!getenv("UPROBE_TEST_MODULE"))
		SKIP(return, "UPROBE_TEST_MODULE is not set: no test module to load");
	ASSERT_EQ(0, mod_load()) TH_LOG("loading %s", getenv("UPROBE_TEST_MODULE"));
	self->loaded = true;
	ASSERT_NE(0UL, self_offset(api_add));
}

FIXTURE_TEARDOWN(api)
{
	if (self->loaded)
		EXPECT_EQ(0, mod_unload());
}

/*
 * Whether the 8 bytes at @fn are those at its offset in the file: in this
 * process's text, and in a new executable mapping of the file's page,
 * which a probe with a consumer left would arm.
 */
static bool text_as_in_file(const void *fn)
{
	unsigned long offset = self_offset(fn), page = getpagesize();
	int fd = open(self_path(), O_RDONLY | O_CLOEXEC);
	unsigned char file[8];
	bool same = false;
	char *map;

	if (fd < 0)
		return false;
	if (pread(fd, file, sizeof(file), offset) != sizeof(file))
		goto close;
	map = mmap(NULL, 2 * page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, offset & ~(page - 1));
	if (map == MAP_FAILED)
		goto close;
	same = !memcmp(file, fn, sizeof(file)) &&
	       !memcmp(file, map + (offset & (page - 1)), sizeof(file));
	munmap(map, 2 * page);
close:
	close(fd);
	return same;
}

/* A handler sees every hit, exactly; the function still works. */
TEST_F(api, handler_counts_hits)
{
	ASSERT_EQ(0, reg(0, api_add, "h"));
	EXPECT_EQ(0, test_mod_hits(0));
	call_add(100);
	EXPECT_EQ(100, test_mod_hits(0));
	EXPECT_EQ(0, test_mod_counts(0).rets);
	EXPECT_EQ(42, api_add(40, 2));
	EXPECT_EQ(101, test_mod_hits(0));
	EXPECT_EQ(101, test_mod_log_count(-1, 'h', getpid()));
}

/* A ret_handler runs once per return and gets the probed function's address. */
TEST_F(api, ret_handler_counts_returns)
{
	struct test_mod_counts c;

	ASSERT_EQ(0, reg(0, api_add, "r"));
	call_add(50);
	c = test_mod_counts(0);
	EXPECT_EQ(0, c.hits);
	EXPECT_EQ(50, c.rets);
	EXPECT_EQ((unsigned long)api_add, c.func);
	EXPECT_EQ(7, api_add(3, 4));
}

/* With both, each call runs the handler at entry, then the ret_handler. */
TEST_F(api, handler_then_ret_handler)
{
	pid_t me = getpid();
	char want[256];
	struct test_mod_counts c;

	ASSERT_EQ(0, reg(0, api_add, "h r"));
	call_add(2);
	c = test_mod_counts(0);
	EXPECT_EQ(2, c.hits);
	EXPECT_EQ(2, c.rets);
	snprintf(want, sizeof(want), "0 h %d\n0 r %d\n0 h %d\n0 r %d\n", me, me, me, me);
	EXPECT_STREQ(want, test_mod_log());
}

/*
 * A filter admitting only this process keeps the breakpoint out of a
 * process that maps the file later (exec): its calls are not seen, while
 * this process's are.  Without the filter the same calls are seen.
 */
TEST_F(api, filter_excludes_other_process)
{
	ASSERT_EQ(0, reg_pid(0, api_add, "h", getpid()));
	ASSERT_EQ(0, exec_caller(10));
	EXPECT_EQ(0, test_mod_hits(0));
	call_add(3);
	EXPECT_EQ(3, test_mod_hits(0));
	ASSERT_EQ(0, test_mod_ctl("unreg 0"));
	ASSERT_EQ(0, reg(0, api_add, "h"));
	ASSERT_EQ(0, exec_caller(10));
	EXPECT_EQ(10, test_mod_hits(0));
}

/*
 * The filter is a hint for where to install breakpoints, not a gate on the
 * handler: where another consumer's breakpoint is in place, the filtered
 * consumer's handler runs for the other process too.
 */
TEST_F(api, filter_is_a_hint)
{
	pid_t child;

	ASSERT_EQ(0, reg_pid(0, api_add, "h", getpid()));
	ASSERT_EQ(0, reg(1, api_add, "h"));
	child = fork_caller(4);
	ASSERT_LT(0, child);
	EXPECT_EQ(4, test_mod_log_count(0, 'h', child));
	EXPECT_EQ(4, test_mod_log_count(1, 'h', child));
}

/*
 * A forked child inherits the parent's breakpoints: the filtered consumer's
 * handler runs for the child's calls although the filter rejects the child.
 */
TEST_F(api, filter_forked_child_inherits)
{
	pid_t child;

	ASSERT_EQ(0, reg_pid(0, api_add, "h", getpid()));
	child = fork_caller(5);
	ASSERT_LT(0, child);
	EXPECT_EQ(5, test_mod_log_count(-1, 'h', child));
	call_add(2);
	EXPECT_EQ(2, test_mod_log_count(-1, 'h', getpid()));
	EXPECT_EQ(7, test_mod_hits(0));
}

/*
 * UPROBE_HANDLER_REMOVE from the handler, in a process no consumer's filter
 * admits, removes the breakpoint from that process: only its first call is
 * seen.  In the admitted process the breakpoint stays.
 */
TEST_F(api, handler_remove_in_filtered_out_child)
{
	pid_t child;

	ASSERT_EQ(0, reg_pid(0, api_add, "remove", getpid()));
	child = fork_caller(5);
	ASSERT_LT(0, child);
	EXPECT_EQ(1, test_mod_log_count(-1, 'h', child));
	call_add(3);
	EXPECT_EQ(3, test_mod_log_count(-1, 'h', getpid()));
	EXPECT_EQ(4, test_mod_hits(0));
}

/* UPROBE_HANDLER_REMOVE where the (absent) filter admits the process: kept. */
TEST_F(api, handler_remove_kept_when_admitted)
{
	ASSERT_EQ(0, reg(0, api_add, "remove"));
	call_add(5);
	EXPECT_EQ(5, test_mod_hits(0));
}

/* The handler log of one hit on consumers @ids (in that order) by @pid. */
static void log_of(char *buf, size_t len, const int ids[3], pid_t pid)
{
	snprintf(buf, len, "%d h %d\n%d h %d\n%d h %d\n",
		 ids[0], pid, ids[1], pid, ids[2], pid);
}

/*
 * Several consumers of one probe all run, one after the other, each once
 * per hit, in the order they registered; one that registers again goes
 * last.  The 6.12 kernel runs them newest first.
 */
TEST_F(api, consumers_run_in_order)
{
	static const int order[2][3] = { { 0, 1, 2 }, { 1, 2, 0 } };
	pid_t me = getpid();
	char want[256];

	ASSERT_EQ(0, reg(0, api_add, "h"));
	ASSERT_EQ(0, reg(1, api_add, "h"));
	ASSERT_EQ(0, reg(2, api_add, "h"));
	call_add(1);
	log_of(want, sizeof(want), order[0], me);
	EXPECT_STREQ(want, test_mod_log());
	ASSERT_EQ(0, test_mod_ctl("unreg 0"));
	ASSERT_EQ(0, reg(0, api_add, "h"));
	ASSERT_EQ(0, test_mod_ctl("reset"));
	call_add(1);
	log_of(want, sizeof(want), order[1], me);
	EXPECT_STREQ(want, test_mod_log());
}

/*
 * A handler that sets ax and returns to the caller replaces the function:
 * the caller gets the value, the body never runs.  Unregistered, it runs.
 */
TEST_F(api, handler_skips_function)
{
	int i;

	api_body_runs = 0;
	ASSERT_EQ(0, reg(0, api_body, "ax=1234"));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(1234, api_body(i));
	EXPECT_EQ(0, api_body_runs);
	EXPECT_EQ(3, test_mod_hits(0));
	ASSERT_EQ(0, test_mod_ctl("unreg 0"));
	EXPECT_EQ(5, api_body(5));
	EXPECT_EQ(1, api_body_runs);
}

/* A handler that sets the first argument register changes the result. */
TEST_F(api, handler_changes_argument)
{
	EXPECT_EQ(3, api_add(1, 2));
	ASSERT_EQ(0, reg(0, api_add, "di=1000"));
	EXPECT_EQ(1002, api_add(1, 2));
	EXPECT_EQ(1007, api_add(-50, 7));
	ASSERT_EQ(0, test_mod_ctl("unreg 0"));
	EXPECT_EQ(3, api_add(1, 2));
	EXPECT_EQ(2, test_mod_hits(0));
}

/*
 * uprobe_apply(false) removes the breakpoint from the processes the filter
 * no longer admits, uprobe_apply(true) puts it back where it admits.
 */
TEST_F(api, apply_removes_and_adds)
{
	int err;

	ASSERT_EQ(0, reg_pid(0, api_add, "h", getpid()));
	call_add(5);
	ASSERT_EQ(5, test_mod_hits(0));
	err = test_mod_ctl("apply 0 0");
	if (err == -EOPNOTSUPP)
		SKIP(return, "the module could not find uprobe_apply()");
	ASSERT_EQ(0, err);
	call_add(5);
	EXPECT_EQ(10, test_mod_hits(0)) TH_LOG("apply(false) while the filter admits us");
	ASSERT_EQ(0, test_mod_ctl("filter 0 0"));
	call_add(5);
	EXPECT_EQ(15, test_mod_hits(0)) TH_LOG("a filter change alone removes nothing");
	ASSERT_EQ(0, test_mod_ctl("apply 0 0"));
	call_add(5);
	EXPECT_EQ(15, test_mod_hits(0)) TH_LOG("apply(false) once the filter rejects us");
	ASSERT_EQ(0, test_mod_ctl("apply 0 1"));
	call_add(5);
	EXPECT_EQ(15, test_mod_hits(0)) TH_LOG("apply(true) while the filter rejects us");
	ASSERT_EQ(0, test_mod_ctl("filter 0 %d", getpid()));
	call_add(5);
	EXPECT_EQ(15, test_mod_hits(0)) TH_LOG("a filter change alone adds nothing");
	ASSERT_EQ(0, test_mod_ctl("apply 0 1"));
	call_add(5);
	EXPECT_EQ(20, test_mod_hits(0)) TH_LOG("apply(true) once the filter admits us");
}

/* After unregistering, no more hits; registering again brings them back. */
TEST_F(api, unregister_stops_hits)
{
	ASSERT_EQ(0, reg(0, api_add, "h r"));
	call_add(3);
	ASSERT_EQ(0, test_mod_ctl("unreg 0"));
	call_add(3);
	EXPECT_EQ(3, test_mod_hits(0));
	EXPECT_EQ(3, test_mod_counts(0).rets);
	EXPECT_EQ(5, api_add(2, 3));
	ASSERT_EQ(0, reg(1, api_add, "h"));
	call_add(2);
	EXPECT_EQ(3, test_mod_hits(0));
	EXPECT_EQ(2, test_mod_hits(1));
}

static void *add_in_thread(void *arg)
{
	*(long *)arg = api_add(2, 3);
	return NULL;
}

/*
 * A handler that sleeps while its consumer is unregistered: the unregister
 * returns only once the handler is done, and the hit it sleeps in ends
 * right.
 */
TEST_F(api, unregister_waits_for_sleeping_handler)
{
	pthread_t thread;
	long sum = 0;
	int i;

	ASSERT_EQ(0, reg(0, api_add, "sleep=500"));
	ASSERT_EQ(0, pthread_create(&thread, NULL, add_in_thread, &sum));
	for (i = 0; i < 500 && test_mod_counts(0).running != 1; i++)
		usleep(10000);
	ASSERT_EQ(1, test_mod_counts(0).running) TH_LOG("the handler never started");
	ASSERT_EQ(0, test_mod_ctl("unreg 0"));
	EXPECT_EQ(0, test_mod_counts(0).running) TH_LOG("a handler runs past its unregister");
	ASSERT_EQ(0, pthread_join(thread, NULL));
	EXPECT_EQ(5, sum);
	call_add(3);
	EXPECT_EQ(1, test_mod_hits(0));
}

/*
 * Unloading the module with consumers still registered unregisters them:
 * the function is no longer replaced by the handler, and nothing runs the
 * unloaded handler code.
 */
TEST_F(api, unload_unregisters)
{
	api_body_runs = 0;
	ASSERT_EQ(0, reg(0, api_body, "ax=77"));
	ASSERT_EQ(0, reg(1, api_add, "h r"));
	EXPECT_EQ(77, api_body(1));
	ASSERT_EQ(0, mod_unload());
	self->loaded = false;
	EXPECT_EQ(2, api_body(2));
	EXPECT_EQ(1, api_body_runs);
	EXPECT_EQ(9, api_add(4, 5));
	/* Loaded again, it starts with no consumers and no counts. */
	ASSERT_EQ(0, mod_load());
	self->loaded = true;
	call_add(2);
	EXPECT_EQ(0, test_mod_hits(0));
	EXPECT_EQ(0, test_mod_hits(1));
	EXPECT_STREQ("", test_mod_log());
}

/* An offset beyond the end of the file is refused with -EINVAL. */
TEST_F(api, register_beyond_file)
{
	struct stat st;

	ASSERT_EQ(0, stat(self_path(), &st));
	EXPECT_EQ(-EINVAL, reg_at(0, st.st_size + 4096, "h"));
	EXPECT_EQ(-EINVAL, reg_at(0, st.st_size + 1, "h"));
	EXPECT_EQ(0, reg(0, api_add, "h"));
	call_add(1);
	EXPECT_EQ(1, test_mod_hits(0));
}

/*
 * An offset in the middle of an instruction, on a byte that reads as int3
 * (on arm64: not 4-byte aligned), in a file mapped here (so the probe is
 * armed at once): refused, and the function still runs correctly.  On
 * x86 with -EOPNOTSUPP (6.12 gives its internal -ENOTSUPP, 524, not a
 * UAPI errno); arm64's own analysis refuses the misaligned offset with
 * -EINVAL.
 */
TEST_F(api, register_mid_instruction)
{
	unsigned long start = self_offset(api_movabs);
	int err;

	ASSERT_NE(0UL, start);
	err = reg_at(0, start + 2, "h");
#ifdef __x86_64__
	EXPECT_EQ(-EOPNOTSUPP, err);
#else
	EXPECT_EQ(-EINVAL, err);
#endif
	EXPECT_EQ(0xccccccccccccccccUL, (unsigned long)api_movabs());
	EXPECT_EQ(0, test_mod_hits(0));
	/* The slot stayed free and the instruction start is accepted. */
	EXPECT_EQ(0, reg_at(0, start, "h"));
	EXPECT_EQ(0xccccccccccccccccUL, (unsigned long)api_movabs());
	EXPECT_EQ(1, test_mod_hits(0));
}

/*
 * A batch counts its hits; unregistered, it leaves the text as in the
 * file.  Then the same batch with a place that cannot be probed (the
 * middle of an instruction; on arm64 a misaligned offset) third fails as
 * a whole: with that place's error, no consumer left (a new mapping of
 * the file is not armed), no breakpoint left in this process's text, no
 * hit.  Last of the suite: a kernel that leaves the failed batch's
 * consumers on their probes would corrupt their lists when a later test
 * registers the same consumers again.
 */
TEST_F(api, batch_fails_half_way)
{
	unsigned long add = self_offset(api_add), body = self_offset(api_body);
	unsigned long movabs = self_offset(api_movabs);
	int err, i;

	err = test_mod_ctl("batch %s 0x%lx 0x%lx 0x%lx", self_path(), add, body, movabs);
	if (kernel_lacks(_metadata, err != -EOPNOTSUPP, "uprobe_register_batch()"))
		return;
	ASSERT_EQ(0, err);
	call_add(3);
	EXPECT_EQ(5, api_body(5));
	EXPECT_EQ(0xccccccccccccccccUL, (unsigned long)api_movabs());
	EXPECT_EQ(3, test_mod_hits(0));
	EXPECT_EQ(1, test_mod_hits(1));
	EXPECT_EQ(1, test_mod_hits(2));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, test_mod_ctl("unreg %d", i)) TH_LOG("consumer %d", i);
	EXPECT_TRUE(text_as_in_file(api_add));
	ASSERT_EQ(0, test_mod_ctl("reset"));	/* the hits and the log */

	err = test_mod_ctl("batch %s 0x%lx 0x%lx 0x%lx 0x%lx", self_path(), add, body,
			   movabs + 2, movabs);
#ifdef __x86_64__
	EXPECT_EQ(-EOPNOTSUPP, err);
#else
	EXPECT_EQ(-EINVAL, err);
#endif
	EXPECT_TRUE(text_as_in_file(api_add));
	EXPECT_TRUE(text_as_in_file(api_body));
	EXPECT_TRUE(text_as_in_file(api_movabs));
	call_add(3);
	EXPECT_EQ(5, api_body(5));
	EXPECT_EQ(0xccccccccccccccccUL, (unsigned long)api_movabs());
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(0, test_mod_hits(i)) TH_LOG("consumer %d", i);
		EXPECT_EQ(-ENOENT, test_mod_ctl("unreg %d", i)) TH_LOG("consumer %d", i);
	}
	EXPECT_EQ(0, test_mod_log_count(-1, 'h', getpid()));
}

int main(int argc, char **argv)
{
	/* The process exec_caller() starts. */
	if (argc == 3 && !strcmp(argv[1], "--call")) {
		call_add(atoi(argv[2]));
		return 0;
	}
	return test_harness_run(argc, argv);
}
