// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the uprobes selftests; see uprobe_util.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memmem() */
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>

#include "uprobe_util.h"

/* Writes @text to the file at @path, opened with @flags too; 0 or -errno. */
static int write_text_file(const char *path, int flags, const char *text)
{
	ssize_t len = strlen(text), done;
	int fd, err = 0;

	fd = open(path, O_WRONLY | flags);
	if (fd < 0)
		return -errno;
	done = write(fd, text, len);
	if (done < 0)
		err = -errno;
	else if (done != len)
		err = -EIO;
	close(fd);
	return err;
}

static int tfs_open_write(const char *file, int flags, const char *text)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", TRACEFS, file);
	return write_text_file(path, flags, text);
}

int tfs_write(const char *file, const char *text)
{
	return tfs_open_write(file, O_TRUNC, text);
}

int tfs_append(const char *file, const char *text)
{
	return tfs_open_write(file, O_APPEND, text);
}

int uprobe_event_add(const char *fmt, ...)
{
	char line[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	return tfs_append("uprobe_events", line);
}

char *tfs_read(const char *file)
{
	char path[PATH_MAX];
	size_t size = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", TRACEFS, file);
	fd = open(path, O_RDONLY);
	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((n = read(fd, buf + size, cap - size - 1)) > 0) {
		size += n;
		if (cap - size - 1 == 0) {
			char *bigger = realloc(buf, cap * 2);

			if (!bigger)
				break;
			buf = bigger;
			cap *= 2;
		}
	}
	close(fd);
	buf[size] = '\0';
	return buf;
}

int event_enable(const char *group, const char *event, int on)
{
	char file[PATH_MAX];

	snprintf(file, sizeof(file), "events/%s/%s/enable", group, event);
	return tfs_write(file, on ? "1" : "0");
}

void tracing_reset(void)
{
	tfs_write("tracing_on", "1");
	tfs_write("events/enable", "0");
	tfs_write("uprobe_events", "");
	tfs_write("trace", "");
	tfs_write("error_log", "");
}

char *trace_read(void)
{
	return tfs_read("trace");
}

int count_lines(const char *text, const char *needle)
{
	const char *line = text, *end;
	int n = 0;

	while (line && *line) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		if (memmem(line, end - line, needle, strlen(needle)))
			n++;
		line = *end ? end + 1 : end;
	}
	return n;
}

/*
 * The line of /proc/self/maps that holds @addr: its bounds, file offset
 * and file (PATH_MAX bytes; "" if none).  0 or -errno.
 */
static int self_maps_entry(unsigned long addr, unsigned long *start, unsigned long *end,
			   unsigned long *pgoff, char *file)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128];
	int err = -ENOENT;

	if (!maps)
		return -errno;
	while (fgets(line, sizeof(line), maps)) {
		file[0] = '\0';
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", start, end, pgoff, file) >= 3 &&
		    addr >= *start && addr < *end) {
			err = 0;
			break;
		}
	}
	fclose(maps);
	return err;
}

int file_offset(const void *addr, char *path, size_t pathlen, unsigned long *offset)
{
	unsigned long start, end, pgoff, a = (unsigned long)addr;
	char file[PATH_MAX];
	int err = self_maps_entry(a, &start, &end, &pgoff, file);

	if (err)
		return err;
	if (file[0] != '/')
		return -ENOENT;
	*offset = a - start + pgoff;
	snprintf(path, pathlen, "%s", file);
	return 0;
}

int self_mapping(const void *addr, unsigned long *start, unsigned long *end)
{
	unsigned long pgoff;
	char file[PATH_MAX];

	return self_maps_entry((unsigned long)addr, start, end, &pgoff, file);
}

const char *self_path(void)
{
	static char path[PATH_MAX];
	ssize_t n;

	if (!path[0]) {
		n = readlink("/proc/self/exe", path, sizeof(path) - 1);
		path[n > 0 ? n : 0] = '\0';
	}
	return path;
}

