// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_refctr: SDT semaphores (reference counters) through uprobe_events,
 * "p:GRP/EV PATH:OFFSET(REF_CTR_OFFSET)".  While an event is enabled, the
 * unsigned short at REF_CTR_OFFSET of the probed file is incremented in
 * every process that maps it: one already running, one started later, and
 * one that maps the counter's page only after the probe was registered (a
 * dlopen()ed shared object); disabling takes it back to 0.  Each probe
 * using a semaphore adds one.
 *
 * "uprobe_refctr --sema" is a helper process: on 'r' from stdin it writes
 * its semaphore value to stdout; it exits on EOF.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
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
#include <linux/elf.h>

#include "../kselftest_harness.h"
#include "uprobe_util.h"

#define GROUP "urefctr"

TARGET long refctr_target(long a)
{
	return a * 2;
}

TARGET long refctr_other(long a)
{
	return a * 5;
}

/* The semaphore, file-backed data as sdt.h places it ("aw" .probes). */
__section(".probes") __used unsigned short refctr_sema;

/*
 * The file offset of symbol @name of ELF file @path (its symbol value
 * mapped through the PT_LOAD headers), or 0.
 */
static unsigned long elf_sym_offset(const char *path, const char *name)
{
	unsigned long result = 0;
	const struct elf64_hdr *eh;
	const struct elf64_shdr *sh;
	const struct elf64_phdr *ph;
	const char *base;
	struct stat st;
	int fd, i, j;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st)) {
		close(fd);
		return 0;
	}
	base = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (base == MAP_FAILED)
		return 0;
	eh = (const void *)base;
	sh = (const void *)(base + eh->e_shoff);
	ph = (const void *)(base + eh->e_phoff);
	for (i = 0; i < eh->e_shnum && !result; i++) {
		const struct elf64_sym *sym = (const void *)(base + sh[i].sh_offset);
		const char *strtab = base + sh[sh[i].sh_link].sh_offset;

		if (sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM)
			continue;
		for (j = 0; j < (int)(sh[i].sh_size / sizeof(*sym)); j++) {
			unsigned long v = sym[j].st_value;
			int k;

			if (strcmp(strtab + sym[j].st_name, name) || !v)
				continue;
			for (k = 0; k < eh->e_phnum; k++)
				if (ph[k].p_type == PT_LOAD && v >= ph[k].p_vaddr &&
				    v < ph[k].p_vaddr + ph[k].p_filesz)
					result = v - ph[k].p_vaddr + ph[k].p_offset;
			break;
		}
	}
	munmap((void *)base, st.st_size);
	return result;
}

/* A --sema helper process, talked to through two pipes. */
struct helper {
	pid_t pid;
	int to, from;
};

