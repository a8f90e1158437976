/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Code the tests write in top-level assembly, so that no compiler reshapes
 * it: the C view of its symbols.  Most of it has an arm64 version (under
 * __aarch64__ in each test), of the same function with an instruction of
 * the same use: its comment says which.
 */
#ifndef UPROBE_ASM_H
#define UPROBE_ASM_H

/*
 * uprobe_badreg.c: badreg_func() returns 42 after jumping over instructions
 * that cannot be probed, each at a label of its own.  On arm64: brk, svc,
 * a literal ldr of a SIMD&FP register, ldxr, wfi and msr.
 */
long badreg_func(void);
extern const unsigned char badreg_int3[], badreg_hlt[], badreg_in[], badreg_int80[];
extern const unsigned char badreg_cli[], badreg_long[], badreg_vex[];
extern const unsigned char badreg_brk[], badreg_svc[], badreg_literal_fp[];
extern const unsigned char badreg_exclusive[], badreg_wfi[], badreg_msr[];

/*
 * uprobe_perf.c, arm64: each of lit_x(), lit_w(), lit_sw(), lit_prfm(),
 * lit_d() and lit_ahead() starts with a literal load (ldr of an x, then a
 * w register, ldrsw, prfm, ldr of a d register, moved to x0 after; the
 * last of a literal after it) and returns x0.
 */
long lit_x(void);
long lit_w(void);
long lit_sw(void);
long lit_prfm(void);
long lit_d(void);
long lit_ahead(void);

/*
 * uprobe_jump_arm64.c: functions of one instruction class each, probed on
 * their first instruction or, where named, on their label NAME_insn:
 * a64_mov(x) = x + 3 (mov x1, #3), a64_add(x) = x + 1, a64_stp(x) = x + 2
 * (the frame record pushed), a64_paciasp(x) = x + 4, a64_bti(x) = x + 5
 * (bti c), a64_b(x) = x + 6, a64_bl(x) = x + 1 (bl a64_add at
 * a64_bl_insn), a64_cbz(x) = x ? x + 7 : -1, a64_tbnz(x) = |x| (tbnz on
 * the sign), a64_bcond(x) = max(x, 0) (b.lt at a64_bcond_insn),
 * a64_adr(x) = x + 9 and a64_adrp(x) = x + 11 (a datum loaded from the
 * address they give), a64_ldr_lit(x) = x + 13, a64_ret(x) = x (ret).
 * a64_sve(buf) sets z0 whole, runs a64_sve_insn (an add of x registers),
 * and stores z0 at buf.
 */
long a64_mov(long x);
long a64_add(long x);
long a64_stp(long x);
long a64_paciasp(long x);
long a64_bti(long x);
long a64_b(long x);
long a64_bl(long x);
long a64_cbz(long x);
long a64_tbnz(long x);
long a64_bcond(long x);
long a64_adr(long x);
long a64_adrp(long x);
long a64_ldr_lit(long x);
long a64_ret(long x);
void a64_sve(void *buf);
extern const unsigned char a64_bl_insn[], a64_bcond_insn[], a64_sve_insn[];

/* uprobe_uretprobe.c: tail_a(x) tail-calls (jmp, b) tail_b(x + 100). */
long tail_a(long x);
long tail_b(long x);

