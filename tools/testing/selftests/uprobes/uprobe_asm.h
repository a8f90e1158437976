/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Code the tests write in top-level assembly, so that no compiler reshapes
 * it: the C view of its symbols.
 */
#ifndef UPROBE_ASM_H
#define UPROBE_ASM_H

/*
 * uprobe_badreg.c: badreg_func() returns 42 after jumping over instructions
 * that cannot be probed, each at a label of its own.
 */
long badreg_func(void);
extern const unsigned char badreg_int3[], badreg_hlt[], badreg_in[], badreg_int80[];
extern const unsigned char badreg_cli[], badreg_long[], badreg_vex[];

/* uprobe_uretprobe.c: tail_a(x) tail-calls tail_b(x + 100). */
long tail_a(long x);
long tail_b(long x);

/*
 * uprobe_signals.c: sig_load(p) loads *p; sig_div(a, b) divides a by b,
 * the idiv at the label sig_div_insn; sig_inc(x) returns x + 1 with a lea;
 * sig_copy(d, s, n) copies n bytes with the rep movsb at sig_copy_insn.
 * None of them is emulated: each runs out of line.
 */
long sig_load(const long *p);
long sig_div(long a, long b);
long sig_inc(long x);
void sig_copy(void *dst, const void *src, unsigned long n);
extern const unsigned char sig_div_insn[], sig_copy_insn[];

#endif
