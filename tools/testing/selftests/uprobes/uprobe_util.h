/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the uprobes selftests: tracefs access, and the file
 * offset of a code address of this process, which is what uprobe_events,
 * the perf uprobe PMU and uprobe_register() take.
 */
#ifndef UPROBE_UTIL_H
#define UPROBE_UTIL_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "../kselftest.h"	/* __printf, __noreturn */

#define TRACEFS "/sys/kernel/tracing"

/*
 * The kernel's shorthands for the attributes the tests need, which no
 * user-space header gives (kselftest.h has __printf and __noreturn).
 */
#define UPROBE_ATTRS(...)	__attribute__((__VA_ARGS__))
#ifndef __used
#define __used			UPROBE_ATTRS(used)
#endif
#ifndef __section
#define __section(name)		UPROBE_ATTRS(section(name))
#endif
#ifndef __aligned
#define __aligned(n)		UPROBE_ATTRS(aligned(n))
#endif

/*
 * Reads @x afresh from memory, whatever the compiler knows of it: for words
 * the kernel changes behind the program's back (SDT semaphores) and for
 * code bytes a probe may have replaced.
 */
#define READ_FRESH(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)

/*
 * The stack of the tests' crowds of threads: small, but no smaller than
 * the ABI allows (PTHREAD_STACK_MIN: 16 KiB on x86-64, 128 KiB on arm64).
 */
#define SMALL_STACK \
	((size_t)PTHREAD_STACK_MIN > (64 << 10) ? (size_t)PTHREAD_STACK_MIN : (size_t)(64 << 10))

/*
 * A probe target: a real function that every call reaches; noipa keeps gcc
 * from inlining, cloning, or dropping a call whose result is unused.
 */
#define TARGET UPROBE_ATTRS(noipa, used, visibility("default"))

/*
 * What differs between the architectures the tests run on (x86-64, and
 * its 32-bit side for ia32_work; arm64).  The register names fetch
 * arguments take (regs_query_register_offset() of the arch): the first
 * six integer arguments of a call, the return value, the instruction,
 * stack and frame pointers.  The unit of code a probe replaces, and the
 * breakpoint it writes there: an int3 byte on x86, where instructions
 * are bytes; arm64's uprobes brk (BRK64_OPCODE_UPROBES), a 32-bit word
 * like every instruction.
 */
#ifdef __aarch64__
#define ARG0_REG	"%x0"
#define ARG1_REG	"%x1"
#define ARG2_REG	"%x2"
#define ARG3_REG	"%x3"
#define ARG4_REG	"%x4"
#define ARG5_REG	"%x5"
#define RET_REG		"%x0"
#define IP_REG		"%pc"
#define SP_REG		"%sp"
#define FP_REG		"%x29"
#define INSN_UNIT	unsigned int
#define BKPT_INSN	0xd42000a0
#define ANON_BKPT_INSN	BKPT_INSN	/* in a 64-bit process's anonymous memory */
#else	/* x86-64, and its 32-bit side */
#define ARG0_REG	"%di"
#define ARG1_REG	"%si"
#define ARG2_REG	"%dx"
#define ARG3_REG	"%cx"
#define ARG4_REG	"%r8"
#define ARG5_REG	"%r9"
#define RET_REG		"%ax"
#define IP_REG		"%ip"
#define SP_REG		"%sp"
#define FP_REG		"%bp"
#define INSN_UNIT	unsigned char
#define BKPT_INSN	0xcc
#define ANON_BKPT_INSN	0x06	/* no instruction in 64-bit mode */
#endif

/* Writes @text to tracefs file @file, truncating; 0 or -errno. */
int tfs_write(const char *file, const char *text);
/* Appends @text to tracefs file @file; 0 or -errno. */
int tfs_append(const char *file, const char *text);
/* Appends a printf-formatted line to uprobe_events; 0 or -errno. */
int uprobe_event_add(const char *fmt, ...) __printf(1, 2);
/* The whole of tracefs file @file, malloc'ed and NUL-terminated, or NULL. */
char *tfs_read(const char *file);
/* Enables (1) or disables (0) GROUP/EVENT; 0 or -errno. */
int event_enable(const char *group, const char *event, int on);
/*
 * Puts tracing back to a clean state: tracing on, all events disabled, no
 * uprobe events, empty trace buffer and error_log.
 */
void tracing_reset(void);
/* The lines of the trace buffer, malloc'ed, or NULL. */
char *trace_read(void);
/* How many lines of @text contain @needle. */
int count_lines(const char *text, const char *needle);

