// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit tests for the x86 uprobes instruction analysis, the emulation of
 * the instructions that need no user memory, and the register side of
 * stepping out of line.  Included at the end of uprobes.c, to reach its
 * static functions.
 */

#include <kunit/test.h>

#include <asm/trapnr.h>

/* Where the probed instruction and the XOL slot are said to be. */
#define TEST_BP		0x401000UL
#define TEST_SLOT	0x7fff00001040UL

#define B(...)		{ __VA_ARGS__ }
#define REG(r)		offsetof(struct pt_regs, r)

/**
 * struct uprobe_analysis_case - an encoding and what analysis must say
 * @name: the instruction in AT&T syntax
 * @insn: its bytes
 * @ret: the expected return value; nothing else is checked unless 0
 * @why: the expected class of a refusal, UPROBE_REFUSED_NONE for none
 * @len: the expected length
 * @kind: the expected UPROBE_KIND_*
 * @fixups: the expected UPROBE_FIX_*
 * @check_ixol: @ixol is the expected copy (else: the original bytes)
 * @ixol: the expected copy
 * @scratch_reg: with UPROBE_FIX_RIP_SCRATCH, the expected scratch register
 * @disp: JMP, CALL, JCC, LOOP: the expected displacement
 * @cond: JCC, LOOP: the expected condition
 * @push_reg: PUSH: the expected register
 * @push_size: PUSH: the expected operand size
 * @ret_pop: RET: the expected number of bytes popped after the address
 * @load_reg: LOAD: the expected destination
 * @load_val: LOAD: the expected constant or displacement
 * @load_rip: LOAD: whether the address of the next instruction is added
 * @load_wide: LOAD: whether the result is 64-bit
 */
struct uprobe_analysis_case {
	const char *name;
	u8 insn[MAX_UINSN_BYTES];
	int ret;
	enum uprobe_refusal why;
	u8 len;
	u8 kind;
	u8 fixups;
	bool check_ixol;
	u8 ixol[MAX_UINSN_BYTES];
	u16 scratch_reg;
	s32 disp;
	u8 cond;
	u16 push_reg;
	u8 push_size;
	u16 ret_pop;
	u16 load_reg;
	s64 load_val;
	bool load_rip;
	bool load_wide;
};

#define FIX_IP		UPROBE_FIX_IP
#define FIX_CALL	UPROBE_FIX_CALL
#define FIX_RIP		UPROBE_FIX_RIP_SCRATCH
#define FIX_REL		UPROBE_FIX_REL

/* Each macro expands to an initializer: a B() argument cannot be passed on. */
#define STEP(_name, _len, _fix, _bytes)					\
	{ .name = _name, .insn = _bytes, .kind = UPROBE_KIND_STEP,	\
	  .len = _len, .fixups = _fix }

#define NOP(_name, _len, _bytes)					\
	{ .name = _name, .insn = _bytes, .kind = UPROBE_KIND_NOP,	\
	  .len = _len, .fixups = FIX_IP }

#define RIPREL(_name, _len, _fix, _scratch, _bytes, _ixol)		\
	{ .name = _name, .insn = _bytes, .kind = UPROBE_KIND_STEP,	\
	  .len = _len, .fixups = (_fix) | FIX_RIP,			\
	  .scratch_reg = REG(_scratch), .check_ixol = true, .ixol = _ixol }

#define BRANCH(_name, _kind, _len, _fix, _disp, _cond, _bytes, _ixol)	\
	{ .name = _name, .insn = _bytes, .kind = UPROBE_KIND_##_kind,	\
	  .len = _len, .fixups = _fix, .disp = _disp, .cond = _cond,	\
	  .check_ixol = true, .ixol = _ixol }

#define PUSH(_name, _len, _reg, _size, _bytes)				\
	{ .name = _name, .insn = _bytes, .kind = UPROBE_KIND_PUSH,	\
	  .len = _len, .fixups = FIX_IP, .push_reg = REG(_reg),		\
	  .push_size = _size }

#define RET(_name, _len, _pop, _bytes)					\
	{ .name = _name, .insn = _bytes, .kind = UPROBE_KIND_RET,	\
	  .len = _len, .ret_pop = _pop }

#define LOAD(_name, _len, _reg, _val, _wide, _bytes)			\
	{ .name = _name, .insn = _bytes, .kind = UPROBE_KIND_LOAD,	\
	  .len = _len, .fixups = FIX_IP, .load_reg = REG(_reg),		\
	  .load_val = _val, .load_wide = _wide }

/* A RIP-relative lea: emulated, and ready to be stepped through @_scratch. */
#define LEA_RIP(_name, _len, _reg, _disp, _wide, _scratch, _bytes, _ixol) \
	{ .name = _name, .insn = _bytes, .kind = UPROBE_KIND_LOAD,	\
	  .len = _len, .fixups = FIX_IP | FIX_RIP,			\
	  .scratch_reg = REG(_scratch), .check_ixol = true, .ixol = _ixol, \
	  .load_reg = REG(_reg), .load_val = _disp, .load_rip = true,	\
	  .load_wide = _wide }

