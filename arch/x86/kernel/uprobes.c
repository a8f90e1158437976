// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 side of uprobes: instruction analysis, emulation, out-of-line
 * stepping, return probes.
 *
 * A probe replaces the first byte of a user instruction with int3.  When
 * a task hits it, the core runs the consumers' handlers and then has the
 * instruction carried out in one of three ways, decided once per probe by
 * arch_uprobe_analyze_compat():
 *
 *  - emulated: the effect of the instruction is computed here, on pt_regs
 *    and on the user stack (nops, push of a register, relative jmp, jcc,
 *    loop and call, ret, and in 64-bit code a constant or a RIP-relative
 *    address loaded into a register).  No trap is needed.
 *
 *  - run out of line without a step: an instruction whose only fixup is
 *    moving the ip back runs from the task's own XOL slot, followed by a
 *    jump back to the next instruction (arch_uprobe_xol_direct()).  No
 *    trap after the breakpoint either.
 *
 *  - stepped out of line (XOL): a copy of the instruction is executed with
 *    TF set from a slot of the per-mm XOL area, and the step trap (#DB)
 *    hands control back.  What the copy cannot get right by itself because
 *    it runs at another address is fixed around the step:
 *      * a RIP-relative operand is rewritten in the copy to be relative to
 *        a scratch register, which holds the address the original RIP
 *        would have held (the end of the original instruction) for the
 *        duration of the step;
 *      * a call pushes the slot's address: the return address is rewritten
 *        to follow the original instruction (on the shadow stack too);
 *      * the instruction pointer is moved from the slot back to the
 *        original text, unless the instruction jumped somewhere absolute;
 *      * pushf would leak our TF to the user's stack: it is cleared there.
 *
 * Every kind but jcc and loop can be stepped as well as emulated, so that
 * emulation may give up (a fault on the user stack, a shadow stack it
 * cannot update) and let the hardware raise the fault from the slot, from
 * where the core maps it back to the probed address.
 *
 * Once hit, in a 64-bit task, an instruction of 5 bytes or more that is
 * emulated or runs out of line without a step may get a jump to a stub of
 * its own in place of the breakpoint: the task then enters the kernel by
 * a syscall from the stub rather than by the trap, and the instruction is
 * carried out as above, or by a copy in the stub (uprobes_jump.c).
 *
 * Instructions whose behaviour depends on where or how they run in ways
 * the fixups cannot mend are refused with -EOPNOTSUPP: traps and
 * interrupts (int3, int n, int1), system and privileged instructions,
 * syscall/sysenter (the kernel would return to the slot), far transfers,
 * mov to a segment register (it hides the step trap), I/O, hlt, cli/sti,
 * xbegin, lock-prefixed instructions, REX2/XOP encodings and 16-bit
 * branches.  The analysis keeps the class of each refusal (enum
 * uprobe_refusal, arch_uprobe_refusal()), which a tracer tells its user.
 *
 * In the anonymous memory of a 64-bit task (code a JIT wrote), the
 * breakpoint is 0x06 rather than int3 (arch_uprobe_anon_swbp()): an
 * opcode that is none in 64-bit mode, whose #UD the die notifier takes as
 * it takes int3, ip and all.  JITs write int3 themselves, as padding and
 * as traps of their own; the core tells theirs from a probe's by the byte.
 *
 * 32-bit (ia32) tasks are probed as well.  A probe is analysed for the
 * mode its code runs in, which the core tells arch_uprobe_analyze_compat()
 * (from the file's ELF header, or the mm's mode), and arch_uprobe.ia32
 * then picks the 32-bit rules wherever they differ: the 32-bit decoder
 * (0x40-0x4f are inc and dec, not REX), the opcodes only 32-bit
 * code has (pop %ss hides the step trap as mov to %ss does; far call and
 * jmp, into), 4-byte words on the stack for push, call, ret and return
 * probes, branch targets and the instruction pointer kept to 32 bits,
 * ecx for loop, and a jmp rel32 back from a run-direct copy (there is no
 * RIP-relative addressing).  A return probe returns to an int3 at the
 * trampoline (the uretprobe syscall is 64-bit only), and 32-bit tasks
 * never get a jump to a stub.  Their XOL area is mapped below 4 GB
 * (arch_uprobe_xol_vaddr()).
 *
 * Calling context: the analysis runs at registration; everything else runs
 * in the probed task, in process context (the core's work on return to
 * user mode), except the die notifier at the end, which runs from the int3,
 * #DB and #UD exception handlers with interrupts off and only forwards to
 * the core.
 */

#include <linux/init.h>
#include <linux/entry-common.h>
#include <linux/kdebug.h>
#include <linux/kernel.h>
#include <linux/mm_types.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/sizes.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/syscalls.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <linux/uprobes.h>

#include <asm/debugreg.h>
#include <asm/insn.h>
#include <asm/processor.h>
#include <asm/shstk.h>
#include <asm/sync_core.h>
#include <asm/syscall.h>
#include <asm/text-patching.h>
#include <asm/unistd.h>

#include "uprobes_internal.h"

/* thread.trap_nr while a step is under way: no trap number is this big. */
#define UPROBE_TRAP_NR		UINT_MAX

/* An opcode as handled here: 0x00XX for one byte, 0x0fXX after 0x0f. */
#define UPROBE_OP_NONE		0xffff

/* Legacy prefixes as a mask of their inat ids. */
#define UPROBE_PFX(id)		BIT(INAT_PFX_##id)
#define UPROBE_PFX_SEGS		(UPROBE_PFX(CS) | UPROBE_PFX(DS) | \
				 UPROBE_PFX(ES) | UPROBE_PFX(SS) | \
				 UPROBE_PFX(FS) | UPROBE_PFX(GS))

/* Register numbers as encoded in ModRM, SIB, REX and VEX. */
enum uprobe_gpr {
	UPROBE_REG_AX, UPROBE_REG_CX, UPROBE_REG_DX, UPROBE_REG_BX,
	UPROBE_REG_SP, UPROBE_REG_BP, UPROBE_REG_SI, UPROBE_REG_DI,
};

static const u16 uprobe_gpr_offset[] = {
	offsetof(struct pt_regs, ax), offsetof(struct pt_regs, cx),
	offsetof(struct pt_regs, dx), offsetof(struct pt_regs, bx),
	offsetof(struct pt_regs, sp), offsetof(struct pt_regs, bp),
	offsetof(struct pt_regs, si), offsetof(struct pt_regs, di),
#ifdef CONFIG_X86_64
	offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
	offsetof(struct pt_regs, r10), offsetof(struct pt_regs, r11),
	offsetof(struct pt_regs, r12), offsetof(struct pt_regs, r13),
	offsetof(struct pt_regs, r14), offsetof(struct pt_regs, r15),
#endif
};

/*
 * Scratch registers for RIP-relative operands, in order of preference.
 * None of them is used implicitly by an instruction with a ModRM memory
 * operand, except rbx by cmpxchg8b/16b (0f c7), and they are all
 * encodable as a ModRM base without a REX.B bit.
 */
static const u8 uprobe_scratch_candidates[] = {
	UPROBE_REG_SI, UPROBE_REG_DI, UPROBE_REG_BP, UPROBE_REG_BX,
};

static unsigned long *uprobe_reg(struct pt_regs *regs, unsigned int offset)
{
	return (unsigned long *)((u8 *)regs + offset);
}

/* The size of a return address, and of a push, in the probe's mode. */
static unsigned int uprobe_word_size(struct arch_uprobe *aup)
{
	return aup->ia32 ? 4 : 8;
}

/* Writes the @size-byte word @val at @sp; 0 or -EFAULT. */
static int uprobe_put_word(unsigned long sp, unsigned long val, unsigned int size)
{
	switch (size) {
	case 2:
		return put_user((u16)val, (u16 __user *)sp);
	case 4:
		return put_user((u32)val, (u32 __user *)sp);
	}
	return put_user(val, (unsigned long __user *)sp);
}

/* Reads the @size-byte word at @sp into @val; 0 or -EFAULT. */
static int uprobe_get_word(unsigned long sp, unsigned long *val, unsigned int size)
{
	u32 word;

	if (size == 8)
		return get_user(*val, (unsigned long __user *)sp);
	if (get_user(word, (u32 __user *)sp))
		return -EFAULT;
	*val = word;
	return 0;
}

/* ---- instruction analysis ---- */

