// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_test_mod: drives the in-kernel uprobes API for the uprobe_api
 * selftest.
 *
 * /sys/kernel/debug/uprobe_test/ctl takes one command per write:
 *
 *   reg ID PATH OFFSET [ref=OFF] [h] [r] [pid=PID] [remove] [ax=VAL] [di=VAL]
 *	[sleep=MS]
 *	register consumer ID (0..UT_MAX-1) with uprobe_register() at
 *	PATH:OFFSET.  h: a handler that counts hits; r: a ret_handler that
 *	counts returns; pid: a filter admitting only the mm of process PID;
 *	remove: the handler returns UPROBE_HANDLER_REMOVE; ax: the handler
 *	returns VAL from the probed function without running it (sets ax,
 *	pops the return address into ip; on arm64 sets x0, ip from the link
 *	register); di: the handler sets the first argument register (di,
 *	x0) to VAL; sleep: the handler sleeps MS milliseconds.
 *   batch PATH OFF...	register consumers 0, 1, ... (one per OFF, each with
 *			a handler that counts hits) with one call of
 *			uprobe_register_batch(), on kernels that have it
 *			(EOPNOTSUPP elsewhere); a failure leaves every slot
 *			free
 *   unreg ID		uprobe_unregister_nosync() + uprobe_unregister_sync()
 *   apply ID 0|1	uprobe_apply(uprobe, uc, false|true)
 *   filter ID PID	make the filter of ID (registered with pid=) admit the
 *			mm of process PID instead, or no mm at all if PID is 0
 *   reset		zero all counts and empty the log
 *
 * On kernels with uprobe_register_pid() (EOPNOTSUPP elsewhere):
 *   pid ID PID VADDR [h] [r] [remove] [ax=VAL] [di=VAL] [sleep=MS]
 *			register consumer ID with uprobe_register_pid() at
 *			address VADDR of process PID; options as for reg
 *   prep ID PATH OFFSET [options]
 *   prep ID pid PID VADDR [options]
 *			as reg or pid, but only noted: the handler of another
 *			slot registers it (onhit)
 *   onhit ID [reg=ID2] [unreg] [hold] [lost]
 *			at its next hit, the handler of ID registers slot ID2
 *			as prepared, and/or unregisters ID itself: both in
 *			that one hit, once.
 *			lost: the notify() of ID's next UPROBE_NOTICE_LOST
 *			registers ID2 instead (no unreg), and no hit does.
 *			hold: the hit that does so waits first until another
 *			hit runs the handler too (up to UT_HOLD_MS), and the
 *			other hits then running it wait, before they return,
 *			until ID2 is registered (its notify()): a swap made
 *			while other hits are in their walk of the consumers
 *
 * A failed command fails the write() with the errno of the kernel call.
 * "counts" has one line per consumer slot: ID HITS RETS FUNC RUNNING, where
 * FUNC is the last function address passed to the ret_handler and RUNNING
 * how many handlers of the slot are running now.  "sums" has one line per
 * slot: ID ARGS RETS, the sums of the first argument at the handler's hits
 * and of the return values at the ret_handler's.  "log" lists the handler
 * calls in order, one per line: ID h|r TGID; and the calls handlers made
 * and the notices of the core: ID q|u ERR for a register (q) or
 * unregister (u) a handler called and what it returned (0 for unregister),
 * ID R|U|L ERR for a notify() of UPROBE_NOTICE_REGISTERED, _UNREGISTERED or
 * _LOST.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/uprobes.h>
#ifdef CONFIG_X86
#include <asm/ibt.h>
#endif

#define UT_MAX		8
#define UT_HOLD_MS	5000	/* the longest a "hold" waits */
#define UT_THEN_UNREG	0x10000	/* in ut_consumer.then: onhit unreg */
#define UT_LOG_MAX	4096
#define UT_CMD_MAX	(PATH_MAX + 256)

