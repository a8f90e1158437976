// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_example: counts how often user space runs one instruction.
 *
 * Loading the module puts a uprobe on an instruction of an executable or a
 * shared library, given as a file and an offset in it.  Every process that
 * maps the file, now or later, stops there for a moment and the module
 * counts the hit.  Or it puts one at an address of one process, given as
 * its pid and the address: in a file the process maps, or in code it
 * wrote at run time (a JIT's), which has no file.  Unloading the module
 * removes the probe and logs the total.
 *
 * Usage:
 *
 *   insmod uprobe_example.ko path=FILE offset=OFFSET [pid=PID] [verbose=1]
 *   insmod uprobe_example.ko pid=PID vaddr=ADDRESS [verbose=1]
 *
 *   path=	the probed file (required).
 *   offset=	the offset in FILE of the first byte of the probed
 *		instruction (required); decimal, or hex with 0x.  It is a file
 *		offset, not an address: for a symbol, take its value (nm), then
 *		subtract the VirtAddr and add the Offset of the LOAD segment
 *		holding it (readelf -l).  For most shared libraries and PIE
 *		programs the two are equal and the symbol value is the offset.
 *   pid=	count only the hits of this process; its children are left
 *		alone.
 *   vaddr=	with pid=, in place of path= and offset=: the address of the
 *		probed instruction in that process (decimal, or hex with 0x),
 *		as /proc/PID/maps and a disassembly of its memory show it.
 *		The probe lasts as long as the code there: if the process
 *		unmaps or rewrites it, or exits, the module logs that the
 *		probe was lost, and counts no more.
 *   verbose=	log every counted hit with its pid and address (rate
 *		limited); may be changed at run time in
 *		/sys/module/uprobe_example/parameters/verbose.
 *
 * For example, to count the getpid() calls of the C library in the whole
 * system for a while:
 *
 *   lib=/lib/x86_64-linux-gnu/libc.so.6
 *   off=0x$(nm -D $lib | awk '$3 ~ /^getpid@/ { print $1 }')
 *   insmod uprobe_example.ko path=$lib offset=$off
 *   cat /sys/module/uprobe_example/parameters/hits
 *   rmmod uprobe_example
 *
 * The count so far is in /sys/module/uprobe_example/parameters/hits, and
 * rmmod logs "uprobe_example: FILE:0xOFFSET: N hits".
 *
 * The probe is keyed by the file's inode, so the module holds the path it
 * looked up until it is unloaded: that keeps the same inode in memory, on
 * file systems that may otherwise give a new one to the next lookup.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/uprobes.h>

static char *path;
module_param(path, charp, 0444);
MODULE_PARM_DESC(path, "file to probe (required)");

static char *offset;
module_param(offset, charp, 0444);
MODULE_PARM_DESC(offset, "file offset of the probed instruction (required; 0x for hex)");

static int pid;
module_param(pid, int, 0444);
MODULE_PARM_DESC(pid, "count only the hits of this process (default: any)");

static char *vaddr;
module_param(vaddr, charp, 0444);
MODULE_PARM_DESC(vaddr, "with pid=: address of the probed instruction in that process");

static bool verbose;
module_param(verbose, bool, 0644);
MODULE_PARM_DESC(verbose, "log each counted hit (rate limited)");

static atomic_long_t hits = ATOMIC_LONG_INIT(0);

static int hits_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%ld\n", atomic_long_read(&hits));
}

/* The count is only read: "hits=" at load time is refused. */
static int hits_set(const char *val, const struct kernel_param *kp)
{
	return -EINVAL;
}

static const struct kernel_param_ops hits_ops = {
	.set = hits_set,
	.get = hits_get,
};
module_param_cb(hits, &hits_ops, NULL, 0444);
MODULE_PARM_DESC(hits, "hits counted so far (read only)");

/*
 * Set up at load time, before the probe is registered, and left alone
 * until it is unregistered: the handler and the filter read them without
 * a lock.
 */
static loff_t probe_offset;
static unsigned long probe_vaddr;
static struct path probe_path;	/* holds the probed inode in memory */
static struct mm_struct *probe_mm;	/* with pid=: the one mm counted */
static struct uprobe *probe;

/*
 * Whether hits in @mm count.  probe_mm is only compared, never followed:
 * the reference taken on it (mmgrab) keeps the pointer from being reused
 * for another process's mm, even after the process exits.
 */
static bool mm_wanted(struct mm_struct *mm)
{
	return !probe_mm || mm == probe_mm;
}

static int example_handler(struct uprobe_consumer *self, struct pt_regs *regs)
{
	/*
	 * The filter only decides where the breakpoint is put: a process
	 * forked by the one we watch inherits it with its copy of the
	 * memory.  Do not count such hits, and ask for the breakpoint to be
	 * taken out of that process.
	 */
	if (!mm_wanted(current->mm))
		return UPROBE_HANDLER_REMOVE;

	atomic_long_inc(&hits);
	if (READ_ONCE(verbose))
		pr_info_ratelimited("hit by %s[%d] at 0x%lx\n", current->comm,
				    task_tgid_nr(current), instruction_pointer(regs));
	return 0;
}

/* Called with locks of the uprobes core held: only compares. */
static bool example_filter(struct uprobe_consumer *self, struct mm_struct *mm)
{
	return mm_wanted(mm);
}

static struct uprobe_consumer example_consumer = {
	.handler = example_handler,
	.filter = example_filter,
};