#define REFUSE(_name, _err, _why, _bytes)				\
	{ .name = _name, .insn = _bytes, .ret = _err, .why = UPROBE_REFUSED_##_why }

static const struct uprobe_analysis_case uprobe_analysis_cases[] = {
	/* nops of every length, emulated */
	NOP("nop", 1, B(0x90)),
	NOP("xchg %ax,%ax", 2, B(0x66, 0x90)),
	NOP("pause", 2, B(0xf3, 0x90)),
	NOP("rex.w nop", 2, B(0x48, 0x90)),
	NOP("nopl (%rax)", 3, B(0x0f, 0x1f, 0x00)),
	NOP("nopl 0x0(%rax)", 4, B(0x0f, 0x1f, 0x40, 0x00)),
	NOP("nopl 0x0(%rax,%rax,1)", 5, B(0x0f, 0x1f, 0x44, 0x00, 0x00)),
	NOP("nopw 0x0(%rax,%rax,1)", 6, B(0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00)),
	NOP("nopl 0x0(%rax) disp32", 7,
	    B(0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00)),
	NOP("nopl 0x0(%rax,%rax,1) disp32", 8,
	    B(0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00)),
	NOP("nopw 0x0(%rax,%rax,1) disp32", 9,
	    B(0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00)),
	NOP("cs nopw 0x0(%rax,%rax,1)", 10,
	    B(0x2e, 0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00)),
	NOP("data16 cs nopw 0x0(%rax,%rax,1)", 10,
	    B(0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00)),
	NOP("data16 data16 cs nopw 0x0(%rax,%rax,1)", 11,
	    B(0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00,
	      0x00)),
	NOP("endbr64", 4, B(0xf3, 0x0f, 0x1e, 0xfa)),
	NOP("endbr32", 4, B(0xf3, 0x0f, 0x1e, 0xfb)),
	STEP("xchg %eax,%r8d", 2, FIX_IP, B(0x41, 0x90)),
	STEP("rdsspq %rax", 5, FIX_IP, B(0xf3, 0x48, 0x0f, 0x1e, 0xc8)),

	/* pushes, emulated */
	PUSH("push %rbp", 1, bp, 8, B(0x55)),
	PUSH("push %rbx", 1, bx, 8, B(0x53)),
	PUSH("push %r12", 2, r12, 8, B(0x41, 0x54)),
	PUSH("push %r15", 2, r15, 8, B(0x41, 0x57)),
	PUSH("pushw %bp", 2, bp, 2, B(0x66, 0x55)),
	PUSH("rex.w pushw -> push %rbp", 3, bp, 8, B(0x66, 0x48, 0x55)),
	STEP("pushf", 1, FIX_IP | UPROBE_FIX_PUSHF, B(0x9c)),
	STEP("popf", 1, FIX_IP | UPROBE_FIX_POPF, B(0x9d)),
	STEP("pop %rbp", 1, FIX_IP, B(0x5d)),

	/* relative branches, emulated */
	BRANCH("jmp rel8", JMP, 2, FIX_IP | FIX_REL, 0x10, 0,
	       B(0xeb, 0x10), B(0xeb, 0x00)),
	BRANCH("jmp rel8 back", JMP, 2, FIX_IP | FIX_REL, -2, 0,
	       B(0xeb, 0xfe), B(0xeb, 0x00)),
	BRANCH("jmp rel32", JMP, 5, FIX_IP | FIX_REL, 0x12345678, 0,
	       B(0xe9, 0x78, 0x56, 0x34, 0x12), B(0xe9, 0, 0, 0, 0)),
	BRANCH("call rel32", CALL, 5, FIX_IP | FIX_REL | FIX_CALL, -5, 0,
	       B(0xe8, 0xfb, 0xff, 0xff, 0xff), B(0xe8, 0, 0, 0, 0)),
	BRANCH("data16 data16 rex.W call rel32", CALL, 8,
	       FIX_IP | FIX_REL | FIX_CALL, 0x1000, 0,
	       B(0x66, 0x66, 0x48, 0xe8, 0x00, 0x10, 0x00, 0x00),
	       B(0x66, 0x66, 0x48, 0xe8, 0, 0, 0, 0)),
	BRANCH("bnd jmp rel32", JMP, 6, FIX_IP | FIX_REL, 0x100, 0,
	       B(0xf2, 0xe9, 0x00, 0x01, 0x00, 0x00),
	       B(0xf2, 0xe9, 0, 0, 0, 0)),
	BRANCH("jo rel8", JCC, 2, 0, 0x7f, 0x0,
	       B(0x70, 0x7f), B(0x70, 0x7f)),
	BRANCH("je rel8", JCC, 2, 0, 5, 0x4, B(0x74, 0x05), B(0x74, 0x05)),
	BRANCH("jg rel8", JCC, 2, 0, -128, 0xf,
	       B(0x7f, 0x80), B(0x7f, 0x80)),
	BRANCH("jne rel32", JCC, 6, 0, 0x10, 0x5,
	       B(0x0f, 0x85, 0x10, 0x00, 0x00, 0x00),
	       B(0x0f, 0x85, 0x10, 0x00, 0x00, 0x00)),
	BRANCH("jbe rel32", JCC, 6, 0, -0x100, 0x6,
	       B(0x0f, 0x86, 0x00, 0xff, 0xff, 0xff),
	       B(0x0f, 0x86, 0x00, 0xff, 0xff, 0xff)),
	BRANCH("ds je rel8 (hint)", JCC, 3, 0, 5, 0x4,
	       B(0x3e, 0x74, 0x05), B(0x3e, 0x74, 0x05)),
	BRANCH("loopne", LOOP, 2, 0, -2, 0, B(0xe0, 0xfe), B(0xe0, 0xfe)),
	BRANCH("loope", LOOP, 2, 0, -2, 1, B(0xe1, 0xfe), B(0xe1, 0xfe)),
	BRANCH("loop", LOOP, 2, 0, -2, 2, B(0xe2, 0xfe), B(0xe2, 0xfe)),
	BRANCH("jrcxz", LOOP, 2, 0, 8, 3, B(0xe3, 0x08), B(0xe3, 0x08)),
	RET("ret", 1, 0, B(0xc3)),
	RET("rep ret", 2, 0, B(0xf3, 0xc3)),
	RET("ret $0x10", 3, 0x10, B(0xc2, 0x10, 0x00)),
	RET("ret $0xfff8", 3, 0xfff8, B(0xc2, 0xf8, 0xff)),
	REFUSE("jmp rel16", -EOPNOTSUPP, ENCODING, B(0x66, 0xe9, 0x00, 0x01)),
	REFUSE("callw rel16", -EOPNOTSUPP, ENCODING, B(0x66, 0xe8, 0x00, 0x01)),
	REFUSE("retw", -EOPNOTSUPP, ENCODING, B(0x66, 0xc3)),
	REFUSE("loop with ecx", -EOPNOTSUPP, ENCODING, B(0x67, 0xe2, 0xfe)),

	/* ordinary instructions, stepped */
	STEP("mov %rsp,%rbp", 3, FIX_IP, B(0x48, 0x89, 0xe5)),
	STEP("mov %rdi,%rax", 3, FIX_IP, B(0x48, 0x89, 0xf8)),
	STEP("lea (%rsp),%rax", 4, FIX_IP, B(0x48, 0x8d, 0x04, 0x24)),
	STEP("lea 0x8(%rdi,%rsi,4),%rax", 5, FIX_IP,
	     B(0x48, 0x8d, 0x44, 0xb7, 0x08)),
	STEP("sub $0x20,%rsp", 4, FIX_IP, B(0x48, 0x83, 0xec, 0x20)),
	STEP("sub $0x1000,%rsp", 7, FIX_IP,
	     B(0x48, 0x81, 0xec, 0x00, 0x10, 0x00, 0x00)),
	STEP("mov %fs:0x28,%rax", 9, FIX_IP,
	     B(0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00)),
	STEP("mov $0x1234,%ax", 4, FIX_IP, B(0x66, 0xb8, 0x34, 0x12)),
	STEP("fs mov $0x1234,%eax", 6, FIX_IP,
	     B(0x64, 0xb8, 0x34, 0x12, 0x00, 0x00)),
	STEP("movl $0x1,(%rax)", 6, FIX_IP,
	     B(0xc7, 0x00, 0x01, 0x00, 0x00, 0x00)),
	STEP("rep movsb", 2, FIX_IP, B(0xf3, 0xa4)),
	STEP("ud2", 2, FIX_IP, B(0x0f, 0x0b)),
	STEP("cpuid", 2, FIX_IP, B(0x0f, 0xa2)),
	STEP("xgetbv", 3, FIX_IP, B(0x0f, 0x01, 0xd0)),
	STEP("rdtscp", 3, FIX_IP, B(0x0f, 0x01, 0xf9)),
	STEP("leave", 1, FIX_IP, B(0xc9)),
	STEP("vzeroupper", 3, FIX_IP, B(0xc5, 0xf8, 0x77)),

	/* constants and RIP-relative addresses loaded, emulated */
	LOAD("mov $0x1234,%eax", 5, ax, 0x1234, false,
	     B(0xb8, 0x34, 0x12, 0x00, 0x00)),
	LOAD("mov $0xfffffffe,%r9d", 6, r9, 0xfffffffe, false,
	     B(0x41, 0xb9, 0xfe, 0xff, 0xff, 0xff)),
	LOAD("mov $imm64,%rax", 10, ax, 0x0807060504030201, true,
	     B(0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8)),
	LOAD("mov $-2,%r10", 7, r10, -2, true,
	     B(0x49, 0xc7, 0xc2, 0xfe, 0xff, 0xff, 0xff)),
	LOAD("movl $0x5,%ecx", 6, cx, 5, false,
	     B(0xc7, 0xc1, 0x05, 0x00, 0x00, 0x00)),
	LEA_RIP("lea 0x10(%rip),%rdi", 7, di, 0x10, true, si,
		B(0x48, 0x8d, 0x3d, 0x10, 0x00, 0x00, 0x00),
		B(0x48, 0x8d, 0xbe, 0x10, 0x00, 0x00, 0x00)),
	LEA_RIP("lea -0x10(%rip),%r12d", 7, r12, -0x10, false, si,
		B(0x44, 0x8d, 0x25, 0xf0, 0xff, 0xff, 0xff),
		B(0x44, 0x8d, 0xa6, 0xf0, 0xff, 0xff, 0xff)),

	/* indirect branches, stepped */
	STEP("call *%rax", 2, FIX_CALL, B(0xff, 0xd0)),
	STEP("call *0x8(%rbx)", 3, FIX_CALL, B(0xff, 0x53, 0x08)),
	STEP("data16 rex.W call *%rax", 4, FIX_CALL, B(0x66, 0x48, 0xff, 0xd0)),
	STEP("jmp *%r11", 3, 0, B(0x41, 0xff, 0xe3)),
	STEP("notrack jmp *%rax", 3, 0, B(0x3e, 0xff, 0xe0)),
	REFUSE("callw *%ax", -EOPNOTSUPP, ENCODING, B(0x66, 0xff, 0xd0)),

	/* RIP-relative operands, stepped through a scratch register */
	RIPREL("mov 0x10(%rip),%rax", 7, FIX_IP, si,
	       B(0x48, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00),
	       B(0x48, 0x8b, 0x86, 0x10, 0x00, 0x00, 0x00)),
	RIPREL("mov 0x10(%rip),%rsi", 7, FIX_IP, di,
	       B(0x48, 0x8b, 0x35, 0x10, 0x00, 0x00, 0x00),
	       B(0x48, 0x8b, 0xb7, 0x10, 0x00, 0x00, 0x00)),
	RIPREL("mov 0x10(%rip),%r14", 7, FIX_IP, di,
	       B(0x4c, 0x8b, 0x35, 0x10, 0x00, 0x00, 0x00),
	       B(0x4c, 0x8b, 0xb7, 0x10, 0x00, 0x00, 0x00)),
	RIPREL("rex.wb mov 0x10(%rip),%rax", 7, FIX_IP, si,
	       B(0x49, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00),
	       B(0x48, 0x8b, 0x86, 0x10, 0x00, 0x00, 0x00)),
	RIPREL("mov 0x10(%rip),%dh", 6, FIX_IP, di,
	       B(0x8a, 0x35, 0x10, 0x00, 0x00, 0x00),
	       B(0x8a, 0xb7, 0x10, 0x00, 0x00, 0x00)),
	RIPREL("mov %eax,-0x4(%rip)", 6, FIX_IP, si,
	       B(0x89, 0x05, 0xfc, 0xff, 0xff, 0xff),
	       B(0x89, 0x86, 0xfc, 0xff, 0xff, 0xff)),
	RIPREL("cmp 0x10(%rip),%rax", 7, FIX_IP, si,
	       B(0x48, 0x3b, 0x05, 0x10, 0x00, 0x00, 0x00),
	       B(0x48, 0x3b, 0x86, 0x10, 0x00, 0x00, 0x00)),
	RIPREL("cmpq $0x0,0x10(%rip)", 8, FIX_IP, si,
	       B(0x48, 0x83, 0x3d, 0x10, 0x00, 0x00, 0x00, 0x00),
	       B(0x48, 0x83, 0xbe, 0x10, 0x00, 0x00, 0x00, 0x00)),
	RIPREL("movl $0x1,0x10(%rip)", 10, FIX_IP, si,
	       B(0xc7, 0x05, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00),
	       B(0xc7, 0x86, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00)),
	RIPREL("push 0x10(%rip)", 6, FIX_IP, di,
	       B(0xff, 0x35, 0x10, 0x00, 0x00, 0x00),
	       B(0xff, 0xb7, 0x10, 0x00, 0x00, 0x00)),
	RIPREL("call *0x10(%rip)", 6, FIX_CALL, si,
	       B(0xff, 0x15, 0x10, 0x00, 0x00, 0x00),
	       B(0xff, 0x96, 0x10, 0x00, 0x00, 0x00)),
	RIPREL("jmp *0x10(%rip)", 6, 0, si,
	       B(0xff, 0x25, 0x10, 0x00, 0x00, 0x00),
	       B(0xff, 0xa6, 0x10, 0x00, 0x00, 0x00)),
	RIPREL("bnd jmp *0x10(%rip)", 7, 0, si,
	       B(0xf2, 0xff, 0x25, 0x10, 0x00, 0x00, 0x00),
	       B(0xf2, 0xff, 0xa6, 0x10, 0x00, 0x00, 0x00)),
	RIPREL("mov %fs:0x10(%rip),%rax", 8, FIX_IP, si,
	       B(0x64, 0x48, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00),
	       B(0x64, 0x48, 0x8b, 0x86, 0x10, 0x00, 0x00, 0x00)),
	RIPREL("cmpxchg16b 0x10(%rip)", 8, FIX_IP, si,
	       B(0x48, 0x0f, 0xc7, 0x0d, 0x10, 0x00, 0x00, 0x00),
	       B(0x48, 0x0f, 0xc7, 0x8e, 0x10, 0x00, 0x00, 0x00)),
	RIPREL("movdqa 0x10(%rip),%xmm0", 8, FIX_IP, si,
	       B(0x66, 0x0f, 0x6f, 0x05, 0x10, 0x00, 0x00, 0x00),
	       B(0x66, 0x0f, 0x6f, 0x86, 0x10, 0x00, 0x00, 0x00)),
	RIPREL("movss 0x10(%rip),%xmm6", 8, FIX_IP, di,
	       B(0xf3, 0x0f, 0x10, 0x35, 0x10, 0x00, 0x00, 0x00),
	       B(0xf3, 0x0f, 0x10, 0xb7, 0x10, 0x00, 0x00, 0x00)),
	RIPREL("vmovdqa 0x10(%rip),%xmm0", 8, FIX_IP, si,
	       B(0xc5, 0xf9, 0x6f, 0x05, 0x10, 0x00, 0x00, 0x00),
	       B(0xc5, 0xf9, 0x6f, 0x86, 0x10, 0x00, 0x00, 0x00)),
	RIPREL("vbroadcastss 0x10(%rip),%xmm0 (VEX.B set)", 9, FIX_IP, si,
	       B(0xc4, 0xc2, 0x79, 0x18, 0x05, 0x10, 0x00, 0x00, 0x00),
	       B(0xc4, 0xe2, 0x79, 0x18, 0x86, 0x10, 0x00, 0x00, 0x00)),
	RIPREL("vmovaps 0x10(%rip),%zmm0 (EVEX.B set)", 10, FIX_IP, si,
	       B(0x62, 0xd1, 0x7c, 0x48, 0x28, 0x05, 0x10, 0x00, 0x00, 0x00),
	       B(0x62, 0xf1, 0x7c, 0x48, 0x28, 0x86, 0x10, 0x00, 0x00, 0x00)),
	RIPREL("mov %r8,0x10(%rip)", 7, FIX_IP, si,
	       B(0x4c, 0x89, 0x05, 0x10, 0x00, 0x00, 0x00),
	       B(0x4c, 0x89, 0x86, 0x10, 0x00, 0x00, 0x00)),
	RIPREL("andn 0x10(%rip),%rsi,%rax", 9, FIX_IP, di,
	       B(0xc4, 0xe2, 0xc8, 0xf2, 0x05, 0x10, 0x00, 0x00, 0x00),
	       B(0xc4, 0xe2, 0xc8, 0xf2, 0x87, 0x10, 0x00, 0x00, 0x00)),
	/* emulated, but ready to be stepped */
	{ .name = "nopl 0x10(%rip)", .kind = UPROBE_KIND_NOP, .len = 7,
	  .insn = B(0x0f, 0x1f, 0x05, 0x10, 0x00, 0x00, 0x00),
	  .fixups = FIX_IP | FIX_RIP, .scratch_reg = REG(si),
	  .check_ixol = true,
	  .ixol = B(0x0f, 0x1f, 0x86, 0x10, 0x00, 0x00, 0x00) },
	REFUSE("mov 0x10(%eip),%eax", -EOPNOTSUPP, ENCODING,
	       B(0x67, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00)),

	/* refused */
	REFUSE("int3", -EOPNOTSUPP, TRAP, B(0xcc)),
	REFUSE("int $0x80", -EOPNOTSUPP, TRAP, B(0xcd, 0x80)),
	REFUSE("int1", -EOPNOTSUPP, TRAP, B(0xf1)),
	REFUSE("hlt", -EOPNOTSUPP, PRIVILEGED, B(0xf4)),
	REFUSE("in $0x60,%al", -EOPNOTSUPP, PRIVILEGED, B(0xe4, 0x60)),
	REFUSE("out %al,(%dx)", -EOPNOTSUPP, PRIVILEGED, B(0xee)),
	REFUSE("insb", -EOPNOTSUPP, PRIVILEGED, B(0x6c)),
	REFUSE("cli", -EOPNOTSUPP, PRIVILEGED, B(0xfa)),
	REFUSE("sti", -EOPNOTSUPP, PRIVILEGED, B(0xfb)),
	REFUSE("lock add %eax,(%rdi)", -EOPNOTSUPP, ENCODING, B(0xf0, 0x01, 0x07)),
	REFUSE("lock cmpxchg %ecx,(%rdx)", -EOPNOTSUPP, ENCODING,
	       B(0xf0, 0x0f, 0xb1, 0x0a)),
	REFUSE("syscall", -EOPNOTSUPP, SYSCALL, B(0x0f, 0x05)),
	REFUSE("sysenter", -EOPNOTSUPP, SYSCALL, B(0x0f, 0x34)),
	REFUSE("iretq", -EOPNOTSUPP, FAR, B(0x48, 0xcf)),
	REFUSE("lret", -EOPNOTSUPP, FAR, B(0xcb)),
	REFUSE("lcall *(%rax)", -EOPNOTSUPP, FAR, B(0xff, 0x18)),
	REFUSE("ljmp *(%rax)", -EOPNOTSUPP, FAR, B(0xff, 0x28)),
	REFUSE("mov %eax,%ds", -EOPNOTSUPP, SEGMENT, B(0x8e, 0xd8)),
	REFUSE("mov %eax,%ss", -EOPNOTSUPP, SEGMENT, B(0x8e, 0xd0)),
	REFUSE("mov %rax,%cr0", -EOPNOTSUPP, PRIVILEGED, B(0x0f, 0x22, 0xc0)),
	REFUSE("wrmsr", -EOPNOTSUPP, PRIVILEGED, B(0x0f, 0x30)),
	REFUSE("rdmsr", -EOPNOTSUPP, PRIVILEGED, B(0x0f, 0x32)),
	REFUSE("wbinvd", -EOPNOTSUPP, PRIVILEGED, B(0x0f, 0x09)),
	REFUSE("lgdt (%rax)", -EOPNOTSUPP, PRIVILEGED, B(0x0f, 0x01, 0x10)),
	REFUSE("swapgs", -EOPNOTSUPP, PRIVILEGED, B(0x0f, 0x01, 0xf8)),
	REFUSE("sldt %eax", -EOPNOTSUPP, PRIVILEGED, B(0x0f, 0x00, 0xc0)),
	REFUSE("xbegin", -EOPNOTSUPP, OTHER, B(0xc7, 0xf8, 0x00, 0x00, 0x00, 0x00)),
	REFUSE("xop vprotb", -EOPNOTSUPP, ENCODING, B(0x8f, 0xe8, 0x78, 0xc0, 0xc0, 0x01)),
	REFUSE("rex.w before data16", -EOPNOTSUPP, ENCODING, B(0x48, 0x66, 0x90)),
	REFUSE("rex.w rex.w mov %rsp,%rbp", -EOPNOTSUPP, ENCODING,
	       B(0x48, 0x48, 0x89, 0xe5)),
	REFUSE("rex before lock", -EOPNOTSUPP, ENCODING, B(0x48, 0xf0, 0x01, 0x07)),

	/* not instructions */
	REFUSE("push %es (not in 64-bit mode)", -ENOEXEC, UNDECODABLE, B(0x06)),
	REFUSE("VEX without a VEX opcode", -ENOEXEC, UNDECODABLE, B(0xc5, 0xf8, 0x06)),
	REFUSE("andn without VEX", -ENOEXEC, UNDECODABLE, B(0x0f, 0x38, 0xf2, 0x00)),
	REFUSE("prefixes only", -ENOEXEC, UNDECODABLE,
	       B(0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
		 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66)),
	REFUSE("longer than 15 bytes", -ENOEXEC, UNDECODABLE,
	       B(0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
		 0x66, 0x66, 0x66, 0x66, 0x66, 0x0f, 0x1f, 0x00)),
};

static void uprobe_analysis_case_desc(const struct uprobe_analysis_case *c,
				      char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(uprobe_analysis, uprobe_analysis_cases,
		  uprobe_analysis_case_desc);

static void uprobe_check_operands(struct kunit *test, struct arch_uprobe *aup,
				  const struct uprobe_analysis_case *c)
{
	switch (aup->kind) {
	case UPROBE_KIND_JMP:
	case UPROBE_KIND_CALL:
	case UPROBE_KIND_JCC:
	case UPROBE_KIND_LOOP:
		KUNIT_EXPECT_EQ(test, aup->emul.branch.disp, c->disp);
		KUNIT_EXPECT_EQ(test, aup->emul.branch.cond, c->cond);
		break;
	case UPROBE_KIND_PUSH:
		KUNIT_EXPECT_EQ(test, aup->emul.push.reg, c->push_reg);
		KUNIT_EXPECT_EQ(test, aup->emul.push.size, c->push_size);
		break;
	case UPROBE_KIND_RET:
		KUNIT_EXPECT_EQ(test, aup->emul.ret_pop, c->ret_pop);
		break;
	case UPROBE_KIND_LOAD:
		KUNIT_EXPECT_EQ(test, aup->emul.load.reg, c->load_reg);
		KUNIT_EXPECT_EQ(test, aup->emul.load.val, c->load_val);
		KUNIT_EXPECT_EQ(test, aup->emul.load.rip, c->load_rip);
		KUNIT_EXPECT_EQ(test, aup->emul.load.wide, c->load_wide);
		break;
	}
}

static void uprobe_check_analysis(struct kunit *test,
				  const struct uprobe_analysis_case *c, bool ia32)
{
	struct arch_uprobe aup = {};
	const u8 *ixol = c->check_ixol ? c->ixol : c->insn;
	int ret;

	memcpy(aup.insn, c->insn, MAX_UINSN_BYTES);
	ret = arch_uprobe_analyze_compat(&aup, ia32);
	KUNIT_ASSERT_EQ(test, ret, c->ret);
	KUNIT_EXPECT_EQ(test, arch_uprobe_refusal(&aup, ret), c->why);
	if (ret)
		return;

	KUNIT_EXPECT_EQ(test, aup.ia32, ia32);

	KUNIT_EXPECT_EQ(test, aup.len, c->len);
	KUNIT_EXPECT_EQ(test, aup.kind, c->kind);
	KUNIT_EXPECT_EQ(test, aup.fixups, c->fixups);
	KUNIT_EXPECT_MEMEQ(test, aup.ixol, ixol, c->len);
	if (c->fixups & FIX_RIP)
		KUNIT_EXPECT_EQ(test, aup.scratch_reg, c->scratch_reg);
	uprobe_check_operands(test, &aup, c);
}

static void uprobe_test_analysis(struct kunit *test)
{
	uprobe_check_analysis(test, test->param_value, false);
}

/*
 * 32-bit code: the bytes that are REX and REX2 prefixes, or invalid, in
 * 64-bit code are instructions; no operand is RIP-relative; words on the
 * stack are 4 bytes.
 */
static const struct uprobe_analysis_case uprobe_ia32_cases[] = {
	NOP("nop", 1, B(0x90)),
	NOP("endbr32", 4, B(0xf3, 0x0f, 0x1e, 0xfb)),
	NOP("nopw 0x0(%eax,%eax,1)", 6, B(0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00)),
	STEP("lea 0x0(%esi,%eiz,1),%esi", 7, FIX_IP,
	     B(0x8d, 0xb4, 0x26, 0x00, 0x00, 0x00, 0x00)),
	PUSH("push %ebp", 1, bp, 4, B(0x55)),
	PUSH("push %edi", 1, di, 4, B(0x57)),
	PUSH("push %bx", 2, bx, 2, B(0x66, 0x53)),
	STEP("inc %eax", 1, FIX_IP, B(0x40)),
	STEP("dec %edi", 1, FIX_IP, B(0x4f)),
	STEP("pusha", 1, FIX_IP, B(0x60)),
	STEP("popa", 1, FIX_IP, B(0x61)),
	STEP("daa", 1, FIX_IP, B(0x27)),
	STEP("aad", 2, FIX_IP, B(0xd5, 0x0a)),
	STEP("push %es", 1, FIX_IP, B(0x06)),
	STEP("mov %esp,%ebp", 2, FIX_IP, B(0x89, 0xe5)),
	STEP("mov $0x1234,%eax", 5, FIX_IP, B(0xb8, 0x34, 0x12, 0x00, 0x00)),
	STEP("mov 0x1234,%eax (absolute)", 6, FIX_IP,
	     B(0x8b, 0x05, 0x34, 0x12, 0x00, 0x00)),
	STEP("call *%eax", 2, FIX_CALL, B(0xff, 0xd0)),
	STEP("call *0x8(%ebx)", 3, FIX_CALL, B(0xff, 0x53, 0x08)),
	STEP("jmp *%edx", 2, 0, B(0xff, 0xe2)),
	STEP("mov %gs:0x14,%eax", 6, FIX_IP,
	     B(0x65, 0xa1, 0x14, 0x00, 0x00, 0x00)),
	BRANCH("call rel32", CALL, 5, FIX_IP | FIX_REL | FIX_CALL, 0x100, 0,
	       B(0xe8, 0x00, 0x01, 0x00, 0x00), B(0xe8, 0x00, 0x00, 0x00, 0x00)),
	BRANCH("jmp rel8", JMP, 2, FIX_IP | FIX_REL, 0x10, 0,
	       B(0xeb, 0x10), B(0xeb, 0x00)),
	BRANCH("jne rel8", JCC, 2, 0, -0x10, 5, B(0x75, 0xf0), B(0x75, 0xf0)),
	BRANCH("loop", LOOP, 2, 0, -2, 2, B(0xe2, 0xfe), B(0xe2, 0xfe)),
	RET("ret", 1, 0, B(0xc3)),
	RET("ret $0x8", 3, 8, B(0xc2, 0x08, 0x00)),
	REFUSE("pop %ss", -EOPNOTSUPP, SEGMENT, B(0x17)),
	REFUSE("lcall $0x23,$0x0", -EOPNOTSUPP, FAR,
	       B(0x9a, 0x00, 0x00, 0x00, 0x00, 0x23, 0x00)),
	REFUSE("ljmp $0x23,$0x0", -EOPNOTSUPP, FAR,
	       B(0xea, 0x00, 0x00, 0x00, 0x00, 0x23, 0x00)),
	REFUSE("into", -EOPNOTSUPP, TRAP, B(0xce)),
	REFUSE("int $0x80", -EOPNOTSUPP, TRAP, B(0xcd, 0x80)),
	REFUSE("sysenter", -EOPNOTSUPP, SYSCALL, B(0x0f, 0x34)),
	REFUSE("call rel16", -EOPNOTSUPP, ENCODING, B(0x66, 0xe8, 0x00, 0x01)),
	REFUSE("lock incl (%eax)", -EOPNOTSUPP, ENCODING, B(0xf0, 0xff, 0x00)),
};

KUNIT_ARRAY_PARAM(uprobe_ia32, uprobe_ia32_cases, uprobe_analysis_case_desc);

static void uprobe_test_ia32(struct kunit *test)
{
	uprobe_check_analysis(test, test->param_value, true);
}

/**
 * struct uprobe_emul_case - an emulation on registers alone
 * @name: what is tested
 * @insn: the instruction, at TEST_BP
 * @flags: regs->flags before
 * @cx: regs->cx before
 * @next: the expected regs->ip after, relative to TEST_BP
 * @cx_after: the expected regs->cx after
 */
struct uprobe_emul_case {
	const char *name;
	u8 insn[MAX_UINSN_BYTES];
	unsigned long flags;
	unsigned long cx;
	long next;
	unsigned long cx_after;
};

#define CF	X86_EFLAGS_CF
#define PF	X86_EFLAGS_PF
#define ZF	X86_EFLAGS_ZF
#define SF	X86_EFLAGS_SF
#define OF	X86_EFLAGS_OF

#define EMU(_name, _flags, _next, _bytes)				\
	{ .name = _name, .insn = _bytes, .flags = _flags, .next = _next }

#define EMU_CX(_name, _flags, _cx, _cx_after, _next, _bytes)		\
	{ .name = _name, .insn = _bytes, .flags = _flags, .cx = _cx,	\
	  .cx_after = _cx_after, .next = _next }

static const struct uprobe_emul_case uprobe_emul_cases[] = {
	EMU("nop", 0, 1, B(0x90)),
	EMU("nopl 5 bytes", 0, 5, B(0x0f, 0x1f, 0x44, 0x00, 0x00)),
	EMU("endbr64", 0, 4, B(0xf3, 0x0f, 0x1e, 0xfa)),
	EMU("jmp rel8", 0, 2 + 0x10, B(0xeb, 0x10)),
	EMU("jmp rel8 to itself", 0, 0, B(0xeb, 0xfe)),
	EMU("jmp rel32 back", 0, 5 - 0x100, B(0xe9, 0x00, 0xff, 0xff, 0xff)),
	EMU("je taken", ZF, 2 + 5, B(0x74, 0x05)),
	EMU("je not taken", 0, 2, B(0x74, 0x05)),
	EMU("jne taken", 0, 2 - 0x10, B(0x75, 0xf0)),
	EMU("jne not taken", ZF, 2, B(0x75, 0xf0)),
	EMU("jo taken", OF, 2 + 1, B(0x70, 0x01)),
	EMU("jno not taken", OF, 2, B(0x71, 0x01)),
	EMU("jb taken", CF, 2 + 1, B(0x72, 0x01)),
	EMU("jae not taken", CF, 2, B(0x73, 0x01)),
	EMU("jbe taken on ZF", ZF, 2 + 1, B(0x76, 0x01)),
	EMU("ja taken", 0, 2 + 1, B(0x77, 0x01)),
	EMU("ja not taken on CF", CF, 2, B(0x77, 0x01)),
	EMU("js taken", SF, 2 + 1, B(0x78, 0x01)),
	EMU("jp taken", PF, 2 + 1, B(0x7a, 0x01)),
	EMU("jnp not taken", PF, 2, B(0x7b, 0x01)),
	EMU("jl taken", SF, 6 + 0x100,
	    B(0x0f, 0x8c, 0x00, 0x01, 0x00, 0x00)),
	EMU("jl not taken", SF | OF, 6,
	    B(0x0f, 0x8c, 0x00, 0x01, 0x00, 0x00)),
	EMU("jge taken", SF | OF, 2 + 1, B(0x7d, 0x01)),
	EMU("jle taken on ZF", ZF, 2 + 1, B(0x7e, 0x01)),
	EMU("jle taken on SF!=OF", OF, 2 + 1, B(0x7e, 0x01)),
	EMU("jle not taken", SF | OF, 2, B(0x7e, 0x01)),
	EMU("jg taken", SF | OF, 2 + 1, B(0x7f, 0x01)),
	EMU("jg not taken", ZF, 2, B(0x7f, 0x01)),
	EMU("ds jne taken (hint)", 0, 3 + 4, B(0x3e, 0x75, 0x04)),
	EMU_CX("loop taken", 0, 2, 1, 2 - 2, B(0xe2, 0xfe)),
	EMU_CX("loop not taken", 0, 1, 0, 2, B(0xe2, 0xfe)),
	EMU_CX("loope taken", ZF, 2, 1, 2 - 2, B(0xe1, 0xfe)),
	EMU_CX("loope not taken", 0, 2, 1, 2, B(0xe1, 0xfe)),
	EMU_CX("loopne taken", 0, 2, 1, 2 - 2, B(0xe0, 0xfe)),
	EMU_CX("loopne not taken", ZF, 2, 1, 2, B(0xe0, 0xfe)),
	EMU_CX("jrcxz taken", 0, 0, 0, 2 + 8, B(0xe3, 0x08)),
	EMU_CX("jrcxz not taken", 0, 5, 5, 2, B(0xe3, 0x08)),
};

static void uprobe_emul_case_desc(const struct uprobe_emul_case *c,
				  char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(uprobe_emul, uprobe_emul_cases, uprobe_emul_case_desc);

static void uprobe_test_emulation(struct kunit *test)
{
	const struct uprobe_emul_case *c = test->param_value;
	struct arch_uprobe aup = {};
	struct pt_regs regs = {};

	memcpy(aup.insn, c->insn, MAX_UINSN_BYTES);
	KUNIT_ASSERT_EQ(test, arch_uprobe_analyze_compat(&aup, false), 0);

	regs.ip = TEST_BP;
	regs.sp = 0x7ffe0000UL;
	regs.flags = X86_EFLAGS_FIXED | X86_EFLAGS_IF | c->flags;
	regs.cx = c->cx;
	KUNIT_ASSERT_TRUE(test, arch_uprobe_skip_sstep(&aup, &regs));

	KUNIT_EXPECT_EQ(test, regs.ip, TEST_BP + c->next);
	KUNIT_EXPECT_EQ(test, regs.cx, c->cx_after);
	KUNIT_EXPECT_EQ(test, regs.sp, 0x7ffe0000UL);
	KUNIT_EXPECT_EQ(test, regs.flags,
			X86_EFLAGS_FIXED | X86_EFLAGS_IF | c->flags);
}

/* A stepped instruction is not emulated, and emulate leaves regs alone. */
static void uprobe_test_no_emulation(struct kunit *test)
{
	struct arch_uprobe aup = { .insn = { 0x48, 0x89, 0xe5 } };
	struct pt_regs regs = { .ip = TEST_BP, .bp = 1, .sp = 2 };

	KUNIT_ASSERT_EQ(test, arch_uprobe_analyze_compat(&aup, false), 0);
	KUNIT_EXPECT_FALSE(test, arch_uprobe_skip_sstep(&aup, &regs));
	KUNIT_EXPECT_EQ(test, regs.ip, TEST_BP);
	KUNIT_EXPECT_EQ(test, regs.bp, 1UL);
	KUNIT_EXPECT_EQ(test, regs.sp, 2UL);
}

/* Where a load is emulated: above 4 GB, to see 32-bit results cut. */
#define TEST_HIGH_BP	0x7fff00401000UL
#define TEST_POISON	0xa5a5a5a5a5a5a5a5UL

/**
 * struct uprobe_load_case - a register loaded by emulation
 * @name: the instruction in AT&T syntax
 * @insn: its bytes, at TEST_HIGH_BP
 * @reg: the register it loads
 * @val: the value expected there
 */
struct uprobe_load_case {
	const char *name;
	u8 insn[MAX_UINSN_BYTES];
	u16 reg;
	unsigned long val;
};

static const struct uprobe_load_case uprobe_load_cases[] = {
	{ "mov $0x1234,%eax", B(0xb8, 0x34, 0x12, 0x00, 0x00), REG(ax), 0x1234 },
	{ "mov $0xfffffffe,%r9d", B(0x41, 0xb9, 0xfe, 0xff, 0xff, 0xff), REG(r9),
	  0xfffffffeUL },
	{ "movabs $imm64,%r15", B(0x49, 0xbf, 1, 2, 3, 4, 5, 6, 7, 8), REG(r15),
	  0x0807060504030201UL },
	{ "mov $-2,%r10", B(0x49, 0xc7, 0xc2, 0xfe, 0xff, 0xff, 0xff), REG(r10),
	  -2UL },
	{ "movl $0x5,%esp", B(0xc7, 0xc4, 0x05, 0x00, 0x00, 0x00), REG(sp), 5 },
	{ "lea -0x10(%rip),%rdi", B(0x48, 0x8d, 0x3d, 0xf0, 0xff, 0xff, 0xff),
	  REG(di), TEST_HIGH_BP + 7 - 0x10 },
	{ "lea 0x10(%rip),%r12d", B(0x44, 0x8d, 0x25, 0x10, 0x00, 0x00, 0x00),
	  REG(r12), (u32)(TEST_HIGH_BP + 7 + 0x10) },
};

static void uprobe_load_case_desc(const struct uprobe_load_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(uprobe_load, uprobe_load_cases, uprobe_load_case_desc);

/* The destination alone changes, and the ip moves past the instruction. */
static void uprobe_test_emulation_load(struct kunit *test)
{
	const struct uprobe_load_case *c = test->param_value;
	unsigned long flags = X86_EFLAGS_FIXED | X86_EFLAGS_IF | X86_EFLAGS_CF;
	struct arch_uprobe aup = {};
	struct pt_regs regs;
	unsigned int i;

	memcpy(aup.insn, c->insn, MAX_UINSN_BYTES);
	KUNIT_ASSERT_EQ(test, arch_uprobe_analyze_compat(&aup, false), 0);
	KUNIT_ASSERT_EQ(test, aup.kind, UPROBE_KIND_LOAD);
	for (i = 0; i < ARRAY_SIZE(uprobe_gpr_offset); i++)
		*uprobe_reg(&regs, uprobe_gpr_offset[i]) = TEST_POISON;
	regs.ip = TEST_HIGH_BP;
	regs.flags = flags;
	KUNIT_ASSERT_TRUE(test, arch_uprobe_skip_sstep(&aup, &regs));

	KUNIT_EXPECT_EQ(test, regs.ip, TEST_HIGH_BP + aup.len);
	KUNIT_EXPECT_EQ(test, regs.flags, flags);
	for (i = 0; i < ARRAY_SIZE(uprobe_gpr_offset); i++)
		KUNIT_EXPECT_EQ(test, *uprobe_reg(&regs, uprobe_gpr_offset[i]),
				uprobe_gpr_offset[i] == c->reg ? c->val : TEST_POISON);
}

/*
 * 32-bit emulation on registers: ecx counts, and a branch wraps around at
 * 4 GB.  (Push, call and ret need a user stack: the selftests run them.)
 */
static void uprobe_test_emulation_ia32(struct kunit *test)
{
	struct arch_uprobe loop = { .insn = { 0xe2, 0xfe } };
	struct arch_uprobe jecxz = { .insn = { 0xe3, 0x08 } };
	struct arch_uprobe jmp = { .insn = { 0xe9, 0x00, 0x00, 0x00, 0x10 } };
	struct pt_regs regs = { .ip = 0x08049000UL, .cx = 0x100000000UL };

	KUNIT_ASSERT_EQ(test, arch_uprobe_analyze_compat(&loop, true), 0);
	KUNIT_ASSERT_EQ(test, arch_uprobe_analyze_compat(&jecxz, true), 0);
	KUNIT_ASSERT_EQ(test, arch_uprobe_analyze_compat(&jmp, true), 0);

	/* ecx is 0: jecxz is taken, and loop counts down to 0xffffffff */
	KUNIT_ASSERT_TRUE(test, arch_uprobe_skip_sstep(&jecxz, &regs));
	KUNIT_EXPECT_EQ(test, regs.ip, 0x08049000UL + 2 + 8);
	regs.ip = 0x08049000UL;
	KUNIT_ASSERT_TRUE(test, arch_uprobe_skip_sstep(&loop, &regs));
	KUNIT_EXPECT_EQ(test, regs.cx, 0xffffffffUL);
	KUNIT_EXPECT_EQ(test, regs.ip, 0x08049000UL);

	regs.ip = 0xf8000000UL;
	KUNIT_ASSERT_TRUE(test, arch_uprobe_skip_sstep(&jmp, &regs));
	KUNIT_EXPECT_EQ(test, regs.ip, 0x08000005UL);
}

static void uprobe_setup_xol(struct kunit *test, struct arch_uprobe *aup,
			     struct arch_uprobe_task *autask,
			     struct pt_regs *regs)
{
	KUNIT_ASSERT_EQ(test, arch_uprobe_analyze_compat(aup, false), 0);
	regs->ip = TEST_BP;
	regs->flags = X86_EFLAGS_FIXED | X86_EFLAGS_IF;
	uprobe_xol_prepare(aup, autask, regs, TEST_SLOT);
	KUNIT_EXPECT_EQ(test, regs->ip, TEST_SLOT);
	KUNIT_EXPECT_TRUE(test, regs->flags & X86_EFLAGS_TF);
	KUNIT_EXPECT_FALSE(test, arch_uprobe_xol_was_trapped(current));
}

/* mov 0x10(%rip),%rax: si holds the end of the original while stepping. */
static void uprobe_test_xol_riprel(struct kunit *test)
{
	struct arch_uprobe aup = {
		.insn = { 0x48, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00 },
	};
	struct arch_uprobe_task autask = {};
	struct pt_regs regs = { .si = 0x5151 };
	unsigned long trap_nr = current->thread.trap_nr;

	uprobe_setup_xol(test, &aup, &autask, &regs);
	KUNIT_EXPECT_EQ(test, regs.si, TEST_BP + 7);

	regs.ip = TEST_SLOT + 7;	/* the step trap */
	KUNIT_EXPECT_EQ(test, uprobe_xol_finish(&aup, &autask, &regs,
						TEST_SLOT, TEST_BP), 0);
	KUNIT_EXPECT_EQ(test, regs.ip, TEST_BP + 7);
	KUNIT_EXPECT_EQ(test, regs.si, 0x5151UL);
	KUNIT_EXPECT_FALSE(test, regs.flags & X86_EFLAGS_TF);
	KUNIT_EXPECT_EQ(test, current->thread.trap_nr, trap_nr);
}

/* jmp rel8 stepped (the fallback): the copy jumps to its end. */
static void uprobe_test_xol_jmp(struct kunit *test)
{
	struct arch_uprobe aup = { .insn = { 0xeb, 0x10 } };
	struct arch_uprobe_task autask = {};
	struct pt_regs regs = {};

	uprobe_setup_xol(test, &aup, &autask, &regs);
	regs.ip = TEST_SLOT + 2;
	KUNIT_EXPECT_EQ(test, uprobe_xol_finish(&aup, &autask, &regs,
						TEST_SLOT, TEST_BP), 0);
	KUNIT_EXPECT_EQ(test, regs.ip, TEST_BP + 2 + 0x10);
}

/* jmp *%rax: the target is absolute, ip is left where the step went. */
static void uprobe_test_xol_indirect_jmp(struct kunit *test)
{
	struct arch_uprobe aup = { .insn = { 0xff, 0xe0 } };
	struct arch_uprobe_task autask = {};
	struct pt_regs regs = {};

	uprobe_setup_xol(test, &aup, &autask, &regs);
	regs.ip = 0x402000;
	KUNIT_EXPECT_EQ(test, uprobe_xol_finish(&aup, &autask, &regs,
						TEST_SLOT, TEST_BP), 0);
	KUNIT_EXPECT_EQ(test, regs.ip, 0x402000UL);
}

/* A trap in the slot: back to the breakpoint, registers restored. */
static void uprobe_test_xol_abort(struct kunit *test)
{
	struct arch_uprobe aup = {
		.insn = { 0x48, 0x8d, 0x3d, 0x10, 0x00, 0x00, 0x00 },
	};
	struct arch_uprobe_task autask = {};
	struct pt_regs regs = { .si = 0x5151 };
	unsigned long trap_nr = current->thread.trap_nr;

	uprobe_setup_xol(test, &aup, &autask, &regs);
	current->thread.trap_nr = X86_TRAP_PF;
	KUNIT_EXPECT_TRUE(test, arch_uprobe_xol_was_trapped(current));

	uprobe_xol_abort(&aup, &autask, &regs, TEST_BP);
	KUNIT_EXPECT_EQ(test, regs.ip, TEST_BP);
	KUNIT_EXPECT_EQ(test, regs.si, 0x5151UL);
	KUNIT_EXPECT_FALSE(test, regs.flags & X86_EFLAGS_TF);
	KUNIT_EXPECT_EQ(test, current->thread.trap_nr, trap_nr);
}

/* 32-bit: jmp rel8 stepped near 4 GB wraps around, as the original would. */
static void uprobe_test_xol_jmp_ia32(struct kunit *test)
{
	struct arch_uprobe aup = { .insn = { 0xeb, 0x10 } };
	struct arch_uprobe_task autask = {};
	struct pt_regs regs = {};

	KUNIT_ASSERT_EQ(test, arch_uprobe_analyze_compat(&aup, true), 0);
	regs.ip = 0xfffffff8UL;
	regs.flags = X86_EFLAGS_FIXED | X86_EFLAGS_IF;
	uprobe_xol_prepare(&aup, &autask, &regs, 0xf7f00040UL);
	regs.ip = 0xf7f00040UL + 2;
	KUNIT_EXPECT_EQ(test, uprobe_xol_finish(&aup, &autask, &regs, 0xf7f00040UL,
						0xfffffff8UL), 0);
	KUNIT_EXPECT_EQ(test, regs.ip, 0xaUL);
}

/* 32-bit, run direct: the copy, then a jmp rel32 from the slot back. */
static void uprobe_test_xol_direct_ia32(struct kunit *test)
{
	struct arch_uprobe aup = { .insn = { 0x89, 0xe5 } };
	struct pt_regs regs = { .flags = X86_EFLAGS_FIXED };
	u8 code[UPROBE_XOL_SLOT_BYTES];
	size_t len, insn_len;
	const u8 want[] = { 0x89, 0xe5, 0xe9 };
	s32 rel = (s32)(0x08049002UL - (0xf7f00040UL + 2 + 5));

	KUNIT_ASSERT_EQ(test, arch_uprobe_analyze_compat(&aup, true), 0);
	KUNIT_ASSERT_TRUE(test, arch_uprobe_runs_direct(&aup, &regs));
	len = arch_uprobe_xol_direct(&aup, &regs, 0x08049000UL, 0xf7f00040UL, code,
				     &insn_len);
	KUNIT_ASSERT_EQ(test, len, (size_t)7);
	KUNIT_EXPECT_EQ(test, insn_len, (size_t)2);
	KUNIT_EXPECT_MEMEQ(test, code, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, get_unaligned((s32 *)&code[3]), rel);

	regs.flags |= X86_EFLAGS_TF;
	KUNIT_EXPECT_FALSE(test, arch_uprobe_runs_direct(&aup, &regs));
	KUNIT_EXPECT_EQ(test, arch_uprobe_xol_direct(&aup, &regs, 0x08049000UL,
						     0xf7f00040UL, code, &insn_len),
			(size_t)0);
}

static void uprobe_test_trampoline(struct kunit *test)
{
	unsigned long len;
	const u8 *code = uprobe_trampoline_of(false, &len);

	KUNIT_ASSERT_LE(test, len, (unsigned long)UPROBE_XOL_SLOT_BYTES);
	KUNIT_ASSERT_GE(test, len, (unsigned long)UPROBE_TRAMP_SYSCALL_END);
	/* the syscall instruction ends at UPROBE_TRAMP_SYSCALL_END */
	KUNIT_EXPECT_EQ(test, code[UPROBE_TRAMP_SYSCALL_END - 2], 0x0f);
	KUNIT_EXPECT_EQ(test, code[UPROBE_TRAMP_SYSCALL_END - 1], 0x05);
	/* a ud2, then the way out: pop %r11, pop %rcx, pop %rax, ret */
	KUNIT_ASSERT_EQ(test, len, (unsigned long)UPROBE_TRAMP_WAY_OUT + 5);
	KUNIT_EXPECT_EQ(test, memcmp(&code[UPROBE_TRAMP_SYSCALL_END], "\x0f\x0b", 2), 0);
	KUNIT_EXPECT_EQ(test, UPROBE_TRAMP_WAY_OUT, UPROBE_TRAMP_SYSCALL_END + 2);
	KUNIT_EXPECT_EQ(test, memcmp(&code[UPROBE_TRAMP_WAY_OUT], "\x41\x5b\x59\x58\xc3", 5), 0);

	/* 32-bit tasks return to an int3 */
	code = uprobe_trampoline_of(true, &len);
	KUNIT_ASSERT_EQ(test, len, 1UL);
	KUNIT_EXPECT_EQ(test, code[0], INT3_INSN_OPCODE);
}

static struct kunit_case uprobe_analysis_test_cases[] = {
	KUNIT_CASE_PARAM(uprobe_test_analysis, uprobe_analysis_gen_params),
	KUNIT_CASE_PARAM(uprobe_test_ia32, uprobe_ia32_gen_params),
	KUNIT_CASE(uprobe_test_emulation_ia32),
	KUNIT_CASE(uprobe_test_xol_jmp_ia32),
	KUNIT_CASE(uprobe_test_xol_direct_ia32),
	KUNIT_CASE_PARAM(uprobe_test_emulation, uprobe_emul_gen_params),
	KUNIT_CASE_PARAM(uprobe_test_emulation_load, uprobe_load_gen_params),
	KUNIT_CASE(uprobe_test_no_emulation),
	KUNIT_CASE(uprobe_test_xol_riprel),
	KUNIT_CASE(uprobe_test_xol_jmp),
	KUNIT_CASE(uprobe_test_xol_indirect_jmp),
	KUNIT_CASE(uprobe_test_xol_abort),
	KUNIT_CASE(uprobe_test_trampoline),
	{}
};

static struct kunit_suite uprobe_analysis_test_suite = {
	.name = "x86_uprobes_analysis",
	.test_cases = uprobe_analysis_test_cases,
};

kunit_test_suite(uprobe_analysis_test_suite);