static int helper_start(struct helper *h)
{
	char *const argv[] = { (char *)self_path(), "--sema", NULL };
	int down[2], up[2];

	/* Close-on-exec: another helper must not hold this one's stdin. */
	if (pipe2(down, O_CLOEXEC) || pipe2(up, O_CLOEXEC))
		return -1;
	h->pid = fork();
	if (h->pid < 0)
		return -1;
	if (h->pid == 0) {
		dup2(down[0], 0);
		dup2(up[1], 1);
		close(down[1]);
		close(up[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(down[0]);
	close(up[1]);
	h->to = down[1];
	h->from = up[0];
	return 0;
}

/* The helper's semaphore value, or -1. */
static int helper_sema(struct helper *h)
{
	unsigned short value;

	if (write(h->to, "r", 1) != 1 || read(h->from, &value, sizeof(value)) != sizeof(value))
		return -1;
	return value;
}

static int helper_end(struct helper *h)
{
	int status;

	close(h->to);
	close(h->from);
	if (waitpid(h->pid, &status, 0) != h->pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int sema_helper_main(void)
{
	unsigned short value;
	char c;

	while (read(0, &c, 1) == 1) {
		value = READ_FRESH(refctr_sema);
		if (write(1, &value, sizeof(value)) != sizeof(value))
			return 1;
	}
	return 0;
}

FIXTURE(refctr) {
	unsigned long target, other, sema;
};

FIXTURE_SETUP(refctr)
{
	tracing_reset();
	self->target = self_offset(refctr_target);
	self->other = self_offset(refctr_other);
	self->sema = self_offset((const void *)&refctr_sema);
	ASSERT_NE(0UL, self->target);
	ASSERT_NE(0UL, self->sema);
	/* The semaphore is where the ELF file says: the kernel takes that. */
	ASSERT_EQ(self->sema, elf_sym_offset(self_path(), "refctr_sema"));
}

FIXTURE_TEARDOWN(refctr)
{
	tracing_reset();
}

/* Defining is not enabling; enabling increments, disabling decrements. */
TEST_F(refctr, enable_disable)
{
	int i;

	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/t %s:0x%lx(0x%lx)",
				      self_path(), self->target, self->sema));
	EXPECT_EQ(0, READ_FRESH(refctr_sema));
	ASSERT_EQ(0, event_enable(GROUP, "t", 1));
	EXPECT_EQ(1, READ_FRESH(refctr_sema));
	for (i = 0; i < 3; i++)
		refctr_target(i);
	EXPECT_EQ(3, profile_hits("t"));
	EXPECT_EQ(1, READ_FRESH(refctr_sema));
	ASSERT_EQ(0, event_enable(GROUP, "t", 0));
	EXPECT_EQ(0, READ_FRESH(refctr_sema));
	ASSERT_EQ(0, event_enable(GROUP, "t", 1));
	EXPECT_EQ(1, READ_FRESH(refctr_sema));
	ASSERT_EQ(0, event_enable(GROUP, "t", 0));
	EXPECT_EQ(0, READ_FRESH(refctr_sema));
	ASSERT_EQ(0, uprobe_event_add("-:" GROUP "/t"));
	EXPECT_EQ(0, READ_FRESH(refctr_sema));
}

/* The parent of process @pid, or 0. */
static pid_t parent_of(pid_t pid)
{
	char path[64];
	pid_t ppid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%*d (%*[^)]) %*c %d", &ppid) != 1)
		ppid = 0;
	fclose(f);
	return ppid;
}

/*
 * The sum of the semaphore over this process and those it was forked
 * from that run this program (the harness's), each read at its address
 * here through /proc/PID/mem; -1 if one cannot be read.
 */
static int sema_of_the_harness(void)
{
	char path[64], exe[PATH_MAX];
	unsigned short value;
	pid_t pid = getpid();
	ssize_t len;
	int sum = 0;

	for (;;) {
		snprintf(path, sizeof(path), "/proc/%d/exe", pid);
		len = readlink(path, exe, sizeof(exe) - 1);
		if (len < 0)
			break;
		exe[len] = 0;
		if (strcmp(exe, self_path()))
			break;
		if (mem_read(pid, &refctr_sema, &value, sizeof(value)))
			return -1;
		sum += value;
		pid = parent_of(pid);
	}
	return sum;
}

/*
 * Arming that fails after the semaphore went up (the breakpoint's write
 * made to fail once, by fail_function) takes the semaphore back down in
 * the process where it failed, and the rollback in those armed before:
 * enabling fails and the semaphore is 0 in every process of the harness
 * (the write that fails may be in any of them); enabling again works.
 */
TEST_F(refctr, failed_arming_takes_the_semaphore_back)
{
	int err;

	if (!fail_fn_allowed("poke_mm_page"))
		SKIP(return, "fail_function cannot make a text write fail here");
	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/t %s:0x%lx(0x%lx)",
				      self_path(), self->target, self->sema));
	ASSERT_EQ(0, fail_fn_inject("poke_mm_page", -ENOMEM, 0, 1));
	err = event_enable(GROUP, "t", 1);
	EXPECT_EQ(0, fail_fn_times_left()) TH_LOG("no text write failed");
	EXPECT_EQ(0, fail_fn_clear());
	EXPECT_NE(0, err);
	EXPECT_EQ(0, sema_of_the_harness());
	ASSERT_EQ(0, event_enable(GROUP, "t", 1));
	EXPECT_EQ(1, READ_FRESH(refctr_sema));
	EXPECT_LT(1, sema_of_the_harness()) TH_LOG("the harness is one process");
	refctr_target(1);
	EXPECT_EQ(1, profile_hits("t"));
	ASSERT_EQ(0, event_enable(GROUP, "t", 0));
	EXPECT_EQ(0, sema_of_the_harness());
}

