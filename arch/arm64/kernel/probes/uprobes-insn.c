// SPDX-License-Identifier: GPL-2.0-only
/*
 * arm64 uprobes: what the analysis shared with kprobes leaves out.
 *
 * uprobes.c analyses a probed instruction with kprobes' decoder
 * (decode-insn.c): it steps a copy of most, simulates the branches and
 * adr/adrp, and refuses the rest with EINVAL.  What is uprobes' alone
 * lives here, in arch_uprobe_review_insn(), which has the last word on
 * the decoder's verdict, and beside it:
 *
 * - The literal loads read pc-relative memory, so a copy in an XOL slot
 *   would read the wrong place.  kprobes simulates those of general
 *   registers by reading kernel memory, which serves no user task, so the
 *   decoder refuses them for uprobes; they are taken back here, and each
 *   hit simulates them with a read of the task's memory
 *   (simulate_literal(), through uprobes.c's arch_uprobe_skip_sstep()):
 *   no step at all.  A load that faults raises the signal the instruction
 *   would, at the probed pc.  The decoder lets a literal load of a SIMD&FP
 *   register be stepped, from the slot: it is refused here (simulating it
 *   would mean writing the task's vector state, with SVE and SME).
 * - arch_uprobe_refusal() tells the class of what is refused, for the
 *   tracer's error_log; arch_uprobe_exec_name() tells /proc/PID/uprobes
 *   which probes are simulated.
 */
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>
#include <linux/uprobes.h>
#include <asm/insn.h>

/* The instruction classes of A64's top-level encoding used below. */
#define A64_EXCEPTION_MASK	0xff000000	/* svc, hvc, smc, brk, hlt, dcps */
#define A64_EXCEPTION_VALUE	0xd4000000
#define A64_SYSTEM_MASK		0xffc00000	/* msr, mrs, sys, hints, barriers */
#define A64_SYSTEM_VALUE	0xd5000000
/* ldr (literal, SIMD&FP): opc (bits 31:30) 0-2 for S, D and Q. */
#define A64_LDR_LIT_FP_MASK	0x3f000000
#define A64_LDR_LIT_FP_VALUE	0x1c000000
#define A64_LDR_LIT_64BIT	BIT(30)

/* ldr (literal) of an s, d or q register. */
static bool is_fp_literal_load(u32 insn)
{
	return (insn & A64_LDR_LIT_FP_MASK) == A64_LDR_LIT_FP_VALUE;
}

/* The address a literal load at @addr reads: pc + imm19 * 4. */
static unsigned long literal_address(u32 insn, unsigned long addr)
{
	u64 imm19 = aarch64_insn_decode_immediate(AARCH64_INSN_IMM_19, insn);

	return addr + sign_extend64(imm19 << 2, 20);
}

/* How many bytes the load @insn reads: 0 for prfm, which reads none. */
static unsigned int literal_size(u32 insn)
{
	if (aarch64_insn_is_prfm_lit(insn))
		return 0;
	if (aarch64_insn_is_ldr_lit(insn) && (insn & A64_LDR_LIT_64BIT))
		return 8;
	return 4;
}

/*
 * The signal of a load from @uaddr that faulted: SEGV_ACCERR where a
 * mapping is, SEGV_MAPERR where none is, as arm64's fault handler tells.
 */
static void literal_fault(unsigned long uaddr)
{
	struct mm_struct *mm = current->mm;
	int code = SEGV_MAPERR;

	mmap_read_lock(mm);
	if (vma_lookup(mm, uaddr))
		code = SEGV_ACCERR;
	mmap_read_unlock(mm);
	force_sig_fault(SIGSEGV, code, (void __user *)uaddr);
}

/*
 * A hit of a literal load @insn at @addr: the load, done in the task's
 * memory, or its fault's signal with the pc left at @addr.
 */