#define UT_HANDLER	BIT(0)
#define UT_RET		BIT(1)
#define UT_REMOVE	BIT(2)
#define UT_SKIP		BIT(3)
#define UT_SET_DI	BIT(4)
#define UT_FILTER	BIT(5)
#define UT_SLEEP	BIT(6)
#define UT_BY_PID	BIT(7)

struct ut_request;

struct ut_consumer {
	struct uprobe_consumer uc;
	struct uprobe *uprobe;
	struct path path;
	struct mm_struct *mm;	/* the only mm the filter admits, or NULL */
	unsigned long flags;
	unsigned long ax;
	unsigned long di;
	unsigned int sleep_ms;
	atomic_long_t hits;
	atomic_t running;
	atomic_long_t rets;
	unsigned long func;
	int id;
	atomic_long_t argsum;
	atomic_long_t retsum;
	bool prepared;		/* a "prep" request, in @path and @req */
	struct ut_request *req;
	atomic_t then;		/* onhit: 1 + the slot to register, or 0, | UT_THEN_UNREG */
	int hold_for;		/* onhit hold: 1 + the slot registered, or 0 */
	bool on_lost;		/* onhit lost: then is for the LOST notice */
	bool detached;		/* unregistered by its handler: sync first */
};

struct ut_log_entry {
	int id;
	char kind;
	pid_t tgid;
};

/* What a "reg" command asks for; "pid" takes @pid and @offset the address. */
struct ut_request {
	char *path;
	loff_t offset;
	loff_t ref_ctr_offset;
	unsigned long flags;
	unsigned long ax;
	unsigned long di;
	unsigned int sleep_ms;
	pid_t pid;
	struct pid *process;	/* "prep ID pid": @pid, found at the command */
};

typedef int (*ut_apply_fn)(struct uprobe *uprobe, struct uprobe_consumer *uc, bool add);

static struct ut_consumer ut_consumers[UT_MAX];
static DEFINE_MUTEX(ut_mutex);		/* serialises commands */
static DEFINE_SPINLOCK(ut_log_lock);
static struct ut_log_entry *ut_log;
static unsigned int ut_log_len;
static struct dentry *ut_dir;
static ut_apply_fn ut_apply;

/* Logs an entry of consumer @id: @kind, with @value (a tgid or an errno). */
static void ut_log_value(int id, char kind, int value)
{
	unsigned long irqflags;

	spin_lock_irqsave(&ut_log_lock, irqflags);
	if (ut_log_len < UT_LOG_MAX) {
		ut_log[ut_log_len].id = id;
		ut_log[ut_log_len].kind = kind;
		ut_log[ut_log_len].tgid = value;
		ut_log_len++;
	}
	spin_unlock_irqrestore(&ut_log_lock, irqflags);
}

static void ut_log_add(int id, char kind)
{
	ut_log_value(id, kind, task_tgid_nr(current));
}

/*
 * Returns @val from the probed function: the probe sits on its entry,
 * where the return address is on the stack (x86) or in the link register
 * (arm64).
 */
#ifdef CONFIG_ARM64
static void ut_skip_function(struct pt_regs *regs, unsigned long val)
{
	regs_set_return_value(regs, val);
	instruction_pointer_set(regs, procedure_link_pointer(regs));
}

static void ut_set_first_arg(struct pt_regs *regs, unsigned long val)
{
	regs->regs[0] = val;
}

static long ut_first_arg(struct pt_regs *regs)
{
	return regs->regs[0];
}
#else
static void ut_skip_function(struct pt_regs *regs, unsigned long val)
{
	unsigned long ret_addr;

	if (get_user(ret_addr, (unsigned long __user *)regs->sp))
		return;
	regs->ax = val;
	regs->sp += sizeof(ret_addr);
	instruction_pointer_set(regs, ret_addr);
}

static void ut_set_first_arg(struct pt_regs *regs, unsigned long val)
{
	regs->di = val;
}

static long ut_first_arg(struct pt_regs *regs)
{
	return regs->di;
}
#endif

#ifdef UT_HAVE_PID
static void ut_onhit(struct ut_consumer *c);
#else
static void ut_onhit(struct ut_consumer *c)
{
}
#endif

