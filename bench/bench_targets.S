/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Probe targets for uprobe_bench, each beginning with the instruction its
 * case is about (bench_ldr: its probe is on the label bench_ldr_insn),
 * and a sled of nops that gives the registration and memory cases as many
 * distinct probe offsets as they need: one-byte nops on x86-64, 4-byte
 * ones on arm64.
 */
#ifdef __aarch64__
	.text

	/* A hint: the base's arm64 steps it out of line. */
	.globl	bench_nop
	.type	bench_nop, %function
bench_nop:
	nop
	ret
	.size	bench_nop, .-bench_nop

	/* The frame record a function pushes first: stepped. */
	.globl	bench_stp
	.type	bench_stp, %function
bench_stp:
	stp	x29, x30, [sp, #-16]!
	ldp	x29, x30, [sp], #16
	ret
	.size	bench_stp, .-bench_stp

	.globl	bench_mov
	.type	bench_mov, %function
bench_mov:
	mov	x1, x0
	mov	x0, x1
	ret
	.size	bench_mov, .-bench_mov

	/* A load, stepped; x1 is set up before the probed instruction. */
	.globl	bench_ldr
	.type	bench_ldr, %function
bench_ldr:
	adrp	x1, bench_datum
	add	x1, x1, :lo12:bench_datum
	.globl	bench_ldr_insn
bench_ldr_insn:
	ldr	x0, [x1]
	ret
	.size	bench_ldr, .-bench_ldr

	/* Branches, which the arch simulates: no step. */
	.globl	bench_b
	.type	bench_b, %function
bench_b:
	b	1f
1:	ret
	.size	bench_b, .-bench_b

	.globl	bench_cbz
	.type	bench_cbz, %function
bench_cbz:
	cbz	x0, 1f
1:	ret
	.size	bench_cbz, .-bench_cbz

	/* Function entries of branch-protected code: hints, stepped by the base. */
	.globl	bench_paciasp
	.type	bench_paciasp, %function
bench_paciasp:
	paciasp
	autiasp
	ret
	.size	bench_paciasp, .-bench_paciasp

	.globl	bench_bti
	.type	bench_bti, %function
bench_bti:
	bti	c
	ret
	.size	bench_bti, .-bench_bti

	.globl	bench_add
	.type	bench_add, %function
bench_add:
	add	x0, x0, #1
	ret
	.size	bench_add, .-bench_add

	/* Reads the pc: simulated (adrp by both, ldr literal by ours alone). */
	.globl	bench_ldr_lit
	.type	bench_ldr_lit, %function
bench_ldr_lit:
	ldr	x0, 1f
	ret
	.balign	8
1:	.quad	42
	.size	bench_ldr_lit, .-bench_ldr_lit

	.globl	bench_adrp
	.type	bench_adrp, %function
bench_adrp:
	adrp	x0, bench_datum
	ret
	.size	bench_adrp, .-bench_adrp

	/*
	 * The frame record, then a loop whose branch goes back to the
	 * instruction after it: the probe's b replaces one instruction and
	 * no neighbour, so the loop changes nothing on arm64.
	 */
	.globl	bench_loop_stp
	.type	bench_loop_stp, %function
bench_loop_stp:
	mov	x2, #3
	.globl	bench_loop_stp_insn
bench_loop_stp_insn:
	stp	x29, x30, [sp, #-16]!
1:	subs	x2, x2, #1
	b.ne	1b
	ldp	x29, x30, [sp], #16
	ret
	.size	bench_loop_stp, .-bench_loop_stp

	/* Never executed: only probed. 10 000 probes, 64 pages. */
	.balign	4096
	.globl	bench_sled
	.type	bench_sled, %function
bench_sled:
	.fill	16384, 4, 0xd503201f
	ret
	.size	bench_sled, .-bench_sled
#else	/* x86-64 */
	.text

	.globl	bench_nop
	.type	bench_nop, @function
bench_nop:
	nop
	ret
	.size	bench_nop, .-bench_nop

	/* The frame-pointer prologue, as gcc makes it. */
	.globl	bench_push
	.type	bench_push, @function
bench_push:
	push	%rbp
	mov	%rsp, %rbp
	pop	%rbp
	ret
	.size	bench_push, .-bench_push

	.globl	bench_endbr
	.type	bench_endbr, @function
bench_endbr:
	endbr64
	ret
	.size	bench_endbr, .-bench_endbr

	.globl	bench_mov
	.type	bench_mov, @function
bench_mov:
	mov	%rdi, %rax
	ret
	.size	bench_mov, .-bench_mov

	.globl	bench_push_r15
	.type	bench_push_r15, @function
bench_push_r15:
	push	%r15
	pop	%r15
	ret
	.size	bench_push_r15, .-bench_push_r15

	.globl	bench_lea
	.type	bench_lea, @function
bench_lea:
	lea	1(%rdi), %rax
	ret
	.size	bench_lea, .-bench_lea

	.globl	bench_sub
	.type	bench_sub, @function
bench_sub:
	sub	$24, %rsp
	add	$24, %rsp
	ret
	.size	bench_sub, .-bench_sub

	.globl	bench_rip
	.type	bench_rip, @function
bench_rip:
	mov	bench_datum(%rip), %rax
	ret
	.size	bench_rip, .-bench_rip

	/* The instructions of 5 bytes or more that a probe may jump from. */
	.globl	bench_nop5
	.type	bench_nop5, @function
bench_nop5:
	/* nopl 0x0(%rax,%rax,1) with its disp8: as makes it 4 bytes without. */
	.byte	0x0f, 0x1f, 0x44, 0x00, 0x00
	ret
	.size	bench_nop5, .-bench_nop5

	.globl	bench_call
	.type	bench_call, @function
bench_call:
	call	1f
	ret
1:	mov	%rdi, %rax
	ret
	.size	bench_call, .-bench_call

	.globl	bench_mov_imm
	.type	bench_mov_imm, @function
bench_mov_imm:
	mov	$42, %eax
	ret
	.size	bench_mov_imm, .-bench_mov_imm

	.globl	bench_lea_rip
	.type	bench_lea_rip, @function
bench_lea_rip:
	lea	bench_datum(%rip), %rax
	ret
	.size	bench_lea_rip, .-bench_lea_rip

	/*
	 * The loop forms: the probe is on NAME_insn, run once a call; the
	 * loop after it branches back to the instruction right after it,
	 * three times, so that a probe that changed the bytes there would
	 * show.  bench_loop_end's UNDO puts the stack back as INSN found it.
	 */
	.macro	bench_loop name, insn:vararg
	.globl	bench_loop_\name
	.type	bench_loop_\name, @function
bench_loop_\name:
	mov	%rdi, %rax
	mov	$3, %ecx
	.globl	bench_loop_\name\()_insn
bench_loop_\name\()_insn:
	\insn
1:	dec	%ecx
	jnz	1b
	.endm

	.macro	bench_loop_end name, undo:vararg
	\undo
	ret
	.size	bench_loop_\name, .-bench_loop_\name
	.endm

	bench_loop nop, nop
	bench_loop_end nop
	bench_loop push_rbp, push %rbp
	bench_loop_end push_rbp, pop %rbp
	bench_loop push_r15, push %r15
	bench_loop_end push_r15, pop %r15
	bench_loop mov_rdi_rax, mov %rdi, %rax
	bench_loop_end mov_rdi_rax
	bench_loop sub_rsp, sub $24, %rsp
	bench_loop_end sub_rsp, add $24, %rsp
	bench_loop endbr64, endbr64
	bench_loop_end endbr64

	/* Never executed: only probed. 10 000 probes, 64 pages. */
	.balign	4096
	.globl	bench_sled
	.type	bench_sled, @function
bench_sled:
	.fill	65536, 1, 0x90
	ret
	.size	bench_sled, .-bench_sled
#endif

	/* Both: the word the load cases read. */
	.data
	.balign	8
bench_datum:
	.quad	42

	.section .note.GNU-stack, "", %progbits
