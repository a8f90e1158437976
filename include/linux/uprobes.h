/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _LINUX_UPROBES_H
#define _LINUX_UPROBES_H
/*
 * User-space probes: breakpoints in user text, keyed by (inode, offset),
 * or by (process, address) in code that has no file.
 *
 * A kernel user (trace_uprobe, perf, BPF, a module) attaches a struct
 * uprobe_consumer to a place in a file with uprobe_register().  Every
 * process that maps that place, now or later, gets a breakpoint there in
 * its private copy of the page, subject to the consumers' filters, and
 * each hit runs the consumers' handlers in the context of the task that
 * hit it.  A return probe (ret_handler) also runs when the probed
 * function returns.  uprobe_register_pid() names a place by process and
 * address instead: in a file's mapping it is the file's probe for that
 * process alone, in anonymous executable memory (code a JIT wrote) a
 * breakpoint in that process's own page.  Called from a handler, the
 * register and unregister calls finish once the hit's handlers have run.
 *
 * The first half of this file is the contract with the rest of the
 * kernel; the second half, under CONFIG_UPROBES, is the interface between
 * the generic core (kernel/events/uprobes/) and the architecture.
 */

#include <linux/err.h>
#include <linux/errno.h>
#include <linux/list.h>
#include <linux/types.h>

struct inode;
struct mm_struct;
struct notifier_block;
struct page;
struct pid;
struct pt_regs;
struct seq_file;
struct stub_site;
struct task_struct;
struct uprobe;
struct uprobe_deferred;
struct vm_area_struct;

/**
 * enum uprobe_notice - what a consumer's notify() is told
 * @UPROBE_NOTICE_REGISTERED: a registration called from a handler (which
 *	returned -EINPROGRESS) is over; @err is what the call would have
 *	returned, 0 or a -errno, and @uprobe the probe when it is 0
 * @UPROBE_NOTICE_UNREGISTERED: an uprobe_unregister_nosync() called from
 *	a handler is over; @err is 0
 * @UPROBE_NOTICE_LOST: a probe by address in anonymous memory lost its
 *	place, and will not be hit again: @err is -ESRCH (the process exited
 *	or exec'd), -ENXIO (the memory was unmapped or moved) or -ESTALE
 *	(the program rewrote the probed instruction).  The consumer still
 *	unregisters.
 */
enum uprobe_notice {
	UPROBE_NOTICE_REGISTERED,
	UPROBE_NOTICE_UNREGISTERED,
	UPROBE_NOTICE_LOST,
};

/**
 * enum uprobe_refusal - why an instruction cannot be probed, by class
 * @UPROBE_REFUSED_NONE: not refused, or refused for no class the
 *	architecture tells
 * @UPROBE_REFUSED_UNDECODABLE: the bytes are no instruction of the code's
 *	mode
 * @UPROBE_REFUSED_TRAP: an instruction that traps on purpose (int3, int n)
 * @UPROBE_REFUSED_SYSCALL: a system call or return instruction
 * @UPROBE_REFUSED_PRIVILEGED: a privileged or I/O instruction
 * @UPROBE_REFUSED_FAR: a far branch, a far return or an interrupt return
 * @UPROBE_REFUSED_SEGMENT: a load of a segment register
 * @UPROBE_REFUSED_ENCODING: a prefix or an encoding that the architecture
 *	cannot run out of line or emulate
 * @UPROBE_REFUSED_MODE: code of a mode the kernel does not probe
 * @UPROBE_REFUSED_EXCLUSIVE: an exclusive load or store (a breakpoint
 *	between the load and its store would make the store fail every time)
 * @UPROBE_REFUSED_SYSTEM: an access to a system register, or a system
 *	instruction
 * @UPROBE_REFUSED_PC_RELATIVE: an instruction that reads the pc, which the
 *	architecture does not emulate
 * @UPROBE_REFUSED_OTHER: another instruction the architecture can neither
 *	run out of line nor emulate
 *
 * The architecture tells the class of an instruction its analysis refused
 * (arch_uprobe_refusal()); the core gives it to the consumer whose
 * registration failed on it (uprobe_consumer.refused), for its user.
 */
enum uprobe_refusal {
	UPROBE_REFUSED_NONE,
	UPROBE_REFUSED_UNDECODABLE,
	UPROBE_REFUSED_TRAP,
	UPROBE_REFUSED_SYSCALL,
	UPROBE_REFUSED_PRIVILEGED,
	UPROBE_REFUSED_FAR,
	UPROBE_REFUSED_SEGMENT,
	UPROBE_REFUSED_ENCODING,
	UPROBE_REFUSED_MODE,
	UPROBE_REFUSED_EXCLUSIVE,
	UPROBE_REFUSED_SYSTEM,
	UPROBE_REFUSED_PC_RELATIVE,
	UPROBE_REFUSED_OTHER,
};