static unsigned int uprobe_prefixes(struct insn *insn)
{
	unsigned int mask = 0;
	insn_byte_t prefix;
	int i;

	for_each_insn_prefix(insn, i, prefix)
		mask |= BIT(inat_get_opcode_attribute(prefix) & INAT_PFX_MASK);
	return mask;
}

static bool uprobe_has_rex_b(struct insn *insn)
{
	return insn->rex_prefix.nbytes == 1 &&
	       X86_REX_B(insn->rex_prefix.bytes[0]);
}

static bool uprobe_has_rex_w(struct insn *insn)
{
	return insn->rex_prefix.nbytes == 1 &&
	       X86_REX_W(insn->rex_prefix.bytes[0]);
}

static bool uprobe_has_rex_r(struct insn *insn)
{
	return insn->rex_prefix.nbytes == 1 &&
	       X86_REX_R(insn->rex_prefix.bytes[0]);
}

static u8 uprobe_modrm_reg(struct insn *insn)
{
	return X86_MODRM_REG(insn->modrm.bytes[0]);
}

/* The legacy opcode (see UPROBE_OP_NONE); VEX/EVEX ones are not looked at. */
static u16 uprobe_opcode(struct insn *insn)
{
	if (insn_is_avx(insn))
		return UPROBE_OP_NONE;
	if (insn->opcode.bytes[0] != 0x0f)
		return insn->opcode.bytes[0];
	return 0x0f00 | insn->opcode.bytes[1];
}

static enum uprobe_refusal uprobe_decode(struct arch_uprobe *aup, struct insn *insn,
					 bool ia32)
{
	enum insn_mode mode = ia32 ? INSN_MODE_32 : INSN_MODE_64;

	/* The decoder never goes past MAX_INSN_SIZE (15) bytes. */
	if (insn_decode(insn, aup->insn, MAX_UINSN_BYTES, mode) < 0)
		return UPROBE_REFUSED_UNDECODABLE;
	return UPROBE_REFUSED_NONE;
}

/* Encodings refused whatever the opcode. */
static enum uprobe_refusal uprobe_check_encoding(struct insn *insn)
{
	unsigned int prefixes = uprobe_prefixes(insn);

	if (prefixes & UPROBE_PFX(LOCK))
		return UPROBE_REFUSED_ENCODING;
	if (insn_is_rex2(insn) || insn_has_emulate_prefix(insn))
		return UPROBE_REFUSED_ENCODING;
	/* An address-size prefix would make it EIP-relative. */
	if (insn_rip_relative(insn) && (prefixes & UPROBE_PFX(ADDRSZ)))
		return UPROBE_REFUSED_ENCODING;
	return UPROBE_REFUSED_NONE;
}

/* One-byte opcodes that do not exist in 64-bit mode. */
static bool uprobe_invalid_in_64bit(u16 op)
{
	switch (op) {
	case 0x06: case 0x07: case 0x0e: case 0x16: case 0x17:
	case 0x1e: case 0x1f: case 0x27: case 0x2f: case 0x37:
	case 0x3f: case 0x60: case 0x61: case 0x82: case 0x9a:
	case 0xce: case 0xd4: case 0xd6: case 0xea:
		return true;
	}
	return false;
}

/* One-byte opcodes that cannot be probed, and why. */
static enum uprobe_refusal uprobe_refused_onebyte(struct insn *insn, u16 op)
{
	u8 reg = uprobe_modrm_reg(insn);

	switch (op) {
	case 0x6c ... 0x6f:	/* ins, outs */
	case 0xe4 ... 0xe7:	/* in, out imm8 */
	case 0xec ... 0xef:	/* in, out dx */
	case 0xf4:		/* hlt */
	case 0xfa: case 0xfb:	/* cli, sti */
		return UPROBE_REFUSED_PRIVILEGED;
	case 0x8e:		/* mov to sreg: mov to ss hides the step */
		return UPROBE_REFUSED_SEGMENT;
	case 0xca: case 0xcb:	/* far ret */
	case 0xcf:		/* iret */
		return UPROBE_REFUSED_FAR;
	case 0xcc:		/* int3 */
	case 0xcd:		/* int imm8 */
	case 0xf1:		/* int1 */
		return UPROBE_REFUSED_TRAP;
	case 0x8f:		/* /0 is pop r/m, the rest is XOP */
		return reg != 0 ? UPROBE_REFUSED_ENCODING : UPROBE_REFUSED_NONE;
	case 0xc7:		/* xbegin: a relative branch */
		return insn->modrm.bytes[0] == 0xf8 ? UPROBE_REFUSED_OTHER : UPROBE_REFUSED_NONE;
	case 0xff:		/* far call and far jmp */
		return reg == 3 || reg == 5 ? UPROBE_REFUSED_FAR : UPROBE_REFUSED_NONE;
	}
	return UPROBE_REFUSED_NONE;
}

/* 0f 01 is mostly system instructions: allow the few user ones. */
static bool uprobe_refused_0f01(struct insn *insn)
{
	unsigned int mandatory = UPROBE_PFX(OPNDSZ) | UPROBE_PFX(REPE) |
				 UPROBE_PFX(REPNE);

	if (uprobe_prefixes(insn) & mandatory)
		return true;
	switch (insn->modrm.bytes[0]) {
	case 0xd0:	/* xgetbv */
	case 0xd6:	/* xtest */
	case 0xe8:	/* serialize */
	case 0xee:	/* rdpkru */
	case 0xef:	/* wrpkru */
	case 0xf9:	/* rdtscp */
		return false;
	}
	return true;
}

/* Two-byte opcodes that cannot be probed, and why. */
static enum uprobe_refusal uprobe_refused_twobyte(struct insn *insn, u16 op)
{
	switch (op) {
	case 0x0f05:		/* syscall */
	case 0x0f07:		/* sysret */
	case 0x0f34:		/* sysenter */
	case 0x0f35:		/* sysexit */
		return UPROBE_REFUSED_SYSCALL;
	case 0x0f00:		/* sldt, str, lldt, ltr, verr, verw */
	case 0x0f06:		/* clts */
	case 0x0f08:		/* invd */
	case 0x0f09:		/* wbinvd */
	case 0x0f20 ... 0x0f23:	/* mov to/from cr, dr */
	case 0x0f30:		/* wrmsr */
	case 0x0f32:		/* rdmsr */
	case 0x0f37:		/* getsec */
	case 0x0f78: case 0x0f79: /* vmread, vmwrite */
	case 0x0faa:		/* rsm */
		return UPROBE_REFUSED_PRIVILEGED;
	case 0x0f01:
		return uprobe_refused_0f01(insn) ? UPROBE_REFUSED_PRIVILEGED : UPROBE_REFUSED_NONE;
	}
	return UPROBE_REFUSED_NONE;
}

/*
 * A prefix the decoder took for the opcode: a REX prefix followed by
 * another prefix (the processor then ignores the REX, and would read more
 * bytes than the decoder counted).  Compilers do not emit this.  In 32-bit
 * code the REX and REX2 bytes are inc, dec and aad: only a legacy prefix
 * counts there.
 */
static bool uprobe_prefix_as_opcode(u16 op, bool ia32)
{
	insn_attr_t attr;

	if (op >= 0x100)
		return false;
	attr = inat_get_opcode_attribute(op);
	if (inat_is_legacy_prefix(attr))
		return true;
	return !ia32 && (inat_is_rex_prefix(attr) || inat_is_rex2_prefix(attr));
}

/* One-byte opcodes of 32-bit code only that cannot be probed, and why. */
static enum uprobe_refusal uprobe_refused_ia32(u16 op)
{
	switch (op) {
	case 0x17:		/* pop %ss: hides the step, as mov to ss */
		return UPROBE_REFUSED_SEGMENT;
	case 0x9a:		/* far call */
	case 0xea:		/* far jmp */
		return UPROBE_REFUSED_FAR;
	case 0xce:		/* into */
		return UPROBE_REFUSED_TRAP;
	}
	return UPROBE_REFUSED_NONE;
}

static enum uprobe_refusal uprobe_check_opcode(struct insn *insn, bool ia32)
{
	u16 op = uprobe_opcode(insn);
	enum uprobe_refusal why;