static void simulate_literal(u32 insn, long addr, struct pt_regs *regs)
{
	unsigned long uaddr = literal_address(insn, addr);
	unsigned int size = literal_size(insn);
	unsigned int rt = aarch64_insn_decode_register(AARCH64_INSN_REGTYPE_RT, insn);
	u64 val = 0;
	u32 word;

	if (size == 8 && copy_from_user(&val, (void __user *)uaddr, 8))
		goto fault;
	if (size == 4) {
		if (copy_from_user(&word, (void __user *)uaddr, 4))
			goto fault;
		/* ldrsw extends the sign; ldr of a w register zero-extends. */
		val = aarch64_insn_is_ldrsw_lit(insn) ? (u64)(s64)(s32)word : word;
	}
	/* Register 31 is the zero register here: the value is dropped. */
	if (size && rt != AARCH64_INSN_REG_ZR)
		regs->regs[rt] = val;
	instruction_pointer_set(regs, addr + AARCH64_INSN_SIZE);
	return;
fault:
	literal_fault(uaddr);
}

/**
 * arch_uprobe_review_insn - the last word on the decoder's verdict
 * @auprobe: the probed instruction
 * @mm: the mm it was analysed for
 * @vaddr: its address there
 * @err: the decoder's verdict: 0, or its errno
 *
 * Return: EINVAL for a literal load of a SIMD&FP register, which the
 * decoder would have stepped; 0 for a literal load of a general register
 * or a prfm literal, which each hit then simulates; else @err.
 */
int arch_uprobe_review_insn(struct arch_uprobe *auprobe, struct mm_struct *mm,
			    unsigned long vaddr, int err)
{
	u32 insn = le32_to_cpu(auprobe->insn);

	/* Stepped, it would load from beside the XOL slot. */
	if (!err && is_fp_literal_load(insn))
		return -EINVAL;
	if (err != -EINVAL || !IS_ALIGNED(vaddr, AARCH64_INSN_SIZE))
		return err;
	if (!aarch64_insn_is_ldr_lit(insn) && !aarch64_insn_is_ldrsw_lit(insn) &&
	    !aarch64_insn_is_prfm_lit(insn))
		return err;
	auprobe->api.handler = simulate_literal;
	auprobe->simulate = true;
	return 0;
}

/**
 * arch_uprobe_refusal - the class of an instruction arm64 refused
 * @auprobe: the instruction
 * @err: the errno it was refused with: EOPNOTSUPP for a task of AArch32,
 *	whose code is not probed; EINVAL for an A64 instruction
 *
 * An offset that is not a multiple of 4 is refused with EINVAL too, and
 * gets the class of the four bytes there.
 *
 * Return: its class.
 */
enum uprobe_refusal arch_uprobe_refusal(struct arch_uprobe *auprobe, int err)
{
	u32 insn = le32_to_cpu(auprobe->insn);

	if (err == -EOPNOTSUPP)
		return UPROBE_REFUSED_MODE;
	if (err != -EINVAL)
		return UPROBE_REFUSED_NONE;
	if (aarch64_insn_is_svc(insn) || aarch64_insn_is_hvc(insn) || aarch64_insn_is_smc(insn))
		return UPROBE_REFUSED_SYSCALL;
	if ((insn & A64_EXCEPTION_MASK) == A64_EXCEPTION_VALUE)
		return UPROBE_REFUSED_TRAP;
	if (aarch64_insn_is_exclusive(insn))
		return UPROBE_REFUSED_EXCLUSIVE;
	if ((insn & A64_SYSTEM_MASK) == A64_SYSTEM_VALUE)
		return UPROBE_REFUSED_SYSTEM;
	if (aarch64_insn_uses_literal(insn) || is_fp_literal_load(insn))
		return UPROBE_REFUSED_PC_RELATIVE;
	return UPROBE_REFUSED_OTHER;
}

/**
 * arch_uprobe_exec_name - how a hit carries an instruction out on arm64
 * @auprobe: the analysed instruction
 *
 * Return: "emulated" for what uprobes.c simulates, else "step".
 */
const char *arch_uprobe_exec_name(struct arch_uprobe *auprobe)
{
	return auprobe->simulate ? "emulated" : "step";
}
