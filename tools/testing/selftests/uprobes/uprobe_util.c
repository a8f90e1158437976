// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the uprobes selftests; see uprobe_util.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uprobe_util.h"

static int tfs_open_write(const char *file, int flags, const char *text)
{
	char path[PATH_MAX];
	ssize_t len = strlen(text), done;
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", TRACEFS, file);
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

int file_offset(const void *addr, char *path, size_t pathlen, unsigned long *offset)
{
	unsigned long start, end, pgoff, a = (unsigned long)addr;
	char line[PATH_MAX + 128], file[PATH_MAX];
	FILE *maps = fopen("/proc/self/maps", "r");
	int err = -ENOENT;

	if (!maps)
		return -errno;
	while (fgets(line, sizeof(line), maps)) {
		file[0] = '\0';
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", &start, &end, &pgoff, file) < 3)
			continue;
		if (a < start || a >= end || file[0] != '/')
			continue;
		*offset = a - start + pgoff;
		snprintf(path, pathlen, "%s", file);
		err = 0;
		break;
	}
	fclose(maps);
	return err;
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