unsigned long self_offset(const void *addr)
{
	char path[PATH_MAX];
	unsigned long offset;

	if (file_offset(addr, path, sizeof(path), &offset))
		return 0;
	return offset;
}

int run_wait(char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * The hit count of EVENT in tracefs @file: lines of the event's name and
 * its hits, after the probed file's name when @file_first.
 */
static long profile_find(const char *file, bool file_first, const char *event)
{
	char *text = tfs_read(file), *line, *save = NULL;
	char name[256];
	unsigned long hits;
	const char *slash;
	long found = -1;
	int n;

	if (!text)
		return -1;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (file_first)
			n = sscanf(line, "%*s %255s %lu", name, &hits);
		else
			n = sscanf(line, "%255s %lu", name, &hits);
		if (n != 2)
			continue;
		slash = strchr(name, '/');
		if (!strcmp(name, event) || (slash && !strcmp(slash + 1, event))) {
			found = hits;
			break;
		}
	}
	free(text);
	return found;
}

long profile_hits(const char *event)
{
	return profile_find("uprobe_profile", true, event);
}

long kprobe_hits(const char *event)
{
	return profile_find("kprobe_profile", false, event);
}

int trace_count_pid(const char *text, const char *event, pid_t pid)
{
	const char *line = text, *end, *p, *dash;
	char needle[256];
	int n = 0;

	snprintf(needle, sizeof(needle), " %s: (", event);
	while (line && *line) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		/* "  COMM-PID  [CPU] FLAGS TIME: EVENT: (ADDR) ARGS" */
		p = memmem(line, end - line, " [", 2);
		if (*line != '#' && p && memmem(line, end - line, needle, strlen(needle))) {
			for (dash = p; dash > line && *dash != '-'; dash--)
				;
			if (!pid || (*dash == '-' && atoi(dash + 1) == pid))
				n++;
		}
		line = *end ? end + 1 : end;
	}
	return n;
}

/* Reads "config:N" or "config:N-M" from a uprobe PMU format file. */
static int uprobe_pmu_format(const char *name, int *lo, int *hi)
{
	char path[PATH_MAX];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/uprobe/format/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	n = fscanf(f, "config:%d-%d", lo, hi);
	fclose(f);
	if (n < 1)
		return -EINVAL;
	if (n == 1)
		*hi = *lo;
	return 0;
}

int uprobe_pmu_type(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
	int type = -ENOENT;

	if (!f)
		return -errno;
	if (fscanf(f, "%d", &type) != 1)
		type = -EINVAL;
	fclose(f);
	return type;
}

int uprobe_perf_attr(struct perf_event_attr *attr, const char *path,
		     unsigned long offset, int retprobe, unsigned long ref_ctr_offset)
{
	int type = uprobe_pmu_type(), lo, hi, err;

	if (type < 0)
		return type;
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->uprobe_path = (unsigned long)path;
	attr->probe_offset = offset;
	if (retprobe) {
		err = uprobe_pmu_format("retprobe", &lo, &hi);
		if (err)
			return err;
		attr->config |= 1ULL << lo;
	}
	if (ref_ctr_offset) {
		err = uprobe_pmu_format("ref_ctr_offset", &lo, &hi);
		if (err)
			return err;
		if (hi - lo < 63 && ref_ctr_offset >> (hi - lo + 1))
			return -ERANGE;
		attr->config |= (unsigned long long)ref_ctr_offset << lo;
	}
	return 0;
}

int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	int fd = syscall(__NR_perf_event_open, attr, pid, cpu, -1, 0);

	return fd < 0 ? -errno : fd;
}

long long perf_count(int fd)
{
	unsigned long long count;

	if (read(fd, &count, sizeof(count)) != sizeof(count))
		return -1;
	return count;
}