/* The definition is listed with its reference counter. */
TEST_F(refctr, listed)
{
	char expect[PATH_MAX + 64], *list;

	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/t %s:0x%lx(0x%lx)",
				      self_path(), self->target, self->sema));
	list = tfs_read("uprobe_events");
	ASSERT_NE(NULL, list);
	snprintf(expect, sizeof(expect), "p:" GROUP "/t %s:0x%016lx(0x%lx)",
		 self_path(), self->target, self->sema);
	EXPECT_EQ(1, count_lines(list, expect)) {
		TH_LOG("uprobe_events: %s", list);
	}
	free(list);
}

/*
 * A process already running when the event is enabled and one started
 * afterwards both see the counter; both go back to 0 on disable.
 */
TEST_F(refctr, other_processes)
{
	struct helper before, after;

	ASSERT_EQ(0, helper_start(&before));
	EXPECT_EQ(0, helper_sema(&before));
	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/t %s:0x%lx(0x%lx)",
				      self_path(), self->target, self->sema));
	ASSERT_EQ(0, event_enable(GROUP, "t", 1));
	EXPECT_EQ(1, helper_sema(&before));
	ASSERT_EQ(0, helper_start(&after));
	EXPECT_EQ(1, helper_sema(&after));
	EXPECT_EQ(1, READ_FRESH(refctr_sema));
	ASSERT_EQ(0, event_enable(GROUP, "t", 0));
	EXPECT_EQ(0, helper_sema(&before));
	EXPECT_EQ(0, helper_sema(&after));
	EXPECT_EQ(0, READ_FRESH(refctr_sema));
	/* And again: the counter follows every enable. */
	ASSERT_EQ(0, event_enable(GROUP, "t", 1));
	EXPECT_EQ(1, helper_sema(&after));
	ASSERT_EQ(0, event_enable(GROUP, "t", 0));
	EXPECT_EQ(0, helper_sema(&after));
	EXPECT_EQ(0, helper_end(&before));
	EXPECT_EQ(0, helper_end(&after));
}

/*
 * The counter's page is mapped only after the probe is registered: the
 * shared object is dlopen()ed while the event is enabled.
 */
TEST_F(refctr, mapped_after_registration)
{
	unsigned short (*value)(void);
	unsigned long func, sema;
	int (*call)(int x);
	char lib[PATH_MAX];
	void *handle;
	int i;

	/* refctr_lib.so, next to this program. */
	snprintf(lib, sizeof(lib), "%.*s/refctr_lib.so",
		 (int)(strrchr(self_path(), '/') - self_path()), self_path());
	func = elf_sym_offset(lib, "refctr_lib_func");
	sema = elf_sym_offset(lib, "refctr_lib_sema");
	ASSERT_NE(0UL, func);
	ASSERT_NE(0UL, sema);
	/* Not mapped by this process yet. */
	ASSERT_EQ(NULL, dlopen(lib, RTLD_NOW | RTLD_NOLOAD));
	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/lib %s:0x%lx(0x%lx)", lib, func, sema));
	ASSERT_EQ(0, event_enable(GROUP, "lib", 1));
	handle = dlopen(lib, RTLD_NOW);
	ASSERT_NE(NULL, handle);
	value = dlsym(handle, "refctr_lib_sema_value");
	call = dlsym(handle, "refctr_lib_func");
	ASSERT_NE(NULL, value);
	ASSERT_NE(NULL, call);
	EXPECT_EQ(1, value());
	for (i = 0; i < 4; i++)
		EXPECT_EQ(3 * i + 1, call(i));
	EXPECT_EQ(4, profile_hits("lib"));
	ASSERT_EQ(0, event_enable(GROUP, "lib", 0));
	EXPECT_EQ(0, value());
	ASSERT_EQ(0, event_enable(GROUP, "lib", 1));
	EXPECT_EQ(1, value());
	ASSERT_EQ(0, event_enable(GROUP, "lib", 0));
	EXPECT_EQ(0, value());
	dlclose(handle);
}