	if (op == UPROBE_OP_NONE)
		return UPROBE_REFUSED_NONE;
	if (uprobe_prefix_as_opcode(op, ia32))
		return UPROBE_REFUSED_ENCODING;
	if (!ia32 && uprobe_invalid_in_64bit(op))
		return UPROBE_REFUSED_UNDECODABLE;
	why = ia32 ? uprobe_refused_ia32(op) : UPROBE_REFUSED_NONE;
	if (why)
		return why;
	if (op < 0x100)
		return uprobe_refused_onebyte(insn, op);
	return uprobe_refused_twobyte(insn, op);
}

/* nop, xchg %ax,%ax, pause, nopw/nopl r/m, endbr64, endbr32. */
static bool uprobe_is_nop(struct insn *insn, u16 op)
{
	unsigned int prefixes = uprobe_prefixes(insn);
	unsigned int harmless = UPROBE_PFX(OPNDSZ) | UPROBE_PFX_SEGS;

	switch (op) {
	case 0x90:	/* with REX.B it is xchg %r8,%rax */
		harmless |= UPROBE_PFX(REPE);
		return !(prefixes & ~harmless) && !uprobe_has_rex_b(insn);
	case 0x0f1f:
		return !(prefixes & ~harmless) && uprobe_modrm_reg(insn) == 0;
	case 0x0f1e:
		return prefixes == UPROBE_PFX(REPE) &&
		       (insn->modrm.bytes[0] == 0xfa ||
			insn->modrm.bytes[0] == 0xfb);
	}
	return false;
}

static void uprobe_setup_push(struct arch_uprobe *aup, struct insn *insn, u16 op)
{
	unsigned int prefixes = uprobe_prefixes(insn);
	unsigned int reg = op & 7;

	/* Anything but an operand-size prefix: leave it to the hardware. */
	if (prefixes & ~UPROBE_PFX(OPNDSZ))
		return;
	if (uprobe_has_rex_b(insn))
		reg += 8;
	aup->kind = UPROBE_KIND_PUSH;
	aup->emul.push.reg = uprobe_gpr_offset[reg];
	aup->emul.push.size = uprobe_word_size(aup);
	if ((prefixes & UPROBE_PFX(OPNDSZ)) && !uprobe_has_rex_w(insn))
		aup->emul.push.size = 2;
}

/*
 * mov $imm32, %r32; mov $imm64, %r64; mov $imm32, %r64 (sign-extended)
 * and lea disp32(%rip), %r32/%r64, in 64-bit code with no prefix but REX:
 * the destination gets a constant, or the address of the operand.  No
 * flag changes.  A 32-bit destination is zero-extended.
 */
static void uprobe_setup_load(struct arch_uprobe *aup, struct insn *insn, u16 op)
{
	bool wide = uprobe_has_rex_w(insn);
	unsigned int rm = X86_MODRM_RM(insn->modrm.bytes[0]);
	unsigned int reg;
	s64 val;

	if (aup->ia32 || uprobe_prefixes(insn))
		return;
	switch (op) {
	case 0xb8 ... 0xbf:
		reg = op & 7;
		val = wide ? ((u64)(u32)insn->immediate2.value << 32) |
			     (u32)insn->immediate1.value :
			     (u32)insn->immediate.value;
		break;
	case 0xc7:	/* mov $imm32, r/m: a register destination only */
		if (X86_MODRM_MOD(insn->modrm.bytes[0]) != 3 || uprobe_modrm_reg(insn))
			return;
		reg = rm;
		val = wide ? (s64)insn->immediate.value : (u32)insn->immediate.value;
		break;
	case 0x8d:
		if (!insn_rip_relative(insn))
			return;
		reg = uprobe_modrm_reg(insn) + (uprobe_has_rex_r(insn) ? 8 : 0);
		aup->emul.load.rip = true;
		val = insn->displacement.value;
		goto found;
	default:
		return;
	}
	if (uprobe_has_rex_b(insn))
		reg += 8;
found:
	aup->kind = UPROBE_KIND_LOAD;
	aup->emul.load.reg = uprobe_gpr_offset[reg];
	aup->emul.load.val = val;
	aup->emul.load.wide = wide;
}

static void uprobe_setup_branch(struct arch_uprobe *aup, struct insn *insn,
				enum arch_uprobe_kind kind, u8 cond)
{
	aup->kind = kind;
	aup->emul.branch.disp = insn->immediate.value;
	aup->emul.branch.cond = cond;
}

static bool uprobe_is_branch(u16 op)
{
	switch (op) {
	case 0x70 ... 0x7f:
	case 0x0f80 ... 0x0f8f:
	case 0xe0 ... 0xe3:
	case 0xe8: case 0xe9: case 0xeb:
	case 0xc2: case 0xc3:
		return true;
	}
	return false;
}

/*
 * An operand-size prefix makes a branch 16-bit on some processors and not
 * on others, unless REX.W overrides it (as in the "data16 data16 rex.W
 * call __tls_get_addr" of TLS sequences).
 */
static bool uprobe_branch_16bit(struct insn *insn)
{
	return (uprobe_prefixes(insn) & UPROBE_PFX(OPNDSZ)) &&
	       !uprobe_has_rex_w(insn);
}

/* 16-bit branches, and loops counting in ecx: not worth emulating. */
static enum uprobe_refusal uprobe_check_branch(struct insn *insn, u16 op)
{
	unsigned int prefixes = uprobe_prefixes(insn);

	if (uprobe_branch_16bit(insn))
		return UPROBE_REFUSED_ENCODING;
	if (op >= 0xe0 && op <= 0xe3 && (prefixes & UPROBE_PFX(ADDRSZ)))
		return UPROBE_REFUSED_ENCODING;
	return UPROBE_REFUSED_NONE;
}

/* Decide whether and how the instruction is emulated. */
static enum uprobe_refusal uprobe_setup_emulation(struct arch_uprobe *aup, struct insn *insn)
{
	u16 op = uprobe_opcode(insn);
	enum uprobe_refusal why;

	if (uprobe_is_nop(insn, op)) {
		aup->kind = UPROBE_KIND_NOP;
		return UPROBE_REFUSED_NONE;
	}
	if (op >= 0x50 && op <= 0x57) {
		uprobe_setup_push(aup, insn, op);
		return UPROBE_REFUSED_NONE;
	}
	if ((op >= 0xb8 && op <= 0xbf) || op == 0xc7 || op == 0x8d) {
		uprobe_setup_load(aup, insn, op);
		return UPROBE_REFUSED_NONE;
	}
	if (!uprobe_is_branch(op))
		return UPROBE_REFUSED_NONE;
	why = uprobe_check_branch(insn, op);
	if (why)
		return why;

	switch (op) {
	case 0x70 ... 0x7f:
	case 0x0f80 ... 0x0f8f:
		uprobe_setup_branch(aup, insn, UPROBE_KIND_JCC, op & 0xf);
		break;
	case 0xe0 ... 0xe3:
		uprobe_setup_branch(aup, insn, UPROBE_KIND_LOOP, op & 3);
		break;
	case 0xe8:
		uprobe_setup_branch(aup, insn, UPROBE_KIND_CALL, 0);
		break;
	case 0xe9: case 0xeb:
		uprobe_setup_branch(aup, insn, UPROBE_KIND_JMP, 0);
		break;
	case 0xc2: case 0xc3:
		aup->kind = UPROBE_KIND_RET;
		aup->emul.ret_pop = op == 0xc2 ? (u16)insn->immediate.value : 0;
		break;
	}
	return UPROBE_REFUSED_NONE;
}

/* The fixups a step of a non-branching or absolute-branching insn needs. */
static u8 uprobe_step_fixups(struct insn *insn)
{
	u16 op = uprobe_opcode(insn);

	switch (op) {
	case 0xc2: case 0xc3:	/* ret: the target is absolute */
		return 0;
	case 0x9c:		/* pushf */
		return UPROBE_FIX_IP | UPROBE_FIX_PUSHF;
	case 0x9d:		/* popf */
		return UPROBE_FIX_IP | UPROBE_FIX_POPF;
	case 0xff:
		if (uprobe_modrm_reg(insn) == 2)	/* call *r/m */
			return UPROBE_FIX_CALL;
		if (uprobe_modrm_reg(insn) == 4)	/* jmp *r/m */
			return 0;
		break;
	}
	return UPROBE_FIX_IP;
}

/* 16-bit indirect call and jmp: the return address fixup writes 8 bytes. */
static enum uprobe_refusal uprobe_check_indirect(struct insn *insn)
{
	u8 reg = uprobe_modrm_reg(insn);