/* A handler's return value: take this probe out of the current mm. */
#define UPROBE_HANDLER_REMOVE	1
#define UPROBE_HANDLER_MASK	1

/**
 * struct uprobe_consumer - one user of a probe
 * @handler: runs at every hit, before the probed instruction, in the
 *	context of the task that hit it; it may sleep, and may change @regs.
 *	Returning UPROBE_HANDLER_REMOVE asks for the breakpoint to be taken
 *	out of this task's mm, which happens when every consumer's handler
 *	asks so and no consumer's @filter still wants the mm.
 * @ret_handler: runs when the function entered at the probe returns;
 *	@func is the probed address, @regs the state at the return.
 * @filter: says whether the consumer wants the probe armed in @mm; no
 *	filter means every mm.  Called with locks held: must not sleep on
 *	anything the probe's owner may hold.
 * @notify: optional; told what enum uprobe_notice lists, in the context
 *	of a task (the one whose handler asked, or a worker), never with
 *	locks of the core held: it may register and unregister.
 * @no_jump: the probe is entered by its breakpoint only, never by a jump
 *	to a stub, while this consumer is on it: for code that may branch
 *	into the middle of the probed instruction (a jump rewrites its first
 *	five bytes, the breakpoint only the first).
 * @refused: set by a registration of this consumer that failed because
 *	the probed instruction cannot be probed: its class, else
 *	UPROBE_REFUSED_NONE.
 * @cons_node: the probe's list of consumers; owned by the core.
 * @mm: the process a consumer of uprobe_register_pid() is for (a
 *	reference, mmgrab()); owned by the core.
 * @leaving: an unregistration from a handler is under way: no handler of
 *	the consumer runs any more; owned by the core.
 * @cred: the credentials of the task that registered a consumer with a
 *	@notify, which a notify() run by a worker has (a reference); owned
 *	by the core.
 *
 * The handlers of one probe run in the order the consumers registered.
 */
struct uprobe_consumer {
	int (*handler)(struct uprobe_consumer *self, struct pt_regs *regs);
	int (*ret_handler)(struct uprobe_consumer *self, unsigned long func,
			   struct pt_regs *regs);
	bool (*filter)(struct uprobe_consumer *self, struct mm_struct *mm);
	void (*notify)(struct uprobe_consumer *self, struct uprobe *uprobe,
		       enum uprobe_notice what, int err);
	bool no_jump;
	enum uprobe_refusal refused;

	struct list_head cons_node;
	struct mm_struct *mm;
	bool leaving;
	const struct cred *cred;
};

/**
 * struct uprobe_batch_item - one place of a batch (uprobe_register_batch())
 * @offset: the place: an offset in the batch's file
 * @ref_ctr_offset: offset of its SDT semaphore, or 0
 * @uc: its consumer
 * @uprobe: where the probe is kept, for uprobe_unregister_batch()
 */
struct uprobe_batch_item {
	loff_t offset;
	loff_t ref_ctr_offset;
	struct uprobe_consumer *uc;
	struct uprobe **uprobe;
};

/* Fills in @item with the @i-th place of a batch; @ctx is the caller's. */
typedef void (*uprobe_batch_fn)(void *ctx, u32 i, struct uprobe_batch_item *item);

/* What uprobe_get_trampoline_vaddr() gives in an mm with no XOL area. */
#define UPROBE_NO_TRAMPOLINE_VADDR	(-1UL)

/* Pending return probes one task may stack before new ones are dropped. */
#define MAX_URETPROBE_DEPTH	64

#ifdef CONFIG_UPROBES
#include <asm/uprobes.h>

/**
 * enum uprobe_task_state - where a task is in handling a hit
 * @UPROBE_TASK_RUNNING: not in a step (handlers may be running)
 * @UPROBE_TASK_STEPPING: single-stepping the probed instruction in a slot
 * @UPROBE_TASK_STEPPED: the step trap came; fixups are due on return to user
 * @UPROBE_TASK_STEP_ABANDON: the stepped instruction trapped, or a fatal
 *	signal came: the step is to be undone
 * @UPROBE_TASK_FINISHING: a signal found the task at the copy in its own
 *	slot; the signal waits while the task runs the copy to a breakpoint
 *	put after it
 * @UPROBE_TASK_STUB_STEPPING: a signal found the task at the copy in a
 *	stub; the signal waits while the task is stepped over the copy
 *
 * Transitions: RUNNING -> STEPPING (a step starts), STEPPING -> STEPPED
 * (the step trap), STEPPING -> STEP_ABANDON (a trap or a fatal signal
 * while stepping), STEPPED/STEP_ABANDON -> RUNNING, and RUNNING ->
 * FINISHING -> RUNNING (the breakpoint after the copy, a trap in the copy,
 * or a fatal signal), and RUNNING -> STUB_STEPPING -> RUNNING (likewise,
 * the step trap for the breakpoint).  The core's utask_set_state() checks
 * them.
 */
