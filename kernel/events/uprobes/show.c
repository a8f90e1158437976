// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprobes core, /proc/PID/uprobes: how each probe a process maps is
 * carried out in it, for whoever wonders what a probe costs there.  A
 * first line counts the process's stub pages against their limits (on an
 * architecture with jumps), then comes one line a probe, in the order of
 * the mappings and of the offsets:
 *
 *	ADDRESS FILE+OFFSET EXEC ENTRY [WHY]
 *
 * EXEC is how a hit carries the probed instruction out
 * (arch_uprobe_exec_name(): "emulated", "own-slot", "step"); ENTRY how a
 * hit comes in, as the process's text has it now: "jump" (to a stub),
 * "punned-jump" (over an instruction shorter than a jump, through a hop),
 * "breakpoint", with WHY it has no jump when that is known before a hit
 * (jump_state()), or "not-armed" (no consumer wants this process).  A
 * probe in anonymous memory has "[anon]" for its file and the address for
 * its offset.  Reading it takes the right to read the process's memory,
 * as for /proc/PID/maps.  A "not-armed" probe is a probe of the file for
 * other processes: shown only to a reader who may trace every process
 * (perfmon_capable()).  What depends on a task's state (its mode, a
 * debugger's step, a shadow stack) is read from a live thread of the
 * process, whose stack is held meanwhile.
 */

#include <linux/capability.h>
#include <linux/sched/task.h>

#include "internal.h"

/**
 * arch_uprobe_exec_name - how a hit carries an instruction out
 * @auprobe: the analysed instruction
 *
 * The default: stepped out of line.
 *
 * Return: a short name, for /proc/PID/uprobes.
 */
const char * __weak arch_uprobe_exec_name(struct arch_uprobe *auprobe)
{
	return "step";
}

/* What show_probe() needs. */
struct show_ctx {
	struct seq_file *m;
	struct mm_struct *mm;
	struct task_struct *task;	/* a live thread of the process, its stack held */
	struct vm_area_struct *vma;	/* the file's mapping; NULL: anonymous memory */
};

/*
 * Whether the breakpoint of uprobes is at @vaddr of @mm: in a file's
 * mapping (@anon false) or in anonymous memory.
 */
static bool breakpoint_at(struct mm_struct *mm, unsigned long vaddr, bool anon)
{
	uprobe_opcode_t now;

	if (read_mm_bytes(mm, vaddr, &now, UPROBE_SWBP_INSN_SIZE, NULL))
		return false;
	return anon ? is_anon_swbp(mm, &now) : is_swbp_insn(&now);
}

/* One line for @uprobe (visit_probes()). */
static void show_probe(struct uprobe *uprobe, void *arg)
{
	struct show_ctx *ctx = arg;
	unsigned long vaddr = uprobe->offset;
	const char *exec = "not-analysed";
	const char *entry, *why;

	if (ctx->vma)
		vaddr = offset_to_vaddr(ctx->vma, uprobe->offset);
	entry = jump_state(uprobe, ctx->mm, ctx->task, vaddr, &why);
	if (!strcmp(entry, "breakpoint") && !breakpoint_at(ctx->mm, vaddr, !ctx->vma)) {
		if (!perfmon_capable())
			return;
		entry = "not-armed";
		why = NULL;
	}
	if (ctx->vma)
		seq_printf(ctx->m, "%lx %pD+0x%llx", vaddr, ctx->vma->vm_file, uprobe->offset);
	else
		seq_printf(ctx->m, "%lx [anon]+0x%lx", vaddr, vaddr);
	/* Pairs with the release that made it READY: arch is filled in. */
	if (smp_load_acquire(&uprobe->insn_state) == INSN_READY)
		exec = arch_uprobe_exec_name(&uprobe->arch);
	seq_printf(ctx->m, " %s %s%s%s\n", exec, entry, why ? " " : "", why ?: "");
}

/* The lines of the probes of @ctx->mm. */
static void show_mm_probes(struct show_ctx *ctx)
{
	struct vm_area_struct *vma;
	struct vma_iterator vmi;

	mmap_assert_locked(ctx->mm);
	vma_iter_init(&vmi, ctx->mm, 0);
	for_each_vma(vmi, vma) {
		if (!valid_vma(vma, false))
			continue;
		ctx->vma = vma;
		visit_probes(file_inode(vma->vm_file), probe_in_vma, vma, show_probe, ctx);
	}
	ctx->vma = NULL;
	visit_anon_probes(ctx->mm, 0, ULONG_MAX, show_probe, ctx);
}

/*
 * A thread of @task's process that is not exiting, with a reference and
 * its stack held (the registers are there, and a task that exits frees
 * it even while its struct stays, as a group leader's does); or NULL.
 */
static struct task_struct *get_live_thread(struct task_struct *task)
{
	struct task_struct *t, *found = NULL;

	rcu_read_lock();
	for_each_thread(task, t) {
		if (!(t->flags & PF_EXITING) && try_get_task_stack(t)) {
			found = get_task_struct(t);
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/**
 * uprobe_proc_show - /proc/PID/uprobes
 * @m: the file
 * @task: the task whose process it tells of
 *
 * Return: 0, or -errno (-EACCES and the like without the right to read
 * the process's memory, -EINTR).
 */
int uprobe_proc_show(struct seq_file *m, struct task_struct *task)
{
	struct show_ctx ctx = { .m = m };
	int err = 0;

	ctx.mm = mm_access(task, PTRACE_MODE_READ_FSCREDS);
	if (IS_ERR_OR_NULL(ctx.mm))
		return PTR_ERR_OR_ZERO(ctx.mm);
	err = mmap_read_lock_killable(ctx.mm);
	if (err)
		goto put_mm;
	stub_pages_show(m, mm_xol_area(ctx.mm));
	ctx.task = get_live_thread(task);
	/* With no thread left to run them, the probes are of no interest. */
	if (ctx.task && test_bit(MMF_HAS_UPROBES, &ctx.mm->flags))
		show_mm_probes(&ctx);
	mmap_read_unlock(ctx.mm);
	if (ctx.task) {
		put_task_stack(ctx.task);
		put_task_struct(ctx.task);
	}
put_mm:
	mmput(ctx.mm);
	return err;
}
