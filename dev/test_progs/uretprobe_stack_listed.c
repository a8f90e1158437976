// SPDX-License-Identifier: GPL-2.0
/*
 * The base's uretprobe_stack test is defined __weak (so that it is never
 * inlined into the stack it checks), and the generator of test_progs'
 * tests.h, which matches definitions starting with "void test_", misses
 * it: the base's test_progs never runs it.  This declaration lists it.
 */
void test_uretprobe_stack(void);