/* Takes a reference on the mm of process @nr for the filter. */
static struct mm_struct *grab_mm_of(pid_t nr)
{
	struct task_struct *task;
	struct pid *found;
	struct mm_struct *mm;

	found = find_get_pid(nr);
	task = get_pid_task(found, PIDTYPE_PID);
	put_pid(found);
	if (!task)
		return ERR_PTR(-ESRCH);
	mm = get_task_mm(task);
	put_task_struct(task);
	if (!mm)
		return ERR_PTR(-ESRCH);	/* a kernel thread, or exiting */

	/* Keep the mm_struct, not the address space. */
	mmgrab(mm);
	mmput(mm);
	return mm;
}

static int __init parse_params(void)
{
	int err;

	if (pid < 0) {
		pr_err("pid=%d: not a process id\n", pid);
		return -EINVAL;
	}
	if (vaddr && pid && !path && !offset) {
		err = kstrtoul(vaddr, 0, &probe_vaddr);
		if (err)
			pr_err("vaddr=%s: not an address\n", vaddr);
		return err ? -EINVAL : 0;
	}
	if (vaddr || !path || !*path || !offset) {
		pr_err("usage: insmod uprobe_example.ko path=FILE offset=OFFSET [pid=PID] [verbose=1]\n");
		pr_err("   or: insmod uprobe_example.ko pid=PID vaddr=ADDRESS [verbose=1]\n");
		return -EINVAL;
	}
	err = kstrtoll(offset, 0, &probe_offset);
	if (err || probe_offset < 0) {
		pr_err("offset=%s: not a file offset\n", offset);
		return -EINVAL;
	}
	return 0;
}

#ifdef UPROBE_EXAMPLE_FILE_ONLY
/* Built for a kernel without probes by address (uprobe_register_pid()). */
static int __init register_by_address(void)
{
	pr_err("pid=%d vaddr=: this kernel has no uprobe_register_pid()\n", pid);
	return -EOPNOTSUPP;
}
#else
/* The probe by address lost its place: it has no more hits. */
static void example_notify(struct uprobe_consumer *self, struct uprobe *uprobe,
			   enum uprobe_notice what, int err)
{
	if (what == UPROBE_NOTICE_LOST)
		pr_info("pid %d, 0x%lx: probe lost (%d) after %ld hits\n", pid, probe_vaddr,
			err, atomic_long_read(&hits));
}

/*
 * pid= and vaddr=: the core keeps the probe to that process, so the
 * module needs no filter.
 */
static int __init register_by_address(void)
{
	struct uprobe *uprobe;
	struct pid *found;

	example_consumer.filter = NULL;
	example_consumer.notify = example_notify;
	/* The number names the process once; the struct pid from then on. */
	found = find_get_pid(pid);
	uprobe = uprobe_register_pid(found, probe_vaddr, &example_consumer);
	put_pid(found);
	if (IS_ERR(uprobe)) {
		pr_err("pid %d, 0x%lx: uprobe_register_pid() failed: %ld\n", pid, probe_vaddr,
		       PTR_ERR(uprobe));
		return PTR_ERR(uprobe);
	}
	probe = uprobe;
	pr_info("pid %d, 0x%lx: probe registered\n", pid, probe_vaddr);
	return 0;
}
#endif

static int __init uprobe_example_init(void)
{
	struct uprobe *uprobe;
	int err;

	err = parse_params();
	if (err)
		return err;
	if (vaddr)
		return register_by_address();

	err = kern_path(path, LOOKUP_FOLLOW, &probe_path);
	if (err) {
		pr_err("%s: lookup failed: %d\n", path, err);
		return err;
	}
	if (!d_is_reg(probe_path.dentry)) {
		pr_err("%s: not a regular file\n", path);
		err = -EINVAL;
		goto put_path;
	}

	if (pid) {
		probe_mm = grab_mm_of(pid);
		if (IS_ERR(probe_mm)) {
			err = PTR_ERR(probe_mm);
			probe_mm = NULL;
			pr_err("pid=%d: no such user process\n", pid);
			goto put_path;
		}
	}

	uprobe = uprobe_register(d_real_inode(probe_path.dentry), probe_offset, 0,
				 &example_consumer);
	if (IS_ERR(uprobe)) {
		err = PTR_ERR(uprobe);
		pr_err("%s:0x%llx: uprobe_register() failed: %d\n", path, probe_offset, err);
		goto drop_mm;
	}
	probe = uprobe;

	pr_info("%s:0x%llx: probe registered\n", path, probe_offset);
	return 0;

drop_mm:
	if (probe_mm)
		mmdrop(probe_mm);
put_path:
	path_put(&probe_path);
	return err;
}

static void __exit uprobe_example_exit(void)
{
	/* Once sync returns, no handler runs any more and none will. */
	uprobe_unregister_nosync(probe, &example_consumer);
	uprobe_unregister_sync();

	if (vaddr) {
		pr_info("pid %d, 0x%lx: %ld hits\n", pid, probe_vaddr, atomic_long_read(&hits));
		return;
	}
	pr_info("%s:0x%llx: %ld hits\n", path, probe_offset, atomic_long_read(&hits));

	if (probe_mm)
		mmdrop(probe_mm);
	path_put(&probe_path);
}

module_init(uprobe_example_init);
module_exit(uprobe_example_exit);
MODULE_DESCRIPTION("Count the hits of one user-space probe");
MODULE_LICENSE("GPL");
