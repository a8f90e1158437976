// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit tests for the x86 uprobes jumps to stubs: which probes may have a
 * jump, the jump written and read back, the code of the stubs, and the
 * way out of a stub a hit leaves by.  Included at the end of
 * uprobes_jump.c, to reach its static data (the stub and its offsets).
 */

#include <kunit/test.h>

/* Where the probed instruction is said to be, and its stub: within reach. */
#define TEST_BP		0x401000UL
#define TEST_STUB	(TEST_BP - 0x100000UL)

static void uprobe_stub_regs(struct pt_regs *regs)
{
	memset(regs, 0, sizeof(*regs));
	regs->cs = __USER_CS;
	regs->flags = X86_EFLAGS_FIXED | X86_EFLAGS_IF;
}

/* Which instructions may have a jump, and when the task does not allow it. */
static void uprobe_test_can_jump(struct kunit *test)
{
	struct arch_uprobe nop5 = { .insn = { 0x0f, 0x1f, 0x44, 0x00, 0x00 } };
	struct arch_uprobe mov3 = { .insn = { 0x48, 0x89, 0xf8 } };
	struct arch_uprobe movimm = { .insn = { 0xb8, 0x34, 0x12, 0x00, 0x00 } };
	struct arch_uprobe callr = { .insn = { 0xff, 0x90, 0x10, 0x00, 0x00, 0x00 } };
	struct arch_uprobe riprel = {
		.insn = { 0x48, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00 },
	};
	struct pt_regs regs;

	uprobe_stub_regs(&regs);
	KUNIT_ASSERT_EQ(test, arch_uprobe_analyze_compat(&nop5, false), 0);
	KUNIT_ASSERT_EQ(test, arch_uprobe_analyze_compat(&mov3, false), 0);
	KUNIT_ASSERT_EQ(test, arch_uprobe_analyze_compat(&movimm, false), 0);
	KUNIT_ASSERT_EQ(test, arch_uprobe_analyze_compat(&callr, false), 0);
	KUNIT_ASSERT_EQ(test, arch_uprobe_analyze_compat(&riprel, false), 0);
	KUNIT_EXPECT_TRUE(test, arch_uprobe_can_jump(&nop5, current, &regs));
	KUNIT_EXPECT_TRUE(test, arch_uprobe_can_jump(&riprel, current, &regs));
	KUNIT_EXPECT_TRUE(test, arch_uprobe_can_jump(&movimm, current, &regs));
	/* shorter than the jump: a punned one */
	KUNIT_EXPECT_TRUE(test, arch_uprobe_can_jump(&mov3, current, &regs));
	/* an indirect call, whose push needs a fixup */
	KUNIT_EXPECT_FALSE(test, arch_uprobe_can_jump(&callr, current, &regs));
	regs.flags |= X86_EFLAGS_TF;
	KUNIT_EXPECT_FALSE(test, arch_uprobe_can_jump(&nop5, current, &regs));
	regs.flags &= ~X86_EFLAGS_TF;
	regs.cs = __USER32_CS;
	KUNIT_EXPECT_FALSE(test, arch_uprobe_can_jump(&nop5, current, &regs));
}

/* The jump to a stub, written and read back. */
static void uprobe_test_jump(struct kunit *test)
{
	u8 code[UPROBE_JUMP_BYTES];

	arch_uprobe_jump(TEST_BP, TEST_STUB, code);
	KUNIT_EXPECT_EQ(test, code[0], 0xe9);
	KUNIT_EXPECT_EQ(test, arch_uprobe_jump_target(code, TEST_BP), TEST_STUB);
	code[0] = 0xcc;
	KUNIT_EXPECT_EQ(test, arch_uprobe_jump_target(code, TEST_BP), 0UL);
}

