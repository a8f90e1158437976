// SPDX-License-Identifier: GPL-2.0
/*
 * peer_target N: the program the peer suites probe with perf, bpftrace and
 * bcc.  Calls peer_add(i, 2 * i) for i in [0, N) and prints the sum of the
 * results, so a tool's counts and sums can be checked exactly: N entries,
 * sum of the first arguments N(N-1)/2, sum of the return values 3N(N-1)/2.
 * Each round calls peer_jump(i) too, whose first instruction, a 5-byte nop,
 * gets a jump to a stub, if any, once probed and hit (on arm64, a nop that
 * is stepped out of line).
 *
 * peer_target usdt N: waits for SIGUSR1 (the tool attached), then fires
 * its USDT probe peer_target:peer_usdt N times, with i in [0, N) as its
 * argument, if the probe's SDT semaphore says a tool enabled it; fails if
 * not.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#include "uprobe_util.h"	/* __section, __used */

long peer_jump(long a);
asm(".pushsection .text\n"
	".globl peer_jump\n"
	".type peer_jump, @function\n"
	"peer_jump:\n"
#ifdef __aarch64__
	"	nop\n"
	"	ret\n"			/* a is in x0 already */
#else
	"	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
	"	mov %rdi, %rax\n"
	"	ret\n"
#endif
	".size peer_jump, .-peer_jump\n"
	".popsection\n");

__attribute__((noipa)) long peer_add(long a, long b)
{
	return a + b;
}

/* The semaphore of peer_target:peer_usdt, file-backed data as sdt.h wants. */
__section(".probes") __used unsigned short peer_target_peer_usdt_semaphore;

static int go;

static void on_go(int sig)
{
	__atomic_store_n(&go, 1, __ATOMIC_RELAXED);
}

static int usdt(long n)
{
	long i;

	signal(SIGUSR1, on_go);
	while (!__atomic_load_n(&go, __ATOMIC_RELAXED))
		usleep(10000);
	if (!__atomic_load_n(&peer_target_peer_usdt_semaphore, __ATOMIC_RELAXED))
		return 1;
	for (i = 0; i < n; i++)
		STAP_PROBE1(peer_target, peer_usdt, i);
	return 0;
}

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 10, sum = 0;

	if (argc > 2 && !strcmp(argv[1], "usdt"))
		return usdt(atol(argv[2]));

	for (i = 0; i < n; i++) {
		sum += peer_add(i, 2 * i);
		peer_jump(i);
	}
	printf("%ld\n", sum);
	return 0;
}
