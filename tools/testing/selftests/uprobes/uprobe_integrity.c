// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_integrity: arming a probe never writes the probed file or its page
 * cache, and touches only the text of the processes the probe is for.  The
 * file's bytes, through read() and through MAP_SHARED mappings old and new,
 * are the same before, while and after a probe is armed; a probe filtered
 * to one process leaves the text of another process of the same file as it
 * was; the anonymous copy of the probed page goes away when the probe is
 * disarmed; a probed program prints what it prints unprobed.
 *
 * "uprobe_integrity --work N" is the probed program of the last test.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "../kselftest_harness.h"
#include "uprobe_util.h"

#define GROUP "uinteg"

TARGET long integ_target(long a)
{
	return a * 7 + 3;
}

TARGET unsigned long integ_work(unsigned long seed, int rounds)
{
	unsigned long h = seed;
	int i;

	for (i = 0; i < rounds; i++)
		h = (h ^ integ_target(i)) * 1099511628211UL;
	return h;
}

/* The whole of file @path, malloc'ed, its size in @size; NULL on error. */
static unsigned char *read_file(const char *path, size_t *size)
{
	unsigned char *buf = NULL;
	struct stat st;
	size_t done = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st))
		goto out;
	buf = malloc(st.st_size + 1);
	if (!buf)
		goto out;
	while (done < (size_t)st.st_size) {
		n = read(fd, buf + done, st.st_size - done);
		if (n <= 0)
			break;
		done += n;
	}
	*size = done;
out:
	close(fd);
	return buf;
}

/* 0 if a new MAP_SHARED mapping of @path holds exactly @expect. */
static int shared_map_equals(const char *path, const unsigned char *expect, size_t size)
{
	void *map;
	int fd, diff;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	diff = memcmp(map, expect, size);
	munmap(map, size);
	return diff ? 1 : 0;
}

/*
 * The code unit a breakpoint replaces (a byte on x86, an instruction word
 * on arm64) at @addr of process @pid through /proc/PID/mem, or -1.
 */
static long mem_code(pid_t pid, const void *addr)
{
	INSN_UNIT code;

	return mem_read(pid, addr, &code, sizeof(code)) ? -1 : code;
}

/* The code unit at offset @offset of the bytes @file. */
static INSN_UNIT file_code(const unsigned char *file, unsigned long offset)
{
	INSN_UNIT code;

	memcpy(&code, file + offset, sizeof(code));
	return code;
}

/* The code unit this process runs at @addr, read afresh. */
static INSN_UNIT own_code(const void *addr)
{
	return READ_FRESH(*(const INSN_UNIT *)addr);
}

/*
 * The "FIELD: N kB" value of the /proc/PID/smaps entry of the mapping
 * that holds @addr in process @pid, or -1.
 */
static long smaps_kb(pid_t pid, const void *addr, const char *field)
{
	unsigned long start, end, a = (unsigned long)addr;
	char path[64], line[512], name[64];
	int inside = 0;
	long kb = -1, v;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2 && strchr(line, '-') &&
		    strchr(line, '-') < strchr(line, ' ')) {
			inside = a >= start && a < end;
			continue;
		}
		if (inside && sscanf(line, "%63[^:]: %ld kB", name, &v) == 2 &&
		    !strcmp(name, field)) {
			kb = v;
			break;
		}
	}
	fclose(f);
	return kb;
}

/* A kid's work: @calls calls of integ_target(). */
static void integ_calls(long calls)
{
	long i;

	for (i = 0; i < calls; i++)
		integ_target(i);
}