static int ut_handler(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct ut_consumer *c = container_of(uc, struct ut_consumer, uc);

	atomic_inc(&c->running);
	atomic_long_inc(&c->hits);
	atomic_long_add(ut_first_arg(regs), &c->argsum);
	ut_log_add(c->id, 'h');
	ut_onhit(c);
	if (c->flags & UT_SLEEP)
		msleep(c->sleep_ms);
	atomic_dec(&c->running);
	if (c->flags & UT_SET_DI)
		ut_set_first_arg(regs, c->di);
	if (c->flags & UT_SKIP)
		ut_skip_function(regs, c->ax);
	return (c->flags & UT_REMOVE) ? UPROBE_HANDLER_REMOVE : 0;
}

static int ut_ret_handler(struct uprobe_consumer *uc, unsigned long func,
			  struct pt_regs *regs)
{
	struct ut_consumer *c = container_of(uc, struct ut_consumer, uc);

	atomic_long_inc(&c->rets);
	atomic_long_add(regs_return_value(regs), &c->retsum);
	WRITE_ONCE(c->func, func);
	ut_log_add(c->id, 'r');
	return 0;
}

static bool ut_filter(struct uprobe_consumer *uc, struct mm_struct *mm)
{
	struct ut_consumer *c = container_of(uc, struct ut_consumer, uc);

	/* Only compares: an mm dropped by "filter" is never dereferenced. */
	return READ_ONCE(c->mm) == mm;
}

/* Takes a reference on the mm of process @pid for the filter. */
static struct mm_struct *ut_grab_mm(pid_t pid)
{
	struct task_struct *task;
	struct mm_struct *mm;

	task = get_pid_task(find_vpid(pid), PIDTYPE_PID);
	if (!task)
		return ERR_PTR(-ESRCH);
	mm = get_task_mm(task);
	put_task_struct(task);
	if (!mm)
		return ERR_PTR(-ESRCH);
	mmgrab(mm);
	mmput(mm);
	return mm;
}

static const struct {
	const char *name;
	unsigned long flags;
} ut_words[] = {
	{ "h", UT_HANDLER },
	{ "r", UT_RET },
	{ "remove", UT_HANDLER | UT_REMOVE },
};

static int ut_parse_option(struct ut_request *req, char *opt)
{
	size_t n;
	int i;

	for (i = 0; i < ARRAY_SIZE(ut_words); i++) {
		if (!strcmp(opt, ut_words[i].name)) {
			req->flags |= ut_words[i].flags;
			return 0;
		}
	}
	n = str_has_prefix(opt, "pid=");
	if (n) {
		req->flags |= UT_FILTER;
		return kstrtoint(opt + n, 0, &req->pid);
	}
	n = str_has_prefix(opt, "ref=");
	if (n)
		return kstrtoll(opt + n, 0, &req->ref_ctr_offset);
	n = str_has_prefix(opt, "ax=");
	if (n) {
		req->flags |= UT_HANDLER | UT_SKIP;
		return kstrtoul(opt + n, 0, &req->ax);
	}
	n = str_has_prefix(opt, "di=");
	if (n) {
		req->flags |= UT_HANDLER | UT_SET_DI;
		return kstrtoul(opt + n, 0, &req->di);
	}
	n = str_has_prefix(opt, "sleep=");
	if (n) {
		req->flags |= UT_HANDLER | UT_SLEEP;
		return kstrtouint(opt + n, 0, &req->sleep_ms);
	}
	return -EINVAL;
}

static int ut_parse_request(struct ut_request *req, char *args)
{
	char *tok;
	int err;

	memset(req, 0, sizeof(*req));
	req->path = strsep(&args, " ");
	tok = strsep(&args, " ");
	if (!req->path || !*req->path || !tok)
		return -EINVAL;
	err = kstrtoll(tok, 0, &req->offset);
	while (!err && (tok = strsep(&args, " ")))
		if (*tok)
			err = ut_parse_option(req, tok);
	if (!err && !(req->flags & (UT_HANDLER | UT_RET)))
		err = -EINVAL;
	return err;
}