enum uprobe_task_state {
	UPROBE_TASK_RUNNING,
	UPROBE_TASK_STEPPING,
	UPROBE_TASK_STEPPED,
	UPROBE_TASK_STEP_ABANDON,
	UPROBE_TASK_FINISHING,
	UPROBE_TASK_STUB_STEPPING,
	/* The name sparc's arch_uprobe_post_xol() knows the step trap by. */
	UTASK_SSTEP_ACK = UPROBE_TASK_STEPPED,
};

/**
 * struct return_instance - a pending return probe of one task
 * @uprobe: the probe whose function was entered (a reference is held)
 * @func: the probed address
 * @stack: the stack pointer at entry, where the return address lay
 * @orig_ret_vaddr: the return address the trampoline replaced
 * @chained: entered by a tail call from a function with a pending return
 *	probe: it returns through the same stack slot as the next instance
 * @next: the next older instance
 *
 * perf walks @next and reads @orig_ret_vaddr to show real return
 * addresses in user callchains.
 */
struct return_instance {
	struct uprobe *uprobe;
	unsigned long func;
	unsigned long stack;
	unsigned long orig_ret_vaddr;
	bool chained;
	struct return_instance *next;
};

/**
 * struct uprobe_task - per-task state, made at the task's first hit
 * @state: see enum uprobe_task_state
 * @active_uprobe: the probe being stepped (a reference is held)
 * @auprobe: the instruction being handled, while handlers run and while
 *	it is stepped; perf reads it
 * @vaddr: while a handler runs, free for the consumers (trace_uprobe and
 *	BPF keep their dispatch data there); while the instruction is
 *	stepped, the probed address, which the architecture reads
 * @xol_vaddr: the XOL slot in use while stepping, or 0; while
 *	STUB_STEPPING, the copy in the stub
 * @autask: architecture state kept across a step
 * @own_slot: the XOL slot this task keeps for instructions that run out of
 *	line without a step (a copy, then a jump back), or 0
 * @own_bp_vaddr: the probed address of the copy in @own_slot
 * @own_len: the length of that instruction
 * @own_end: while FINISHING, the byte of the jump back that the breakpoint
 *	after the copy replaced
 * @return_instances: pending return probes, newest first
 * @depth: the number of @return_instances
 * @spare_returns: return_instances kept for the next return probes of
 *	the task, so that a hit allocates none (at most UPROBE_SPARE_RETURNS)
 * @nr_spare: the number of @spare_returns
 * @in_callback: how deep the task is in handlers (or a worker in notify()
 *	calls): register and unregister calls are then queued
 * @deferred: the calls queued, oldest first
 * @deferred_work: runs them on the way back to user mode
 */
struct uprobe_task {
	enum uprobe_task_state state;
	struct uprobe *active_uprobe;
	struct arch_uprobe *auprobe;
	unsigned long vaddr;
	unsigned long xol_vaddr;
	struct arch_uprobe_task autask;
	unsigned long own_slot;
	unsigned long own_bp_vaddr;
	unsigned int own_len;
	u8 own_end;

	struct return_instance *return_instances;
	unsigned int depth;
	struct return_instance *spare_returns;
	unsigned int nr_spare;

	unsigned int in_callback;
	struct uprobe_deferred *deferred;
	struct callback_head deferred_work;
};

struct xol_area;

/**
 * struct uprobes_state - per-mm state
 * @xol_area: the XOL area, made at the first hit that needs it
 * @nr_anon: the live probes by address in the mm's anonymous memory
 *	(uprobe_register_pid()); the mm's hooks do nothing while it is 0
 */
struct uprobes_state {
	struct xol_area *xol_area;
	atomic_t nr_anon;
};

/* The contract with the rest of the kernel. */
struct uprobe *uprobe_register(struct inode *inode, loff_t offset,
			       loff_t ref_ctr_offset, struct uprobe_consumer *uc);
int uprobe_register_batch(struct inode *inode, u32 cnt, uprobe_batch_fn item, void *ctx);
struct uprobe *uprobe_register_pid(struct pid *pid, unsigned long vaddr,
				   struct uprobe_consumer *uc);
