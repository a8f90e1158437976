// SPDX-License-Identifier: GPL-2.0
/*
 * Guest init: PID 1 of a test boot.
 *
 * The guest's root is shared read-only over virtio-9p: the host's / on
 * x86-64, an arm64 Debian root on arm64; nothing may be written there.
 * This init first makes the project directory (uprobes_project= on the
 * kernel command line) reachable as /mnt/project, since the tmpfs mounted
 * on /tmp and friends would hide a checkout that lives there; then it
 * mounts the pseudo file systems and scratch tmpfs the tests need, mounts
 * the writable "results" 9p share on /tmp/results, sets the clock from
 * uprobes_clock= when the machine has no clock of its own to read (QEMU's
 * arm64 virt machine, whose PL031 the guest kernel has no driver for),
 * runs the command passed after "--" on the kernel command line with the
 * serial port as its controlling terminal, records its exit status in
 * /tmp/results/status, and reboots.  QEMU runs with -no-reboot, so the
 * reboot ends the run; a tinyconfig kernel has no ACPI power-off.
 *
 * It is linked statically so that it does not depend on the dynamic loader
 * being reachable before the mounts are in place.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RESULTS "/tmp/results"
#define PROJECT "/mnt/project"

struct mount_point {
	const char *source;
	const char *target;
	const char *fstype;
	const char *options;
	int optional;
};

static const struct mount_point mounts[] = {
	{ "proc", "/proc", "proc", NULL, 0 },
	{ "sysfs", "/sys", "sysfs", NULL, 0 },
	{ "devtmpfs", "/dev", "devtmpfs", NULL, 0 },
	{ "tmpfs", "/tmp", "tmpfs", "mode=1777", 0 },
	{ "tmpfs", "/run", "tmpfs", "mode=755", 0 },
	{ "tmpfs", "/var/tmp", "tmpfs", "mode=1777", 1 },
	{ "tmpfs", "/root", "tmpfs", "mode=700", 1 },
	{ "tracefs", "/sys/kernel/tracing", "tracefs", NULL, 0 },
	{ "debugfs", "/sys/kernel/debug", "debugfs", NULL, 0 },
	{ "bpf", "/sys/fs/bpf", "bpf", "mode=700", 1 },
	{ "devpts", "/dev/pts", "devpts", "ptmxmode=666", 1 },
	{ "tmpfs", "/dev/shm", "tmpfs", "mode=1777", 1 },
	{ "results", RESULTS, "9p", "trans=virtio,version=9p2000.L", 0 },
};

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("guest-init: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void stop(void)
{
	sync();
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}

static int mount_one(const struct mount_point *m)
{
	mkdir(m->target, 0755);
	if (mount(m->source, m->target, m->fstype, 0, m->options) == 0)
		return 0;
	say("mount %s on %s: %s", m->fstype, m->target, strerror(errno));
	return m->optional ? 0 : -1;
}

/*
 * Makes the project directory PROJECT before anything hides it: a bind of
 * the host's directory when the root is the host's /, or the 9p share
 * uprobes_project=9p:TAG names when the root is a guest root of its own.
 */
static int bind_project(void)
{
	const char *dir = getenv("uprobes_project");
	int err;

	if (!dir) {
		say("no uprobes_project= on the kernel command line");
		return -1;
	}
	err = mount("tmpfs", "/mnt", "tmpfs", 0, "mode=755") || mkdir(PROJECT, 0755);
	if (!err && !strncmp(dir, "9p:", 3))
		err = mount(dir + 3, PROJECT, "9p", MS_RDONLY, "trans=virtio,version=9p2000.L");
	else if (!err)
		err = mount(dir, PROJECT, NULL, MS_BIND | MS_REC, NULL);
	if (err) {
		say("mount %s on %s: %s", dir, PROJECT, strerror(errno));
		return -1;
	}
	return 0;
}

static int setup_filesystems(void)
{
	size_t i;

	if (bind_project())
		return -1;
	for (i = 0; i < sizeof(mounts) / sizeof(mounts[0]); i++)
		if (mount_one(&mounts[i]))
			return -1;
	/* bash process substitution uses /dev/fd/N. */
	symlink("/proc/self/fd", "/dev/fd");
	symlink("/proc/self/fd/0", "/dev/stdin");
	symlink("/proc/self/fd/1", "/dev/stdout");
	symlink("/proc/self/fd/2", "/dev/stderr");
	return 0;
}

static void setup_environment(void)
{
	setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 1);
	setenv("HOME", "/root", 1);
	setenv("TERM", "linux", 0);
	setenv("TMPDIR", "/tmp", 1);
	setenv("LANG", "C.UTF-8", 1);
}

/*
 * The host's time at boot, uprobes_clock=SECONDS, when the kernel found
 * none: files stamped in the past must not look made in the future (tar,
 * which bcc runs on the kernel's headers, says so for every file).
 */
static void setup_clock(void)
{
	const char *host = getenv("uprobes_clock");
	struct timespec now, then = { 0 };

	if (!host || clock_gettime(CLOCK_REALTIME, &now))
		return;
	then.tv_sec = strtoll(host, NULL, 10);
	if (now.tv_sec < then.tv_sec && clock_settime(CLOCK_REALTIME, &then))
		say("cannot set the clock: %s", strerror(errno));
}

/* Give the child the serial port as its controlling terminal. */
static void attach_console(void)
{
	int fd;

	setsid();
	fd = open("/dev/ttyS0", O_RDWR);
	if (fd < 0)
		return;
	ioctl(fd, TIOCSCTTY, 1);
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

/* Run argv, reaping every orphan, and return its wait status. */
static int run(char **argv)
{
	pid_t child, pid;
	int status;

	child = fork();
	if (child < 0)
		return -1;
	if (child == 0) {
		attach_console();
		execv(argv[0], argv);
		say("exec %s: %s", argv[0], strerror(errno));
		_exit(127);
	}
	for (;;) {
		pid = wait(&status);
		if (pid == child)
			return status;
		if (pid < 0 && errno != EINTR)
			return -1;
	}
}

static void record_status(int status)
{
	FILE *f = fopen(RESULTS "/status", "w");
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

	if (status < 0)
		code = 255;
	if (!f) {
		say("cannot record status %d: %s", code, strerror(errno));
		return;
	}
	fprintf(f, "%d\n", code);
	fclose(f);
}

int main(int argc, char **argv)
{
	static char *shell[] = { "/bin/bash", NULL };
	char **command = argc > 1 ? argv + 1 : shell;

	if (setup_filesystems()) {
		say("cannot set up the file systems; stopping");
		stop();
	}
	setup_environment();
	setup_clock();
	if (chdir("/tmp"))
		say("chdir /tmp: %s", strerror(errno));
	record_status(run(command));
	stop();
	return 0;
}