	if (uprobe_opcode(insn) != 0xff || (reg != 2 && reg != 4))
		return UPROBE_REFUSED_NONE;
	if (uprobe_branch_16bit(insn))
		return UPROBE_REFUSED_ENCODING;
	return UPROBE_REFUSED_NONE;
}

/* The registers (numbers 0..7) an instruction may use besides its r/m. */
static unsigned int uprobe_used_regs(struct insn *insn)
{
	unsigned int reg = uprobe_modrm_reg(insn);
	unsigned int used = BIT(reg);

	/* Without REX, byte registers 4..7 are ah, ch, dh, bh. */
	if (!insn->rex_prefix.nbytes && !insn_is_avx(insn) && reg >= 4)
		used |= BIT(reg - 4);
	if (insn_is_avx(insn)) {
		/* vvvv is stored inverted */
		used |= BIT(~X86_VEX_V(insn->vex_prefix.bytes[2]) & 7);
		/* a register in imm8[7:4] (is4) */
		if (insn->immediate.nbytes)
			used |= BIT((insn->immediate.value >> 4) & 7);
	}
	if (uprobe_opcode(insn) == 0x0fc7)	/* cmpxchg8b/16b use rbx */
		used |= BIT(UPROBE_REG_BX);
	return used;
}

static int uprobe_pick_scratch(struct insn *insn)
{
	unsigned int used = uprobe_used_regs(insn);
	int i;

	for (i = 0; i < ARRAY_SIZE(uprobe_scratch_candidates); i++)
		if (!(used & BIT(uprobe_scratch_candidates[i])))
			return uprobe_scratch_candidates[i];
	return -1;
}

/*
 * Make the copy address [scratch + disp32] instead of [rip + disp32]:
 * ModRM.mod 00 -> 10 with r/m = scratch, and clear the B extension bit
 * (ignored for RIP-relative, meaningful for a base register).
 */
static enum uprobe_refusal uprobe_rewrite_riprel(struct arch_uprobe *aup, struct insn *insn)
{
	int scratch = uprobe_pick_scratch(insn);
	u8 *modrm = &aup->ixol[insn_offset_modrm(insn)];

	if (scratch < 0)
		return UPROBE_REFUSED_ENCODING;
	*modrm = (*modrm & 0x38) | 0x80 | scratch;
	if (insn->rex_prefix.nbytes)
		aup->ixol[insn_offset_rex_prefix(insn)] &= ~0x01;
	else if (insn->vex_prefix.nbytes >= 3)	/* VEX3 and EVEX: ~B */
		aup->ixol[insn_offset_vex_prefix(insn) + 1] |= 0x20;
	aup->scratch_reg = uprobe_gpr_offset[scratch];
	aup->fixups |= UPROBE_FIX_RIP_SCRATCH;
	return UPROBE_REFUSED_NONE;
}

/*
 * A relative jmp or call stepped from a slot would go to slot + disp:
 * the copy branches to its own end instead, and the fixup adds disp.
 */
static void uprobe_setup_rel_step(struct arch_uprobe *aup, struct insn *insn)
{
	int offset = insn_offset_immediate(insn);

	memset(&aup->ixol[offset], 0, insn->immediate.nbytes);
	aup->fixups = UPROBE_FIX_IP | UPROBE_FIX_REL;
	if (aup->kind == UPROBE_KIND_CALL)
		aup->fixups |= UPROBE_FIX_CALL;
}

/* Prepare the copy and the fixups used if the instruction is stepped. */
static enum uprobe_refusal uprobe_setup_step(struct arch_uprobe *aup, struct insn *insn)
{
	enum uprobe_refusal why;

	memcpy(aup->ixol, aup->insn, insn->length);
	switch (aup->kind) {
	case UPROBE_KIND_JCC:
	case UPROBE_KIND_LOOP:
		/* never stepped: emulating them cannot fail */
		return UPROBE_REFUSED_NONE;
	case UPROBE_KIND_JMP:
	case UPROBE_KIND_CALL:
		uprobe_setup_rel_step(aup, insn);
		return UPROBE_REFUSED_NONE;
	}

	why = uprobe_check_indirect(insn);
	if (why)
		return why;
	aup->fixups = uprobe_step_fixups(insn);
	if (insn_rip_relative(insn))
		return uprobe_rewrite_riprel(aup, insn);
	return UPROBE_REFUSED_NONE;
}

static void uprobe_reset(struct arch_uprobe *aup)
{
	memset(aup->ixol, 0, sizeof(aup->ixol));
	memset(&aup->emul, 0, sizeof(aup->emul));
	aup->len = 0;
	aup->kind = UPROBE_KIND_STEP;
	aup->fixups = 0;
	aup->scratch_reg = 0;
	aup->ia32 = false;
	aup->refused = UPROBE_REFUSED_NONE;
}

/* Refuses the instruction for @why: the errno the analysis returns. */
static int uprobe_refuse(struct arch_uprobe *aup, enum uprobe_refusal why)
{
	uprobe_reset(aup);
	aup->refused = why;
	return why == UPROBE_REFUSED_UNDECODABLE ? -ENOEXEC : -EOPNOTSUPP;
}

/**
 * arch_uprobe_analyze_compat - decide how hits on @aup->insn are handled
 * @aup: the probed instruction; its other fields are filled in
 * @compat: the probed code is 32-bit: decode and carry the instruction
 *	out by the 32-bit rules (@aup->ia32)
 *
 * x86 selects ARCH_UPROBES_COMPAT: the core calls this in place of
 * arch_uprobe_analyze_insn(), with the mode of the probed file's code.
 *
 * Return: 0, -ENOEXEC if the bytes are not an instruction, -EOPNOTSUPP if
 * the instruction cannot be probed; arch_uprobe_refusal() then tells why.
 */
int arch_uprobe_analyze_compat(struct arch_uprobe *aup, bool compat)
{
	enum uprobe_refusal why;
	bool ia32 = compat;
	struct insn insn;

	uprobe_reset(aup);
	why = uprobe_decode(aup, &insn, ia32);
	if (!why && !IS_ENABLED(CONFIG_X86_64))
		why = UPROBE_REFUSED_MODE;
	if (why)
		return uprobe_refuse(aup, why);

	aup->ia32 = ia32;
	why = uprobe_check_encoding(&insn);
	if (!why)
		why = uprobe_check_opcode(&insn, ia32);
	if (!why)
		why = uprobe_setup_emulation(aup, &insn);
	if (!why)
		why = uprobe_setup_step(aup, &insn);
	if (why)
		return uprobe_refuse(aup, why);
	aup->len = insn.length;
	return 0;
}

/**
 * arch_uprobe_refusal - why the analysis refused an instruction
 * @aup: the instruction, after arch_uprobe_analyze_compat() failed on it
 * @err: the errno it failed with (the class does not depend on it)
 *
 * Return: the class of the refusal, as the analysis found it.
 */
enum uprobe_refusal arch_uprobe_refusal(struct arch_uprobe *aup, int err)
{
	return aup->refused;
}

/* ---- emulation ---- */

static void uprobe_branch(struct arch_uprobe *aup, struct pt_regs *regs,
			  bool taken)
{
	regs->ip += aup->len;
	if (taken)
		regs->ip += aup->emul.branch.disp;
}

/*
 * loopne, loope, loop, jrcxz: rcx counts down (except for jrcxz); in
 * 32-bit code, ecx.
 */
static bool uprobe_loop_taken(struct arch_uprobe *aup, struct pt_regs *regs)
{
	bool zf = regs->flags & X86_EFLAGS_ZF;
	u8 cond = aup->emul.branch.cond;
	unsigned long count = regs->cx;

	if (cond == 3)
		return aup->ia32 ? (u32)count == 0 : count == 0;
	count--;
	if (aup->ia32)
		count = (u32)count;
	regs->cx = count;
	if (cond == 0)
		return count != 0 && !zf;
	if (cond == 1)
		return count != 0 && zf;
	return count != 0;
}

static bool uprobe_emulate_push(struct arch_uprobe *aup, struct pt_regs *regs)
{
	unsigned long val = *uprobe_reg(regs, aup->emul.push.reg);
	unsigned long sp = regs->sp - aup->emul.push.size;

	if (uprobe_put_word(sp, val, aup->emul.push.size))
		return false;
	regs->sp = sp;
	regs->ip += aup->len;
	return true;
}