int uprobe_apply(struct uprobe *uprobe, struct uprobe_consumer *uc, bool add);
void uprobe_unregister_nosync(struct uprobe *uprobe, struct uprobe_consumer *uc);
void uprobe_unregister_batch(u32 cnt, uprobe_batch_fn item, void *ctx);
void uprobe_unregister_sync(void);
unsigned long uprobe_unregister_start_sync(void);
bool uprobe_unregister_synced(unsigned long cookie);

void __init uprobes_init(void);
int uprobe_mmap(struct vm_area_struct *vma);
void uprobe_munmap(struct vm_area_struct *vma, unsigned long start, unsigned long end);
void uprobe_munmap_prepare(struct mm_struct *mm, unsigned long start, unsigned long end);
int uprobe_proc_show(struct seq_file *m, struct task_struct *task);
void uprobe_mremap(struct vm_area_struct *vma, unsigned long start, unsigned long end);
void uprobe_mprotect(struct mm_struct *mm, unsigned long start, unsigned long end);
void uprobe_mprotect_write(struct mm_struct *mm, unsigned long start, unsigned long end);
int uprobe_foreign_write(struct mm_struct *mm, unsigned long addr, unsigned long len);
void uprobe_foreign_read(struct mm_struct *mm, unsigned long addr, void *buf,
			 unsigned long len);
bool uprobe_foreign_read_masks(struct mm_struct *mm, unsigned long addr, unsigned long len);
void uprobe_start_dup_mmap(void);
void uprobe_end_dup_mmap(void);
void uprobe_dup_mmap(struct mm_struct *oldmm, struct mm_struct *newmm);
int uprobe_dup_mmap_copied(struct mm_struct *oldmm, struct mm_struct *newmm);
bool uprobe_anon_busy(struct vm_area_struct *vma, unsigned long start, unsigned long end);
void uprobe_copy_process(struct task_struct *t, unsigned long flags);
void uprobe_free_utask(struct task_struct *t);
void uprobe_clear_state(struct mm_struct *mm);
void uprobe_notify_resume(struct pt_regs *regs);
bool uprobe_deny_signal(void);
unsigned long uprobe_get_trap_addr(struct pt_regs *regs);
unsigned long uprobe_get_trampoline_vaddr(void);
unsigned long uprobe_rseq_ip(struct pt_regs *regs);
int uprobe_rseq_abort(struct pt_regs *regs);

/* What the core offers the architecture. */
bool uprobe_pre_sstep_notifier(struct pt_regs *regs);
bool uprobe_post_sstep_notifier(struct pt_regs *regs);
void uprobe_handle_trampoline(struct pt_regs *regs);
int uprobe_write_opcode(struct arch_uprobe *auprobe, struct mm_struct *mm,
			unsigned long vaddr, uprobe_opcode_t opcode);

