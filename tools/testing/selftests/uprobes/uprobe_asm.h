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
 * None of them is emulated: each runs out of line.  sig_return_address()
 * returns its own return address.
 */
long sig_load(const long *p);
long sig_div(long a, long b);
long sig_inc(long x);
void sig_copy(void *dst, const void *src, unsigned long n);
unsigned long sig_return_address(void);
extern const unsigned char sig_div_insn[], sig_copy_insn[];

/*
 * uprobe_jump.c: jump_nop(x) = x + 1, after a 5-byte nop.  jump_redzone(x) = x, kept in
 * the red zone across a 5-byte nop.  jump_regs(x) runs a 5-byte nop with
 * rax, rcx, r11 and the flags holding values that depend on x, and
 * returns what it finds in them after.  jump_call(x) = x + 3 through a
 * call rel32, jump_jmp(x) = x + 2 through a jmp rel32, jump_jcc(x) = 1 if
 * x < 0 else 0 through a jcc rel32; each of those is the function's
 * first instruction.  So are mov $imm32 in jump_movimm(x) = x + 0x1234, a
 * RIP-relative lea and load of a word holding 7 in jump_learip(x) and
 * jump_movrip(x) = x + 7, sub $0x100 from rsp (imm32) in jump_subrsp(x) =
 * x + 4, and a load of the thread pointer from %fs:0 in jump_fs(x) = tp + x.
 * jump_on_stack(fn, x, sp) calls fn(x) with the stack pointer at sp.
 * jump_never(x) = x + 1 starts with a push, which never jumps.
 */
long jump_nop(long x);
long jump_never(long x);
long jump_on_stack(long (*fn)(long x), long x, unsigned long sp);
long jump_redzone(long x);
long jump_regs(long x);
long jump_call(long x);
long jump_jmp(long x);
long jump_jcc(long x);
long jump_movimm(long x);
long jump_learip(long x);
long jump_movrip(long x);
long jump_subrsp(long x);
long jump_fs(long x);
extern const unsigned char jump_redzone_insn[], jump_regs_insn[], jump_jcc_insn[];

/*
 * uprobe_sandbox.c: sandbox_nop5(x) = x + 1 after a 5-byte nop (a jump to a
 * stub on ours), sandbox_nop1(x) = x + 1 after a 1-byte one (the breakpoint).
 */
long sandbox_nop5(long x);
long sandbox_nop1(long x);

/*
 * uprobe_lifecycle.c: life_direct(x) = x + 1 by a lea, run out of line
 * without a step; life_stepped(x) = x + 2 after a pushfq and the popfq at
 * life_stepped_popf, which is stepped.
 */
long life_direct(long x);
long life_stepped(long x);
extern const unsigned char life_stepped_popf[];

/*
 * uprobe_torture.c: tt_nop(x) .. tt_call(x) return x + 1 .. x + 7, each
 * starting with an instruction of another class: nop, push, lea, pushfq
 * (then the popfq at tt_popf_insn), a 5-byte nop, mov $imm32 and call
 * rel32; tt_counted(x) = x + 8 and tt_sandboxed(x) = x + 9.
 */
long tt_nop(long x);
long tt_push(long x);
long tt_lea(long x);
long tt_popf(long x);
long tt_nop5(long x);
long tt_movimm(long x);
long tt_call(long x);
long tt_counted(long x);
long tt_sandboxed(long x);
extern const unsigned char tt_popf_insn[];

/* uprobe_perf.c: perf_sled() runs 10000 one-byte nops and returns. */
void perf_sled(void);

#endif
