// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprobes core, probes by process and address: uprobe_register_pid().
 *
 * A place named by a process and a virtual address is one of two things.
 * In a mapping of a file, it is the file's probe at (inode, offset), with
 * a consumer that wants one mm (uprobe_consumer.mm): armed in that
 * process only, and only its hits reach the consumer's handlers; a forked
 * child, whose mm is another, is told apart by that.  In anonymous
 * executable memory (private, no file: code a JIT wrote), it is a probe
 * keyed by (mm, address), armed in that mm's own page (anon.c).
 *
 * The process is its mm: all its threads, and a vfork() child while it
 * shares the mm.  It is named by its struct pid, never by a number looked
 * up again, and the caller's right to probe it is checked against the
 * caller's credentials at the call (pid_mm()).
 */

#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/sched/task.h>

#include "internal.h"

/* ---------------------------------------------------------------------
 * The API
 */

/*
 * The mm of @task, with a reference, if the caller may probe it; else an
 * ERR_PTR.  As mm_access(), the permission is checked under the task's
 * exec_update_lock, so that an execve() that changes the task's
 * credentials cannot slip in between the check and the mm it hands over.
 * But the lock is only tried: the tracer calls with event_mutex held,
 * which a task's exit takes under ctx->mutex (freeing its perf uprobe
 * events), which perf_event_open() takes under exec_update_lock; waiting
 * here could close that circle.  The try fails only while an execve() of
 * the task holds the lock or waits for it: -EAGAIN.
 */
static struct mm_struct *exec_stable_mm(struct task_struct *task)
{
	struct rw_semaphore *lock = &task->signal->exec_update_lock;
	struct mm_struct *mm;

	if (!down_read_trylock(lock))
		return ERR_PTR(-EAGAIN);
	mm = get_task_mm(task);
	if (mm && mm != current->mm && !ptrace_may_access(task, PTRACE_MODE_ATTACH_REALCREDS)) {
		mmput(mm);
		mm = ERR_PTR(-EACCES);
	}
	up_read(lock);
	return mm ?: ERR_PTR(-ESRCH);
}

/*
 * The mm of the process that has @pid, with a reference (mmput()), if the
 * caller may probe it; or an ERR_PTR.
 */
static struct mm_struct *pid_mm(struct pid *pid)
{
	struct task_struct *task = get_pid_task(pid, PIDTYPE_PID);
	struct mm_struct *mm;

	if (!task)
		return ERR_PTR(-ESRCH);
	if (task->flags & PF_KTHREAD)
		mm = ERR_PTR(-EINVAL);
	else if (task->flags & PF_EXITING)
		mm = ERR_PTR(-ESRCH);
	else
		mm = exec_stable_mm(task);
	put_task_struct(task);
	return mm;
}

/*
 * What is at @vaddr of @mm: a file's place (*@inode, with a reference,
 * and *@offset), or anonymous memory (*@inode NULL); or why it cannot be
 * probed.
 */
static int place_of(struct mm_struct *mm, unsigned long vaddr, struct inode **inode,
		    loff_t *offset)
{
	struct vm_area_struct *vma;
	int err = 0;

	*inode = NULL;
	if (mmap_read_lock_killable(mm))
		return -EINTR;
	vma = vma_lookup(mm, vaddr);
	if (!vma || !(vma->vm_flags & VM_EXEC))
		err = -EFAULT;
	else if (vma->vm_file ? !valid_vma(vma, true) : !anon_exec_vma(vma))
		err = -EOPNOTSUPP;
	else if (vma->vm_file)
		*inode = igrab(file_inode(vma->vm_file));
	if (*inode)
		*offset = vaddr_to_offset(vma, vaddr);
	mmap_read_unlock(mm);
	return err;
}

/*
 * Attaches @uc to address @vaddr of @mm, whose address space the caller
 * holds (mmget()) and was allowed to probe (pid_mm()).
 */
struct uprobe *register_in_mm(struct mm_struct *mm, unsigned long vaddr,
			      struct uprobe_consumer *uc)
{
	struct uprobe *uprobe;
	struct inode *inode;
	loff_t offset;
	int err;

	err = place_of(mm, vaddr, &inode, &offset);
	if (err)
		return ERR_PTR(err);
	mmgrab(mm);
	uprobe = register_consumer(inode, inode ? offset : vaddr, 0, uc, mm);
	iput(inode);
	if (IS_ERR(uprobe))
		mmdrop(mm);
	return uprobe;
}

/**
 * uprobe_register_pid - attach a consumer to an address of one process
 * @pid: the process: the one whose thread has this struct pid now, as
 *	find_get_pid() or pidfd_pid() give it; NULL for none
 * @vaddr: the probed address in it
 * @uc: the consumer: its handler and/or ret_handler, and optional filter
 *	and notify
 *
 * In a mapping of a file, the probe is the file's at the offset @vaddr
 * maps, armed in this process only, its threads included and forked
 * children not.  In anonymous executable memory (code written at run
 * time), it is armed in the process's own page, and lasts as long as the
 * code there does: when the memory is unmapped or moved, the code
 * rewritten, or the process exits or execs, @uc->notify() is told
 * (UPROBE_NOTICE_LOST).  Unregistered with uprobe_unregister_nosync(), as
 * any probe.
 *
 * A struct pid names a process for as long as the process lives: once it
 * has exited, the call fails with -ESRCH, even if a new process has the
 * same number by then.  The caller must be allowed to ptrace the process
 * (PTRACE_MODE_ATTACH_REALCREDS), checked against the caller's
 * credentials when it calls; while the process is in execve(), which may
 * change what that allows, the call fails with -EAGAIN.  Called from a
 * handler, the process is found and the permission checked at the call,
 * and the rest finishes later (-EINPROGRESS; see uprobe_register()).
 * Sleeps.
 *
 * Return: the probe, or an ERR_PTR: -ESRCH for no process (@pid NULL, or
 * no task has it any more) or one that is exiting; -EINVAL for a kernel
 * thread or a consumer without handlers; -EACCES when the caller may not
 * ptrace the process; -EAGAIN while the process is in execve(); -EINTR
 * when interrupted by a fatal signal; -EFAULT for an address that is not
 * mapped executable; -EOPNOTSUPP for memory that cannot be probed
 * (shared, hugetlb, special mappings) or an instruction that cannot;
 * -EBUSY when the code changed meanwhile; -ENOEXEC, -ENOMEM as
 * uprobe_register().
 */
struct uprobe *uprobe_register_pid(struct pid *pid, unsigned long vaddr,
				   struct uprobe_consumer *uc)
{
	struct uprobe *uprobe;
	struct mm_struct *mm;

	if (!uc->handler && !uc->ret_handler)
		return ERR_PTR(-EINVAL);
	mm = pid_mm(pid);
	if (IS_ERR(mm))
		return ERR_CAST(mm);
	if (in_uprobe_callback())
		uprobe = defer_register(NULL, vaddr, 0, mm, uc);
	else
		uprobe = register_in_mm(mm, vaddr, uc);
	mmput(mm);
	return uprobe;
}
EXPORT_SYMBOL_GPL(uprobe_register_pid);