/*
 * The architecture contract.
 *
 * Every architecture that selects ARCH_SUPPORTS_UPROBES provides
 * <asm/uprobes.h> with uprobe_opcode_t, UPROBE_SWBP_INSN (the breakpoint,
 * UPROBE_SWBP_INSN_SIZE bytes), UPROBE_XOL_SLOT_BYTES, struct arch_uprobe
 * with the arrays insn (the core fills it with that many bytes of the file
 * from the probed offset, zero past its end) and ixol (what the core
 * copies into an XOL slot to be stepped), and struct arch_uprobe_task
 * (current->utask->autask, the architecture's own, may be empty).  Its
 * traps call uprobe_pre_sstep_notifier() for a breakpoint and
 * uprobe_post_sstep_notifier() for the step after a stepped copy, either
 * directly or from arch_uprobe_exception_notify(), which the core puts on
 * the die chain; both only flag the task, which calls
 * uprobe_notify_resume() on its way back to user mode (TIF_UPROBE).
 *
 * The generic path of a hit, which every architecture gets: the
 * breakpoint's address is uprobe_get_swbp_addr(); arch_uprobe_ignore()
 * may skip the hit altogether (a condition that fails); the handlers run;
 * then arch_uprobe_skip_sstep() carries the instruction out if it can,
 * with no step, or the core copies @ixol into an XOL slot with
 * arch_uprobe_copy_ixol(), sets current->utask->xol_vaddr (the slot) and
 * ->vaddr (the probed address), and calls arch_uprobe_pre_xol(), which
 * makes the task step the copy there.  The step's trap comes back as
 * arch_uprobe_post_xol(), which moves the registers to where the original
 * would have left them; arch_uprobe_abort_xol() instead undoes the step
 * (a fatal signal, or arch_uprobe_xol_was_trapped(): the copy itself
 * faulted) and points the task back at the breakpoint.  A return probe
 * has arch_uretprobe_hijack_return_addr() put the trampoline (the code
 * arch_uprobe_trampoline() gives, in slot 0 of the XOL area) in place of
 * the return address; arch_uretprobe_is_alive() tells the core which
 * pending returns a longjmp() left behind.
 *
 * Required, called in the task, may sleep unless said otherwise:
 *   arch_uprobe_analyze_insn()	once per probe, before its first breakpoint:
 *				0, or a -errno that refuses the probe
 *   arch_uprobe_skip_sstep()	true if it carried the instruction out
 *   arch_uprobe_pre_xol()	0, else the hit is given up and restarted
 *   arch_uprobe_post_xol()	0, else the task gets SIGILL
 *   arch_uprobe_abort_xol()	back at current->utask->vaddr
 *   arch_uprobe_xol_was_trapped()	may be called from signal delivery
 *   arch_uprobe_exception_notify()	a die notifier: atomic context
 *   arch_uretprobe_hijack_return_addr()	the old return address, or -1UL
 *					when it could not be replaced
 * Optional, the core's __weak default serves when not defined:
 *   uprobe_get_swbp_addr()	default: the ip less UPROBE_SWBP_INSN_SIZE
 *   arch_uprobe_ignore()	default: false
 *   arch_uprobe_copy_ixol()	default: copy, then flush_dcache_page();
 *				@vaddr 0 for the trampoline
 *   arch_uprobe_trampoline()	default: one UPROBE_SWBP_INSN
 *   arch_uretprobe_is_alive()	default: the stack pointer is below the
 *				one at entry (or the same, for a chained call)
 *   is_swbp_insn(), is_trap_insn()	default: UPROBE_SWBP_INSN
 *   arch_uprobe_xol_vaddr()	default: anywhere in the mm
 *   arch_uprobe_sync_mm()	default: nothing (CPUs see new text by the
 *				architecture's cache rules)
 *   arch_uprobe_insn_len()	default: UPROBE_SWBP_INSN_SIZE (the length of
 *				the analysed instruction, for probes in
 *				anonymous memory, whose code may be rewritten)
 *   arch_uprobe_review_insn()	default: the verdict of
 *				arch_uprobe_analyze_insn() stands (not asked
 *				with ARCH_UPROBES_COMPAT)
 *   arch_uprobe_refusal()	default: UPROBE_REFUSED_NONE (the class of an
 *				instruction the analysis refused, told by the
 *				tracer)
 *   arch_uprobe_exec_name()	default: "step" (how a hit carries the
 *				instruction out, for /proc/PID/uprobes)
 *   arch_uprobe_anon_swbp()	default: UPROBE_SWBP_INSN (the breakpoint
 *				of probes in anonymous memory; one that
 *				programs do not write, where the architecture
 *				has one, traps through the same notifier and
 *				leaves the same ip)
 * arm's set_swbp() writes a breakpoint with the instruction's condition
 * through uprobe_write_opcode(); this core writes UPROBE_SWBP_INSN (in
 * anonymous memory, arch_uprobe_anon_swbp()), and tells a breakpoint by
 * is_swbp_insn().
 *
 * Optional groups, which an architecture selects in Kconfig (x86-64
 * selects all four, 32-bit x86 the first two), each described where it is
 * declared below:
 *   ARCH_UPROBES_COMPAT	tasks that run code of another mode (32-bit)
 *   ARCH_UPROBES_DIRECT	a copy run out of line without a step
 *   ARCH_UPROBES_JUMPS		jumps to stubs in place of breakpoints
 *   ARCH_UPROBES_RETURN_SYSCALL	a trampoline that is a syscall
 */

/**
 * enum rp_check - where arch_uretprobe_is_alive() is asked
 * @RP_CHECK_CALL: at the entry of a function with a return probe
 * @RP_CHECK_CHAIN_CALL: the same, entered by a tail call from a function
 *	whose return is pending (its return address is the trampoline)
 * @RP_CHECK_RET: at the trampoline, when a function returned
 */
enum rp_check {
	RP_CHECK_CALL,
	RP_CHECK_CHAIN_CALL,
	RP_CHECK_RET,
};

int arch_uprobe_analyze_insn(struct arch_uprobe *auprobe, struct mm_struct *mm,
			     unsigned long addr);
bool arch_uprobe_skip_sstep(struct arch_uprobe *auprobe, struct pt_regs *regs);
int arch_uprobe_pre_xol(struct arch_uprobe *auprobe, struct pt_regs *regs);
int arch_uprobe_post_xol(struct arch_uprobe *auprobe, struct pt_regs *regs);
void arch_uprobe_abort_xol(struct arch_uprobe *auprobe, struct pt_regs *regs);
bool arch_uprobe_xol_was_trapped(struct task_struct *t);
int arch_uprobe_exception_notify(struct notifier_block *self, unsigned long val,
				 void *data);
