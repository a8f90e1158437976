// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_fuzz: uprobe_events fed thousands of mangled definitions, from a
 * fixed seed so that a failure can be replayed.  Each line is a real
 * definition of a probe on this program, changed a few characters at a
 * time.  Whatever the line, the write either defines events or fails with
 * one of the errnos uprobe_events documents, and a failed write leaves
 * the list as it was.  A line that defines an event must read back in the
 * canonical form, which written again is the same probe (EEXIST); and if
 * it still probes the function it was made for, enabling it and calling
 * the function records the hit.  The console check after the run catches
 * what the kernel might say meanwhile.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kselftest_harness.h"
#include "uprobe_util.h"

#define FUZZ_SEED	20261121u
#define FUZZ_LINES	1500

TARGET long fuzz_target(long a, const char *s)
{
	return a + s[0];
}

/* The definitions the fuzzer starts from; %s is PATH:0xOFFSET. */
static const char *const seeds[] = {
	"p:utest/f %s",
	"r:utest/f %s rv=$retval:s64",
	"p:utest/f %s a=%%di:s32 s=+0(%%si):string c=$comm",
	"p:utest/f %s%%return r=$retval u=+0($retval):u8",
	"p %s(0x10)",
	"p:utest.f %s d=+8(+0(%%sp)):x16[3] e=@+0x10:u16 st=$stack1",
	"p:utest/f %s b=%%dx:b4@4/32 k=\\\"key\\\" i=\\-7:s8 ch=+0(%%si):char",
	"r:utest/f %s t=+u0(%%sp):ustring ip=%%ip fl=%%flags",
};

/* Characters the grammar gives a meaning to, and some it does not. */
static const char alphabet[] = ":/%$@+-()[]=\\\".,_ 0123456789xabcdefrpsuXt\t#~";

static unsigned int fuzz_rand(unsigned int *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 8;
}

/*
 * Changes @line in place (room for @cap bytes) a few times at random, at
 * @from or after.
 */
static void mangle(char *line, size_t cap, size_t from, unsigned int *state)
{
	int n = 1 + fuzz_rand(state) % 4;
	size_t len, at, span;

	while (n--) {
		len = strlen(line);
		at = len > from ? from + fuzz_rand(state) % (len - from) : len;
		switch (fuzz_rand(state) % 5) {
		case 0:		/* replace a character */
			if (len)
				line[at] = alphabet[fuzz_rand(state) % (sizeof(alphabet) - 1)];
			break;
		case 1:		/* insert one */
			if (len + 1 < cap) {
				memmove(line + at + 1, line + at, len - at + 1);
				line[at] = alphabet[fuzz_rand(state) % (sizeof(alphabet) - 1)];
			}
			break;
		case 2:		/* delete one */
			if (len)
				memmove(line + at, line + at + 1, len - at);
			break;
		case 3:		/* repeat a piece */
			span = 1 + fuzz_rand(state) % 12;
			if (at + span <= len && len + span < cap) {
				memmove(line + at + span, line + at, len - at + 1);
				memcpy(line + at + span, line + at, span);
			}
			break;
		default:	/* cut the end off */
			line[at] = '\0';
			break;
		}
	}
}

/* The errnos a write to uprobe_events may fail with. */
static bool documented(int err)
{
	switch (-err) {
	case EINVAL:		/* malformed, or not a regular file */
	case E2BIG:		/* too many or too long arguments */
	case ENOENT:		/* no such file, or no event to delete */
	case ENOTDIR:		/* a path through a file */
	case ENAMETOOLONG:
	case EEXIST:		/* the event exists, otherwise */
		return true;
	}
	return false;
}

/* "GRP" and "EVENT" of a listed line "p:GRP/EVENT ..."; false if none. */
static bool listed_name(const char *list, char *group, char *event)
{
	return sscanf(list, "%*c:%63[^/]/%63[^\n ]", group, event) == 2;
}

/*
 * A line that defined an event: it lists back canonically, its listing is
 * the same probe, and at the function it was made for (@place, as listed)
 * it records a call.
 */
static void check_defined(struct __test_metadata *_metadata, const char *line,
			  const char *place, int *hit)
{
	char *list = tfs_read("uprobe_events"), *again, *trace, *nl;
	char group[64], event[64], needle[80];
	int err;

	ASSERT_NE(NULL, list);
	ASSERT_TRUE(listed_name(list, group, event)) TH_LOG("%s -> %s", line, list);
	nl = strchr(list, '\n');
	ASSERT_NE(NULL, nl);
	again = strndup(list, nl - list);
	ASSERT_NE(NULL, again);
	/* One line defines one probe: the listing is that probe again. */
	EXPECT_EQ(NULL, strchr(nl + 1, '\n')) TH_LOG("%s -> %s", line, list);
	EXPECT_EQ(-EEXIST, tfs_append("uprobe_events", again)) TH_LOG("%s -> %s", line, again);

	if (strstr(again, place)) {
		err = event_enable(group, event, 1);
		EXPECT_TRUE(!err || err == -EINVAL) TH_LOG("enable %s: %d", again, err);
		fuzz_target(1, "x");
		if (!err) {
			(*hit)++;
			EXPECT_EQ(0, event_enable(group, event, 0));
			trace = trace_read();
			snprintf(needle, sizeof(needle), " %s: (", event);
			EXPECT_EQ(1, count_lines(trace, needle)) TH_LOG("%s:\n%s", again, trace);
			free(trace);
		}
	}
	free(again);
	free(list);
}

FIXTURE(fuzz) {};

FIXTURE_SETUP(fuzz)
{
	tracing_reset();
}

FIXTURE_TEARDOWN(fuzz)
{
	tracing_reset();
}

TEST_F_TIMEOUT(fuzz, mangled_definitions, 900)
{
	unsigned int state = FUZZ_SEED;
	int i, err, defined = 0, refused = 0, hit = 0;
	size_t from;
	char place[4200], listed[4200], line[8192];
	char *after;

	snprintf(place, sizeof(place), "%s:0x%lx", self_path(), self_offset(fuzz_target));
	snprintf(listed, sizeof(listed), "%s:0x%016lx", self_path(), self_offset(fuzz_target));
	for (i = 0; i < FUZZ_LINES; i++) {
		tracing_reset();
		snprintf(line, sizeof(line), seeds[fuzz_rand(&state) % ARRAY_SIZE(seeds)], place);
		/* Half of the lines keep their place and change the rest. */
		from = 0;
		if (fuzz_rand(&state) % 2)
			from = strstr(line, place) - line + strlen(place);
		mangle(line, sizeof(line), from, &state);

		err = tfs_append("uprobe_events", line);
		if (err) {
			refused++;
			EXPECT_TRUE(documented(err)) TH_LOG("line %d: \"%s\": %d", i, line, err);
			after = tfs_read("uprobe_events");
			EXPECT_STREQ("", after) TH_LOG("line %d: \"%s\"", i, line);
			free(after);
			continue;
		}
		after = tfs_read("uprobe_events");
		ASSERT_NE(NULL, after);
		/* A comment, a blank or a deletion defines nothing. */
		if (after[0]) {
			defined++;
			check_defined(_metadata, line, listed, &hit);
		}
		free(after);
		if (!__test_passed(_metadata))
			break;
	}
	tracing_reset();
	TH_LOG("%d lines: %d defined an event (%d of them enabled and hit), %d refused",
	       i, defined, hit, refused);
	EXPECT_LT(0, hit);
	EXPECT_LT(0, refused);
}

TEST_HARNESS_MAIN