/*
 * The path of the file mapped at @addr in this process and the file offset
 * of @addr in it; 0 or -errno.
 */
int file_offset(const void *addr, char *path, size_t pathlen, unsigned long *offset);
/* The bounds of the mapping that holds @addr in this process; 0 or -errno. */
int self_mapping(const void *addr, unsigned long *start, unsigned long *end);
/* The file offset of @addr in this program's executable, or 0 on error. */
unsigned long self_offset(const void *addr);
/* The path of this program's executable (static storage). */
const char *self_path(void);

/* Runs @argv, waits, returns its exit status or -1. */
int run_wait(char *const argv[]);

/*
 * The hit count uprobe_profile shows for EVENT (the name with or without
 * its "GROUP/"), or -1 if the event is not listed.
 */
long profile_hits(const char *event);
/* The same for a kprobe event, from kprobe_profile. */
long kprobe_hits(const char *event);
/*
 * How many lines of trace buffer @text are hits of EVENT by task @pid
 * (any task if @pid is 0).
 */
int trace_count_pid(const char *text, const char *event, pid_t pid);

/* The perf "uprobe" PMU (dynamic type and config layout read from sysfs). */
struct perf_event_attr;
/* The PMU's type, or -errno. */
int uprobe_pmu_type(void);
/*
 * Fills @attr for a counting uprobe PMU event on @path at @offset, a return
 * probe if @retprobe, with SDT semaphore @ref_ctr_offset (0: none); the bits
 * of config come from the PMU's format files.  0 or -errno.
 */
int uprobe_perf_attr(struct perf_event_attr *attr, const char *path,
		     unsigned long offset, int retprobe, unsigned long ref_ctr_offset);
/* perf_event_open(@attr, @pid, @cpu, no group, no flags): fd or -errno. */
int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu);
/* The count of counting event @fd, or -1. */
long long perf_count(int fd);

/*
 * Loads the kernel module of file @file (finit_module) with parameters
 * @params ("" for none); if a module @name is loaded already (left by a
 * test that died), unloads it and tries again.  0 or -errno.
 */
int kmod_load(const char *file, const char *name, const char *params);
/* Unloads module @name (delete_module, O_NONBLOCK); 0 or -errno. */
int kmod_unload(const char *name);

/* The test module (module/uprobe_test_mod.c) and its debugfs directory. */
#define TEST_MOD_NAME	"uprobe_test_mod"
#define TEST_MOD_DIR	"/sys/kernel/debug/uprobe_test"
/* Writes one printf-formatted command to the test module; 0 or -errno. */
int test_mod_ctl(const char *fmt, ...) __printf(1, 2);
/* A line of the test module's "counts": a consumer slot's. */
struct test_mod_counts {
	long hits, rets;
	unsigned long func;
	int running;
};

/* Slot @id's counts; hits and rets -1 when they cannot be read. */
struct test_mod_counts test_mod_counts(int id);
/* Slot @id's hits, or -1. */
long test_mod_hits(int id);
/* Slot @id's sums of first arguments and of return values; 0 or -errno. */
int test_mod_sums(int id, long *args, long *rets);
/* The test module's log, "ID KIND VALUE" lines (static storage). */
const char *test_mod_log(void);
/* How many log lines are of slot @id (any if -1), @kind and @value. */
int test_mod_log_count(int id, char kind, int value);
/* Whether module @name is loaded (listed in /sys/module). */
bool kmod_loaded(const char *name);

/*
 * A counting uprobe PMU event on @addr of this program, for this process:
 * its fd, or -errno.
 */
int self_probe(const void *addr);

/* The [uprobes] mappings of a process: its XOL page and its stub pages. */
#define UPROBES_MAPS_MAX	32
struct uprobes_maps {
	int n;
	unsigned long start[UPROBES_MAPS_MAX], end[UPROBES_MAPS_MAX];
};

/* Reads those of process @pid (0: this one); 0 or -errno. */
int uprobes_maps_read(pid_t pid, struct uprobes_maps *m);
/* Whether @addr is in one of them: safe in a signal handler. */
bool uprobes_maps_hold(const struct uprobes_maps *m, unsigned long addr);
/*
 * The line of /proc/PID/uprobes of process @pid (0: this one) for the
 * probe at @addr, in @line (@size bytes): 0, or -1 if there is none.
 */
int proc_uprobes_line(pid_t pid, const void *addr, char *line, size_t size);

/*
 * fail_function (debugfs): a kernel function made to fail on purpose,
 * one at a time.
 */
