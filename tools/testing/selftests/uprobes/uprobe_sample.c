// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_sample: the sample module samples/uprobes/uprobe_example.ko
 * ($UPROBE_SAMPLE_MODULE), loaded with its parameters onto a function of
 * this very program.  It counts the hits, in every process or only in the
 * one given by pid=, or of code this program wrote, by pid= and
 * vaddr=; shows the count in /sys/module/.../parameters/hits,
 * logs each hit with verbose=1 and the total when unloaded, and refuses bad
 * parameters without staying loaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "uprobe_util.h"

#define MOD_NAME	"uprobe_example"
#define HITS_FILE	"/sys/module/" MOD_NAME "/parameters/hits"

TARGET long sample_target(long a)
{
	return 3 * a;
}

static void call_target(long n)
{
	long i;

	for (i = 0; i < n; i++)
		sample_target(i);
}

/*
 * The first code unit of sample_target() (the byte or word a breakpoint
 * replaces) as this process sees it.
 */
static INSN_UNIT target_code(void)
{
	return READ_FRESH(*(const INSN_UNIT *)sample_target);
}

/* Loads the sample with printf-formatted parameters; 0 or -errno. */
static __printf(1, 2) int sample_load(const char *fmt, ...)
{
	char params[PATH_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(params, sizeof(params), fmt, ap);
	va_end(ap);
	return kmod_load(getenv("UPROBE_SAMPLE_MODULE"), MOD_NAME, params);
}

/* Loads the sample onto sample_target(), with more parameters @extra. */
static int load_on_target(const char *extra)
{
	return sample_load("path=%s offset=0x%lx %s", self_path(),
			   self_offset(sample_target), extra);
}

/* The count the module shows, or -1. */
static long sample_hits(void)
{
	FILE *f = fopen(HITS_FILE, "r");
	long n = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

/*
 * /dev/kmsg opened at its end, to read what the kernel logs from now on;
 * an fd or -errno.
 */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return -errno;
	}
	return fd;
}

/*
 * How many of the kernel log records logged since kmsg_open() gave @fd have
 * the text @text, exactly.
 */
static int kmsg_count(int fd, const char *text)
{
	char rec[8192];
	char *msg, *end;
	int n = 0;
	ssize_t len;

	for (;;) {
		len = read(fd, rec, sizeof(rec) - 1);
		if (len < 0 && errno == EPIPE)
			continue;	/* records were overwritten: go on */
		if (len <= 0)
			break;
		rec[len] = '\0';
		/* "PRIO,SEQ,TIME,FLAGS;TEXT\n" and maybe " KEY=VALUE\n" lines */
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		end = strchr(msg, '\n');
		if (end)
			*end = '\0';
		if (!strcmp(msg, text))
			n++;
	}
	return n;
}

FIXTURE(sample) {
	bool loaded;
};

FIXTURE_SETUP(sample)
{
	if (!getenv("UPROBE_SAMPLE_MODULE"))
		SKIP(return, "UPROBE_SAMPLE_MODULE is not set: no sample module to load");
	ASSERT_NE(0UL, self_offset(sample_target));
	/* A test that died may have left it loaded. */
	if (kmod_loaded(MOD_NAME))
		ASSERT_EQ(0, kmod_unload(MOD_NAME));
	self->loaded = false;
}

FIXTURE_TEARDOWN(sample)
{
	if (self->loaded)
		EXPECT_EQ(0, kmod_unload(MOD_NAME));
}

/*
 * Without pid=, every hit counts, in this process and in others, and the
 * function still works; the probe patched this process's text, which
 * pid_counts_one_process relies on seeing.
 */
TEST_F(sample, counts_hits)
{
	INSN_UNIT before = target_code();
	int status;
	pid_t child;

	ASSERT_EQ(0, load_on_target(""));
	self->loaded = true;
	EXPECT_EQ(0, sample_hits());
	EXPECT_NE(before, target_code());
	call_target(100);
	EXPECT_EQ(100, sample_hits());
	EXPECT_EQ(21, sample_target(7));
	EXPECT_EQ(101, sample_hits());

	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		call_target(10);
		_exit(0);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_EQ(111, sample_hits());
}

/* The offset may be given in decimal too. */
TEST_F(sample, decimal_offset)
{
	ASSERT_EQ(0, sample_load("path=%s offset=%lu", self_path(),
				 self_offset(sample_target)));
	self->loaded = true;
	call_target(5);
	EXPECT_EQ(5, sample_hits());
}

