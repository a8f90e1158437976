// SPDX-License-Identifier: GPL-2.0
/*
 * peer_target N: the program the peer suites probe with perf and bpftrace.
 * Calls peer_add(i, 2 * i) for i in [0, N) and prints the sum of the results,
 * so a tool's counts and sums can be checked exactly: N entries, sum of the
 * first arguments N(N-1)/2, sum of the return values 3N(N-1)/2.  Each round
 * calls peer_jump(i) too, whose first instruction, a 5-byte nop, gets a
 * jump to a stub on ours once probed and hit.
 */
#include <stdio.h>
#include <stdlib.h>

long peer_jump(long a);
asm(".pushsection .text\n"
	".globl peer_jump\n"
	".type peer_jump, @function\n"
	"peer_jump:\n"
	"	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
	"	mov %rdi, %rax\n"
	"	ret\n"
	".size peer_jump, .-peer_jump\n"
	".popsection\n");

__attribute__((noipa)) long peer_add(long a, long b)
{
	return a + b;
}

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 10, sum = 0;

	for (i = 0; i < n; i++) {
		sum += peer_add(i, 2 * i);
		peer_jump(i);
	}
	printf("%ld\n", sum);
	return 0;
}