/* With a shadow stack, the call must be stepped: it pushes there too. */
static bool uprobe_emulate_call(struct arch_uprobe *aup, struct pt_regs *regs)
{
	unsigned long ret_addr = regs->ip + aup->len;
	unsigned long sp = regs->sp - uprobe_word_size(aup);

	if (shstk_is_enabled())
		return false;
	if (uprobe_put_word(sp, ret_addr, uprobe_word_size(aup)))
		return false;
	regs->sp = sp;
	regs->ip = ret_addr + aup->emul.branch.disp;
	return true;
}

/* With a shadow stack, the ret must be stepped: it pops there too. */
static bool uprobe_emulate_ret(struct arch_uprobe *aup, struct pt_regs *regs)
{
	unsigned long target;

	if (shstk_is_enabled())
		return false;
	if (uprobe_get_word(regs->sp, &target, uprobe_word_size(aup)))
		return false;
	regs->sp += uprobe_word_size(aup) + aup->emul.ret_pop;
	regs->ip = target;
	return true;
}

static void uprobe_emulate_load(struct arch_uprobe *aup, struct pt_regs *regs)
{
	unsigned long val = aup->emul.load.val;

	regs->ip += aup->len;
	if (aup->emul.load.rip)
		val += regs->ip;
	if (!aup->emul.load.wide)
		val = (u32)val;
	*uprobe_reg(regs, aup->emul.load.reg) = val;
}

static bool uprobe_emulate_kind(struct arch_uprobe *aup, struct pt_regs *regs)
{
	switch (aup->kind) {
	case UPROBE_KIND_NOP:
		regs->ip += aup->len;
		return true;
	case UPROBE_KIND_PUSH:
		return uprobe_emulate_push(aup, regs);
	case UPROBE_KIND_JMP:
		uprobe_branch(aup, regs, true);
		return true;
	case UPROBE_KIND_JCC:
		int3_emulate_jcc(regs, aup->emul.branch.cond, regs->ip + aup->len,
				 aup->emul.branch.disp);
		return true;
	case UPROBE_KIND_LOOP:
		uprobe_branch(aup, regs, uprobe_loop_taken(aup, regs));
		return true;
	case UPROBE_KIND_CALL:
		return uprobe_emulate_call(aup, regs);
	case UPROBE_KIND_RET:
		return uprobe_emulate_ret(aup, regs);
	case UPROBE_KIND_LOAD:
		uprobe_emulate_load(aup, regs);
		return true;
	}
	return false;
}

/**
 * arch_uprobe_insn_len - the length of the probed instruction
 * @aup: the analysed instruction
 *
 * Return: its length in bytes: x86 instructions are 1 to 15.
 */
unsigned int arch_uprobe_insn_len(struct arch_uprobe *aup)
{
	return aup->len;
}

/**
 * arch_uprobe_skip_sstep - carry out the probed instruction without running it
 * @aup: the probed instruction
 * @regs: the task's registers, with regs->ip at the probed address
 *
 * NOP, JMP, JCC, LOOP and LOAD always succeed.  PUSH, CALL and RET give
 * up when the user stack cannot be accessed (stepping the instruction then
 * raises the fault as the original would) and CALL and RET when the task
 * has a shadow stack.  A task being single-stepped gets its step trap.
 *
 * Return: true if done (regs then point past the instruction), false if
 * the instruction must be stepped; @regs are unchanged then.
 */
bool arch_uprobe_skip_sstep(struct arch_uprobe *aup, struct pt_regs *regs)
{
	if (!uprobe_emulate_kind(aup, regs))
		return false;
	/* A 32-bit branch wraps around at 4 GB. */
	if (aup->ia32)
		regs->ip = (u32)regs->ip;
	if (regs->flags & X86_EFLAGS_TF)
		send_sigtrap(regs, 0, TRAP_TRACE);
	return true;
}

/* ---- stepping out of line ---- */

/*
 * jmp *0(%rip), then the 8-byte target: a jump anywhere that uses no
 * register, so the XOL page need not be near the probed code.  32-bit
 * code has no RIP-relative operand, but its jmp rel32 reaches anywhere:
 * the ip wraps around at 4 GB.
 */
#define UPROBE_JMP_BACK_LEN	14

/**
 * arch_uprobe_runs_direct - can the instruction run out of line without
 *	a single-step trap?
 * @aup: the probed instruction
 * @regs: the task's registers, at the breakpoint
 *
 * An instruction whose only fixup after a step is moving the ip back (no
 * RIP-relative operand, no branch, no push of the ip) runs the same from
 * anywhere: its copy, followed by a jump to the next original
 * instruction, does the work of a step and its fixup with no trap at all.
 * A task with TF set of its own (a debugger steps it) must see its step
 * trap, so it is stepped.
 *
 * Return: true if it can.
 */
bool arch_uprobe_runs_direct(struct arch_uprobe *aup, struct pt_regs *regs)
{
	return aup->kind == UPROBE_KIND_STEP && aup->fixups == UPROBE_FIX_IP &&
	       !(regs->flags & X86_EFLAGS_TF);
}

/**
 * arch_uprobe_exec_name - how a hit carries an instruction out
 * @aup: the analysed instruction
 *
 * Return: "emulated"; "own-slot" for a copy run out of line with no step
 * (arch_uprobe_runs_direct(), when the task is not being stepped); or
 * "step".
 */
const char *arch_uprobe_exec_name(struct arch_uprobe *aup)
{
	if (aup->kind != UPROBE_KIND_STEP)
		return "emulated";
	return aup->fixups == UPROBE_FIX_IP ? "own-slot" : "step";
}

/**
 * arch_uprobe_xol_direct - code that runs the instruction out of line
 *	without a single-step trap (see arch_uprobe_runs_direct())
 * @aup: the probed instruction
 * @regs: the task's registers, at the breakpoint
 * @bp_vaddr: the probed address
 * @slot: where the code will run
 * @code: where to write the code (UPROBE_XOL_SLOT_BYTES)
 * @insn_len: set to the length of the copied instruction
 *
 * Return: the length of the code, or 0 when the instruction must be
 * stepped.
 */
size_t arch_uprobe_xol_direct(struct arch_uprobe *aup, struct pt_regs *regs,
			      unsigned long bp_vaddr, unsigned long slot,
			      u8 *code, size_t *insn_len)
{
	unsigned long next = bp_vaddr + aup->len;

	BUILD_BUG_ON(MAX_UINSN_BYTES + UPROBE_JMP_BACK_LEN > UPROBE_XOL_SLOT_BYTES);
	if (!arch_uprobe_runs_direct(aup, regs))
		return 0;
	memcpy(code, aup->ixol, aup->len);
	*insn_len = aup->len;
	if (aup->ia32) {
		uprobe_put_jump(code + aup->len, slot + aup->len, next);
		return aup->len + JMP32_INSN_SIZE;
	}
	code[aup->len] = 0xff;		/* jmp *0(%rip) */
	code[aup->len + 1] = 0x25;
	put_unaligned(0, (u32 *)&code[aup->len + 2]);
	put_unaligned(next, (u64 *)&code[aup->len + 6]);
	return aup->len + UPROBE_JMP_BACK_LEN;
}

/* TF on for a step of one instruction, block stepping off. */
void uprobe_step_on(struct arch_uprobe_task *autask, struct pt_regs *regs)
{
	autask->saved_blockstep = test_thread_flag(TIF_BLOCKSTEP);
	if (autask->saved_blockstep)
		set_task_blockstep(current, false);
	autask->saved_tf = regs->flags & X86_EFLAGS_TF;
	regs->flags |= X86_EFLAGS_TF;
}

/* Undoes uprobe_step_on(); TF stays if @keep_tf or the task had it. */
void uprobe_step_off(struct arch_uprobe_task *autask, struct pt_regs *regs, bool keep_tf)
{
	if (!keep_tf && !autask->saved_tf)
		regs->flags &= ~X86_EFLAGS_TF;
	if (autask->saved_blockstep)
		set_task_blockstep(current, true);
}

/*
 * Sets the task up to step the copy at @slot, @autask keeping what is to
 * be restored afterwards.  Must run in the task, with interrupts on.
 */