int self_probe(const void *addr)
{
	struct perf_event_attr attr;
	int err;

	err = uprobe_perf_attr(&attr, self_path(), self_offset(addr), 0, 0);
	return err ? err : perf_open(&attr, 0, -1);
}

int uprobes_maps_read(pid_t pid, struct uprobes_maps *m)
{
	char path[64], line[512];
	FILE *maps;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/maps");
	maps = fopen(path, "r");
	if (!maps)
		return -errno;
	m->n = 0;
	while (m->n < UPROBES_MAPS_MAX && fgets(line, sizeof(line), maps))
		if (strstr(line, "[uprobes]") &&
		    sscanf(line, "%lx-%lx", &m->start[m->n], &m->end[m->n]) == 2)
			m->n++;
	fclose(maps);
	return 0;
}

bool uprobes_maps_hold(const struct uprobes_maps *m, unsigned long addr)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (addr >= m->start[i] && addr < m->end[i])
			return true;
	return false;
}

#define FAIL_FN_DIR	"/sys/kernel/debug/fail_function"

/* Writes @text to file @file of fail_function; 0 or -errno. */
static int fail_fn_write(const char *file, const char *text)
{
	char path[128];

	snprintf(path, sizeof(path), FAIL_FN_DIR "/%s", file);
	return write_text_file(path, O_TRUNC, text);
}

bool fail_fn_allowed(const char *fn)
{
	char line[256], name[128];
	bool found = false;
	FILE *list;

	if (access(FAIL_FN_DIR "/inject", W_OK))
		return false;
	list = fopen("/sys/kernel/debug/error_injection/list", "r");
	while (list && !found && fgets(line, sizeof(line), list))
		found = sscanf(line, "%127s", name) == 1 && !strcmp(name, fn);
	if (list)
		fclose(list);
	return found;
}

int fail_fn_inject(const char *fn, long retval, int space, int times)
{
	char file[160], text[32];
	int err = fail_fn_write("inject", fn);

	snprintf(file, sizeof(file), "%s/retval", fn);
	snprintf(text, sizeof(text), "%#lx", (unsigned long)retval);
	err = err ?: fail_fn_write(file, text);
	err = err ?: fail_fn_write("probability", "100");
	err = err ?: fail_fn_write("interval", "1");
	err = err ?: fail_fn_write("verbose", "0");
	snprintf(text, sizeof(text), "%d", space);
	err = err ?: fail_fn_write("space", text);
	snprintf(text, sizeof(text), "%d", times);
	return err ?: fail_fn_write("times", text);
}

int fail_fn_times_left(void)
{
	FILE *f = fopen(FAIL_FN_DIR "/times", "r");
	int left = -1;

	if (f) {
		if (fscanf(f, "%d", &left) != 1)
			left = -1;
		fclose(f);
	}
	return left;
}

int fail_fn_clear(void)
{
	return fail_fn_write("inject", "\n");
}

int proc_uprobes_line(pid_t pid, const void *addr, char *line, size_t size)
{
	unsigned long at;
	int found = -1;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/uprobes", pid ?: getpid());
	f = fopen(path, "r");
	while (f && found && fgets(line, size, f))
		if (sscanf(line, "%lx ", &at) == 1 && at == (unsigned long)addr)
			found = 0;
	if (f)
		fclose(f);
	return found;
}

#ifndef __aarch64__
/* The instruction pointer of @regs, in 64-bit and in 32-bit x86 programs. */
static unsigned long regs_ip(const struct user_regs_struct *regs)
{
#ifdef __LP64__
	return regs->rip;
#else
	return regs->eip;
#endif
}

int step_to_exit(unsigned long (*work)(void), void (*at)(unsigned long ip, void *ctx),
		 void *ctx)
{
	struct user_regs_struct regs;
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) || raise(SIGSTOP))
			_exit(1);
		work();
		_exit(0);
	}
	for (;;) {
		if (waitpid(pid, &status, 0) != pid)
			return -1;
		if (WIFEXITED(status))
			return WEXITSTATUS(status) ? -1 : 0;
		if (!WIFSTOPPED(status) || ptrace(PTRACE_GETREGS, pid, NULL, &regs))
			break;
		at(regs_ip(&regs), ctx);
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL))
			break;
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}
#endif