#ifdef UT_HAVE_PID
static void ut_notify(struct uprobe_consumer *uc, struct uprobe *uprobe,
		      enum uprobe_notice what, int err);
#endif

static void ut_consumer_setup(struct ut_consumer *c, const struct ut_request *req)
{
	if (c->detached)
		uprobe_unregister_sync();
	c->detached = false;
	memset(&c->uc, 0, sizeof(c->uc));
	if (req->flags & UT_HANDLER)
		c->uc.handler = ut_handler;
	if (req->flags & UT_RET)
		c->uc.ret_handler = ut_ret_handler;
	if (req->flags & UT_FILTER)
		c->uc.filter = ut_filter;
#ifdef UT_HAVE_PID
	c->uc.notify = ut_notify;
#endif
	atomic_long_set(&c->argsum, 0);
	atomic_long_set(&c->retsum, 0);
	atomic_set(&c->then, 0);
	WRITE_ONCE(c->hold_for, 0);
	WRITE_ONCE(c->on_lost, false);
	c->flags = req->flags;
	c->ax = req->ax;
	c->di = req->di;
	c->sleep_ms = req->sleep_ms;
	atomic_long_set(&c->hits, 0);
	atomic_long_set(&c->rets, 0);
	c->func = 0;
}

static int ut_register(struct ut_consumer *c, const struct ut_request *req)
{
	struct uprobe *uprobe;
	int err;

	err = kern_path(req->path, LOOKUP_FOLLOW, &c->path);
	if (err)
		return err;
	c->mm = NULL;
	if (req->pid > 0) {
		c->mm = ut_grab_mm(req->pid);
		if (IS_ERR(c->mm)) {
			err = PTR_ERR(c->mm);
			goto err_path;
		}
	}
	ut_consumer_setup(c, req);
	uprobe = uprobe_register(d_real_inode(c->path.dentry), req->offset,
				 req->ref_ctr_offset, &c->uc);
	if (IS_ERR(uprobe)) {
		err = PTR_ERR(uprobe);
		goto err_mm;
	}
	c->uprobe = uprobe;
	return 0;

err_mm:
	if (c->mm)
		mmdrop(c->mm);
	c->mm = NULL;
err_path:
	path_put(&c->path);
	return err;
}

/* Drops what slot @c holds besides its probe: its file, its filter's mm, its request. */
static void ut_release(struct ut_consumer *c)
{
	if (c->mm)
		mmdrop(c->mm);
	c->mm = NULL;
	if (!(c->flags & UT_BY_PID))
		path_put(&c->path);
	if (c->req)
		put_pid(c->req->process);
	kfree(c->req);
	c->req = NULL;
	c->prepared = false;
}

static void ut_unregister(struct ut_consumer *c)
{
	uprobe_unregister_nosync(c->uprobe, &c->uc);
	uprobe_unregister_sync();
	c->uprobe = NULL;
	ut_release(c);
}

/* The consumer slot named by the next token of @args. */
static struct ut_consumer *ut_slot(char **args)
{
	char *tok = strsep(args, " ");
	unsigned int id;

	if (!tok || kstrtouint(tok, 0, &id) || id >= UT_MAX)
		return NULL;
	return &ut_consumers[id];
}

static int ut_cmd_reg(char *args)
{
	struct ut_consumer *c = ut_slot(&args);
	struct ut_request req;
	int err;

	if (!c || !args)
		return -EINVAL;
	if (c->uprobe)
		return -EBUSY;
	err = ut_parse_request(&req, args);
	if (err)
		return err;
	return ut_register(c, &req);
}

#ifdef UT_HAVE_BATCH
struct ut_batch {
	loff_t offset[UT_MAX];
	unsigned int n;
};

static void ut_batch_item(void *ctx, u32 i, struct uprobe_batch_item *item)
{
	struct ut_batch *b = ctx;

	item->offset = b->offset[i];
	item->ref_ctr_offset = 0;
	item->uc = &ut_consumers[i].uc;
	item->uprobe = &ut_consumers[i].uprobe;
}

