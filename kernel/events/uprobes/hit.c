// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprobes core, hits: from the breakpoint's trap or a stub's syscall to
 * the consumers' handlers, then the probed instruction carried out
 * (emulated, run directly from the task's own slot, or stepped), with the
 * signals that land meanwhile held or sent as at the probed address.
 * A hit holds uprobes_srcu from the lookup to its end and takes no
 * reference on the probe (see core.c for what keeps what alive).
 */

#include "internal.h"

/*
 * The probe at @vaddr of @vma, if it is a mapping a probe can be hit in.
 * The VMA may be read without mmap_lock: each field is read once.
 */
static struct uprobe *find_vma_uprobe(struct vm_area_struct *vma, unsigned long vaddr)
{
	struct file *file = READ_ONCE(vma->vm_file);

	if (!file)
		return find_anon_uprobe(vma, vaddr);
	if (!valid_vm_flags(READ_ONCE(vma->vm_flags), false))
		return NULL;
	return find_uprobe_srcu(file_inode(file), NULL, vaddr_to_offset(vma, vaddr));
}

/*
 * The probe at @vaddr of @mm looked up without mmap_lock: the VMA is read
 * under RCU (VMAs and files are freed after a grace period), and what was
 * read is kept only if no writer of the mappings started or ended
 * meanwhile (mm_lock_seq).  False when that cannot be told.
 */
static bool find_uprobe_speculative(struct mm_struct *mm, unsigned long vaddr,
				    struct uprobe **found)
{
#ifdef CONFIG_PER_VMA_LOCK
	struct vm_area_struct *vma;
	unsigned int seq;
	bool sure;

	rcu_read_lock();
	seq = raw_read_seqcount(&mm->mm_lock_seq);
	if (seq & 1) {
		rcu_read_unlock();
		return false;
	}
	vma = vma_lookup(mm, vaddr);
	*found = vma ? find_vma_uprobe(vma, vaddr) : NULL;
	sure = !read_seqcount_retry(&mm->mm_lock_seq, seq);
	rcu_read_unlock();
	return sure;
#else
	return false;
#endif
}

/*
 * The probe armed at @bp_vaddr of the current mm, without a reference
 * (the caller holds uprobes_srcu); NULL when there is none, with
 * *@opcode the instruction there now (zero if it cannot be read), for
 * no_probe_at().
 *
 * No probe is only believed under mmap_lock, with the byte read under
 * it too: every breakpoint is written and removed under mmap_lock, a
 * probe enters the tables before its breakpoints are written and leaves
 * after they are removed.  So a breakpoint seen there with no probe is
 * the program's own, not one of a probe registered since the lookup.
 */
static struct uprobe *find_active_uprobe(unsigned long bp_vaddr, uprobe_opcode_t *opcode)
{
	struct mm_struct *mm = current->mm;
	struct uprobe *uprobe = NULL;
	struct vm_area_struct *vma;

	if (find_uprobe_speculative(mm, bp_vaddr, &uprobe) && uprobe)
		return uprobe;
	mmap_read_lock(mm);
	vma = vma_lookup(mm, bp_vaddr);
	uprobe = vma ? find_vma_uprobe(vma, bp_vaddr) : NULL;
	if (!uprobe && read_mm_bytes(mm, bp_vaddr, opcode, UPROBE_SWBP_INSN_SIZE, NULL))
		memset(opcode, 0, sizeof(*opcode));
	mmap_read_unlock(mm);
	return uprobe;
}

/*
 * A trap at @bp_vaddr where no probe is, with @opcode there now: the
 * program's own breakpoint (SIGTRAP, as without uprobes), the breakpoint
 * of probes in anonymous memory where the program copied it (to the
 * program, the invalid instruction it is: SIGILL there), or a probe's
 * breakpoint taken out since the trap (the instruction runs again).
 */
static void no_probe_at(struct pt_regs *regs, unsigned long bp_vaddr, uprobe_opcode_t *opcode)
{
	if (is_trap_insn(opcode)) {
		force_sig(SIGTRAP);
		return;
	}
	instruction_pointer_set(regs, bp_vaddr);
	if (is_anon_swbp(current->mm, opcode))
		force_sig_fault(SIGILL, ILL_ILLOPN, (void __user *)bp_vaddr);
}

/*
 * Runs the entry handler of @uc, whose probe was hit: whether it asks to
 * be removed from this mm.
 */
static bool run_handler(struct uprobe_consumer *uc, struct pt_regs *regs, bool *want_ret)
{
	int rc = 0;

	if (uc->handler) {
		rc = uc->handler(uc, regs);
		WARN_ONCE(rc & ~UPROBE_HANDLER_MASK,
			  "uprobes: handler %ps returned %d\n", uc->handler, rc);
	}
	if (uc->ret_handler)
		*want_ret = true;
	return rc == UPROBE_HANDLER_REMOVE;
}

/*
 * Runs the entry handlers of @uprobe's consumers, in registration order;
 * true when each asked to be removed from this mm.  A consumer of another
 * process (uprobe_register_pid()), or one a handler unregistered, is
 * passed over: as one that asks so.  Only the consumers there when the
 * hit began run: the walk ends at the one that was last then (consumers
 * are added at the tail, and freed only after an SRCU grace period, so
 * the pointer cannot come back as another one).  A consumer that a
 * handler registers while another thread's hit runs its handlers thus
 * never runs in that hit after the handlers of the ones before it.  The
 * acquire pairs with attach_consumer()'s barrier: a hit that finds a
 * consumer last finds unregistered (leaving) those a handler unregistered
 * before registering it, so that a swap from a handler is never seen as
 * both consumers, on any CPU.
 */
static bool run_handlers(struct uprobe *uprobe, struct pt_regs *regs, bool *want_ret)
{
	struct uprobe_task *utask = current->utask;
	struct uprobe_consumer *uc;
	struct list_head *last;
	bool remove = true;

	/* Pairs with attach_consumer()'s smp_wmb(): see above. */
	last = smp_load_acquire(&uprobe->consumers.prev);
	if (last == &uprobe->consumers)
		return true;
	utask->auprobe = &uprobe->arch;
	enter_callbacks(utask);
	list_for_each_entry_srcu(uc, &uprobe->consumers, cons_node,
				 srcu_read_lock_held(&uprobes_srcu)) {
		if (consumer_runs(uc))
			remove &= run_handler(uc, regs, want_ret);
		if (&uc->cons_node == last)
			break;
	}
	leave_callbacks(utask);
	utask->auprobe = NULL;
	return remove;
}

/* The handlers asked the probe out of this mm: unless a filter keeps it. */
static void handlers_remove(struct uprobe *uprobe)
{
	struct mm_struct *mm = current->mm;

	down_read(&uprobe->register_rwsem);
	/*
	 * A probe out of the tables was disarmed everywhere by its last
	 * unregister, and its place may be a new probe's by now: leave it.
	 */
	if (uprobe_is_live(uprobe) && !any_consumer_wants(uprobe, mm))
		remove_from_mm(uprobe, mm);
	up_read(&uprobe->register_rwsem);
}

/*
 * An XOL slot holding @uprobe's instruction, for a step: the probe's slot,
 * else one taken for this step (handle_step() gives either back).  0 when
 * a fatal signal cut the wait for a slot short.
 */
static unsigned long step_slot(struct xol_area *area, struct uprobe *uprobe)
{
	const u8 *insn = (const u8 *)&uprobe->arch.ixol;
	size_t len = sizeof(uprobe->arch.ixol);
	unsigned long slot = 0;
	int index;
	unsigned long tag;

	index = uprobe_probe_slot(uprobe, &tag);
	if (index >= 0)
		slot = xol_probe_slot(area, index, tag, insn, len);
	if (slot)
		return slot;
	slot = xol_take_slot(area);
	if (slot)
		xol_write_slot(area, slot, insn, len);
	return slot;
}

/*
 * Sets the task up to step @uprobe's instruction in an XOL slot; the
 * step trap brings it back to handle_step().  False when it cannot
 * (no area, no slot): the hit is then given up and restarted.
 */
static bool start_step(struct uprobe *uprobe, struct pt_regs *regs, unsigned long bp_vaddr)
{
	struct uprobe_task *utask = current->utask;
	struct xol_area *area = get_xol_area();
	unsigned long slot;

	/* The step outlives the hit: it holds a reference. */
	if (!area || !try_get_uprobe(uprobe))
		return false;
	slot = step_slot(area, uprobe);
	if (!slot)
		goto put_uprobe;
	/* What the architecture reads. */
	utask->vaddr = bp_vaddr;
	utask->xol_vaddr = slot;
	if (arch_uprobe_pre_xol(&uprobe->arch, regs))
		goto free_slot;
	utask->active_uprobe = uprobe;
	utask_set_state(utask, UPROBE_TASK_STEPPING);
	return true;

free_slot:
	utask->xol_vaddr = 0;
	xol_free_slot(area, slot);
put_uprobe:
	put_uprobe(uprobe);
	return false;
}

/*
 * A hit of @uprobe at @bp_vaddr, the registers as at the probed
 * instruction: the handlers run, then the instruction is carried out: by
 * the copy at @copy, if not 0, else emulated, run out of line or stepped.
 * The caller holds uprobes_srcu, which keeps @uprobe.
 */
enum hit_end handle_hit(struct uprobe *uprobe, struct pt_regs *regs,
			unsigned long bp_vaddr, unsigned long copy)
{
	enum hit_end end = HIT_DONE;
	bool want_ret = false;

	/* An armed probe is READY; the acquire makes its arch visible. */
	if (!get_utask() || smp_load_acquire(&uprobe->insn_state) != INSN_READY)
		return HIT_IGNORED;
	/* The instruction would not run here (a condition that fails). */
	if (arch_uprobe_ignore(&uprobe->arch, regs))
		return HIT_IGNORED;
	if (run_handlers(uprobe, regs, &want_ret))
		end = HIT_REMOVE;
	else if (want_ret && instruction_pointer(regs) == bp_vaddr)
		prepare_uretprobe(uprobe, regs, bp_vaddr);
	/* A handler that moved the ip has taken the task elsewhere. */
	if (instruction_pointer(regs) != bp_vaddr)
		return end;
	/* A stub's copy runs in place of the emulation: no stack move here. */
	if (copy)
		instruction_pointer_set(regs, copy);
	else if (!arch_uprobe_skip_sstep(&uprobe->arch, regs) &&
		 !run_direct(uprobe, regs, bp_vaddr))
		start_step(uprobe, regs, bp_vaddr);
	return end;
}

/*
 * What a hit of @uprobe at @vaddr leaves to do once out of uprobes_srcu,
 * where it may wait for locks that holders of them wait for the hits
 * under: the removal the handlers asked for, else the jump, if @jump.
 * @uprobe is a reference of the caller's, which this drops.
 */
void hits_done(struct uprobe *uprobe, enum hit_end end, unsigned long vaddr, bool jump)
{
	if (end == HIT_STALE)
		anon_rewritten(uprobe);
	else if (end == HIT_REMOVE)
		handlers_remove(uprobe);
	else if (end == HIT_DONE && jump)
		try_jump(uprobe, vaddr);
	put_uprobe(uprobe);
}

/**
 * uprobe_get_swbp_addr - the address of the breakpoint a task trapped on
 * @regs: its registers, as the trap left them
 *
 * The default, for traps that leave the ip just past the breakpoint.
 *
 * Return: the address.
 */
unsigned long __weak uprobe_get_swbp_addr(struct pt_regs *regs)
{
	return instruction_pointer(regs) - UPROBE_SWBP_INSN_SIZE;
}

/**
 * arch_uprobe_ignore - is the hit to be skipped, handlers and all?
 * @auprobe: the probed instruction
 * @regs: the task's registers, at the probed address
 *
 * Return: the default: false.  An architecture whose instruction would
 * not run (a condition that fails) moves @regs past it and says true.
 */
bool __weak arch_uprobe_ignore(struct arch_uprobe *auprobe, struct pt_regs *regs)
{
	return false;
}

/* A breakpoint hit: the trap left the ip at uprobe_get_swbp_addr(). */
static void handle_breakpoint(struct pt_regs *regs)
{
	unsigned long bp_vaddr = uprobe_get_swbp_addr(regs);
	struct uprobe *uprobe, *later = NULL;
	uprobe_opcode_t opcode = 0;
	enum hit_end end;
	bool jump;
	int idx;

	if (bp_vaddr == uprobe_get_trampoline_vaddr()) {
		uprobe_handle_trampoline(regs);
		return;
	}
	idx = srcu_read_lock(&uprobes_srcu);
	uprobe = find_active_uprobe(bp_vaddr, &opcode);
	if (!uprobe) {
		srcu_read_unlock(&uprobes_srcu, idx);
		no_probe_at(regs, bp_vaddr, &opcode);
		return;
	}
	if (!uprobe->inode && anon_trap_is_programs(uprobe, bp_vaddr)) {
		srcu_read_unlock(&uprobes_srcu, idx);
		force_sig(SIGTRAP);
		return;
	}
	/* Not needlessly: sparc's sets the next pc too. */
	if (instruction_pointer(regs) != bp_vaddr)
		instruction_pointer_set(regs, bp_vaddr);
	/* Asked before the hit: a step of the instruction sets TF. */
	jump = may_jump(uprobe, regs, bp_vaddr);
	if (!uprobe->inode && anon_insn_changed(uprobe, bp_vaddr))
		end = HIT_STALE;
	else
		end = handle_hit(uprobe, regs, bp_vaddr, 0);
	if (end == HIT_REMOVE || end == HIT_STALE || (end == HIT_DONE && jump))
		later = try_get_uprobe(uprobe);
	srcu_read_unlock(&uprobes_srcu, idx);
	if (later)
		hits_done(later, end, bp_vaddr, jump);
}

/* The step ended (or was abandoned): fix the task up and free the slot. */
void handle_step(struct uprobe_task *utask, struct pt_regs *regs)
{
	struct uprobe *uprobe = utask->active_uprobe;
	struct xol_area *area = mm_xol_area(current->mm);
	int err = 0;

	if (utask->state == UPROBE_TASK_STEPPED)
		err = arch_uprobe_post_xol(&uprobe->arch, regs);
	else
		arch_uprobe_abort_xol(&uprobe->arch, regs);
	utask_set_state(utask, UPROBE_TASK_RUNNING);
	put_uprobe(uprobe);
	utask->active_uprobe = NULL;
	if (area)
		xol_free_slot(area, utask->xol_vaddr);
	utask->xol_vaddr = 0;
	release_signals();
	if (err) {
		pr_warn_ratelimited("uprobes: pid %d: the probed instruction at 0x%lx could not complete (%d)\n",
				    current->pid, utask->vaddr, err);
		force_sig(SIGILL);
	}
}

/**
 * uprobe_notify_resume - the work of a hit, on the way back to user mode
 * @regs: the task's registers
 */
void uprobe_notify_resume(struct pt_regs *regs)
{
	struct uprobe_task *utask = current->utask;

	clear_thread_flag(TIF_UPROBE);
	if (utask && (utask->state == UPROBE_TASK_STEPPED ||
		      utask->state == UPROBE_TASK_STEP_ABANDON))
		handle_step(utask, regs);
	else if (utask && utask->state == UPROBE_TASK_FINISHING)
		handle_own_slot_end(utask, regs);
	else if (utask && utask->state == UPROBE_TASK_STUB_STEPPING)
		handle_stub_step(utask, regs);
	else
		handle_breakpoint(regs);
}

/**
 * uprobe_pre_sstep_notifier - a breakpoint trap in user mode
 * @regs: the task's registers
 *
 * Return: true when the trap may be a probe's (the mm has had probes): it is
 * then handled on the way back to user mode.
 */
bool uprobe_pre_sstep_notifier(struct pt_regs *regs)
{
	struct mm_struct *mm = current->mm;

	if (!mm || !test_bit(MMF_HAS_UPROBES, &mm->flags))
		return false;
	set_thread_flag(TIF_UPROBE);
	return true;
}

/**
 * uprobe_post_sstep_notifier - a single-step trap in user mode
 * @regs: the task's registers
 *
 * Return: true when it ends a step that uprobes started.
 */
bool uprobe_post_sstep_notifier(struct pt_regs *regs)
{
	struct uprobe_task *utask = current->utask;

	if (!utask || (utask->state != UPROBE_TASK_STEPPING &&
		       utask->state != UPROBE_TASK_STUB_STEPPING))
		return false;
	if (utask->state == UPROBE_TASK_STEPPING)
		utask_set_state(utask, UPROBE_TASK_STEPPED);
	set_thread_flag(TIF_UPROBE);
	return true;
}

/**
 * uprobe_deny_signal - hold signals back while a probed instruction runs
 *	out of line
 *
 * A signal is never delivered in the XOL page or a stub.  One that comes
 * between the start of a step and its fixups waits for them; so does one
 * that finds the task before the end of the copy in its own slot
 * (own_slot_finish()) or at the copy in a stub (stub_copy_finish()).  If
 * the instruction itself trapped, or the signal is fatal, the step or copy
 * is given up first: the task is put back at the probed address, and the
 * signal delivered there.  A signal that finds the task at the jump back in
 * its own slot is delivered just past the probed instruction; one that
 * finds it on the way out of a stub or of the trampoline, where the way
 * out leads.
 *
 * Return: true when signal delivery is to wait.
 */
bool uprobe_deny_signal(void)
{
	struct task_struct *t = current;
	struct uprobe_task *utask = t->utask;
	struct pt_regs *regs = task_pt_regs(t);

	jump_fault_report(regs);
	leave_stub(regs);
	leave_trampoline(regs);
	if (!utask)
		return false;
	if (utask->state == UPROBE_TASK_STUB_STEPPING) {
		if (!stub_copy_deny_signal(utask, regs))
			return false;
	} else if (!utask_stepping(utask) && !stub_copy_finish(utask, regs) &&
		   !own_slot_deny_signal(utask, regs)) {
		return false;
	}
	spin_lock_irq(&t->sighand->siglock);
	clear_tsk_thread_flag(t, TIF_SIGPENDING);
	spin_unlock_irq(&t->sighand->siglock);
	if (utask->state == UPROBE_TASK_STEPPING &&
	    (__fatal_signal_pending(t) || arch_uprobe_xol_was_trapped(current))) {
		utask_set_state(utask, UPROBE_TASK_STEP_ABANDON);
		set_tsk_thread_flag(t, TIF_UPROBE);
	}
	return true;
}

/**
 * uprobe_rseq_ip - where rseq is to see a task that may run uprobes code
 * @regs: the task's registers, on its way back to user mode
 *
 * A task in a stub, in an XOL slot or at a copy there runs that code on
 * behalf of a probed instruction, which may lie in a restartable sequence:
 * rseq must take it to be at the probed instruction, or past it once the
 * copy has run, to abort the sequence when it was preempted, migrated or
 * signalled there.  Reads; changes nothing.
 *
 * Return: that address, or the ip when the task runs no such code.
 */
unsigned long uprobe_rseq_ip(struct pt_regs *regs)
{
	unsigned long ip = instruction_pointer(regs), origin;
	struct uprobe_task *utask = current->utask;
	struct mm_struct *mm = current->mm;

	if (!mm || !test_bit(MMF_HAS_UPROBES, &mm->flags))
		return ip;
	if (utask && (utask_stepping(utask) || utask->state == UPROBE_TASK_STUB_STEPPING))
		return ip == utask->xol_vaddr ? utask->vaddr : ip;
	origin = own_slot_origin(utask, ip) ?: stub_origin(mm, regs);
	return origin ?: ip;
}

/*
 * A task with a copy under way (a step, or a copy finishing for a held
 * signal) gives it up for an rseq abort: true if it had one.
 */
static bool rseq_give_up_copy(struct uprobe_task *utask, struct pt_regs *regs)
{
	unsigned long ip = instruction_pointer(regs);

	switch (utask->state) {
	case UPROBE_TASK_STEPPING:
		utask_set_state(utask, UPROBE_TASK_STEP_ABANDON);
		fallthrough;
	case UPROBE_TASK_STEP_ABANDON:
		/* Undone here: not again by uprobe_notify_resume(). */
		clear_thread_flag(TIF_UPROBE);
		handle_step(utask, regs);
		return true;
	case UPROBE_TASK_FINISHING:
		own_slot_finished(utask, regs, ip == utask->own_slot + utask->own_len);
		break;
	case UPROBE_TASK_STUB_STEPPING:
		stub_copy_stepped(utask, regs, false);
		break;
	default:
		return false;
	}
	release_signals();
	return true;
}

/**
 * uprobe_rseq_abort - take a task out of uprobes code for an rseq abort
 * @regs: the task's registers, where uprobe_rseq_ip() saw a restartable
 *	sequence that is to be aborted
 *
 * The registers become what they were where uprobe_rseq_ip() put the task:
 * what a stub saved is popped, a step or copy under way is given up (with
 * the signals it held released).  A copy that has not run does not run:
 * its probe's handlers ran for an instruction that the abort undoes.  rseq
 * then sets the ip to the sequence's abort handler.
 *
 * Return: 0, or -EFAULT when what the stub saved could not be read back.
 */
int uprobe_rseq_abort(struct pt_regs *regs)
{
	struct uprobe_task *utask = current->utask;

	if (utask && rseq_give_up_copy(utask, regs))
		return 0;
	if (stub_rseq_abort(regs))
		return -EFAULT;	/* a way out that could not be read */
	leave_own_slot(utask, regs);
	return 0;
}

/**
 * uprobe_get_trap_addr - the address to report for a trap
 * @regs: the task's registers
 *
 * Return: the probed address while its instruction runs out of line (in
 * a slot or a stub), else the ip.
 */
unsigned long uprobe_get_trap_addr(struct pt_regs *regs)
{
	struct uprobe_task *utask = current->utask;
	unsigned long ip = instruction_pointer(regs);
	unsigned long origin = own_slot_origin(utask, ip);

	if (utask && (utask_stepping(utask) || utask->state == UPROBE_TASK_STUB_STEPPING))
		return utask->vaddr;
	if (!origin && current->mm)
		origin = stub_trap_addr(current->mm, ip);
	return origin ?: ip;
}

static struct notifier_block uprobe_exception_nb = {
	.notifier_call = arch_uprobe_exception_notify,
	.priority = INT_MAX - 1,	/* after kprobes' */
};

/* The traps of architectures that report them by the die chain. */
static int __init uprobe_traps_init(void)
{
	return register_die_notifier(&uprobe_exception_nb);
}
arch_initcall(uprobe_traps_init);