/* Whether kernel function @fn is one it can make fail. */
bool fail_fn_allowed(const char *fn);
/*
 * Makes @fn return @retval (an -errno, or 0 for NULL), @times times after
 * its first @space calls; 0 or -errno.
 */
int fail_fn_inject(const char *fn, long retval, int space, int times);
/* How many more failures it is to inject, or -1. */
int fail_fn_times_left(void);
/* Makes no function fail any more; 0 or -errno. */
int fail_fn_clear(void);

/* Pins the calling thread to CPU @cpu (-1: leaves it be); 0 or -1. */
int pin_to_cpu(int cpu);

/* x86 programs only, 64-bit and 32-bit: PTRACE_GETREGS. */
#ifndef __aarch64__
/*
 * Runs @work in a child single-stepped by ptrace to its exit, calling
 * @at(ip, @ctx) at every stop: 0, or -1 if the child failed.
 */
int step_to_exit(unsigned long (*work)(void), void (*at)(unsigned long ip, void *ctx),
		 void *ctx);
#endif

/* The value of the sysctl debug.uprobes-jumps, or -1 without it. */
int uprobe_jumps_sysctl(void);
/* Sets debug.uprobes-jumps to @on (0 or 1); 0 or -errno. */
int uprobe_jumps_sysctl_set(int on);

/*
 * Features of uprobes a test may need, each told by the kernel's own
 * interfaces, so that a test skips on a kernel without one
 * (kernel_lacks()):
 * have_uprobe_jumps(): probes entered by jumps to stubs (x86-64, arm64),
 * on while sysctl debug.uprobes-jumps is 1;
 * have_proc_uprobes(): /proc/PID/uprobes;
 * have_uprobe_syscall(): x86-64's uprobe syscall, which fails with EPROTO
 * when called from anywhere but a stub (as libbpf asks).
 */
bool have_uprobe_jumps(void);
bool have_proc_uprobes(void);
bool have_uprobe_syscall(void);

/* Whether the kernel runs its debug checkers (it has kmemleak). */
bool debug_kernel(void);

#ifdef __KSELFTEST_HARNESS_H
/*
 * In a kselftest_harness test: whether the kernel lacks what follows needs,
 * @what (@have false).  The test then ends (the caller returns) as
 * skipped, or as failed if a check before this point failed.
 */
static inline bool kernel_lacks(struct __test_metadata *_metadata, bool have,
				const char *what)
{
	if (have)
		return false;
	if (_metadata->exit_code == KSFT_PASS)
		SKIP(return true, "the kernel has no %s", what);
	return true;
}
#endif

/*
 * Confines the calling process with a seccomp filter that kills it on any
 * syscall but write, exit and exit_group: 0, or -1 with errno set.
 */
int seccomp_confine(void);

/*
 * A forked child that runs @work(@arg) each time kid_run() tells it to,
 * pinned to CPU @cpu unless it is -1, until kid_end().
 */
struct kid {
	pid_t pid;
	int to, from;
};

/* Starts the child; 0 or -1. */
int kid_start(struct kid *k, void (*work)(long arg), long arg, int cpu);
/* Lets the child do its work once; 0 when it is done, or -1. */
int kid_run(struct kid *k);
/* Ends the child; its exit status, or -1. */
int kid_end(struct kid *k);

/*
 * Copies file @from to a new executable file named after @tmpl, a
 * mkstemps() template with @suffixlen characters after its XXXXXX (the
 * name is written back there); 0 or -errno.
 */
int copy_file(const char *from, char *tmpl, int suffixlen);

/* @len bytes at @addr of process @pid, through /proc/PID/mem; 0 or -1. */
int mem_read(pid_t pid, const void *addr, void *buf, size_t len);

/* Writes @len bytes at @addr of process @pid, through /proc/PID/mem; 0 or -1. */
int mem_write(pid_t pid, const void *addr, const void *buf, size_t len);

/*
 * A thread that sends SIGUSR1 to the thread that started it, again and
 * again, the next signal as soon as the target has made one more call
 * (*@calls, which the target increments atomically) since the last.  A
 * sender that never waits starves its target when both run at once
 * (multi-threaded TCG): a signal comes at each return to user mode.
 */
struct signal_storm {
	pthread_t thread;
	pid_t target;
	int done;
	const long *calls;
};

/* Starts the storm on the calling thread; 0 or an errno. */
int storm_start(struct signal_storm *s, const long *calls);
/*
 * Stops it.  The signal it sent last is pending by the time the sender is
 * joined; a system call of the target on the way out delivers it.
 */
void storm_stop(struct signal_storm *s);

#endif