int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

int kmod_unload(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

int kmod_load(const char *file, const char *name, const char *params)
{
	int fd, err;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	if (err == -EEXIST) {
		kmod_unload(name);
		err = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	}
	close(fd);
	return err;
}

bool kmod_loaded(const char *name)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "/sys/module/%s", name);
	return access(dir, F_OK) == 0;
}

int uprobe_jumps_sysctl(void)
{
	int fd = open("/proc/sys/debug/uprobes-jumps", O_RDONLY | O_CLOEXEC);
	char buf[16] = "";

	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf) - 1) <= 0)
		buf[0] = '\0';
	close(fd);
	return buf[0] ? atoi(buf) : -1;
}

int uprobe_jumps_sysctl_set(int on)
{
	int fd = open("/proc/sys/debug/uprobes-jumps", O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, on ? "1" : "0", 1) < 0)
		err = -errno;
	close(fd);
	return err;
}

bool have_uprobe_jumps(void)
{
	return uprobe_jumps_sysctl() == 1;
}

bool have_proc_uprobes(void)
{
	return access("/proc/self/uprobes", F_OK) == 0;
}

/*
 * x86-64's uprobe syscall, called from anywhere but a stub, changes
 * nothing and fails with EPROTO; elsewhere the number is another call's
 * (a 32-bit program's 336 is perf_event_open), or none.
 */
bool have_uprobe_syscall(void)
{
#ifdef __x86_64__
	return syscall(336) == -1 && errno == EPROTO;
#else
	return false;
#endif
}

bool debug_kernel(void)
{
	return access("/sys/kernel/debug/kmemleak", F_OK) == 0;
}

static void kid_loop(int in, int out, void (*work)(long arg), long arg)
{
	char c;

	while (read(in, &c, 1) == 1 && c == 'g') {
		work(arg);
		if (write(out, "d", 1) != 1)
			_exit(3);
	}
	_exit(0);
}

int kid_start(struct kid *k, void (*work)(long arg), long arg, int cpu)
{
	int down[2], up[2];

	if (pipe(down))
		return -1;
	if (pipe(up))
		goto close_down;
	k->pid = fork();
	if (k->pid < 0)
		goto close_up;
	if (k->pid == 0) {
		close(down[1]);
		close(up[0]);
		if (pin_to_cpu(cpu))
			_exit(2);
		kid_loop(down[0], up[1], work, arg);
	}
	close(down[0]);
	close(up[1]);
	k->to = down[1];
	k->from = up[0];
	return 0;

close_up:
	close(up[0]);
	close(up[1]);
close_down:
	close(down[0]);
	close(down[1]);
	return -1;
}

int kid_run(struct kid *k)
{
	char c;

	if (write(k->to, "g", 1) != 1 || read(k->from, &c, 1) != 1)
		return -1;
	return 0;
}

int kid_end(struct kid *k)
{
	int status, told = write(k->to, "q", 1) == 1;

	close(k->to);
	close(k->from);
	if (waitpid(k->pid, &status, 0) != k->pid || !WIFEXITED(status) || !told)
		return -1;
	return WEXITSTATUS(status);
}