/* Two probes with one semaphore count 2; each disable takes one away. */
TEST_F(refctr, two_probes_one_semaphore)
{
	struct helper h;

	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/a %s:0x%lx(0x%lx)",
				      self_path(), self->target, self->sema));
	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/b %s:0x%lx(0x%lx)",
				      self_path(), self->other, self->sema));
	ASSERT_EQ(0, event_enable(GROUP, "a", 1));
	EXPECT_EQ(1, READ_FRESH(refctr_sema));
	ASSERT_EQ(0, event_enable(GROUP, "b", 1));
	EXPECT_EQ(2, READ_FRESH(refctr_sema));
	ASSERT_EQ(0, helper_start(&h));
	EXPECT_EQ(2, helper_sema(&h));
	ASSERT_EQ(0, event_enable(GROUP, "a", 0));
	EXPECT_EQ(1, READ_FRESH(refctr_sema));
	EXPECT_EQ(1, helper_sema(&h));
	ASSERT_EQ(0, event_enable(GROUP, "b", 0));
	EXPECT_EQ(0, READ_FRESH(refctr_sema));
	EXPECT_EQ(0, helper_sema(&h));
	EXPECT_EQ(0, helper_end(&h));
}

/* Two events on one probe and semaphore: one probe, so the counter is 1. */
TEST_F(refctr, two_events_one_probe)
{
	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/a %s:0x%lx(0x%lx)",
				      self_path(), self->target, self->sema));
	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/b %s:0x%lx(0x%lx)",
				      self_path(), self->target, self->sema));
	ASSERT_EQ(0, event_enable(GROUP, "a", 1));
	ASSERT_EQ(0, event_enable(GROUP, "b", 1));
	EXPECT_EQ(1, READ_FRESH(refctr_sema));
	refctr_target(1);
	EXPECT_EQ(1, profile_hits("a"));
	EXPECT_EQ(1, profile_hits("b"));
	ASSERT_EQ(0, event_enable(GROUP, "a", 0));
	EXPECT_EQ(1, READ_FRESH(refctr_sema));
	ASSERT_EQ(0, event_enable(GROUP, "b", 0));
	EXPECT_EQ(0, READ_FRESH(refctr_sema));
}

/*
 * A probe has one semaphore: a second event on the same probe naming
 * another one is refused when it is defined, and the first one works on.
 */
TEST_F(refctr, conflicting_semaphore)
{
	char *list;

	ASSERT_EQ(0, uprobe_event_add("p:" GROUP "/a %s:0x%lx(0x%lx)",
				      self_path(), self->target, self->sema));
	EXPECT_EQ(-EINVAL, uprobe_event_add("p:" GROUP "/b %s:0x%lx(0x%lx)",
					    self_path(), self->target, self->sema + 2));
	list = tfs_read("uprobe_events");
	ASSERT_NE(NULL, list);
	EXPECT_EQ(0, count_lines(list, GROUP "/b "));
	free(list);
	ASSERT_EQ(0, event_enable(GROUP, "a", 1));
	EXPECT_EQ(1, READ_FRESH(refctr_sema));
	refctr_target(0);
	EXPECT_EQ(1, profile_hits("a"));
	ASSERT_EQ(0, event_enable(GROUP, "a", 0));
	EXPECT_EQ(0, READ_FRESH(refctr_sema));
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--sema"))
		return sema_helper_main();
	return test_harness_run(argc, argv);
}