/*
 * uprobe_signals.c: sig_load(p) loads *p; sig_div(a, b) divides a by b,
 * the idiv at the label sig_div_insn; sig_inc(x) returns x + 1 with a lea;
 * sig_copy(d, s, n) copies n bytes with the rep movsb at sig_copy_insn.
 * None of them is emulated: each runs out of line.  sig_return_address()
 * returns its own return address.  On arm64: ldr, sdiv, add, a byte loop.
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
 * jump_never(x) = x + 1 starts with a push, which has no jump of its
 * own (a punned one, if its window allows: see pun_nop() below).
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
long jump_movnops(long x);
long jump_learip(long x);
long jump_movrip(long x);
long jump_subrsp(long x);
long jump_fs(long x);
extern const unsigned char jump_redzone_insn[], jump_regs_insn[], jump_jcc_insn[];

/*
 * uprobe_jump.c: functions that start with an instruction of 1 to 4 bytes,
 * entered by a punned jump: pun_nop(x) = x + 1 after a nop,
 * pun_push_rbp(x) = x + 1 after push %rbp, pun_push_r15(x) = x + 2,
 * pun_mov_rdi_rax(x) = x + 3, pun_sub_rsp(x) = x + 4 after sub $8,%rsp,
 * pun_endbr64(x) = x + 1.  pun_loop_NAME(x) = x + 3 runs the same
 * instruction at pun_loop_NAME_insn once, then a loop that branches back
 * to the two instructions right after it.
 */
long pun_nop(long x);
long pun_push_rbp(long x);
long pun_push_r15(long x);
long pun_mov_rdi_rax(long x);
long pun_sub_rsp(long x);
long pun_endbr64(long x);
long pun_loop_nop(long x);
long pun_loop_push_rbp(long x);
long pun_loop_push_r15(long x);
long pun_loop_mov_rdi_rax(long x);
long pun_loop_sub_rsp(long x);
long pun_loop_endbr64(long x);
extern const unsigned char pun_loop_nop_insn[], pun_loop_push_rbp_insn[];
extern const unsigned char pun_loop_push_r15_insn[], pun_loop_mov_rdi_rax_insn[];
extern const unsigned char pun_loop_sub_rsp_insn[], pun_loop_endbr64_insn[];

/*
 * uprobe_jump.c: pun_many, the first of functions x + 1, each a nop and
 * a mov $imm32,%eax (see there).
 */
extern const unsigned char pun_many[];

/* A macro's value as a string, for the text of asm(). */
#define ASM_STR(x)	#x
#define ASM_XSTR(x)	ASM_STR(x)

/*
 * uprobe_jump.c: pun_no_window(x) = x + 1 after a 2-byte nop at
 * pun_no_window_insn, whose punned jump could lead only into the
 * program's own text (see there).
 */
long pun_no_window(long x);
extern const unsigned char pun_no_window_insn[];

/*
 * uprobe_jump.c: jump_keep_NAME() loads the 15 general registers but rsp,
 * the flags, xmm0 and xmm15 from jump_keep_in, runs the instruction at
 * jump_keep_NAME_insn, and stores them all in jump_keep_out; it writes the
 * stack pointer it ran the instruction with in jump_keep_in.rsp, and the
 * one after it in jump_keep_out.rsp.  The instructions: a 5-byte nop, mov
 * $0x6d5e4f30 to ecx, mov $-0x12345678 to r11 (imm32, sign-extended), lea
 * of jump_keep_datum(%rip) to rax, lea 0x12345678(%rdx) to r8, and a load
 * of jump_keep_datum(%rip) into r11.
 */
struct jump_keep_regs {
	unsigned long gpr[15];	/* rax rbx rcx rdx rsi rdi rbp r8 .. r15 */
	unsigned long rsp;
	unsigned long flags;
	unsigned long xmm0[2];
	unsigned long xmm15[2];
};

extern struct jump_keep_regs jump_keep_in, jump_keep_out;
extern const unsigned long jump_keep_datum;
void jump_keep_nop5(void);
void jump_keep_movimm_ecx(void);
void jump_keep_movimm_r11(void);
void jump_keep_learip_rax(void);
void jump_keep_lea_r8(void);
void jump_keep_movrip_r11(void);
extern const unsigned char jump_keep_nop5_insn[], jump_keep_movimm_ecx_insn[];
extern const unsigned char jump_keep_movimm_r11_insn[], jump_keep_learip_rax_insn[];
extern const unsigned char jump_keep_lea_r8_insn[], jump_keep_movrip_r11_insn[];