/* Runs "SELF --work @rounds", its stdout in @out (NUL-terminated); its exit status. */
static int run_work(int rounds, char *out, size_t outlen)
{
	char arg[16], *argv[] = { (char *)self_path(), "--work", arg, NULL };
	size_t done = 0;
	int pipefd[2], status;
	ssize_t n;
	pid_t pid;

	snprintf(arg, sizeof(arg), "%d", rounds);
	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pipefd[1], 1);
		close(pipefd[0]);
		close(pipefd[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	while (done < outlen - 1 && (n = read(pipefd[0], out + done, outlen - 1 - done)) > 0)
		done += n;
	out[done] = '\0';
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int work_main(int rounds)
{
	int i;

	for (i = 0; i < 8; i++)
		printf("%d %lu %ld\n", i, integ_work(i, rounds), integ_target(i));
	return 0;
}

FIXTURE(integ) {
	unsigned char *file;
	size_t size;
	unsigned long offset;
};

FIXTURE_SETUP(integ)
{
	tracing_reset();
	self->offset = self_offset(integ_target);
	ASSERT_NE(0UL, self->offset);
	self->file = read_file(self_path(), &self->size);
	ASSERT_NE(NULL, self->file);
	ASSERT_LT(self->offset, self->size);
	/* This process runs the file's bytes. */
	ASSERT_EQ(file_code(self->file, self->offset), own_code(integ_target));
	ASSERT_NE(BKPT_INSN, file_code(self->file, self->offset));
}

FIXTURE_TEARDOWN(integ)
{
	tracing_reset();
	free(self->file);
}

/*
 * The file reads the same through read(), a MAP_SHARED mapping made before
 * arming and a new one, before, while and after the probe is armed.
 */
TEST_F(integ, file_unchanged)
{
	unsigned char *now, *old_map;
	size_t size;
	int fd, i;

	fd = open(self_path(), O_RDONLY);
	ASSERT_LE(0, fd);
	old_map = mmap(NULL, self->size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	ASSERT_NE(MAP_FAILED, old_map);
	ASSERT_EQ(0, shared_map_equals(self_path(), self->file, self->size));

	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/e %s:0x%lx", self_path(), self->offset));
	ASSERT_EQ(0, uprobe_event_add("r:" GROUP "/r %s:0x%lx", self_path(), self->offset));
	ASSERT_EQ(0, event_enable(GROUP, "e", 1));
	ASSERT_EQ(0, event_enable(GROUP, "r", 1));
	for (i = 0; i < 5; i++)
		integ_target(i);
	/* Armed here: every call was a hit. */
	ASSERT_EQ(5, profile_hits("e"));
	ASSERT_EQ(5, profile_hits("r"));
	TH_LOG("armed: own text %#x, /proc/self/mem %#lx, file %#x",
	       own_code(integ_target), mem_code(getpid(), integ_target),
	       file_code(self->file, self->offset));
	now = read_file(self_path(), &size);
	ASSERT_NE(NULL, now);
	EXPECT_EQ(self->size, size);
	EXPECT_EQ(0, memcmp(now, self->file, self->size));
	free(now);
	EXPECT_EQ(0, shared_map_equals(self_path(), self->file, self->size));
	EXPECT_EQ(0, memcmp(old_map, self->file, self->size));
	EXPECT_EQ(file_code(self->file, self->offset), file_code(old_map, self->offset));

	ASSERT_EQ(0, event_enable(GROUP, "e", 0));
	ASSERT_EQ(0, event_enable(GROUP, "r", 0));
	integ_target(0);
	EXPECT_EQ(5, profile_hits("e"));
	now = read_file(self_path(), &size);
	ASSERT_NE(NULL, now);
	EXPECT_EQ(0, memcmp(now, self->file, self->size));
	free(now);
	EXPECT_EQ(0, shared_map_equals(self_path(), self->file, self->size));
	EXPECT_EQ(0, memcmp(old_map, self->file, self->size));
	/* Disarmed, the process runs the file's bytes again. */
	EXPECT_EQ(file_code(self->file, self->offset), own_code(integ_target));
	EXPECT_EQ(file_code(self->file, self->offset), mem_code(getpid(), integ_target));
	munmap(old_map, self->size);
}

/*
 * A probe for one process (a perf event with its pid) leaves the text of
 * another process mapping the same file, and this one, as they were.
 */
TEST_F(integ, filtered_probe_other_process)
{
	struct perf_event_attr attr;
	struct kid probed, other;
	long anon;
	int fd;

	ASSERT_EQ(0, kid_start(&probed, integ_calls, 6, -1));
	ASSERT_EQ(0, kid_start(&other, integ_calls, 4, -1));
	anon = smaps_kb(other.pid, integ_target, "Anonymous");
	ASSERT_LE(0, anon);
	ASSERT_EQ(0, uprobe_perf_attr(&attr, self_path(), self->offset, 0, 0));
	fd = perf_open(&attr, probed.pid, -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kid_run(&probed));
	ASSERT_EQ(0, kid_run(&other));
	integ_target(1);
	/* Armed in the probed child: it counted its calls. */
	EXPECT_EQ(6, perf_count(fd));
	TH_LOG("probed child's text: %#lx", mem_code(probed.pid, integ_target));
	EXPECT_EQ(file_code(self->file, self->offset), mem_code(other.pid, integ_target));
	EXPECT_EQ(file_code(self->file, self->offset), mem_code(getpid(), integ_target));
	EXPECT_EQ(anon, smaps_kb(other.pid, integ_target, "Anonymous"));
	EXPECT_EQ(0, shared_map_equals(self_path(), self->file, self->size));
	close(fd);
	EXPECT_EQ(file_code(self->file, self->offset), mem_code(probed.pid, integ_target));
	EXPECT_EQ(0, kid_end(&probed));
	EXPECT_EQ(0, kid_end(&other));
}

/*
 * Arming gives the probed process an anonymous copy of the probed page;
 * disarming gives the file's page back, in a process that runs on, once
 * the last probe in the page is gone.
 */
TEST_F(integ, anon_page_returns)
{
	long page_kb = getpagesize() / 1024, anon0, anon1, anon2, anon3;
	unsigned long work = (unsigned long)integ_work;

	ASSERT_EQ((unsigned long)integ_target / getpagesize(), work / getpagesize());
	anon0 = smaps_kb(getpid(), integ_target, "Anonymous");
	ASSERT_LE(0, anon0);
	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/e %s:0x%lx", self_path(), self->offset));
	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/w %s:0x%lx",
				      self_path(), self_offset(integ_work)));
	ASSERT_EQ(0, event_enable(GROUP, "e", 1));
	ASSERT_EQ(0, event_enable(GROUP, "w", 1));
	integ_work(1, 1);
	ASSERT_EQ(1, profile_hits("e"));
	ASSERT_EQ(1, profile_hits("w"));
	anon1 = smaps_kb(getpid(), integ_target, "Anonymous");
	ASSERT_EQ(0, event_enable(GROUP, "e", 0));
	integ_work(2, 2);
	anon2 = smaps_kb(getpid(), integ_target, "Anonymous");
	ASSERT_EQ(0, event_enable(GROUP, "w", 0));
	integ_work(3, 3);
	anon3 = smaps_kb(getpid(), integ_target, "Anonymous");
	TH_LOG("Anonymous: %ld, armed %ld, one probe left %ld, disarmed %ld kB",
	       anon0, anon1, anon2, anon3);
	EXPECT_EQ(anon0 + page_kb, anon1);
	EXPECT_EQ(anon0 + page_kb, anon2);
	EXPECT_EQ(anon0, anon3);
	EXPECT_EQ(2, profile_hits("w"));
	EXPECT_EQ(file_code(self->file, self->offset), own_code(integ_target));
	EXPECT_EQ(file_code(self->file, self_offset(integ_work)), own_code(integ_work));
}

/* A probed program prints exactly what it prints unprobed. */
TEST_F(integ, output_unchanged)
{
	static char plain[4096], probed[4096], again[4096];
	const int rounds = 20;

	ASSERT_EQ(0, run_work(rounds, plain, sizeof(plain)));
	ASSERT_EQ(8, count_lines(plain, " "));
	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/e %s:0x%lx", self_path(), self->offset));
	ASSERT_EQ(0, uprobe_event_add("r:" GROUP "/r %s:0x%lx", self_path(), self->offset));
	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/w %s:0x%lx a=%s:u64",
				      self_path(), self_offset(integ_work), ARG0_REG));
	ASSERT_EQ(0, uprobe_event_add("r:" GROUP "/wr %s:0x%lx v=%s:x64",
				      self_path(), self_offset(integ_work), RET_REG));
	ASSERT_EQ(0, tfs_write("events/" GROUP "/enable", "1"));
	ASSERT_EQ(0, run_work(rounds, probed, sizeof(probed)));
	ASSERT_EQ(0, tfs_write("events/" GROUP "/enable", "0"));
	EXPECT_STREQ(plain, probed);
	/* Every call was a hit: 8 * (rounds + 1) of integ_target, 8 of integ_work. */
	EXPECT_EQ(8 * (rounds + 1), profile_hits("e"));
	EXPECT_EQ(8 * (rounds + 1), profile_hits("r"));
	EXPECT_EQ(8, profile_hits("w"));
	EXPECT_EQ(8, profile_hits("wr"));
	ASSERT_EQ(0, run_work(rounds, again, sizeof(again)));
	EXPECT_STREQ(plain, again);
	EXPECT_EQ(8, profile_hits("w"));
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--work"))
		return work_main(atoi(argv[2]));
	return test_harness_run(argc, argv);
}