/* Slots 0 .. @b->n - 1 as @b asks, registered in one batch on @path. */
static int ut_register_batch(struct path *path, struct ut_batch *b)
{
	struct ut_request req = { .flags = UT_HANDLER };
	unsigned int i;
	int err;

	for (i = 0; i < b->n; i++)
		ut_consumer_setup(&ut_consumers[i], &req);
	err = uprobe_register_batch(d_real_inode(path->dentry), b->n, ut_batch_item, b);
	for (i = 0; i < b->n; i++) {
		if (err) {
			ut_consumers[i].uprobe = NULL;
			continue;
		}
		ut_consumers[i].mm = NULL;
		ut_consumers[i].path = *path;
		path_get(path);
	}
	return err;
}

static int ut_cmd_batch(char *args)
{
	char *file = strsep(&args, " "), *tok;
	struct ut_batch b = { .n = 0 };
	struct path path;
	unsigned int i;
	int err;

	if (!file || !*file || !args)
		return -EINVAL;
	while ((tok = strsep(&args, " "))) {
		if (b.n == UT_MAX || kstrtoll(tok, 0, &b.offset[b.n]))
			return -EINVAL;
		b.n++;
	}
	for (i = 0; i < b.n; i++)
		if (ut_consumers[i].uprobe)
			return -EBUSY;
	err = kern_path(file, LOOKUP_FOLLOW, &path);
	if (err)
		return err;
	err = ut_register_batch(&path, &b);
	path_put(&path);
	return err;
}
#else
static int ut_cmd_batch(char *args)
{
	return -EOPNOTSUPP;
}
#endif

#ifdef UT_HAVE_PID
/* "PID VADDR [options]" of a "pid" command, in @req. */
static int ut_parse_pid_request(struct ut_request *req, char *args)
{
	char *pid = strsep(&args, " "), *addr = strsep(&args, " "), *tok;
	int err;

	memset(req, 0, sizeof(*req));
	if (!pid || !addr)
		return -EINVAL;
	err = kstrtoint(pid, 0, &req->pid) ?: kstrtoll(addr, 0, &req->offset);
	while (!err && (tok = strsep(&args, " ")))
		if (*tok)
			err = ut_parse_option(req, tok);
	/* The process is the pid's: no pid= filter on top. */
	if (!err && ((req->flags & UT_FILTER) || !(req->flags & (UT_HANDLER | UT_RET))))
		err = -EINVAL;
	req->flags |= UT_BY_PID;
	return err;
}

/* uprobe_register_pid() of process @nr of the writer's pid namespace. */
static struct uprobe *ut_register_pid(pid_t nr, unsigned long vaddr, struct uprobe_consumer *uc)
{
	struct pid *pid = find_get_pid(nr);
	struct uprobe *uprobe = uprobe_register_pid(pid, vaddr, uc);

	put_pid(pid);
	return uprobe;
}

static int ut_cmd_pid(char *args)
{
	struct ut_consumer *c = ut_slot(&args);
	struct ut_request req;
	struct uprobe *uprobe;
	int err;

	if (!c || !args)
		return -EINVAL;
	if (c->uprobe || c->prepared)
		return -EBUSY;
	err = ut_parse_pid_request(&req, args);
	if (err)
		return err;
	c->mm = NULL;
	ut_consumer_setup(c, &req);
	uprobe = ut_register_pid(req.pid, req.offset, &c->uc);
	if (IS_ERR(uprobe))
		return PTR_ERR(uprobe);
	c->uprobe = uprobe;
	return 0;
}

static int ut_cmd_prep(char *args)
{
	struct ut_consumer *c = ut_slot(&args);
	struct ut_request *req;
	int err;

	if (!c || !args)
		return -EINVAL;
	if (c->uprobe || c->prepared)
		return -EBUSY;
	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	if (str_has_prefix(args, "pid ")) {
		err = ut_parse_pid_request(req, args + 4);
		/* In the writer's pid namespace, not in the handler's. */
		if (!err)
			req->process = find_get_pid(req->pid);
	} else {
		err = ut_parse_request(req, args);
		if (!err)
			err = kern_path(req->path, LOOKUP_FOLLOW, &c->path);
		req->path = NULL;	/* the command's buffer */
	}
	if (err) {
		kfree(req);
		return err;
	}
	c->mm = NULL;
	ut_consumer_setup(c, req);
	c->req = req;
	c->prepared = true;
	return 0;
}

