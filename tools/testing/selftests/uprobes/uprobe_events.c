// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_events: the tracefs interface.  Each test defines probe events on
 * functions of this very program (copied to a tmpfs by the runner), hits
 * them, and checks uprobe_events, the trace buffer and uprobe_profile.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kselftest_harness.h"
#include "uprobe_util.h"

TARGET long target_add(long a, long b)
{
	return a + b;
}

FIXTURE(events) {
	unsigned long offset;
};

FIXTURE_SETUP(events)
{
	tracing_reset();
	self->offset = self_offset(target_add);
	ASSERT_NE(0UL, self->offset);
}

FIXTURE_TEARDOWN(events)
{
	tracing_reset();
}

TEST_F(events, create_list_delete)
{
	char *list;

	ASSERT_EQ(0, uprobe_event_add("p:utest/add %s:0x%lx", self_path(), self->offset));
	list = tfs_read("uprobe_events");
	ASSERT_NE(NULL, list);
	EXPECT_EQ(1, count_lines(list, "p:utest/add "));
	free(list);
	ASSERT_EQ(0, uprobe_event_add("-:utest/add"));
	list = tfs_read("uprobe_events");
	ASSERT_NE(NULL, list);
	EXPECT_STREQ("", list);
	free(list);
}

TEST_F(events, hit_is_traced)
{
	char *trace;
	int i;

	ASSERT_EQ(0, uprobe_event_add("p:utest/add %s:0x%lx a=%%di:s64 b=%%si:s64",
				      self_path(), self->offset));
	ASSERT_EQ(0, event_enable("utest", "add", 1));
	for (i = 0; i < 3; i++)
		target_add(40, i);
	ASSERT_EQ(0, event_enable("utest", "add", 0));
	trace = trace_read();
	ASSERT_NE(NULL, trace);
	EXPECT_EQ(3, count_lines(trace, " add: ("));
	EXPECT_EQ(1, count_lines(trace, "a=40 b=2"));
	free(trace);
}

TEST_HARNESS_MAIN
