/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workload uprobe_coverage probes on every instruction: functions
 * built at -O2 (coverage_work.c) so that a varied set of instructions
 * appears, and a driver that runs them all once.
 */
#ifndef COVERAGE_WORK_H
#define COVERAGE_WORK_H

#include <stddef.h>

enum cov_fn {
	COV_RUN, COV_SWITCH, COV_GLOBALS, COV_SSE, COV_STRING, COV_REC,
	COV_INDIRECT, COV_OP0, COV_OP1, COV_OP2, COV_OP3, COV_ALLOCA,
	COV_VARARGS, COV_NR
};

/* How many times each function was entered, counted by the workload. */
extern unsigned long cov_calls[COV_NR];

unsigned long cov_run(void);
long cov_switch(int op, long a, long b);
long cov_globals(int i);
double cov_sse(const float *in, float *out, int n);
unsigned long cov_string(char *dst, const char *src, size_t n);
long cov_rec(int n);
long cov_indirect(int i, long x);
long cov_op0(long x);
long cov_op1(long x);
long cov_op2(long x);
long cov_op3(long x);
long cov_alloca(int n);
double cov_varargs(int n, ...);

#endif