static int ut_cmd_onhit(char *args)
{
	struct ut_consumer *c = ut_slot(&args);
	bool hold = false, lost = false;
	unsigned int id;
	int then = 0, slot;
	char *tok;

	if (!c || !args)
		return -EINVAL;
	if (!c->uprobe)
		return -ENOENT;
	while ((tok = strsep(&args, " "))) {
		if (!strcmp(tok, "unreg")) {
			then |= UT_THEN_UNREG;
			continue;
		}
		if (!strcmp(tok, "hold")) {
			hold = true;
			continue;
		}
		if (!strcmp(tok, "lost")) {
			lost = true;
			continue;
		}
		if (!str_has_prefix(tok, "reg=") || kstrtouint(tok + 4, 0, &id) ||
		    id >= UT_MAX || !ut_consumers[id].prepared || ut_consumers[id].uprobe)
			return -EINVAL;
		then = (then & UT_THEN_UNREG) | (id + 1);
	}
	slot = then & ~UT_THEN_UNREG;
	if ((hold || lost) && !slot)
		return -EINVAL;
	if (hold && lost)
		return -EINVAL;
	if (lost && (then & UT_THEN_UNREG))
		return -EINVAL;
	WRITE_ONCE(c->hold_for, hold ? slot : 0);
	WRITE_ONCE(c->on_lost, lost);
	atomic_set(&c->then, then);
	return 0;
}

/* Waits, up to UT_HOLD_MS, until @done(@arg). */
static void ut_hold(bool (*done)(void *arg), void *arg)
{
	unsigned int ms;

	for (ms = 0; ms < UT_HOLD_MS && !done(arg); ms++)
		usleep_range(1000, 1100);
}

static bool ut_others_running(void *arg)
{
	return atomic_read(&((struct ut_consumer *)arg)->running) > 1;
}

static bool ut_registered(void *arg)
{
	return READ_ONCE(((struct ut_consumer *)arg)->uprobe);
}

/* Registers slot @c as "prep" noted it. */
static struct uprobe *ut_register_prepared(struct ut_consumer *c)
{
	const struct ut_request *req = c->req;

	if (req->flags & UT_BY_PID)
		return uprobe_register_pid(req->process, req->offset, &c->uc);
	return uprobe_register(d_real_inode(c->path.dentry), req->offset,
			       req->ref_ctr_offset, &c->uc);
}

/* Registers slot @slot - 1 as prepared, from a handler or a notify(). */
static void ut_register_slot(int slot)
{
	struct uprobe *uprobe = ut_register_prepared(&ut_consumers[slot - 1]);

	ut_log_value(slot - 1, 'q', PTR_ERR_OR_ZERO(uprobe));
	/* Registered at once: not what the API says, but kept. */
	if (!IS_ERR(uprobe))
		WRITE_ONCE(ut_consumers[slot - 1].uprobe, uprobe);
}

/*
 * In @c's handler: what "onhit" asked, all of it in the one hit that takes
 * it (a register and an unregister split between two hits are no swap
 * made by a handler); with hold, see ut_cmd_onhit().
 */
static void ut_onhit(struct ut_consumer *c)
{
	int hold = READ_ONCE(c->hold_for);
	int then, slot;

	if (READ_ONCE(c->on_lost))
		return;
	then = atomic_xchg(&c->then, 0);
	slot = then & ~UT_THEN_UNREG;
	if (hold && !then) {
		ut_hold(ut_registered, &ut_consumers[hold - 1]);
		return;
	}
	if (hold)
		ut_hold(ut_others_running, c);
	if (slot)
		ut_register_slot(slot);
	if (then & UT_THEN_UNREG) {
		uprobe_unregister_nosync(c->uprobe, &c->uc);
		ut_log_value(c->id, 'u', 0);
	}
}