static void uprobe_xol_prepare(struct arch_uprobe *aup, struct arch_uprobe_task *autask,
			       struct pt_regs *regs, unsigned long slot)
{
	arch_uprobe_watch_traps(autask);
	if (aup->fixups & UPROBE_FIX_RIP_SCRATCH) {
		unsigned long *scratch = uprobe_reg(regs, aup->scratch_reg);

		autask->saved_scratch = *scratch;
		*scratch = regs->ip + aup->len;
	}
	/* Block stepping would let the step run on past the copy. */
	uprobe_step_on(autask, regs);
	regs->ip = slot;
}

/**
 * arch_uprobe_pre_xol - set the task up to step the copy of @aup
 * @aup: the probed instruction, its copy at current->utask->xol_vaddr
 * @regs: the task's registers, with regs->ip at the probed address
 *
 * Return: 0.
 */
int arch_uprobe_pre_xol(struct arch_uprobe *aup, struct pt_regs *regs)
{
	struct uprobe_task *utask = current->utask;

	uprobe_xol_prepare(aup, &utask->autask, regs, utask->xol_vaddr);
	return 0;
}

/* Undo uprobe_xol_prepare(), but for the instruction pointer. */
static void uprobe_restore_task(struct arch_uprobe *aup,
				struct arch_uprobe_task *autask,
				struct pt_regs *regs, bool keep_tf)
{
	current->thread.trap_nr = autask->saved_trap_nr;
	if (aup->fixups & UPROBE_FIX_RIP_SCRATCH)
		*uprobe_reg(regs, aup->scratch_reg) = autask->saved_scratch;
	uprobe_step_off(autask, regs, keep_tf);
}

/* The call pushed the slot's address: make it return after the original. */
static int uprobe_fix_call(struct arch_uprobe *aup, struct pt_regs *regs,
			   unsigned long bp_vaddr)
{
	unsigned long ret_addr = bp_vaddr + aup->len;

	if (uprobe_put_word(regs->sp, ret_addr, uprobe_word_size(aup)))
		return -EFAULT;
	if (shstk_update_last_frame(ret_addr))
		return -EFAULT;
	return 0;
}

/* pushf saved the TF we set: the user must not see it. */
static int uprobe_fix_pushf(struct pt_regs *regs)
{
	u16 __user *image = (u16 __user *)regs->sp;
	u16 flags;

	if (get_user(flags, image))
		return -EFAULT;
	flags &= ~X86_EFLAGS_TF;
	if (put_user(flags, image))
		return -EFAULT;
	return 0;
}

static int uprobe_fix_after_step(struct arch_uprobe *aup,
				 struct arch_uprobe_task *autask,
				 struct pt_regs *regs, unsigned long slot,
				 unsigned long bp_vaddr)
{
	int err = 0;

	if (aup->fixups & UPROBE_FIX_IP)
		regs->ip = bp_vaddr + (regs->ip - slot);
	if (aup->fixups & UPROBE_FIX_REL)
		regs->ip += aup->emul.branch.disp;
	if (aup->fixups & UPROBE_FIX_CALL)
		err = uprobe_fix_call(aup, regs, bp_vaddr);
	if (!err && (aup->fixups & UPROBE_FIX_PUSHF) && !autask->saved_tf)
		err = uprobe_fix_pushf(regs);
	if (aup->ia32)
		regs->ip = (u32)regs->ip;
	return err;
}

/*
 * Finishes a step of the copy at @slot of the instruction at @bp_vaddr:
 * restores what uprobe_xol_prepare() changed and moves @regs to where the
 * original instruction would have taken them.  A task that was being
 * single-stepped keeps TF and gets the step trap it expects.  0, or
 * -EFAULT if the user stack could not be fixed up.
 */
static int uprobe_xol_finish(struct arch_uprobe *aup, struct arch_uprobe_task *autask,
			     struct pt_regs *regs, unsigned long slot,
			     unsigned long bp_vaddr)
{
	bool keep_tf = aup->fixups & UPROBE_FIX_POPF;
	int err;

	err = uprobe_fix_after_step(aup, autask, regs, slot, bp_vaddr);
	uprobe_restore_task(aup, autask, regs, keep_tf);
	if (autask->saved_tf && !err)
		send_sigtrap(regs, 0, TRAP_TRACE);
	return err;
}

/**
 * arch_uprobe_post_xol - finish a step after its step trap
 * @aup: the probed instruction
 * @regs: the task's registers, as the copy left them
 *
 * Must run in the task: current->utask gives the slot and the probed
 * address.
 *
 * Return: 0, or -EFAULT if the user stack could not be fixed up (the task
 * cannot go on).
 */
int arch_uprobe_post_xol(struct arch_uprobe *aup, struct pt_regs *regs)
{
	struct uprobe_task *utask = current->utask;

	return uprobe_xol_finish(aup, &utask->autask, regs, utask->xol_vaddr, utask->vaddr);
}

/* Undoes uprobe_xol_prepare() and points @regs back at @bp_vaddr. */
static void uprobe_xol_abort(struct arch_uprobe *aup, struct arch_uprobe_task *autask,
			     struct pt_regs *regs, unsigned long bp_vaddr)
{
	uprobe_restore_task(aup, autask, regs, false);
	regs->ip = bp_vaddr;
}

/**
 * arch_uprobe_abort_xol - give a step up and point back at the breakpoint
 * @aup: the probed instruction
 * @regs: the task's registers
 *
 * The copy did not complete: either it never ran (a signal came first) or
 * it faulted, and x86 faults leave no architectural trace, so there is no
 * push or other side effect to undo.  The task will execute the original
 * address again, and hit the breakpoint again.
 */
void arch_uprobe_abort_xol(struct arch_uprobe *aup, struct pt_regs *regs)
{
	struct uprobe_task *utask = current->utask;

	uprobe_xol_abort(aup, &utask->autask, regs, utask->vaddr);
}

/**
 * arch_uprobe_xol_was_trapped - did the stepped copy raise an exception?
 * @t: the task, current
 *
 * Every exception handler that sends a signal records its trap number in
 * thread.trap_nr; the step trap itself does not when the core claims it.
 *
 * Return: true if an exception other than the step trap came.
 */
bool arch_uprobe_xol_was_trapped(struct task_struct *t)
{
	return t->thread.trap_nr != UPROBE_TRAP_NR;
}

/**
 * arch_uprobe_watch_traps - note from now on whether the task traps
 * @autask: where thread.trap_nr is kept meanwhile
 *
 * thread.trap_nr gets a value no exception handler sets, so that
 * arch_uprobe_xol_was_trapped() sees any exception that comes.
 */
void arch_uprobe_watch_traps(struct arch_uprobe_task *autask)
{
	autask->saved_trap_nr = current->thread.trap_nr;
	current->thread.trap_nr = UPROBE_TRAP_NR;
}

/**
 * arch_uprobe_unwatch_traps - end what arch_uprobe_watch_traps() began
 * @autask: the state it saved
 *
 * thread.trap_nr gets its old value back, unless an exception came: its
 * number is then what the signal frame reports.
 */
void arch_uprobe_unwatch_traps(struct arch_uprobe_task *autask)
{
	if (!arch_uprobe_xol_was_trapped(current))
		current->thread.trap_nr = autask->saved_trap_nr;
}

/* ---- text ---- */

static void uprobe_sync_core(void *info)
{
	sync_core();
}

/**
 * arch_uprobe_sync_mm - make every CPU that runs @mm see code written so far
 * @mm: the mm whose text changed
 *
 * A CPU that may have fetched the old bytes serializes before it goes on
 * in @mm: those running it now by the IPI, the others when they switch to
 * it.  Must be called with interrupts on.
 */
void arch_uprobe_sync_mm(struct mm_struct *mm)
{
	on_each_cpu_mask(mm_cpumask(mm), uprobe_sync_core, NULL, true);
}

/* ---- the ways out of the syscalls (x86-64) ---- */

/*
 * The return trampoline (ARCH_UPROBES_RETURN_SYSCALL) and the stubs
 * (ARCH_UPROBES_JUMPS) enter the kernel by a 64-bit syscall, after they
 * push what it clobbers, and leave it by sysret to a way out of their
 * own, which pops what sysret cannot restore.  x86-64 selects both.
 */
#ifdef CONFIG_X86_64
/*
 * What a way out (of a stub, or of the trampoline) pops, lowest address
 * first: pop %r11, pop %rcx, pop %rax, then a ret, which may skip the red
 * zone too.
 */
struct uprobe_exit_frame {
	unsigned long r11;
	unsigned long cx;
	unsigned long ax;
	unsigned long ip;
};