unsigned long arch_uretprobe_hijack_return_addr(unsigned long trampoline_vaddr,
						struct pt_regs *regs);

unsigned long uprobe_get_swbp_addr(struct pt_regs *regs);
bool arch_uprobe_ignore(struct arch_uprobe *auprobe, struct pt_regs *regs);
void arch_uprobe_copy_ixol(struct page *page, unsigned long vaddr, void *src,
			   unsigned long len);
void *arch_uprobe_trampoline(unsigned long *psize);
bool arch_uretprobe_is_alive(struct return_instance *ret, enum rp_check ctx,
			     struct pt_regs *regs);
bool is_swbp_insn(uprobe_opcode_t *insn);
bool is_trap_insn(uprobe_opcode_t *insn);
unsigned long arch_uprobe_xol_vaddr(struct mm_struct *mm, unsigned long len);
void arch_uprobe_sync_mm(struct mm_struct *mm);
unsigned int arch_uprobe_insn_len(struct arch_uprobe *auprobe);
int arch_uprobe_review_insn(struct arch_uprobe *auprobe, struct mm_struct *mm,
			    unsigned long vaddr, int err);
enum uprobe_refusal arch_uprobe_refusal(struct arch_uprobe *auprobe, int err);
const char *arch_uprobe_exec_name(struct arch_uprobe *auprobe);
uprobe_opcode_t arch_uprobe_anon_swbp(struct mm_struct *mm);
int set_swbp(struct arch_uprobe *auprobe, struct mm_struct *mm, unsigned long vaddr);

/*
 * ARCH_UPROBES_COMPAT: an mm may run code of another mode than the
 * kernel's (x86: 32-bit).  arch_uprobe_is_compat() says whether @mm
 * does; the core decides the mode of a probe from its file (an ELF file
 * of the other mode's machine) or the mm it is read in, never arms it in
 * an mm of the other mode, and has it analysed by
 * arch_uprobe_analyze_compat(), in place of arch_uprobe_analyze_insn(),
 * even before any process maps it.
 */
#ifdef CONFIG_ARCH_UPROBES_COMPAT
bool arch_uprobe_is_compat(struct mm_struct *mm);
int arch_uprobe_analyze_compat(struct arch_uprobe *auprobe, bool compat);
#else
static inline bool arch_uprobe_is_compat(struct mm_struct *mm)
{
	return false;
}

static inline int arch_uprobe_analyze_compat(struct arch_uprobe *auprobe, bool compat)
{
	return -EOPNOTSUPP;
}
#endif

/*
 * ARCH_UPROBES_DIRECT: an instruction that needs no fixup but its ip runs
 * out of line without a step.  arch_uprobe_runs_direct() says whether
 * @auprobe's does, for this task; arch_uprobe_xol_direct() then writes to
 * @code (UPROBE_XOL_SLOT_BYTES) what does so at @slot: a copy, then a jump
 * to the next instruction; its length, or 0 when the instruction (or the
 * task, traced by a debugger) needs a step.  *@insn_len gets the length of
 * the copied instruction.  arch_uprobe_watch_traps() makes
 * arch_uprobe_xol_was_trapped() tell whether the task traps from now on,
 * for such a copy; arch_uprobe_unwatch_traps() ends that.
 */
#ifdef CONFIG_ARCH_UPROBES_DIRECT
bool arch_uprobe_runs_direct(struct arch_uprobe *auprobe, struct pt_regs *regs);
size_t arch_uprobe_xol_direct(struct arch_uprobe *auprobe, struct pt_regs *regs,
			      unsigned long bp_vaddr, unsigned long slot,
			      u8 *code, size_t *insn_len);
void arch_uprobe_watch_traps(struct arch_uprobe_task *autask);
void arch_uprobe_unwatch_traps(struct arch_uprobe_task *autask);
#else
static inline bool arch_uprobe_runs_direct(struct arch_uprobe *auprobe,
					   struct pt_regs *regs)
{
	return false;
}

static inline size_t arch_uprobe_xol_direct(struct arch_uprobe *auprobe,
					    struct pt_regs *regs, unsigned long bp_vaddr,
					    unsigned long slot, u8 *code, size_t *insn_len)
{
	return 0;
}

static inline void arch_uprobe_watch_traps(struct arch_uprobe_task *autask)
{
}

static inline void arch_uprobe_unwatch_traps(struct arch_uprobe_task *autask)
{
}
#endif