/*
 * uprobe_sandbox.c: sandbox_nop5(x) = x + 1 after a 5-byte nop (a jump to a
 * stub, if any), sandbox_nop1(x) = x + 1 after a 1-byte one (the breakpoint).
 * arm64's: sandbox_nop(x) = x + 1 after a nop, sandbox_branch(x) = x + 1
 * after a b to the next instruction.
 */
long sandbox_nop5(long x);
long sandbox_nop1(long x);
long sandbox_nop(long x);
long sandbox_branch(long x);

/*
 * uprobe_lifecycle.c: life_direct(x) = x + 1 by a lea, run out of line
 * without a step; life_stepped(x) = x + 2 after a pushfq and the popfq at
 * life_stepped_popf, which is stepped.  On arm64 both are adds, stepped.
 */
long life_direct(long x);
long life_stepped(long x);
extern const unsigned char life_stepped_popf[];

/*
 * uprobe_lifecycle.c: life_many(x) = x + 1 + 2 + ... + 72 by 72 adds from
 * life_many_insns on, all of them stepped (see there).
 */
long life_many(long x);
extern const unsigned char life_many_insns[];

/*
 * uprobe_torture.c: tt_nop(x) .. tt_call(x) return x + 1 .. x + 7, each
 * starting with an instruction of another class: nop, push, lea, pushfq
 * (then the popfq at tt_popf_insn), a 5-byte nop, mov $imm32 and call
 * rel32; tt_counted(x) = x + 8 and tt_sandboxed(x) = x + 9.  On arm64:
 * nop, stp, add, adr (then a ldr at tt_popf_insn), cbz, adr and b.
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

/* uprobe_perf.c: perf_sled() runs 10000 nops (one code unit each) and returns. */
void perf_sled(void);

/*
 * uprobe_rseq.c: rseq_NAME(counters, rseq, out) adds one to the counter of
 * its CPU in an rseq critical section that holds, at rseq_NAME_insn, the
 * instruction a probe goes on: a 2-byte nop, mov %rdx,%r8, popfq (after an
 * unprobed pushfq), a 5-byte nop, lea 0x12345678(%rdx),%r8 and a
 * RIP-relative load into r8.  It stores r8 and the CPU in out[0] and
 * out[1], and returns the number of times it was aborted.
 */
struct rseq_slot;
struct rseq;
long rseq_nop2(struct rseq_slot *counters, struct rseq *rseq, long *out);
long rseq_mov_reg(struct rseq_slot *counters, struct rseq *rseq, long *out);
long rseq_popfq(struct rseq_slot *counters, struct rseq *rseq, long *out);
long rseq_nop5(struct rseq_slot *counters, struct rseq *rseq, long *out);
long rseq_lea(struct rseq_slot *counters, struct rseq *rseq, long *out);
long rseq_mov_rip(struct rseq_slot *counters, struct rseq *rseq, long *out);
extern const unsigned char rseq_nop2_insn[], rseq_mov_reg_insn[], rseq_popfq_insn[];
extern const unsigned char rseq_nop5_insn[], rseq_lea_insn[], rseq_mov_rip_insn[];

/*
 * The same on arm64, with x8 for r8: a nop, mov x8, x3 (the CPU), a load
 * into x8, a b.eq taken over a mov to x8, and an adr (then a load).
 */
long rseq_nop(struct rseq_slot *counters, struct rseq *rseq, long *out);
long rseq_load(struct rseq_slot *counters, struct rseq *rseq, long *out);
long rseq_branch(struct rseq_slot *counters, struct rseq *rseq, long *out);
long rseq_adr(struct rseq_slot *counters, struct rseq *rseq, long *out);
extern const unsigned char rseq_nop_insn[], rseq_load_insn[], rseq_branch_insn[];
extern const unsigned char rseq_adr_insn[];

/* uprobe_nojump.c: nj_nop5(x) = x + 1, after a 5-byte nop. */
long nj_nop5(long x);

#endif