/* Reads, or writes (@store), @len bytes at @addr of @pid by /proc/PID/mem. */
static int mem_access(pid_t pid, const void *addr, void *buf, size_t len, bool store)
{
	off_t at = (off_t)(unsigned long)addr;
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, (store ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = store ? pwrite(fd, buf, len, at) : pread(fd, buf, len, at);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

int mem_read(pid_t pid, const void *addr, void *buf, size_t len)
{
	return mem_access(pid, addr, buf, len, false);
}

int mem_write(pid_t pid, const void *addr, const void *buf, size_t len)
{
	return mem_access(pid, addr, (void *)buf, len, true);
}

/* The arch seccomp_data names for this program's syscalls. */
#ifdef __aarch64__
#define SELF_AUDIT_ARCH	AUDIT_ARCH_AARCH64
#else
#define SELF_AUDIT_ARCH	AUDIT_ARCH_X86_64
#endif

int seccomp_confine(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SELF_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_write, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit_group, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = ARRAY_SIZE(code), .filter = code };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

int test_mod_ctl(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int fd, err = 0;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fd = open(TEST_MOD_DIR "/ctl", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, cmd, strlen(cmd)) < 0)
		err = -errno;
	close(fd);
	return err;
}

struct test_mod_counts test_mod_counts(int id)
{
	struct test_mod_counts c = { -1, -1, 0, -1 };
	FILE *f = fopen(TEST_MOD_DIR "/counts", "r");
	int i = -1;

	if (!f)
		return c;
	while (fscanf(f, "%d %ld %ld %lx %d", &i, &c.hits, &c.rets, &c.func, &c.running) == 5)
		if (i == id)
			break;
	if (i != id) {
		c.hits = -1;
		c.rets = -1;
	}
	fclose(f);
	return c;
}

long test_mod_hits(int id)
{
	return test_mod_counts(id).hits;
}

int test_mod_sums(int id, long *args, long *rets)
{
	FILE *f = fopen(TEST_MOD_DIR "/sums", "r");
	int i, err = -ENOENT;

	if (!f)
		return -errno;
	while (fscanf(f, "%d %ld %ld", &i, args, rets) == 3)
		if (i == id) {
			err = 0;
			break;
		}
	fclose(f);
	return err;
}

const char *test_mod_log(void)
{
	static char buf[65536];
	int fd = open(TEST_MOD_DIR "/log", O_RDONLY | O_CLOEXEC);
	ssize_t n, len = 0;

	buf[0] = '\0';
	if (fd < 0)
		return buf;
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	close(fd);
	return buf;
}

int test_mod_log_count(int id, char kind, int value)
{
	const char *line = test_mod_log();
	int n = 0, i, v;
	char k;

	while (line && sscanf(line, "%d %c %d", &i, &k, &v) == 3) {
		if ((id < 0 || i == id) && k == kind && v == value)
			n++;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return n;
}

int copy_file(const char *from, char *tmpl, int suffixlen)
{
	char buf[65536];
	int in, out, err = 0;
	ssize_t n;

	in = open(from, O_RDONLY);
	if (in < 0)
		return -errno;
	out = mkstemps(tmpl, suffixlen);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			err = -EIO;
			break;
		}
	if (n < 0)
		err = -errno;
	if (fchmod(out, 0755))
		err = -errno;
	close(in);
	close(out);
	return err;
}

static void *storm_send(void *arg)
{
	struct signal_storm *s = arg;
	pid_t pid = getpid();
	long seen;

	while (!__atomic_load_n(&s->done, __ATOMIC_ACQUIRE)) {
		seen = __atomic_load_n(s->calls, __ATOMIC_RELAXED);
		syscall(SYS_tgkill, pid, s->target, SIGUSR1);
		while (__atomic_load_n(s->calls, __ATOMIC_RELAXED) == seen &&
		       !__atomic_load_n(&s->done, __ATOMIC_ACQUIRE))
			sched_yield();
	}
	return NULL;
}

int storm_start(struct signal_storm *s, const long *calls)
{
	s->target = syscall(SYS_gettid);
	s->calls = calls;
	__atomic_store_n(&s->done, 0, __ATOMIC_RELEASE);
	return pthread_create(&s->thread, NULL, storm_send, s);
}

void storm_stop(struct signal_storm *s)
{
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	pthread_join(s->thread, NULL);
	sched_yield();
}