/*
 * ARCH_UPROBES_JUMPS: a hit probe may get a jump to a stub in place of its
 * breakpoint (kernel/events/uprobes/jumps.c).  <asm/uprobes.h> gives
 * UPROBE_JUMP_BYTES, UPROBE_STUB_BYTES, UPROBE_STUB_COPY and struct
 * arch_uprobe_stub_saved.
 *
 * arch_uprobe_can_jump() says whether a hit probe may be given a jump to
 * a stub (UPROBE_JUMP_BYTES at the probed address, arch_uprobe_jump())
 * in place of its breakpoint, for a task (its registers held, the task
 * possibly not the current one); arch_uprobe_jump_target() reads such a
 * jump back; arch_uprobe_pun_window() gives where a jump over an
 * instruction shorter than it may lead without a change to the bytes
 * after it (none: no such jump).  arch_uprobe_stub_code() is the code of
 * a stub, which enters the kernel by the uprobe syscall
 * (-> uprobe_stub_hit(), or uprobe_stub_site_hit() for the site that
 * uprobe_stub_site() found, which has arch_uprobe_stub_enter() put back
 * what the stub saved), and may hold a copy of the instruction at
 * UPROBE_STUB_COPY; a stub lies within arch_uprobe_stub_reach() bytes of
 * its probed address.
 * arch_uprobe_stub_exit() sends a task back out through one of its stub's
 * own ways out, when it can: the straight one, which leads to the copy or,
 * with no copy, to the next instruction, or the other, which leads
 * anywhere.  An architecture whose stubs save nothing and have no way out
 * of their own may give these two as static inline functions in
 * <asm/uprobes.h>, each with a #define of its name, which the hit then
 * calls for nothing.  arch_uprobe_stub_unwind() undoes what a stub did before its
 * syscall, and arch_uprobe_stub_leave() finishes a way out, for a signal
 * that comes then.  arch_uprobe_step_copy() sets a task at a stub's copy
 * to be stepped over it, arch_uprobe_step_copy_end() undoes that.  The
 * architecture's step trap calls uprobe_stub_step_trap() too, and its
 * syscall entry uprobe_syscall_entry() (x86) or, at an svc, the two
 * above (arm64).
 */
#ifdef CONFIG_ARCH_UPROBES_JUMPS
struct stub_site *uprobe_stub_site(unsigned long addr);
void uprobe_stub_site_hit(struct pt_regs *regs, struct stub_site *site);
bool uprobe_stub_hit(struct pt_regs *regs, unsigned long stub);
bool uprobe_stub_step_trap(struct pt_regs *regs);
bool uprobe_syscall_entry(struct pt_regs *regs);

bool arch_uprobe_can_jump(struct arch_uprobe *auprobe, struct task_struct *task,
			  struct pt_regs *regs);
size_t arch_uprobe_stub_code(struct arch_uprobe *auprobe, unsigned long vaddr,
			     unsigned long stub, u8 *code, size_t *copy_len);
void arch_uprobe_jump(unsigned long vaddr, unsigned long stub, u8 *code);
unsigned long arch_uprobe_jump_target(const u8 *code, unsigned long vaddr);
bool arch_uprobe_pun_window(unsigned long vaddr, unsigned int len, const u8 *code,
			    unsigned long *lo, unsigned long *hi);
unsigned long arch_uprobe_stub_reach(void);
bool arch_uprobe_stub_unwind(struct pt_regs *regs, unsigned long offset);
#ifndef arch_uprobe_stub_enter
bool arch_uprobe_stub_enter(struct pt_regs *regs, struct arch_uprobe_stub_saved *saved);
#endif
#ifndef arch_uprobe_stub_exit
bool arch_uprobe_stub_exit(struct pt_regs *regs, unsigned long stub,
			   const struct arch_uprobe_stub_saved *saved, unsigned long straight);
#endif
bool arch_uprobe_stub_leave(struct pt_regs *regs, unsigned long offset, unsigned long straight);
void arch_uprobe_step_copy(struct arch_uprobe_task *autask, struct pt_regs *regs);
void arch_uprobe_step_copy_end(struct arch_uprobe_task *autask, struct pt_regs *regs);
#else
static inline struct stub_site *uprobe_stub_site(unsigned long addr)
{
	return NULL;
}

static inline void uprobe_stub_site_hit(struct pt_regs *regs, struct stub_site *site)
{
}

static inline bool uprobe_stub_step_trap(struct pt_regs *regs)
{
	return false;
}

static inline bool uprobe_syscall_entry(struct pt_regs *regs)
{
	return false;
}
#endif

/*
 * ARCH_UPROBES_RETURN_SYSCALL: the trampoline enters the kernel by a
 * syscall, which the architecture sends to uprobe_handle_trampoline();
 * arch_uretprobe_leave() finishes the trampoline's way out, for a signal
 * that comes then, and the architecture's uprobe_own_syscall() tells that
 * syscall to syscall user dispatch.
 */