static void kid_calls(long n)
{
	call_target(n);
}

/*
 * With pid= of a child, only the child's hits count, and the breakpoint is
 * kept out of this process (its text is left as it was).
 */
TEST_F(sample, pid_counts_one_process)
{
	INSN_UNIT before = target_code();
	struct kid kid;
	char opt[32];

	ASSERT_EQ(0, kid_start(&kid, kid_calls, 7, -1));
	snprintf(opt, sizeof(opt), "pid=%d", kid.pid);
	ASSERT_EQ(0, load_on_target(opt));
	self->loaded = true;
	EXPECT_EQ(before, target_code());
	call_target(5);
	ASSERT_EQ(0, kid_run(&kid));
	call_target(5);
	ASSERT_EQ(0, kid_run(&kid));
	EXPECT_EQ(14, sample_hits());
	EXPECT_EQ(before, target_code());
	EXPECT_EQ(0, kid_end(&kid));
}

/* A child of the watched process that calls @n times, then the process twice. */
static void kid_forks_caller(long n)
{
	int status;
	pid_t grandchild = fork();

	if (grandchild == 0) {
		call_target(n);
		_exit(0);
	}
	if (grandchild > 0)
		waitpid(grandchild, &status, 0);
	call_target(2);
}

/*
 * A process forked by the watched one inherits its breakpoint with its
 * memory, so the handler runs there too: its hits must not count.
 */
TEST_F(sample, pid_leaves_children_out)
{
	struct kid kid;
	char opt[32];

	ASSERT_EQ(0, kid_start(&kid, kid_forks_caller, 6, -1));
	snprintf(opt, sizeof(opt), "pid=%d", kid.pid);
	ASSERT_EQ(0, load_on_target(opt));
	self->loaded = true;
	ASSERT_EQ(0, kid_run(&kid));
	EXPECT_EQ(2, sample_hits());
	ASSERT_EQ(0, kid_run(&kid));
	EXPECT_EQ(4, sample_hits());
	EXPECT_EQ(0, kid_end(&kid));
}

/* Unloading logs "uprobe_example: PATH:0xOFFSET: N hits". */
TEST_F(sample, unload_logs_count)
{
	char want[PATH_MAX + 64];
	int fd = kmsg_open();

	ASSERT_LE(0, fd) TH_LOG("/dev/kmsg: %s", strerror(-fd));
	ASSERT_EQ(0, load_on_target(""));
	self->loaded = true;
	call_target(23);
	ASSERT_EQ(0, kmod_unload(MOD_NAME));
	self->loaded = false;
	snprintf(want, sizeof(want), MOD_NAME ": %s:0x%lx: 23 hits", self_path(),
		 self_offset(sample_target));
	EXPECT_EQ(1, kmsg_count(fd, want)) TH_LOG("looked for \"%s\"", want);
	close(fd);
}

/*
 * verbose=1 logs each hit with the process's name and pid and the probed
 * address; by default, hits are not logged.
 */
TEST_F(sample, verbose_logs_hits)
{
	char want[128];
	int fd = kmsg_open();

	ASSERT_LE(0, fd) TH_LOG("/dev/kmsg: %s", strerror(-fd));
	snprintf(want, sizeof(want), MOD_NAME ": hit by uprobe_sample[%d] at 0x%lx",
		 getpid(), (unsigned long)sample_target);

	ASSERT_EQ(0, load_on_target(""));
	self->loaded = true;
	call_target(2);
	ASSERT_EQ(0, kmod_unload(MOD_NAME));
	self->loaded = false;
	EXPECT_EQ(0, kmsg_count(fd, want));

	ASSERT_EQ(0, load_on_target("verbose=1"));
	self->loaded = true;
	call_target(3);
	EXPECT_EQ(3, kmsg_count(fd, want)) TH_LOG("looked for \"%s\"", want);
	close(fd);
}

/* A return instruction: a function of code written at run time. */
#ifdef __aarch64__
static const uint32_t ret_code[] = { 0xd65f03c0 };	/* ret */
#else
static const uint8_t ret_code[] = { 0xc3 };		/* ret */
#endif

