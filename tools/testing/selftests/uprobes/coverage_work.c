// SPDX-License-Identifier: GPL-2.0
/*
 * The workload of uprobe_coverage.  Built at -O2 so that these appear: a
 * jump table (switch), RIP-relative loads and stores of globals, SSE
 * arithmetic and aligned moves (movaps, movdqa), rep movsb and rep stosb,
 * recursion, indirect calls through a table, alloca, varargs.  Everything
 * is deterministic: cov_run() returns the same checksum on every run.
 */
#include <emmintrin.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <xmmintrin.h>

#include "coverage_work.h"
#include "uprobe_util.h"

#define COUNT(fn) (cov_calls[fn]++)
/* Kept whole: no clones, no inlining, so each entry is a real entry. */
#define WORK __attribute__((noipa))

unsigned long cov_calls[COV_NR];
long cov_counter;
int cov_last;
static const long cov_table[8] = { 3, 1, 4, 1, 5, 9, 2, 6 };

WORK long cov_switch(int op, long a, long b)
{
	COUNT(COV_SWITCH);
	switch (op) {
	case 0:
		return a + b;
	case 1:
		return a - b;
	case 2:
		return a * b;
	case 3:
		return b ? a / b : 0;
	case 4:
		return b ? a % b : 0;
	case 5:
		return a << (b & 15);
	case 6:
		return a >> (b & 15);
	case 7:
		return a & b;
	case 8:
		return a | b;
	case 9:
		return a ^ b;
	case 10:
		return a > b ? a : b;
	default:
		return -1;
	}
}

WORK long cov_globals(int i)
{
	COUNT(COV_GLOBALS);
	cov_counter += cov_table[i & 7];
	cov_last = i;
	return cov_counter * 2 + cov_last;
}

WORK double cov_sse(const float *in, float *out, int n)
{
	__m128i ia, ib;
	__m128 acc = _mm_setzero_ps();
	double d = 0;
	int i, lanes[4] __aligned(16);

	COUNT(COV_SSE);
	for (i = 0; i + 4 <= n; i += 4) {
		__m128 v = _mm_load_ps(in + i);

		acc = _mm_add_ps(acc, _mm_mul_ps(v, v));
		_mm_store_ps(out + i, _mm_sub_ps(v, acc));
	}
	ia = _mm_load_si128((const __m128i *)in);
	ib = _mm_add_epi32(ia, _mm_set1_epi32(7));
	_mm_store_si128((__m128i *)lanes, ib);
	for (i = 0; i < n; i++)
		d += sqrt((double)out[i] * out[i] + 1.0) / (i + 1.5);
	return d + _mm_cvtss_f32(acc) + lanes[0] % 1000 + lanes[3] % 1000;
}

WORK unsigned long cov_string(char *dst, const char *src, size_t n)
{
	unsigned long sum = 0;
	char *d = dst;
	const char *s = src;
	size_t c = n, i;

	COUNT(COV_STRING);
	asm volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(c) : : "memory");
	d = dst + n;
	c = n;
	asm volatile("rep stosb" : "+D"(d), "+c"(c) : "a"(0x5a) : "memory");
	memcpy(dst + 2 * n, src, n);
	for (i = 0; i < 3 * n; i++)
		sum = sum * 31 + (unsigned char)dst[i];
	return sum;
}

WORK long cov_rec(int n)
{
	COUNT(COV_REC);
	if (n < 2)
		return n;
	/* Not a sum: gcc would turn the recursion into a loop. */
	return cov_rec(n - 1) ^ (cov_rec(n - 2) + n);
}

WORK long cov_op0(long x)
{
	COUNT(COV_OP0);
	return x + 1;
}

WORK long cov_op1(long x)
{
	COUNT(COV_OP1);
	return x * 3;
}

WORK long cov_op2(long x)
{
	COUNT(COV_OP2);
	return x ^ 0x55;
}

WORK long cov_op3(long x)
{
	COUNT(COV_OP3);
	return -x;
}

long (*const cov_ops[4])(long) = { cov_op0, cov_op1, cov_op2, cov_op3 };

WORK long cov_indirect(int i, long x)
{
	long (*fn)(long x);

	/* Through memory, so that the first call stays indirect. */
	__atomic_store_n(&fn, cov_ops[i & 3], __ATOMIC_RELAXED);
	COUNT(COV_INDIRECT);
	return __atomic_load_n(&fn, __ATOMIC_RELAXED)(x) + cov_ops[(i + 1) & 3](x);
}

WORK long cov_alloca(int n)
{
	char *p = __builtin_alloca(n);
	long sum = 0;
	int i;

	COUNT(COV_ALLOCA);
	for (i = 0; i < n; i++)
		__atomic_store_n(&p[i], i * 7, __ATOMIC_RELAXED);
	for (i = 0; i < n; i++)
		sum += __atomic_load_n(&p[i], __ATOMIC_RELAXED);
	return sum;
}

WORK double cov_varargs(int n, ...)
{
	double sum = 0;
	va_list ap;
	int i;

	COUNT(COV_VARARGS);
	va_start(ap, n);
	for (i = 0; i < n; i++) {
		sum += va_arg(ap, long);
		sum += va_arg(ap, double);
	}
	va_end(ap);
	return sum;
}

WORK unsigned long cov_run(void)
{
	static float in[16] __aligned(16), out[16] __aligned(16);
	char src[32], dst[96];
	unsigned long sum = 0;
	int i;

	COUNT(COV_RUN);
	for (i = 0; i < 12; i++)
		sum = sum * 7 + cov_switch(i, 100 + i, 3 + i);
	for (i = 0; i < 4; i++)
		sum += cov_globals(i);
	for (i = 0; i < 16; i++)
		in[i] = i * 0.5f;
	sum += (unsigned long)(cov_sse(in, out, 16) * 1000);
	for (i = 0; i < 32; i++)
		src[i] = 'a' + i % 26;
	sum += cov_string(dst, src, 32);
	sum += cov_rec(6);
	for (i = 0; i < 4; i++)
		sum += cov_indirect(i, 1000 + i);
	sum += cov_alloca(24);
	sum += (unsigned long)(cov_varargs(3, 1L, 0.25, 2L, 0.5, 3L, 0.125) * 1000);
	return sum;
}