#ifdef CONFIG_ARCH_UPROBES_RETURN_SYSCALL
bool arch_uretprobe_leave(struct pt_regs *regs, unsigned long tramp);
bool uprobe_own_syscall(struct pt_regs *regs);
#else
static inline bool arch_uretprobe_leave(struct pt_regs *regs, unsigned long tramp)
{
	return false;
}

static inline bool uprobe_own_syscall(struct pt_regs *regs)
{
	return false;
}
#endif

#else /* !CONFIG_UPROBES */
#include <asm/ptrace.h>

struct uprobes_state {
};

static inline struct uprobe *
uprobe_register(struct inode *inode, loff_t offset, loff_t ref_ctr_offset,
		struct uprobe_consumer *uc)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static inline int uprobe_register_batch(struct inode *inode, u32 cnt,
					uprobe_batch_fn item, void *ctx)
{
	return -EOPNOTSUPP;
}

static inline struct uprobe *uprobe_register_pid(struct pid *pid, unsigned long vaddr,
						 struct uprobe_consumer *uc)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static inline int uprobe_apply(struct uprobe *uprobe, struct uprobe_consumer *uc,
			       bool add)
{
	return -EOPNOTSUPP;
}

static inline void uprobe_unregister_batch(u32 cnt, uprobe_batch_fn item, void *ctx)
{
}

static inline void uprobe_unregister_nosync(struct uprobe *uprobe,
					    struct uprobe_consumer *uc)
{
}

static inline void uprobe_unregister_sync(void)
{
}

static inline unsigned long uprobe_unregister_start_sync(void)
{
	return 0;
}

static inline bool uprobe_unregister_synced(unsigned long cookie)
{
	return true;
}

static inline void uprobes_init(void)
{
}

static inline int uprobe_mmap(struct vm_area_struct *vma)
{
	return 0;
}

static inline void uprobe_munmap(struct vm_area_struct *vma, unsigned long start,
				 unsigned long end)
{
}

static inline void uprobe_mremap(struct vm_area_struct *vma, unsigned long start,
				 unsigned long end)
{
}

static inline void uprobe_mprotect(struct mm_struct *mm, unsigned long start,
				   unsigned long end)
{
}

static inline void uprobe_munmap_prepare(struct mm_struct *mm, unsigned long start,
					 unsigned long end)
{
}

static inline int uprobe_proc_show(struct seq_file *m, struct task_struct *task)
{
	return 0;
}

static inline void uprobe_mprotect_write(struct mm_struct *mm, unsigned long start,
					 unsigned long end)
{
}

static inline int uprobe_foreign_write(struct mm_struct *mm, unsigned long addr,
				       unsigned long len)
{
	return 0;
}

static inline void uprobe_foreign_read(struct mm_struct *mm, unsigned long addr,
				       void *buf, unsigned long len)
{
}

static inline bool uprobe_foreign_read_masks(struct mm_struct *mm, unsigned long addr,
					     unsigned long len)
{
	return false;
}

static inline void uprobe_start_dup_mmap(void)
{
}

static inline void uprobe_end_dup_mmap(void)
{
}

static inline void uprobe_dup_mmap(struct mm_struct *oldmm, struct mm_struct *newmm)
{
}

static inline int uprobe_dup_mmap_copied(struct mm_struct *oldmm, struct mm_struct *newmm)
{
	return 0;
}

static inline bool uprobe_anon_busy(struct vm_area_struct *vma, unsigned long start,
				    unsigned long end)
{
	return false;
}

static inline void uprobe_copy_process(struct task_struct *t, unsigned long flags)
{
}

static inline void uprobe_free_utask(struct task_struct *t)
{
}

static inline void uprobe_clear_state(struct mm_struct *mm)
{
}

static inline void uprobe_notify_resume(struct pt_regs *regs)
{
}

static inline bool uprobe_deny_signal(void)
{
	return false;
}

static inline bool uprobe_own_syscall(struct pt_regs *regs)
{
	return false;
}

static inline unsigned long uprobe_get_trap_addr(struct pt_regs *regs)
{
	return instruction_pointer(regs);
}

static inline unsigned long uprobe_rseq_ip(struct pt_regs *regs)
{
	return instruction_pointer(regs);
}

static inline int uprobe_rseq_abort(struct pt_regs *regs)
{
	return 0;
}

static inline bool uprobe_syscall_entry(struct pt_regs *regs)
{
	return false;
}

static inline struct stub_site *uprobe_stub_site(unsigned long addr)
{
	return NULL;
}

static inline void uprobe_stub_site_hit(struct pt_regs *regs, struct stub_site *site)
{
}

#endif /* CONFIG_UPROBES */
#endif /* _LINUX_UPROBES_H */