static void ut_notify(struct uprobe_consumer *uc, struct uprobe *uprobe,
		      enum uprobe_notice what, int err)
{
	struct ut_consumer *c = container_of(uc, struct ut_consumer, uc);
	int slot;

	switch (what) {
	case UPROBE_NOTICE_REGISTERED:
		ut_log_value(c->id, 'R', err);
		if (!err)
			WRITE_ONCE(c->uprobe, uprobe);
		break;
	case UPROBE_NOTICE_UNREGISTERED:
		ut_log_value(c->id, 'U', err);
		/* Before the slot is used again: uprobe_unregister_sync(). */
		c->detached = true;
		WRITE_ONCE(c->uprobe, NULL);
		ut_release(c);
		break;
	case UPROBE_NOTICE_LOST:
		ut_log_value(c->id, 'L', err);
		slot = READ_ONCE(c->on_lost) ? atomic_xchg(&c->then, 0) : 0;
		if (slot)
			ut_register_slot(slot);
		break;
	}
}
#else
static int ut_cmd_pid(char *args)
{
	return -EOPNOTSUPP;
}

static int ut_cmd_prep(char *args)
{
	return -EOPNOTSUPP;
}

static int ut_cmd_onhit(char *args)
{
	return -EOPNOTSUPP;
}
#endif

static int ut_cmd_unreg(char *args)
{
	struct ut_consumer *c = ut_slot(&args);

	if (!c)
		return -EINVAL;
	if (!c->uprobe)
		return -ENOENT;
	ut_unregister(c);
	return 0;
}

static int ut_cmd_apply(char *args)
{
	struct ut_consumer *c = ut_slot(&args);
	bool add;

	if (!c || !args || kstrtobool(args, &add))
		return -EINVAL;
	if (!c->uprobe)
		return -ENOENT;
	if (!ut_apply)
		return -EOPNOTSUPP;
	return ut_apply(c->uprobe, &c->uc, add);
}

static int ut_cmd_filter(char *args)
{
	struct ut_consumer *c = ut_slot(&args);
	struct mm_struct *mm = NULL, *old;
	int pid;

	if (!c || !args || kstrtoint(args, 0, &pid))
		return -EINVAL;
	if (!c->uprobe || !(c->flags & UT_FILTER))
		return -ENOENT;
	if (pid > 0) {
		mm = ut_grab_mm(pid);
		if (IS_ERR(mm))
			return PTR_ERR(mm);
	}
	old = c->mm;
	WRITE_ONCE(c->mm, mm);
	if (old)
		mmdrop(old);
	return 0;
}

static void ut_reset(void)
{
	unsigned long irqflags;
	int i;

	for (i = 0; i < UT_MAX; i++) {
		atomic_long_set(&ut_consumers[i].hits, 0);
		atomic_long_set(&ut_consumers[i].rets, 0);
		WRITE_ONCE(ut_consumers[i].func, 0);
	}
	spin_lock_irqsave(&ut_log_lock, irqflags);
	ut_log_len = 0;
	spin_unlock_irqrestore(&ut_log_lock, irqflags);
}

static int ut_command(char *cmd)
{
	char *verb = strsep(&cmd, " ");

	if (!strcmp(verb, "reg"))
		return ut_cmd_reg(cmd);
	if (!strcmp(verb, "batch"))
		return ut_cmd_batch(cmd);
	if (!strcmp(verb, "unreg"))
		return ut_cmd_unreg(cmd);
	if (!strcmp(verb, "apply"))
		return ut_cmd_apply(cmd);
	if (!strcmp(verb, "filter"))
		return ut_cmd_filter(cmd);
	if (!strcmp(verb, "pid"))
		return ut_cmd_pid(cmd);
	if (!strcmp(verb, "prep"))
		return ut_cmd_prep(cmd);
	if (!strcmp(verb, "onhit"))
		return ut_cmd_onhit(cmd);
	if (!strcmp(verb, "reset") && !cmd) {
		ut_reset();
		return 0;
	}
	return -EINVAL;
}