/*
 * pid= and vaddr=: a probe on code this process wrote into anonymous
 * memory counts its calls; the memory unmapped, the module logs the probe
 * lost (-ENXIO) with the count, and then the total on unload.  Without
 * uprobe_register_pid(), the module refuses to load with EOPNOTSUPP.
 */
TEST_F(sample, by_address_counts_jit_code)
{
	long page = sysconf(_SC_PAGESIZE);
	char want[128];
	void (*fn)(void);
	uint8_t *code;
	int fd, i, lost, err;

	fd = kmsg_open();
	ASSERT_LE(0, fd) TH_LOG("/dev/kmsg: %s", strerror(-fd));
	code = mmap(NULL, page, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, code);
	memcpy(code, ret_code, sizeof(ret_code));
	__builtin___clear_cache((char *)code, (char *)code + sizeof(ret_code));
	fn = (void (*)(void))(uintptr_t)code;

	err = sample_load("pid=%d vaddr=0x%lx", getpid(), (unsigned long)code);
	if (kernel_lacks(_metadata, err != -EOPNOTSUPP, "uprobe_register_pid()"))
		return;
	ASSERT_EQ(0, err);
	self->loaded = true;
	for (i = 0; i < 7; i++)
		fn();
	EXPECT_EQ(7, sample_hits());
	ASSERT_EQ(0, munmap(code, page));
	snprintf(want, sizeof(want), MOD_NAME ": pid %d, 0x%lx: probe lost (%d) after 7 hits",
		 getpid(), (unsigned long)code, -ENXIO);
	/* Told from a worker: it may take a moment.  A record is read once. */
	for (i = 0, lost = 0; i < 500 && !lost; i++) {
		lost = kmsg_count(fd, want);
		if (!lost)
			usleep(10000);
	}
	EXPECT_EQ(1, lost) TH_LOG("looked for \"%s\"", want);
	ASSERT_EQ(0, kmod_unload(MOD_NAME));
	self->loaded = false;
	snprintf(want, sizeof(want), MOD_NAME ": pid %d, 0x%lx: 7 hits", getpid(),
		 (unsigned long)code);
	EXPECT_EQ(1, kmsg_count(fd, want)) TH_LOG("looked for \"%s\"", want);
	close(fd);
}

/* Loading with @params fails with -@err and leaves nothing loaded. */
#define EXPECT_REFUSED(err, ...) do {					\
	EXPECT_EQ(-(err), sample_load(__VA_ARGS__));			\
	EXPECT_FALSE(kmod_loaded(MOD_NAME));				\
	if (kmod_loaded(MOD_NAME))					\
		kmod_unload(MOD_NAME);					\
} while (0)

/* A pid no process has: a child's, once it is reaped; or 0 on error. */
static pid_t gone_pid(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 0;
	return pid;
}

/* Bad parameters make the load fail with a fitting errno. */
TEST_F(sample, bad_params_refused)
{
	unsigned long offset = self_offset(sample_target);
	const char *path = self_path();
	struct stat st;
	pid_t gone;

	ASSERT_EQ(0, stat(path, &st));
	gone = gone_pid();
	ASSERT_LT(0, gone);

	EXPECT_REFUSED(EINVAL, "offset=0x%lx", offset);
	EXPECT_REFUSED(EINVAL, "path=%s", path);
	EXPECT_REFUSED(EINVAL, "path= offset=0x%lx", offset);
	EXPECT_REFUSED(ENOENT, "path=%s.none offset=0x%lx", path, offset);
	EXPECT_REFUSED(EINVAL, "path=/ offset=0x%lx", offset);
	EXPECT_REFUSED(EINVAL, "path=%s offset=0x%lx", path, (unsigned long)st.st_size + 4096);
	EXPECT_REFUSED(EINVAL, "path=%s offset=%#lxzz", path, offset);
	EXPECT_REFUSED(EINVAL, "path=%s offset=-%lu", path, offset);
	EXPECT_REFUSED(EINVAL, "path=%s offset=0x%lx pid=-1", path, offset);
	EXPECT_REFUSED(ESRCH, "path=%s offset=0x%lx pid=%d", path, offset, gone);
	EXPECT_REFUSED(EINVAL, "path=%s offset=0x%lx hits=5", path, offset);

	/* None of that got in the way of a good load. */
	ASSERT_EQ(0, load_on_target(""));
	self->loaded = true;
	call_target(4);
	EXPECT_EQ(4, sample_hits());
}

TEST_HARNESS_MAIN
