// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_engine: the kernel runs the uprobes engine the host built.
 *
 * The other programs check our engine's behaviour, or the base's where ours
 * differs, as the host says which engine it built (UPROBE_TEST_ENGINE, set
 * by guest/check.sh), and fail a test that asks on a kernel whose answer
 * differs.  This checks that answer once, whatever the programs run: the
 * host's word and the kernel's must agree, so that a broken engine cannot
 * pass for the base and have the checks of ours skipped.  Run by hand,
 * without the variable, there is nothing to compare: the test is skipped.
 */
#include <stdlib.h>

#include "../kselftest_harness.h"
#include "uprobe_util.h"

static const char *engine_name(bool base)
{
	return base ? "base" : "ours";
}

TEST(host_and_kernel_agree)
{
	int host = host_engine_is_base();
	bool kernel = kernel_engine_is_base();

	if (host < 0)
		SKIP(return, "%s is not set: the kernel answers %s", ENGINE_VARIABLE,
		     engine_name(kernel));
	TH_LOG("the host built %s, the kernel answers %s", engine_name(host),
	       engine_name(kernel));
	ASSERT_EQ(host, kernel);
}

TEST_HARNESS_MAIN