/* How many words of the frame a way out has popped @offset bytes into it. */
static int uprobe_exit_popped(unsigned long offset)
{
	switch (offset) {
	case 0:
		return 0;
	case 2:
		return 1;
	case 3:
		return 2;
	case 4:
		return 3;
	}
	return -1;
}

/*
 * For a signal that finds a task @offset bytes into a way out: the
 * registers and the ip become what the rest of the way out would make
 * them, as if it had run.  The way out pops struct uprobe_exit_frame,
 * then skips @skip bytes; or, with @to not 0, pops what the stub saved
 * (struct uprobe_tramp_frame), skips @skip bytes and goes on at @to.
 * False if @offset is not in the way out, or what is left of the frame
 * could not be read: @regs are then unchanged.
 */
bool uprobe_finish_exit(struct pt_regs *regs, unsigned long offset, unsigned long skip,
			unsigned long to)
{
	struct uprobe_exit_frame frame = { .ip = to };
	unsigned long *word = (unsigned long *)&frame;
	size_t size = to ? sizeof(struct uprobe_tramp_frame) : sizeof(frame);
	int popped = uprobe_exit_popped(offset);
	size_t left;

	BUILD_BUG_ON(offsetof(struct uprobe_exit_frame, ax) !=
		     offsetof(struct uprobe_tramp_frame, ax));
	if (popped < 0)
		return false;
	left = size - popped * sizeof(*word);
	if (left && copy_from_user(word + popped, (void __user *)regs->sp, left))
		return false;
	if (popped < 1)
		regs->r11 = frame.r11;
	if (popped < 2)
		regs->cx = frame.cx;
	if (popped < 3)
		regs->ax = frame.ax;
	regs->ip = frame.ip;
	regs->sp += left + skip;
	return true;
}

/*
 * sysret costs less than iret, but can restore neither rcx nor r11: a
 * task may return with it to a way out, which pops them.  Not a task that
 * is traced at syscall exit (the tracer would see the way out), whose
 * flags sysret cannot restore, or with a shadow stack (the ret of a way
 * out would pop it).
 */
bool uprobe_may_sysret(struct pt_regs *regs)
{
	return !(regs->flags & (X86_EFLAGS_TF | X86_EFLAGS_RF)) && user_64bit_mode(regs) &&
	       regs->ip < TASK_SIZE_MAX && !shstk_is_enabled() &&
	       !(current_thread_info()->syscall_work & SYSCALL_WORK_EXIT);
}

/*
 * Sends the task with sysret (uprobe_may_sysret()) to a way out at
 * @way_out, which pops rcx, r11, rax and the ip from the frame written
 * here, @skip bytes below the stack pointer, and returns there.
 *
 * Return: true if @regs now lead through the way out.
 */
bool uprobe_exit_through(struct pt_regs *regs, unsigned long way_out, unsigned long skip)
{
	struct uprobe_exit_frame __user *frame;
	unsigned long sp = regs->sp - skip - sizeof(*frame);

	if (!uprobe_may_sysret(regs))
		return false;
	frame = (void __user *)sp;
	if (!user_write_access_begin(frame, sizeof(*frame)))
		return false;
	unsafe_put_user(regs->r11, &frame->r11, fault);
	unsafe_put_user(regs->cx, &frame->cx, fault);
	unsafe_put_user(regs->ax, &frame->ax, fault);
	unsafe_put_user(regs->ip, &frame->ip, fault);
	user_write_access_end();
	uprobe_sysret_to(regs, way_out, sp);
	return true;

fault:
	user_write_access_end();
	return false;
}

/*
 * Puts back the rax, rcx and r11 that the trampoline or a stub pushed at
 * the stack pointer before its syscall, and pops them; orig_ax = -1: this
 * is no syscall to restart.  A stack that cannot be read back gets the
 * task SIGSEGV.  False then, with @regs unchanged.
 */
bool uprobe_pop_saved(struct pt_regs *regs)
{
	struct uprobe_tramp_frame __user *frame = (void __user *)regs->sp;
	unsigned long r11, cx, ax;

	/* Three loads cost less than a copy of the frame. */
	if (!user_read_access_begin(frame, sizeof(*frame)))
		goto fault;
	unsafe_get_user(r11, &frame->r11, fault_end);
	unsafe_get_user(cx, &frame->cx, fault_end);
	unsafe_get_user(ax, &frame->ax, fault_end);
	user_read_access_end();
	regs->r11 = r11;
	regs->cx = cx;
	regs->ax = ax;
	regs->sp += sizeof(*frame);
	regs->orig_ax = -1;
	return true;

fault_end:
	user_read_access_end();
fault:
	force_sig(SIGSEGV);
	return false;
}
#endif /* CONFIG_X86_64 */

/* ---- return probes ---- */

/**
 * arch_uretprobe_hijack_return_addr - make a function return to a trampoline
 * @trampoline_vaddr: where the function shall return instead
 * @regs: the task's registers at the function's entry
 *
 * Return: the original return address, or -1UL if the stack could not be
 * read or written (nothing is changed then).
 */
unsigned long arch_uretprobe_hijack_return_addr(unsigned long trampoline_vaddr,
						struct pt_regs *regs)
{
	unsigned int size = user_64bit_mode(regs) ? 8 : 4;
	unsigned long orig;

	if (uprobe_get_word(regs->sp, &orig, size))
		return -1UL;
	if (uprobe_put_word(regs->sp, trampoline_vaddr, size))
		return -1UL;
	if (!shstk_update_last_frame(trampoline_vaddr))
		return orig;
	/* The shadow stack would not follow: put the old address back. */
	if (uprobe_put_word(regs->sp, orig, size))
		force_sig(SIGSEGV);
	return -1UL;
}

#ifdef CONFIG_ARCH_UPROBES_RETURN_SYSCALL
/*
 * The trampoline, at the start of the XOL area.  A hijacked function
 * returns here; the syscall instruction clobbers rcx and r11 and the
 * syscall number goes in rax, so all three are saved on the stack first
 * and sys_uretprobe() puts them back.  The kernel comes back with sysret
 * when it can, to the way out past the syscall: pops of what it left
 * below the stack pointer (struct uprobe_exit_frame) and a return to the
 * real return address.  Below the stack pointer of a function that just
 * returned, nothing is live: the frames there were the callee's.  A ud2
 * parts the syscall from the way out: a task whose syscall was skipped (by
 * a tracer) gets SIGILL there, and never pops what the kernel did not
 * write.
 */
#define UPROBE_TRAMP_SYSCALL_END	11	/* offset just past the syscall */
#define UPROBE_TRAMP_WAY_OUT		13	/* offset of the way out */

static const u8 uprobe_trampoline[] = {
	0x50,				/* push %rax */
	0x51,				/* push %rcx */
	0x41, 0x53,			/* push %r11 */
	0xb8, __NR_uretprobe & 0xff,	/* mov $__NR_uretprobe, %eax */
	__NR_uretprobe >> 8, 0x00, 0x00,
	0x0f, 0x05,			/* syscall */
	0x0f, 0x0b,			/* ud2: not after a syscall */
	0x41, 0x5b,			/* pop %r11 */
	0x59,				/* pop %rcx */
	0x58,				/* pop %rax */
	0xc3,				/* ret */
};

/* 32-bit code has no syscall instruction to count on: it traps. */
static const u8 uprobe_trampoline_ia32[] = { INT3_INSN_OPCODE };

/* The trampoline of a 32-bit mm if @ia32, else of a 64-bit one. */
static const u8 *uprobe_trampoline_of(bool ia32, unsigned long *psize)
{
	BUILD_BUG_ON(__NR_uretprobe > 0xffff);
	BUILD_BUG_ON(sizeof(uprobe_trampoline) > UPROBE_XOL_SLOT_BYTES);
	if (ia32) {
		*psize = sizeof(uprobe_trampoline_ia32);
		return uprobe_trampoline_ia32;
	}
	*psize = sizeof(uprobe_trampoline);
	return uprobe_trampoline;
}

/**
 * arch_uprobe_trampoline - the code of the return trampoline
 * @psize: set to its length
 *
 * Return: the code for the current task's mm, which the core puts at
 * uprobe_get_trampoline_vaddr().
 */
void *arch_uprobe_trampoline(unsigned long *psize)
{
	return (void *)uprobe_trampoline_of(arch_uprobe_is_compat(current->mm), psize);
}

