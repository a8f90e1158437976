/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _ASM_X86_UPROBES_H
#define _ASM_X86_UPROBES_H
/*
 * x86 side of uprobes: what the core needs to know about a probed
 * instruction and about a task stepping one.  The functions are declared
 * in <linux/uprobes.h> and described in arch/x86/kernel/uprobes.c, those
 * of the jumps to stubs in arch/x86/kernel/uprobes_jump.c.
 */

#include <linux/types.h>

typedef u8 uprobe_opcode_t;

#define UPROBE_SWBP_INSN		0xcc	/* int3 */
#define UPROBE_SWBP_INSN_SIZE		1
#define MAX_UINSN_BYTES			16	/* the longest x86 instruction */
#define UPROBE_XOL_SLOT_BYTES		64	/* one cache line per slot */
#define UPROBE_JUMP_BYTES		5	/* jmp rel32 to a stub */
#define UPROBE_STUB_BYTES		64	/* a stub, in a stub page */
#define UPROBE_STUB_COPY		37	/* where a stub's copy begins */
#define UPROBE_COMPAT_MACHINE		EM_386	/* the ELF machine of 32-bit code */

/**
 * enum arch_uprobe_kind - how a hit on the instruction is handled
 * @UPROBE_KIND_STEP: copied to an XOL slot and single-stepped there
 * @UPROBE_KIND_NOP: emulated: only the instruction pointer moves
 * @UPROBE_KIND_PUSH: emulated: push of a general register
 * @UPROBE_KIND_JMP: emulated: jmp rel8/rel32
 * @UPROBE_KIND_CALL: emulated: call rel32
 * @UPROBE_KIND_JCC: emulated: conditional jump rel8/rel32
 * @UPROBE_KIND_RET: emulated: ret and ret imm16
 * @UPROBE_KIND_LOOP: emulated: loop, loope, loopne and jrcxz
 * @UPROBE_KIND_LOAD: emulated: a register loaded with a constant or a
 *	RIP-relative address (mov $imm, lea disp(%rip); 64-bit code)
 */
enum arch_uprobe_kind {
	UPROBE_KIND_STEP,
	UPROBE_KIND_NOP,
	UPROBE_KIND_PUSH,
	UPROBE_KIND_JMP,
	UPROBE_KIND_CALL,
	UPROBE_KIND_JCC,
	UPROBE_KIND_RET,
	UPROBE_KIND_LOOP,
	UPROBE_KIND_LOAD,
};

/* Fixups after a step in an XOL slot, or'ed in arch_uprobe.fixups. */
#define UPROBE_FIX_IP		0x01	/* ip = bp_vaddr + (ip - slot) */
#define UPROBE_FIX_CALL		0x02	/* rewrite the pushed return address */
#define UPROBE_FIX_RIP_SCRATCH	0x04	/* restore the scratch register */
#define UPROBE_FIX_REL		0x08	/* then ip += emul.branch.disp */
#define UPROBE_FIX_PUSHF	0x10	/* clear our TF in the pushed flags */
#define UPROBE_FIX_POPF		0x20	/* leave TF as the popf loaded it */

/**
 * struct arch_uprobe - a probed instruction, analysed once per probe
 * @insn: the original bytes (perf reads the first four)
 * @ixol: the bytes executed in the XOL slot (RIP-relative operands
 *	rewritten to a scratch register)
 * @len: length of the instruction
 * @kind: see enum arch_uprobe_kind
 * @fixups: UPROBE_FIX_* for a stepped instruction; every kind but JCC
 *	and LOOP can also be stepped, when emulating it is not possible
 * @scratch_reg: offset in pt_regs of the scratch register, with
 *	UPROBE_FIX_RIP_SCRATCH
 * @ia32: 32-bit code, decoded and carried out by the 32-bit rules
 * @refused: why the analysis refused the instruction (enum uprobe_refusal)
 * @emul: operands of an emulated instruction
 */
struct arch_uprobe {
	u8 insn[MAX_UINSN_BYTES];
	u8 ixol[MAX_UINSN_BYTES];
	u8 len;
	u8 kind;
	u8 fixups;
	bool ia32;
	u8 refused;
	u16 scratch_reg;
	union {
		struct {
			s32 disp;	/* JMP, CALL, JCC, LOOP: relative target */
			u8 cond;	/* JCC: condition code; LOOP: opcode - 0xe0 */
		} branch;
		struct {
			u16 reg;	/* PUSH: offset in pt_regs */
			u8 size;	/* PUSH: 8 (4 in 32-bit code), or 2 with 0x66 */
		} push;
		u16 ret_pop;		/* RET: the imm16 of ret imm16 */
		struct {
			s64 val;	/* LOAD: the constant, or the displacement */
			u16 reg;	/* LOAD: offset in pt_regs */
			bool rip;	/* LOAD: add the address of the next insn */
			bool wide;	/* LOAD: 64-bit result, else zero-extended 32 */
		} load;
	} emul;
};

/**
 * struct arch_uprobe_task - a task's x86 state kept across a step
 * @saved_scratch: the scratch register's value before the step
 * @saved_trap_nr: thread.trap_nr before the step, to see whether the
 *	stepped instruction trapped
 * @saved_tf: the task had TF set itself (it is being single-stepped by a
 *	debugger): after the step it must see a step trap of its own
 * @saved_blockstep: a debugger had block stepping (BTF) on; it is off
 *	for the step, which must trap after a single instruction
 */
struct arch_uprobe_task {
	unsigned long saved_scratch;
	unsigned long saved_trap_nr;
	bool saved_tf;
	bool saved_blockstep;
};

/**
 * struct arch_uprobe_stub_saved - what a stub saved, as its syscall found it
 * @ax: rax at the probed instruction
 * @cx: rcx there
 * @r11: r11 there
 * @sp: the stack pointer there
 *
 * The saved registers stay on the stack, below the red zone: a task whose
 * hit left them and the stack pointer unchanged can pop them there
 * (arch_uprobe_stub_exit()).
 */
struct arch_uprobe_stub_saved {
	unsigned long ax;
	unsigned long cx;
	unsigned long r11;
	unsigned long sp;
};

#endif /* _ASM_X86_UPROBES_H */
