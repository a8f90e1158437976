// SPDX-License-Identifier: GPL-2.0
/*
 * A tiny shared object for uprobe_lifecycle: its probe targets are leaf
 * functions that touch nothing but registers, so that the test can also
 * call them from a page of the file it maps by hand.
 */
__attribute__((noipa, visibility("default"))) long lifecycle_leaf(long x)
{
	return x * 3 + 1;
}

__attribute__((noipa, visibility("default"))) long lifecycle_call(long x)
{
	return lifecycle_leaf(x) + 2;
}