/* mov 0x10(%rip),%rax in a stub: re-aimed at the same word, then a jump back. */
static void uprobe_test_stub_riprel(struct kunit *test)
{
	struct arch_uprobe aup = {
		.insn = { 0x48, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00 },
	};
	unsigned long copy = TEST_STUB + UPROBE_STUB_COPY;
	u8 code[UPROBE_STUB_BYTES];
	size_t len, copy_len;
	s32 disp;

	KUNIT_ASSERT_EQ(test, arch_uprobe_analyze_compat(&aup, false), 0);
	len = arch_uprobe_stub_code(&aup, TEST_BP, TEST_STUB, code, &copy_len);
	KUNIT_ASSERT_EQ(test, len, (size_t)UPROBE_STUB_COPY + 7 + UPROBE_JUMP_BYTES);
	KUNIT_EXPECT_EQ(test, copy_len, (size_t)7);
	/* the entry ends with the syscall, a ud2 parts it from the way out */
	KUNIT_EXPECT_EQ(test, code[UPROBE_STUB_SYSCALL_END - 2], 0x0f);
	KUNIT_EXPECT_EQ(test, code[UPROBE_STUB_SYSCALL_END - 1], 0x05);
	KUNIT_EXPECT_EQ(test, memcmp(&code[UPROBE_STUB_SYSCALL_END], "\x0f\x0b", 2), 0);
	KUNIT_EXPECT_EQ(test, UPROBE_STUB_WAY_OUT, UPROBE_STUB_SYSCALL_END + 2);
	KUNIT_EXPECT_EQ(test, memcmp(&code[UPROBE_STUB_WAY_OUT], "\x41\x5b\x59\x58\xc2", 5), 0);
	/* the straight way out: pops, lea 128(%rsp),%rsp, falling into the copy */
	KUNIT_EXPECT_EQ(test, memcmp(&code[UPROBE_STUB_STRAIGHT],
				     "\x41\x5b\x59\x58\x48\x8d\xa4\x24\x80\0\0\0", 12), 0);
	KUNIT_EXPECT_EQ(test, UPROBE_STUB_STRAIGHT + 12, UPROBE_STUB_COPY);
	/* same opcode and ModRM, the displacement aimed at TEST_BP + 7 + 0x10 */
	KUNIT_EXPECT_EQ(test, memcmp(&code[UPROBE_STUB_COPY], aup.insn, 3), 0);
	disp = get_unaligned((s32 *)&code[UPROBE_STUB_COPY + 3]);
	KUNIT_EXPECT_EQ(test, copy + 7 + disp, TEST_BP + 7 + 0x10);
	KUNIT_EXPECT_EQ(test, arch_uprobe_jump_target(&code[UPROBE_STUB_COPY + 7], copy + 7),
			TEST_BP + 7);
	/* a stub 3 GB away cannot reach the word */
	len = arch_uprobe_stub_code(&aup, TEST_BP, TEST_BP + 0xc0000000UL, code, &copy_len);
	KUNIT_EXPECT_EQ(test, len, (size_t)0);
}

/*
 * A nop5 is emulated: its stub holds no copy, and its straight way out
 * leads to a jump to the next instruction.
 */
static void uprobe_test_stub_emulated(struct kunit *test)
{
	struct arch_uprobe aup = { .insn = { 0x0f, 0x1f, 0x44, 0x00, 0x00 } };
	u8 code[UPROBE_STUB_BYTES];
	size_t copy_len;

	KUNIT_ASSERT_EQ(test, arch_uprobe_analyze_compat(&aup, false), 0);
	KUNIT_EXPECT_EQ(test, arch_uprobe_stub_code(&aup, TEST_BP, TEST_STUB, code, &copy_len),
			(size_t)UPROBE_STUB_COPY + UPROBE_JUMP_BYTES);
	KUNIT_EXPECT_EQ(test, copy_len, (size_t)0);
	KUNIT_EXPECT_EQ(test, memcmp(code, uprobe_stub, sizeof(uprobe_stub)), 0);
	KUNIT_EXPECT_EQ(test, arch_uprobe_jump_target(&code[UPROBE_STUB_COPY],
						      TEST_STUB + UPROBE_STUB_COPY), TEST_BP + 5);
}

/*
 * A push %r15 is emulated at a breakpoint, but its stub runs a copy: the
 * straight way out leads to it, then a jump to the next instruction.
 */
static void uprobe_test_stub_push(struct kunit *test)
{
	struct arch_uprobe aup = { .insn = { 0x41, 0x57 } };
	unsigned long copy = TEST_STUB + UPROBE_STUB_COPY;
	u8 code[UPROBE_STUB_BYTES];
	size_t copy_len;

	KUNIT_ASSERT_EQ(test, arch_uprobe_analyze_compat(&aup, false), 0);
	KUNIT_ASSERT_EQ(test, aup.kind, UPROBE_KIND_PUSH);
	KUNIT_EXPECT_EQ(test, arch_uprobe_stub_code(&aup, TEST_BP, TEST_STUB, code, &copy_len),
			(size_t)UPROBE_STUB_COPY + 2 + UPROBE_JUMP_BYTES);
	KUNIT_EXPECT_EQ(test, copy_len, (size_t)2);
	KUNIT_EXPECT_EQ(test, memcmp(&code[UPROBE_STUB_COPY], aup.insn, 2), 0);
	KUNIT_EXPECT_EQ(test, arch_uprobe_jump_target(&code[UPROBE_STUB_COPY + 2], copy + 2),
			TEST_BP + 2);
}

/* A stack pointer no way out's frame can be written below. */
#define TEST_KERNEL_SP	0xffffc90000010000UL

/* A task past a nop5 at TEST_BP, with rax @ax, rcx 2 and r11 3. */
static void uprobe_exit_regs(struct pt_regs *regs, unsigned long ax)
{
	uprobe_stub_regs(regs);
	regs->ax = ax;
	regs->cx = 2;
	regs->r11 = 3;
	regs->sp = TEST_KERNEL_SP;
	regs->ip = TEST_BP + 5;
}