/**
 * arch_uretprobe_leave - take a task through the rest of the trampoline
 * @regs: the task's registers
 * @tramp: the trampoline's address
 *
 * For a signal that finds a task on the trampoline's way out: the
 * registers and the ip become what the rest of the way out would make
 * them, as if it had run.
 *
 * Return: true if the task was on the way out and now is past it.
 */
bool arch_uretprobe_leave(struct pt_regs *regs, unsigned long tramp)
{
	unsigned long way_out = tramp + UPROBE_TRAMP_WAY_OUT;

	if (regs->ip < way_out || !user_64bit_mode(regs))
		return false;
	return uprobe_finish_exit(regs, regs->ip - way_out, 0, 0);
}

/* Whether @regs are just past the trampoline's syscall. */
static bool at_trampoline_syscall(struct pt_regs *regs)
{
	unsigned long tramp = uprobe_get_trampoline_vaddr();

	return tramp != UPROBE_NO_TRAMPOLINE_VADDR &&
	       regs->ip == tramp + UPROBE_TRAMP_SYSCALL_END;
}

/*
 * Entered only from the trampoline.  Restores the registers the trampoline
 * saved, so that the return handlers see them (and the stack) as they were
 * just after the function's ret, with ip at the trampoline, then lets the
 * core run the handlers and send the task to the real return address,
 * through the trampoline's way out (uprobe_exit_through()) or with iret.
 * The return value is what rax will hold: the function's, or what a
 * handler put there.  orig_ax = -1 keeps a return value like -ERESTARTSYS
 * from being taken for a syscall to restart.
 */
SYSCALL_DEFINE0(uretprobe)
{
	struct pt_regs *regs = current_pt_regs();
	unsigned long tramp = regs->ip - UPROBE_TRAMP_SYSCALL_END;

	if (!at_trampoline_syscall(regs)) {
		force_sig(SIGILL);
		return -1;
	}
	if (!uprobe_pop_saved(regs))
		return -1;
	regs->ip = tramp;

	uprobe_handle_trampoline(regs);
	uprobe_exit_through(regs, tramp + UPROBE_TRAMP_WAY_OUT, 0);
	return regs->ax;
}

/**
 * uprobe_own_syscall - is this syscall one that uprobes made?
 * @regs: the registers at the syscall's entry
 *
 * The uretprobe syscall of the trampoline is the kernel's own code in the
 * process, which the program never wrote: syscall user dispatch lets it
 * through, as it does the vDSO's sigreturn.  A dispatcher that got it as
 * SIGSYS would not know it.  Only the number the trampoline loads counts:
 * a jump straight to its syscall with another number is dispatched, as is
 * any syscall made at a stub's syscall instruction (the stub's own never
 * comes this far: uprobe_syscall_entry() takes it before the entry work).
 *
 * Return: true to let the syscall through.
 */
bool uprobe_own_syscall(struct pt_regs *regs)
{
	return user_64bit_mode(regs) && syscall_get_nr(current, regs) == __NR_uretprobe &&
	       at_trampoline_syscall(regs);
}
#endif /* CONFIG_ARCH_UPROBES_RETURN_SYSCALL */

/**
 * arch_uprobe_is_compat - does @mm run 32-bit code?
 * @mm: the mm
 *
 * Return: true for a 32-bit task's mm (or any mm on a 32-bit kernel).
 */
bool arch_uprobe_is_compat(struct mm_struct *mm)
{
#ifdef CONFIG_X86_64
	return IS_ENABLED(CONFIG_IA32_EMULATION) &&
	       test_bit(MM_CONTEXT_UPROBE_IA32, &mm->context.flags);
#else
	return true;
#endif
}

/**
 * arch_uprobe_xol_vaddr - where to map the XOL area of @mm
 * @mm: the current task's mm
 * @len: the area's size
 *
 * A 32-bit task runs code below 4 GB only.  get_unmapped_area() keeps to
 * the 32-bit layout inside a 32-bit syscall alone, and the area is mapped
 * at a breakpoint: a 32-bit task's area is placed here, highest first
 * under its 32-bit mmap base.
 *
 * Return: the address, or a negative errno.
 */
unsigned long arch_uprobe_xol_vaddr(struct mm_struct *mm, unsigned long len)
{
	struct vm_unmapped_area_info info = {
		.flags = VM_UNMAPPED_AREA_TOPDOWN,
		.length = len,
	};

	mmap_assert_write_locked(mm);

	if (!arch_uprobe_is_compat(mm))
		return get_unmapped_area(NULL, 0, len, 0, 0);
	info.low_limit = max(PAGE_ALIGN(mmap_min_addr), PAGE_SIZE);
#ifdef CONFIG_HAVE_ARCH_COMPAT_MMAP_BASES
	info.high_limit = mm->mmap_compat_base;
#else
	info.high_limit = SZ_4G - PAGE_SIZE;
#endif
	return vm_unmapped_area(&info);
}

/* ---- traps ---- */

/* The breakpoint of probes in 64-bit anonymous code: push %es, none there. */
#define UPROBE_ANON_SWBP_INSN	0x06

/**
 * arch_uprobe_anon_swbp - the breakpoint of probes in anonymous memory
 * @mm: the mm it is written in
 *
 * Return: in a 64-bit mm, an opcode that raises #UD (and that no program
 * writes as code); in a 32-bit one, where every one-byte opcode is an
 * instruction, int3.
 */
uprobe_opcode_t arch_uprobe_anon_swbp(struct mm_struct *mm)
{
	return arch_uprobe_is_compat(mm) ? UPROBE_SWBP_INSN : UPROBE_ANON_SWBP_INSN;
}

/*
 * #UD from user mode: at the breakpoint of a probe in anonymous memory, it
 * goes the way of int3, with the ip past the breakpoint as int3 leaves it.
 * The trap is noted in the thread as do_trap() notes it, for the SIGILL
 * the core sends if no probe is there (the program copied the byte).
 */
static bool uprobe_anon_trap(struct pt_regs *regs)
{
	u8 opcode;

	if (!user_64bit_mode(regs) ||
	    copy_from_user_nofault(&opcode, (void __user *)regs->ip, sizeof(opcode)) ||
	    opcode != UPROBE_ANON_SWBP_INSN || !uprobe_pre_sstep_notifier(regs))
		return false;
	current->thread.trap_nr = X86_TRAP_UD;
	current->thread.error_code = 0;
	regs->ip += UPROBE_SWBP_INSN_SIZE;
	return true;
}

/*
 * A single-step trap from user mode: the end of a step uprobes started, or, with
 * jumps to stubs, a task that a debugger steps at the entry of a stub.
 */
static bool uprobe_step_trap(struct pt_regs *regs)
{
	if (uprobe_post_sstep_notifier(regs))
		return true;
#ifdef CONFIG_ARCH_UPROBES_JUMPS
	return uprobe_stub_step_trap(regs);
#else
	return false;
#endif
}

/*
 * int3 from user mode: regs->ip is past the int3 (breakpoint + 1).
 * #UD from user mode (DIE_TRAP): claimed at the breakpoint of a probe in
 * anonymous memory, and then made to look like int3.
 * #DB from user mode: only a single-step trap (DR_STEP in the dr6 that
 * args->err points to) can end a step, or find a task that a debugger
 * steps at the entry of a stub; it is consumed when claimed.
 */
int arch_uprobe_exception_notify(struct notifier_block *nb, unsigned long val,
				 void *data)
{
	struct die_args *args = data;
	struct pt_regs *regs = args->regs;
	unsigned long *dr6;

	if (!regs || !user_mode(regs))
		return NOTIFY_DONE;

	switch (val) {
	case DIE_INT3:
		if (uprobe_pre_sstep_notifier(regs))
			return NOTIFY_STOP;
		break;
	case DIE_TRAP:
		if (args->trapnr == X86_TRAP_UD && uprobe_anon_trap(regs))
			return NOTIFY_STOP;
		break;
	case DIE_DEBUG:
		dr6 = (unsigned long *)args->err;
		if ((*dr6 & DR_STEP) && uprobe_step_trap(regs)) {
			*dr6 &= ~DR_STEP;
			return NOTIFY_STOP;
		}
		break;
	}
	return NOTIFY_DONE;
}

#ifdef CONFIG_UPROBES_KUNIT_TEST
#include "uprobes_kunit.c"
#endif