static ssize_t ut_ctl_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char *buf;
	int err;

	if (count >= UT_CMD_MAX)
		return -E2BIG;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	mutex_lock(&ut_mutex);
	err = ut_command(strim(buf));
	mutex_unlock(&ut_mutex);
	kfree(buf);
	return err ? err : count;
}

static const struct file_operations ut_ctl_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = ut_ctl_write,
};

static int ut_counts_show(struct seq_file *m, void *unused)
{
	struct ut_consumer *c;
	int i;

	for (i = 0; i < UT_MAX; i++) {
		c = &ut_consumers[i];
		seq_printf(m, "%d %ld %ld 0x%lx %d\n", i, atomic_long_read(&c->hits),
			   atomic_long_read(&c->rets), READ_ONCE(c->func),
			   atomic_read(&c->running));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ut_counts);

static int ut_sums_show(struct seq_file *m, void *unused)
{
	int i;

	for (i = 0; i < UT_MAX; i++)
		seq_printf(m, "%d %ld %ld\n", i, atomic_long_read(&ut_consumers[i].argsum),
			   atomic_long_read(&ut_consumers[i].retsum));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ut_sums);

static int ut_log_show(struct seq_file *m, void *unused)
{
	struct ut_log_entry e;
	unsigned int i;
	bool more;

	for (i = 0; ; i++) {
		spin_lock_irq(&ut_log_lock);
		more = i < ut_log_len;
		if (more)
			e = ut_log[i];
		spin_unlock_irq(&ut_log_lock);
		if (!more)
			break;
		seq_printf(m, "%d %c %d\n", e.id, e.kind, e.tgid);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ut_log);

/*
 * uprobe_apply() is not exported; find it through a kprobe's symbol lookup.
 * With IBT enforced an indirect call to it would trap, so do without.
 */
static void ut_find_apply(void)
{
	struct kprobe kp = { .symbol_name = "uprobe_apply" };

#ifdef CONFIG_X86
	if (cpu_feature_enabled(X86_FEATURE_IBT))
		return;
#endif
	if (register_kprobe(&kp))
		return;
	ut_apply = (ut_apply_fn)kp.addr;
	unregister_kprobe(&kp);
}

static int __init ut_init(void)
{
	int i;

	ut_log = kcalloc(UT_LOG_MAX, sizeof(*ut_log), GFP_KERNEL);
	if (!ut_log)
		return -ENOMEM;
	for (i = 0; i < UT_MAX; i++)
		ut_consumers[i].id = i;
	ut_find_apply();
	ut_dir = debugfs_create_dir("uprobe_test", NULL);
	if (IS_ERR(ut_dir)) {
		kfree(ut_log);
		return PTR_ERR(ut_dir);
	}
	debugfs_create_file("ctl", 0200, ut_dir, NULL, &ut_ctl_fops);
	debugfs_create_file("counts", 0444, ut_dir, NULL, &ut_counts_fops);
	debugfs_create_file("log", 0444, ut_dir, NULL, &ut_log_fops);
	debugfs_create_file("sums", 0444, ut_dir, NULL, &ut_sums_fops);
	return 0;
}

static void __exit ut_exit(void)
{
	int i;

	debugfs_remove_recursive(ut_dir);
	mutex_lock(&ut_mutex);
	for (i = 0; i < UT_MAX; i++) {
		if (ut_consumers[i].uprobe)
			ut_unregister(&ut_consumers[i]);
		else if (ut_consumers[i].prepared)
			ut_release(&ut_consumers[i]);
	}
	mutex_unlock(&ut_mutex);
	/* Consumers their handlers unregistered may still run handlers. */
	uprobe_unregister_sync();
	kfree(ut_log);
}

module_init(ut_init);
module_exit(ut_exit);
MODULE_DESCRIPTION("uprobes API test module for the uprobe_api selftest");
MODULE_LICENSE("GPL");