/*
 * A hit that goes on to the straight way out's place with what the stub
 * saved unchanged leaves by it, with nothing written; one that changed
 * rax needs the other way out, whose frame cannot be written here: the
 * registers are then left as they were.
 */
static void uprobe_test_stub_exit(struct kunit *test)
{
	struct arch_uprobe_stub_saved saved = {
		.ax = 1, .cx = 2, .r11 = 3, .sp = TEST_KERNEL_SP,
	};
	struct pt_regs regs;

	uprobe_exit_regs(&regs, 1);
	KUNIT_EXPECT_TRUE(test, arch_uprobe_stub_exit(&regs, TEST_STUB, &saved, TEST_BP + 5));
	KUNIT_EXPECT_EQ(test, regs.ip, TEST_STUB + UPROBE_STUB_STRAIGHT);
	KUNIT_EXPECT_EQ(test, regs.cx, regs.ip);
	KUNIT_EXPECT_EQ(test, regs.r11, regs.flags);
	KUNIT_EXPECT_EQ(test, regs.sp, TEST_KERNEL_SP - UPROBE_RED_ZONE - 24);
	KUNIT_EXPECT_EQ(test, regs.ax, 1UL);

	uprobe_exit_regs(&regs, 7);
	KUNIT_EXPECT_FALSE(test, arch_uprobe_stub_exit(&regs, TEST_STUB, &saved, TEST_BP + 5));
	KUNIT_EXPECT_EQ(test, regs.ip, TEST_BP + 5);
	KUNIT_EXPECT_EQ(test, regs.sp, TEST_KERNEL_SP);
}

/*
 * A punned jump's window: every target in it, written as a jump, leaves
 * the bytes after the instruction as they were, and none outside it does.
 */
static void uprobe_test_pun_window(struct kunit *test)
{
	static const u8 after[][4] = {
		{ 0x48, 0x89, 0xe5, 0x41 },	/* mov %rsp,%rbp; push %r.. */
		{ 0x00, 0x00, 0x00, 0x00 },
		{ 0xff, 0xff, 0xff, 0x7f },	/* the highest positive rel32 */
		{ 0x00, 0x00, 0x00, 0x80 },	/* the lowest negative one */
		{ 0xc3, 0xcc, 0x90, 0xe8 },
	};
	unsigned long lo, hi, targets[3];
	u8 code[UPROBE_JUMP_BYTES], jump[UPROBE_JUMP_BYTES];
	unsigned int len, i, t;

	for (i = 0; i < ARRAY_SIZE(after); i++) {
		for (len = 1; len < UPROBE_JUMP_BYTES; len++) {
			code[0] = 0x55;
			memcpy(code + 1, after[i], 4);
			KUNIT_ASSERT_TRUE(test,
					  arch_uprobe_pun_window(TEST_BP, len, code, &lo, &hi));
			KUNIT_EXPECT_EQ(test, hi - lo, (unsigned long)BIT_ULL(8 * (len - 1)) - 1);
			targets[0] = lo;
			targets[1] = lo + (hi - lo) / 2;
			targets[2] = hi;
			for (t = 0; t < ARRAY_SIZE(targets); t++) {
				arch_uprobe_jump(TEST_BP, targets[t], jump);
				KUNIT_EXPECT_MEMEQ(test, jump + len, code + len,
						   UPROBE_JUMP_BYTES - len);
				KUNIT_EXPECT_EQ(test, arch_uprobe_jump_target(jump, TEST_BP),
						targets[t]);
			}
			/* Just outside: a byte after the instruction would change. */
			arch_uprobe_jump(TEST_BP, hi + 1, jump);
			KUNIT_EXPECT_NE(test, memcmp(jump + len, code + len,
						     UPROBE_JUMP_BYTES - len), 0);
			arch_uprobe_jump(TEST_BP, lo - 1, jump);
			KUNIT_EXPECT_NE(test, memcmp(jump + len, code + len,
						     UPROBE_JUMP_BYTES - len), 0);
		}
	}
	KUNIT_EXPECT_FALSE(test, arch_uprobe_pun_window(TEST_BP, 0, code, &lo, &hi));
	KUNIT_EXPECT_FALSE(test,
			   arch_uprobe_pun_window(TEST_BP, UPROBE_JUMP_BYTES, code, &lo, &hi));
}

static struct kunit_case uprobe_jump_test_cases[] = {
	KUNIT_CASE(uprobe_test_can_jump),
	KUNIT_CASE(uprobe_test_jump),
	KUNIT_CASE(uprobe_test_pun_window),
	KUNIT_CASE(uprobe_test_stub_riprel),
	KUNIT_CASE(uprobe_test_stub_emulated),
	KUNIT_CASE(uprobe_test_stub_push),
	KUNIT_CASE(uprobe_test_stub_exit),
	{}
};

static struct kunit_suite uprobe_jump_test_suite = {
	.name = "x86_uprobes_jumps",
	.test_cases = uprobe_jump_test_cases,
};

kunit_test_suite(uprobe_jump_test_suite);
