// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe events: lines of uprobe_events (or dynamic_events) become ftrace
 * events that fire at an instruction of a user-space file.
 *
 *	p[:[GRP/]EVENT] PATH:OFFSET[%return][%nojump][(REF_CTR_OFFSET)] [FETCHARGS]
 *	r[:[GRP/]EVENT] PATH:OFFSET[%nojump][(REF_CTR_OFFSET)] [FETCHARGS]
 *	p[:[GRP/]EVENT] /proc/PID:ADDRESS[%return][%nojump] [FETCHARGS]
 *	-:[GRP/]EVENT [PATH:OFFSET [FETCHARGS]]
 *
 * One line makes one struct trace_uprobe: a place (the file, held by its
 * struct path so its inode lives, and an offset; or a process, held by
 * its struct pid, and an address in it, uprobe_register_pid()) and a
 * consumer of the uprobes core.  "/proc/PID" is only the syntax of the
 * second kind: nothing is looked up there.  The number is resolved once,
 * when the line is written; from then on the struct pid is the process,
 * so a new process that gets the same number later is never probed.  A
 * probe by address that loses its place (the process exits, its code is
 * unmapped or rewritten) says so in the error_log; enabled again, it is
 * refused as its code now is, or with -ESRCH and an error_log line once
 * its process is gone.  Lines with the same GRP/EVENT and the same arguments
 * share one ftrace event (one struct trace_probe_event): each place is a
 * sibling probe of it.  Parsing the arguments, the event's format and the
 * error_log are the shared trace_probe library's.
 *
 * Arming.  A trace_uprobe's consumer is registered with the core only
 * while its event is enabled, by an ftrace file (any trace instance) or
 * by perf; so a defined but disabled event costs the probed processes
 * nothing.  ftrace wants every process.  perf events want the processes
 * of their tasks only, or every process for a CPU-wide event: the event's
 * struct trace_uprobe_filter lists them, the consumer's filter() asks it,
 * and uprobe_apply() follows its changes.  perf's consumers register at
 * the first open of an event, when the filter knows whom they are for:
 * one walk of the file's mappings, not two.  A hit in a process that no
 * one wants (a child that inherited the breakpoint by fork) asks the core
 * to remove the breakpoint there.
 *
 * Detaching.  Disabling an event takes its consumers off the core with
 * no wait for their handlers; what next needs those finished waits for
 * them, if it still must (tu_wait_handlers()): the consumer registering
 * again, the event's deletion; and the freeing of perf's own probes and
 * of the scratch pages, done by a work after one wait for a batch.
 * perf frees an event's per-CPU list an RCU grace period after its last
 * perf event leaves.  So closing a perf event sleeps for no grace period.
 *
 * A hit is trace_uprobe_hit.c's: the handlers, the fetching of the
 * arguments, the records of ftrace and perf, BPF, and whom perf wants.
 *
 * Locking, outermost first:
 *
 *	dyn_event_ops_mutex	parsing a line; the error_log's command
 *	  event_mutex		the event lists; enabling and disabling;
 *				every change of a consumer's registration;
 *				the scratch pages' users
 *	    (core) a uprobe's locks, taken by uprobe_register() & co.
 *	      filter->rwlock	the perf events of an event; read by the
 *				open and close of others, never held across
 *				a call into the core
 *	scratch->lock		one CPU's scratch page, for one hit at a time;
 *				only tried, with no other lock held
 *
 * The hit path and the core's filter() read whom perf wants from a copy
 * of the filter in each probe of the event (struct tu_wants), under RCU:
 * no lock, nothing written that other CPUs share.
 */
#define pr_fmt(fmt)	"trace_uprobe: " fmt

#include <linux/ctype.h>
#include <linux/llist.h>
#include <linux/namei.h>
#include <linux/percpu.h>
#include <linux/security.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "trace_uprobe.h"

#define UPROBE_EVENT_SYSTEM	"uprobes"

/* The place of a definition, while it is parsed. */
struct tu_place {
	struct path	path;
	struct pid	*pid;		/* a place by process and address */
	char		*filename;
	unsigned long	offset;
	unsigned long	ref_ctr_offset;
	int		ref_ctr_pos;	/* where the command has it, for errors */
	bool		is_return;
	bool		no_jump;	/* %nojump: the breakpoint only */
};

static int tu_dyn_create(const char *raw_command);
static int tu_dyn_show(struct seq_file *m, struct dyn_event *ev);
static int tu_dyn_free(struct dyn_event *ev);
static bool tu_dyn_busy(struct dyn_event *ev);
static bool tu_dyn_match(const char *system, const char *event,
			 int argc, const char **argv, struct dyn_event *ev);

static struct dyn_event_operations trace_uprobe_ops = {
	.create = tu_dyn_create,
	.show = tu_dyn_show,
	.is_busy = tu_dyn_busy,
	.free = tu_dyn_free,
	.match = tu_dyn_match,
};

static bool is_trace_uprobe(struct dyn_event *ev)
{
	return ev->ops == &trace_uprobe_ops;
}

static struct trace_uprobe *to_trace_uprobe(struct dyn_event *ev)
{
	return container_of(ev, struct trace_uprobe, devent);
}

/* Whether @tu probes @offset of @inode. */
static bool tu_is_at(struct trace_uprobe *tu, struct inode *inode, unsigned long offset)
{
	return !tu->pid && d_real_inode(tu->path.dentry) == inode && tu->offset == offset;
}

/* Whether @a and @b probe the same place. */
static bool tu_same_place(struct trace_uprobe *a, struct trace_uprobe *b)
{
	if (a->pid || b->pid)
		return a->pid == b->pid && a->offset == b->offset;
	return tu_is_at(a, d_real_inode(b->path.dentry), b->offset);
}

static struct trace_uprobe *trace_uprobe_primary_from_call(struct trace_event_call *call)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	if (WARN_ON_ONCE(!tp))
		return NULL;
	return container_of(tp, struct trace_uprobe, tp);
}

/* --------------------------------------------- freeing after handlers */

/*
 * What handlers of consumers that left the core with no wait may still
 * use (see "Detaching" above): probes and sets of scratch pages, freed by
 * a work after one wait for all those queued meanwhile.
 */
static LLIST_HEAD(tu_to_free);
static LLIST_HEAD(tu_scratch_to_free);

static void tu_free_detached(struct work_struct *work);
static DECLARE_WORK(tu_free_work, tu_free_detached);

/* Queues @node on @list for tu_free_detached(). */
static void tu_free_later(struct llist_node *node, struct llist_head *list)
{
	if (llist_add(node, list))
		schedule_work(&tu_free_work);
}

/* -------------------------------------------------------------- arming */

static char *tu_place_string(const struct trace_uprobe *tu);

/*
 * What befell a probe by address: the error_log's words.  A probe lost
 * its place (the core's notice), or could not be armed again.
 */
enum {
	TU_LOST_EXITED,
	TU_LOST_UNMAPPED,
	TU_LOST_REWRITTEN,
	TU_ARM_GONE,
	TU_ARM_EXEC,
	TU_ARM_FAILED,
	TU_LOG_NR
};

static const char *tu_log_errs[TU_LOG_NR] = {
	[TU_LOST_EXITED] = "Probe lost: its process exited or exec'd",
	[TU_LOST_UNMAPPED] = "Probe lost: its code was unmapped or moved",
	[TU_LOST_REWRITTEN] = "Probe lost: its code was rewritten",
	[TU_ARM_GONE] = "Probe not armed: its process is gone",
	[TU_ARM_EXEC] = "Probe not armed: its process is in execve(), try again",
	[TU_ARM_FAILED] = "Probe not armed: see the errno",
};

/*
 * The error_log's words for an instruction that cannot be probed, by the
 * class the architecture tells (uprobe_consumer.refused).
 */
static const char *tu_refusal_errs[UPROBE_REFUSED_OTHER + 1] = {
	[UPROBE_REFUSED_UNDECODABLE] = "Probe not armed: the bytes there are no instruction",
	[UPROBE_REFUSED_TRAP] = "Probe not armed: an instruction that traps cannot be probed",
	[UPROBE_REFUSED_SYSCALL] = "Probe not armed: a system call instruction cannot be probed",
	[UPROBE_REFUSED_PRIVILEGED] =
		"Probe not armed: a privileged or I/O instruction cannot be probed",
	[UPROBE_REFUSED_FAR] = "Probe not armed: a far branch or return cannot be probed",
	[UPROBE_REFUSED_SEGMENT] =
		"Probe not armed: a load of a segment register cannot be probed",
	[UPROBE_REFUSED_ENCODING] = "Probe not armed: this encoding cannot run out of line",
	[UPROBE_REFUSED_MODE] = "Probe not armed: code of this mode cannot be probed",
	[UPROBE_REFUSED_EXCLUSIVE] =
		"Probe not armed: an exclusive load or store cannot be probed",
	[UPROBE_REFUSED_SYSTEM] =
		"Probe not armed: a system register or system instruction cannot be probed",
	[UPROBE_REFUSED_PC_RELATIVE] =
		"Probe not armed: this pc-relative instruction cannot be emulated",
	[UPROBE_REFUSED_OTHER] =
		"Probe not armed: this instruction can be neither stepped nor emulated",
};

/* Logs entry @what of @errs for @tu in the error_log, with its definition. */
static void tu_log(struct trace_uprobe *tu, const char **errs, int what)
{
	char *place, *cmd;

	place = tu_place_string(tu);
	cmd = place ? kasprintf(GFP_KERNEL, "%c:%s/%s %s", trace_uprobe_is_return(tu) ? 'r' : 'p',
				trace_probe_group_name(&tu->tp), trace_probe_name(&tu->tp),
				place) : NULL;
	if (cmd)
		tracing_log_err(NULL, "trace_uprobe", cmd, errs, what, 0);
	kfree(cmd);
	kfree(place);
}

/* Logs @what of @tu (enum of tu_log_errs) in the error_log. */
static void tu_log_err(struct trace_uprobe *tu, int what)
{
	tu_log(tu, tu_log_errs, what);
}

/* Whether handlers of @tu's consumer, which left the core, may still run. */
static bool tu_handlers_may_run(struct trace_uprobe *tu)
{
	return tu->detached && !uprobe_unregister_synced(tu->sync_cookie);
}

/*
 * Waits for the handlers of @tu's consumer, if it left the core with no
 * wait (tu_disarm_event()) and they may still run: before the consumer
 * registers again (readers may still walk the list it was on) or its
 * event goes.  Seldom a wait by then: the core's grace period started
 * when the consumer left.
 */
static void tu_wait_handlers(struct trace_uprobe *tu)
{
	lockdep_assert_held(&event_mutex);
	if (tu_handlers_may_run(tu))
		uprobe_unregister_sync();
	tu->detached = false;
}

/* The error_log's words for a probe by address that could not be armed. */
static int tu_arm_err(long err)
{
	if (err == -ESRCH)
		return TU_ARM_GONE;
	return err == -EAGAIN ? TU_ARM_EXEC : TU_ARM_FAILED;
}

/*
 * Registers @tu's consumer.  A probe by address names its process by the
 * struct pid it holds, never by a number looked up again: once that
 * process is gone, the probe is refused (-ESRCH), whoever has its number
 * now, and the error_log says why.
 */
static int tu_arm(struct trace_uprobe *tu)
{
	struct uprobe *uprobe;

	tu_wait_handlers(tu);
	if (tu->pid)
		uprobe = uprobe_register_pid(tu->pid, tu->offset, &tu->consumer);
	else
		uprobe = uprobe_register(d_real_inode(tu->path.dentry), tu->offset,
					 tu->ref_ctr_offset, &tu->consumer);
	if (IS_ERR(uprobe)) {
		if (tu->consumer.refused && tu->consumer.refused < ARRAY_SIZE(tu_refusal_errs))
			tu_log(tu, tu_refusal_errs, tu->consumer.refused);
		else if (tu->pid)
			tu_log_err(tu, tu_arm_err(PTR_ERR(uprobe)));
		return PTR_ERR(uprobe);
	}
	tu->uprobe = uprobe;
	return 0;
}

/*
 * Disarms every probe of the event.  Their handlers are not waited for
 * here, but by whatever next needs them done (tu_wait_handlers(),
 * tu_free_later()): a tool that closes thousands of perf events waits
 * for no grace period at each.
 */
static void tu_disarm_event(struct trace_probe *tp)
{
	struct tu_scratch_set *set;
	struct trace_uprobe *tu;
	unsigned long cookie;

	lockdep_assert_held(&event_mutex);
	list_for_each_entry(tu, trace_probe_probe_list(tp), tp.list) {
		if (!tu->uprobe)
			continue;
		uprobe_unregister_nosync(tu->uprobe, &tu->consumer);
		tu->uprobe = NULL;
		tu->detached = true;
	}
	cookie = uprobe_unregister_start_sync();
	list_for_each_entry(tu, trace_probe_probe_list(tp), tp.list)
		if (tu->detached)
			tu->sync_cookie = cookie;
	set = trace_uprobe_scratch_put();
	if (set)
		tu_free_later(&set->free_node, &tu_scratch_to_free);
}

/*
 * Makes the core follow a change of the event's filter; @add: arms where
 * it now wants the probes, registering those not registered yet.
 */
static int tu_apply_event(struct trace_probe *tp, bool add)
{
	struct trace_uprobe *tu;
	int ret = 0, err;

	lockdep_assert_held(&event_mutex);
	list_for_each_entry(tu, trace_probe_probe_list(tp), tp.list) {
		if (tu->uprobe)
			err = uprobe_apply(tu->uprobe, &tu->consumer, add);
		else
			err = add ? tu_arm(tu) : 0;
		if (err && !ret)
			ret = err;
	}
	return ret;
}

/*
 * Arms what a new user of the event wants: ftrace, every process; perf,
 * only what its events' filter wants, so it arms at its first open.
 * @was: the event's users before.  On error, leaves things as they were.
 */
static int tu_start(struct trace_probe *tp, unsigned int was, bool ftrace)
{
	int ret;

	if (!was) {
		ret = trace_uprobe_scratch_get();
		if (ret || !ftrace)
			return ret;
		ret = tu_apply_event(tp, true);
		if (ret)
			tu_disarm_event(tp);
		return ret;
	}
	if (!ftrace || (was & TP_FLAG_TRACE))
		return 0;
	ret = tu_apply_event(tp, true);
	if (ret)
		tu_apply_event(tp, false);
	return ret;
}

/* ------------------------------------------------- enabling, disabling */

/* @file: an ftrace instance's file; NULL: perf. */
static int tu_enable(struct trace_event_call *call, struct trace_event_file *file)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);
	unsigned int was;
	int ret;

	lockdep_assert_held(&event_mutex);
	if (WARN_ON_ONCE(!tp))
		return -ENODEV;
	was = trace_probe_load_flag(tp) & (TP_FLAG_TRACE | TP_FLAG_PROFILE);
	if (file) {
		ret = trace_probe_add_file(tp, file);
		if (ret)
			return ret;
	} else {
		trace_probe_set_flag(tp, TP_FLAG_PROFILE);
	}

	ret = tu_start(tp, was, !!file);
	if (!ret)
		return 0;
	if (file)
		trace_probe_remove_file(tp, file);
	else
		trace_probe_clear_flag(tp, TP_FLAG_PROFILE);
	return ret;
}

static int tu_disable(struct trace_event_call *call, struct trace_event_file *file)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);
	unsigned int now;

	lockdep_assert_held(&event_mutex);
	if (WARN_ON_ONCE(!tp))
		return -ENODEV;
	if (file) {
		if (trace_probe_remove_file(tp, file))
			return -ENOENT;
	} else {
		trace_probe_clear_flag(tp, TP_FLAG_PROFILE);
	}

	now = trace_probe_load_flag(tp) & (TP_FLAG_TRACE | TP_FLAG_PROFILE);
	if (!now)
		tu_disarm_event(tp);
	else if (file && !(now & TP_FLAG_TRACE))
		tu_apply_event(tp, false);
	return 0;
}

#ifdef CONFIG_PERF_EVENTS
/*
 * A perf event of this event opens: its task's process is wanted.  The
 * filter changes only here and in tu_perf_close(), under event_mutex.
 */
static int tu_perf_open(struct trace_event_call *call, struct perf_event *event)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);
	struct trace_uprobe_filter *filter;
	bool covered;
	int ret;

	lockdep_assert_held(&event_mutex);
	if (WARN_ON_ONCE(!tp))
		return -ENODEV;
	filter = tp->event->filter;
	covered = trace_uprobe_filter_covers(filter, event);
	trace_uprobe_filter_set(tp, event, true);
	if (covered || trace_probe_test_flag(tp, TP_FLAG_TRACE))
		return 0;
	ret = tu_apply_event(tp, true);
	if (!ret)
		return 0;
	trace_uprobe_filter_set(tp, event, false);
	tu_apply_event(tp, false);
	return ret;
}

/* Whether no perf event is left in @filter. */
static bool tu_filter_empty(struct trace_uprobe_filter *filter)
{
	return !filter->nr_systemwide && list_empty(&filter->perf_events);
}

/*
 * A perf event closes: its process is no longer wanted, unless another
 * event wants it or ftrace wants every process.  The last one to close
 * leaves the disarming to TRACE_REG_PERF_UNREGISTER, which perf sends
 * next under the same hold of event_mutex: one walk of the probed file's
 * mappings instead of two.
 */
static int tu_perf_close(struct trace_event_call *call, struct perf_event *event)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);
	struct trace_uprobe_filter *filter;

	lockdep_assert_held(&event_mutex);
	if (WARN_ON_ONCE(!tp))
		return -ENODEV;
	filter = tp->event->filter;
	trace_uprobe_filter_set(tp, event, false);
	if (tu_filter_empty(filter) || trace_uprobe_filter_covers(filter, event) ||
	    trace_probe_test_flag(tp, TP_FLAG_TRACE))
		return 0;
	tu_apply_event(tp, false);
	return 0;
}
#endif

/* Called by ftrace and perf with event_mutex held. */
static int trace_uprobe_register(struct trace_event_call *call, enum trace_reg type,
				 void *data)
{
	switch (type) {
	case TRACE_REG_REGISTER:
		return tu_enable(call, data);
	case TRACE_REG_UNREGISTER:
		return tu_disable(call, data);
#ifdef CONFIG_PERF_EVENTS
	case TRACE_REG_PERF_REGISTER:
		return tu_enable(call, NULL);
	case TRACE_REG_PERF_UNREGISTER:
		return tu_disable(call, NULL);
	case TRACE_REG_PERF_OPEN:
		return tu_perf_open(call, data);
	case TRACE_REG_PERF_CLOSE:
		return tu_perf_close(call, data);
	case TRACE_REG_PERF_ADD:
	case TRACE_REG_PERF_DEL:
		return 0;
#endif
	}
	return 0;
}

/* Makes @tu's event an ftrace event of its kind, with its print format. */
static int tu_init_event_call(struct trace_uprobe *tu)
{
	struct trace_event_call *call = trace_probe_event_call(&tu->tp);

	call->flags = TRACE_EVENT_FL_UPROBE | TRACE_EVENT_FL_CAP_ANY;
	call->class->reg = trace_uprobe_register;
	return trace_uprobe_format_init(tu);
}

/* ------------------------------------------------ probes, their life */

static void free_trace_uprobe_now(struct trace_uprobe *tu)
{
	path_put(&tu->path);
	put_pid(tu->pid);
	kfree(tu->filename);
	trace_uprobe_handlers_cleanup(tu);
	trace_probe_cleanup(&tu->tp);
	free_percpu(tu->hits);
	kfree(tu);
}

static void tu_free_detached(struct work_struct *work)
{
	struct llist_node *probes = llist_del_all(&tu_to_free);
	struct llist_node *sets = llist_del_all(&tu_scratch_to_free);
	struct tu_scratch_set *set, *next_set;
	struct trace_uprobe *tu, *next;

	uprobe_unregister_sync();
	llist_for_each_entry_safe(tu, next, probes, free_node)
		free_trace_uprobe_now(tu);
	llist_for_each_entry_safe(set, next_set, sets, free_node)
		trace_uprobe_scratch_free(set);
}

/* Freed once its handlers are over: perf's own probes may still run some. */
static void free_trace_uprobe(struct trace_uprobe *tu)
{
	if (!tu)
		return;
	if (tu_handlers_may_run(tu))
		tu_free_later(&tu->free_node, &tu_to_free);
	else
		free_trace_uprobe_now(tu);
}

static void tu_place_release(struct tu_place *place)
{
	path_put(&place->path);
	put_pid(place->pid);
	kfree(place->filename);
}

/*
 * A probe by address lost its place: the error_log says so, with the
 * probe's definition.  From the core's worker, under its SRCU.
 */
static void tu_notify(struct uprobe_consumer *uc, struct uprobe *uprobe,
		      enum uprobe_notice what, int err)
{
	struct trace_uprobe *tu = container_of(uc, struct trace_uprobe, consumer);

	if (what != UPROBE_NOTICE_LOST)
		return;
	tu_log_err(tu, err == -ESRCH ? TU_LOST_EXITED :
		       err == -ENXIO ? TU_LOST_UNMAPPED : TU_LOST_REWRITTEN);
}

/* A probe at @place, which it takes over (@place is emptied). */
static struct trace_uprobe *alloc_trace_uprobe(const char *group, const char *event,
					       int nargs, struct tu_place *place)
{
	struct trace_uprobe *tu;
	int ret = -ENOMEM;

	tu = kzalloc(struct_size(tu, tp.args, nargs), GFP_KERNEL);
	if (!tu)
		return ERR_PTR(-ENOMEM);
	tu->hits = alloc_percpu(unsigned long);
	if (!tu->hits)
		goto free_tu;
	ret = trace_probe_init(&tu->tp, event, group, true, nargs);
	if (ret)
		goto free_tu;

	trace_uprobe_handlers_init(tu, place->is_return);
	tu->consumer.no_jump = place->no_jump;
	tu->consumer.notify = tu_notify;
	dyn_event_init(&tu->devent, &trace_uprobe_ops);

	tu->path = place->path;
	tu->pid = place->pid;
	tu->filename = place->filename;
	tu->offset = place->offset;
	tu->ref_ctr_offset = place->ref_ctr_offset;
	*place = (struct tu_place){};
	return tu;

free_tu:
	free_trace_uprobe(tu);
	return ERR_PTR(ret);
}

static struct trace_uprobe *find_probe_event(const char *event, const char *group)
{
	struct trace_uprobe *tu;
	struct dyn_event *pos;

	for_each_dyn_event(pos) {
		if (!is_trace_uprobe(pos))
			continue;
		tu = to_trace_uprobe(pos);
		if (!strcmp(trace_probe_name(&tu->tp), event) &&
		    !strcmp(trace_probe_group_name(&tu->tp), group))
			return tu;
	}
	return NULL;
}

/* Whether @event already has a probe at @tu's place with its arguments. */
static bool tu_event_has_probe(struct trace_uprobe *event, struct trace_uprobe *tu)
{
	struct trace_uprobe *other;
	int i;

	list_for_each_entry(other, trace_probe_probe_list(&event->tp), tp.list) {
		if (!tu_same_place(other, tu))
			continue;
		for (i = 0; i < tu->tp.nr_args; i++)
			if (strcmp(other->tp.args[i].comm, tu->tp.args[i].comm))
				break;
		if (i == tu->tp.nr_args)
			return true;
	}
	return false;
}

/* Adds @tu to the existing event of @old as a sibling probe. */
static int tu_join_event(struct trace_uprobe *tu, struct trace_uprobe *old)
{
	int ret;

	if (trace_uprobe_is_return(tu) != trace_uprobe_is_return(old)) {
		trace_probe_log_set_index(0);
		trace_probe_log_err(0, DIFF_PROBE_TYPE);
		return -EEXIST;
	}
	ret = trace_probe_compare_arg_type(&tu->tp, &old->tp);
	if (ret) {
		trace_probe_log_set_index(ret + 1);
		trace_probe_log_err(0, DIFF_ARG_TYPE);
		return -EEXIST;
	}
	if (tu_event_has_probe(old, tu)) {
		trace_probe_log_set_index(0);
		trace_probe_log_err(0, SAME_PROBE);
		return -EEXIST;
	}
	ret = trace_probe_append(&tu->tp, &old->tp);
	if (ret)
		return ret;
	/* An enabled event traces at its new place at once. */
	if (trace_probe_is_enabled(&tu->tp)) {
		ret = tu_arm(tu);
		if (ret) {
			trace_probe_unlink(&tu->tp);
			trace_probe_log_set_index(1);
			trace_probe_log_err(0, FAIL_REG_PROBE);
			return ret;
		}
	}
	dyn_event_add(&tu->devent, trace_probe_event_call(&tu->tp));
	return 0;
}

/* Makes @tu's event an ftrace event, or a sibling of its namesake. */
static int register_trace_uprobe(struct trace_uprobe *tu)
{
	struct trace_uprobe *old;
	int ret;

	guard(mutex)(&event_mutex);
	old = find_probe_event(trace_probe_name(&tu->tp), trace_probe_group_name(&tu->tp));
	if (old)
		return tu_join_event(tu, old);

	ret = trace_probe_register_event_call(&tu->tp);
	if (ret == -EEXIST) {
		trace_probe_log_set_index(0);
		trace_probe_log_err(0, EVENT_EXIST);
	} else if (ret) {
		pr_warn("Failed to register probe event (%d)\n", ret);
	}
	if (!ret)
		dyn_event_add(&tu->devent, trace_probe_event_call(&tu->tp));
	return ret;
}

/* Takes @tu out of the event list; an enabled event is busy. */
static int unregister_trace_uprobe(struct trace_uprobe *tu)
{
	lockdep_assert_held(&event_mutex);
	if (trace_probe_is_enabled(&tu->tp))
		return -EBUSY;
	tu_wait_handlers(tu);
	if (!trace_probe_has_sibling(&tu->tp)) {
		if (trace_event_dyn_busy(trace_probe_event_call(&tu->tp)))
			return -EBUSY;
		if (trace_probe_unregister_event_call(&tu->tp))
			return -EBUSY;
	}
	dyn_event_remove(&tu->devent);
	trace_probe_unlink(&tu->tp);
	return 0;
}

/* ------------------------------------------------------------- parsing */

/*
 * Whether the command is a uprobe definition: "p" or "r", maybe with
 * ":NAME", then PATH:OFFSET with a '/' in PATH and a digit first in
 * OFFSET.  Other lines are left to the other dynamic event types.  A
 * number after "r" (a kretprobe's MAXACTIVE) is accepted and means
 * nothing here: a task's pending returns have their own limit.
 */
static int tu_claim_command(int argc, const char **argv)
{
	const char *cmd = argv[0], *rest = cmd + 1, *colon;

	if (cmd[0] == 'r')
		rest += strspn(rest, "0123456789");
	if ((cmd[0] != 'p' && cmd[0] != 'r') || (*rest != '\0' && *rest != ':'))
		return -ECANCELED;
	if (argc < 2 || !strchr(argv[1], '/'))
		return -ECANCELED;
	colon = strrchr(argv[1], ':');
	if (!colon || !isdigit(colon[1]))
		return -ECANCELED;
	if (argc - 2 > MAX_TRACE_ARGS)
		return -E2BIG;
	return 0;
}

/* PATH: a regular file, held. */
static int tu_lookup_file(const char *name, struct path *path)
{
	int ret;

	ret = kern_path(name, LOOKUP_FOLLOW, path);
	if (ret)
		return ret;
	if (!d_is_reg(path->dentry)) {
		path_put(path);
		*path = (struct path){};
		return -EINVAL;
	}
	return 0;
}

/* The %SUFFIXes after an offset, at @suffix in @spec (for errors). */
static int tu_parse_suffixes(char *spec, char *suffix, struct tu_place *place)
{
	char *next;

	while (suffix) {
		*suffix++ = '\0';
		next = strchr(suffix, '%');
		if (next)
			*next = '\0';
		if (!strcmp(suffix, "return")) {
			place->is_return = true;
		} else if (!strcmp(suffix, "nojump")) {
			place->no_jump = true;
		} else {
			trace_probe_log_err(suffix - 1 - spec, BAD_ADDR_SUFFIX);
			return -EINVAL;
		}
		if (next)
			*next = '%';
		suffix = next;
	}
	return 0;
}

/*
 * OFFSET[%return][%nojump][(REF_CTR_OFFSET)], at @off in @spec (a copy of
 * the command's PATH:OFFSET, which places the errors).
 */
static int tu_parse_offset(char *spec, char *off, struct tu_place *place)
{
	char *brace, *close;

	brace = strchr(off, '(');
	if (brace) {
		close = strchr(brace, ')');
		if (!close) {
			trace_probe_log_err(brace - spec + strlen(brace), REFCNT_OPEN_BRACE);
			return -EINVAL;
		}
		if (close[1]) {
			trace_probe_log_err(close + 1 - spec, BAD_REFCNT_SUFFIX);
			return -EINVAL;
		}
		*brace = '\0';
		*close = '\0';
		place->ref_ctr_pos = brace + 1 - spec;
		if (kstrtoul(brace + 1, 0, &place->ref_ctr_offset)) {
			trace_probe_log_err(brace + 1 - spec, BAD_REFCNT);
			return -EINVAL;
		}
	}
	if (tu_parse_suffixes(spec, strchr(off, '%'), place))
		return -EINVAL;
	if (kstrtoul(off, 0, &place->offset)) {
		trace_probe_log_err(off - spec, BAD_UPROBE_OFFS);
		return -EINVAL;
	}
	return 0;
}

/*
 * "/proc/PID", the process of a place by address: held in *@pid, as the
 * caller sees it.  1 when @spec is not of that form, -ESRCH when there is
 * no such process.
 */
static int tu_process_of(const char *spec, struct pid **pid)
{
	const char *digits = spec + strlen("/proc/");
	int nr;

	if (!str_has_prefix(spec, "/proc/") || !*digits ||
	    strspn(digits, "0123456789") != strlen(digits))
		return 1;
	if (kstrtoint(digits, 10, &nr) || nr <= 0)
		return -ESRCH;
	*pid = find_get_pid(nr);
	return *pid ? 0 : -ESRCH;
}

/* The process of a place by address, for uprobe_events: refused in the log. */
static int tu_parse_process(const char *spec, struct tu_place *place)
{
	int ret = tu_process_of(spec, &place->pid);

	if (ret < 0)
		trace_probe_log_err(strlen("/proc/"), NO_PROCESS);
	return ret;
}

/* The place's file: a regular file, held. */
static int tu_parse_file(const char *spec, struct tu_place *place)
{
	int ret = tu_lookup_file(spec, &place->path);

	if (ret)
		__trace_probe_log_err(0, ret == -EINVAL ? TP_ERR_NO_REGULAR_FILE :
							 TP_ERR_FILE_NOT_FOUND);
	return ret;
}

/* PATH:OFFSET... or /proc/PID:ADDRESS..., the second word of the command. */
static int tu_parse_place(const char *arg, struct tu_place *place)
{
	char *spec, *colon;
	int ret;

	trace_probe_log_set_index(1);
	spec = kstrdup(arg, GFP_KERNEL);
	if (!spec)
		return -ENOMEM;
	colon = strrchr(spec, ':');
	*colon = '\0';
	place->ref_ctr_pos = strlen(arg);
	ret = tu_parse_process(spec, place);
	if (ret > 0)
		ret = tu_parse_file(spec, place);
	if (ret)
		goto free_spec;
	ret = tu_parse_offset(spec, colon + 1, place);
	if (ret)
		goto free_spec;
	if (place->pid && place->ref_ctr_offset) {
		trace_probe_log_err(place->ref_ctr_pos, REFCNT_ON_PID);
		ret = -EINVAL;
		goto free_spec;
	}
	place->filename = spec;
	return 0;

free_spec:
	kfree(spec);
	return ret;
}

/* One place has one SDT semaphore: a definition naming another is refused. */
static int tu_check_ref_ctr(const struct tu_place *place)
{
	struct trace_uprobe *tu;
	struct dyn_event *pos;
	struct inode *inode;

	if (place->pid)
		return 0;
	inode = d_real_inode(place->path.dentry);
	guard(mutex)(&event_mutex);
	for_each_dyn_event(pos) {
		if (!is_trace_uprobe(pos))
			continue;
		tu = to_trace_uprobe(pos);
		if (!tu_is_at(tu, inode, place->offset) ||
		    tu->ref_ctr_offset == place->ref_ctr_offset)
			continue;
		trace_probe_log_err(place->ref_ctr_pos, BAD_REFCNT);
		return -EINVAL;
	}
	return 0;
}

/* "p_", the file's base name up to its first non-alphanumeric, "_0x" OFFSET. */
static void tu_default_name(char *buf, const char *filename, unsigned long offset)
{
	const char *base = kbasename(filename);
	int len = 0;

	while (isalnum(base[len]))
		len++;
	snprintf(buf, MAX_EVENT_NAME_LEN, "p_%.*s_0x%lx", len, base, offset);
}

/* Whether argument @arg reads at a file offset (@+OFFSET). */
static bool tu_arg_reads_file(const struct probe_arg *arg)
{
	const struct fetch_insn *code;

	for (code = arg->code; code->op != FETCH_OP_END; code++)
		if (code->op == FETCH_OP_FOFFS)
			return true;
	return false;
}

static int tu_parse_args(struct trace_uprobe *tu, int argc, const char **argv,
			 struct traceprobe_parse_context *ctx)
{
	int i, ret;

	for (i = 0; i < argc; i++) {
		trace_probe_log_set_index(i + 2);
		ctx->offset = 0;
		ret = traceprobe_parse_probe_arg(&tu->tp, i, argv[i], ctx);
		if (ret)
			return ret;
		/* A place by address has no file to be relative to. */
		if (tu->pid && tu_arg_reads_file(&tu->tp.args[i])) {
			trace_probe_log_err(0, FOFFS_ON_PID);
			return -EINVAL;
		}
	}
	return 0;
}

static int tu_create_from_words(int argc, const char **argv)
{
	struct traceprobe_parse_context ctx = { .flags = TPARG_FL_USER };
	const char *event = NULL, *group = UPROBE_EVENT_SYSTEM;
	char gbuf[MAX_EVENT_NAME_LEN], nbuf[MAX_EVENT_NAME_LEN];
	struct tu_place place = {};
	struct trace_uprobe *tu;
	int ret;

	ret = tu_claim_command(argc, argv);
	if (ret)
		return ret;
	trace_probe_log_init("trace_uprobe", argc, argv);
	place.is_return = argv[0][0] == 'r';
	event = strchr(argv[0], ':');
	if (event) {
		event++;
		ret = traceprobe_parse_event_name(&event, &group, gbuf, event - argv[0]);
		if (ret)
			goto out;
	}
	ret = tu_parse_place(argv[1], &place);
	if (!ret)
		ret = tu_check_ref_ctr(&place);
	if (ret)
		goto out;
	if (!event) {
		tu_default_name(nbuf, place.filename, place.offset);
		event = nbuf;
	}
	if (place.is_return)
		ctx.flags |= TPARG_FL_RETURN;

	tu = alloc_trace_uprobe(group, event, argc - 2, &place);
	if (IS_ERR(tu)) {
		ret = PTR_ERR(tu);
		goto out;
	}
	ret = tu_parse_args(tu, argc - 2, argv + 2, &ctx);
	if (!ret)
		ret = tu_init_event_call(tu);
	if (!ret)
		ret = register_trace_uprobe(tu);
	if (ret)
		free_trace_uprobe(tu);
out:
	tu_place_release(&place);
	traceprobe_finish_parse(&ctx);
	trace_probe_log_clear();
	return ret;
}

static int tu_dyn_create(const char *raw_command)
{
	return trace_probe_create(raw_command, tu_create_from_words);
}

/* One line written to uprobe_events: a definition or a "-:" removal. */
static int tu_run_line(const char *line)
{
	int err;

	if (line[0] == '-')
		return dyn_event_release(line, &trace_uprobe_ops);
	/* Not a uprobe definition at all: a line uprobe_events refuses. */
	err = dyn_event_create(line, &trace_uprobe_ops);
	return err == -ECANCELED ? -EINVAL : err;
}

/* ------------------------------------------------- dynamic event hooks */

static bool tu_dyn_busy(struct dyn_event *ev)
{
	return trace_probe_is_enabled(&to_trace_uprobe(ev)->tp);
}

static int tu_dyn_free(struct dyn_event *ev)
{
	struct trace_uprobe *tu = to_trace_uprobe(ev);
	int ret;

	ret = unregister_trace_uprobe(tu);
	if (!ret)
		free_trace_uprobe(tu);
	return ret;
}

/*
 * PATH:0xOFFSET[%nojump][(0xREF)], as uprobe_events lists the place;
 * kfree() it.
 */
static char *tu_place_string(const struct trace_uprobe *tu)
{
	const char *flag = tu->consumer.no_jump ? "%nojump" : "";

	if (tu->ref_ctr_offset)
		return kasprintf(GFP_KERNEL, "%s:0x%0*lx%s(0x%lx)", tu->filename,
				 (int)(sizeof(void *) * 2), tu->offset, flag,
				 tu->ref_ctr_offset);
	return kasprintf(GFP_KERNEL, "%s:0x%0*lx%s", tu->filename,
			 (int)(sizeof(void *) * 2), tu->offset, flag);
}

/* "-:[GRP/]EVENT [PATH:OFFSET [ARGS]]": the rest as uprobe_events lists it. */
static bool tu_dyn_match(const char *system, const char *event,
			 int argc, const char **argv, struct dyn_event *ev)
{
	struct trace_uprobe *tu = to_trace_uprobe(ev);
	bool same;
	char *place;

	if (event[0] && strcmp(trace_probe_name(&tu->tp), event))
		return false;
	if (system && strcmp(trace_probe_group_name(&tu->tp), system))
		return false;
	if (!argc)
		return true;
	place = tu_place_string(tu);
	same = place && !strcmp(place, argv[0]);
	kfree(place);
	return same && trace_probe_match_command_args(&tu->tp, argc - 1, argv + 1);
}

static int tu_dyn_show(struct seq_file *m, struct dyn_event *ev)
{
	struct trace_uprobe *tu = to_trace_uprobe(ev);
	char *place = tu_place_string(tu);
	struct probe_arg *arg;

	if (!place)
		return -ENOMEM;
	seq_printf(m, "%c:%s/%s %s", trace_uprobe_is_return(tu) ? 'r' : 'p',
		   trace_probe_group_name(&tu->tp), trace_probe_name(&tu->tp), place);
	kfree(place);
	for (arg = tu->tp.args; arg < tu->tp.args + tu->tp.nr_args; arg++)
		seq_printf(m, " %s=%s", arg->name, arg->comm);
	seq_puts(m, "\n");
	return 0;
}

/* ------------------------------------------------------- tracefs files */

/*
 * uprobe_events and uprobe_profile walk the dynamic event list, each
 * showing its own view of the uprobe events in it.
 */
static int uprobe_events_seq_show(struct seq_file *m, void *v)
{
	return is_trace_uprobe(v) ? tu_dyn_show(m, v) : 0;
}

static unsigned long tu_hits(struct trace_uprobe *tu)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(tu->hits, cpu);
	return sum;
}

/* uprobe_profile: "  PATH EVENT HITS" for each probe. */
static int uprobe_profile_seq_show(struct seq_file *m, void *v)
{
	struct trace_uprobe *tu;

	if (!is_trace_uprobe(v))
		return 0;
	tu = to_trace_uprobe(v);
	seq_printf(m, "  %s %-44s %15lu\n", tu->filename, trace_probe_name(&tu->tp),
		   tu_hits(tu));
	return 0;
}

static const struct seq_operations uprobe_events_seq_op = {
	.show = uprobe_events_seq_show,
	.start = dyn_event_seq_start,
	.next = dyn_event_seq_next,
	.stop = dyn_event_seq_stop,
};

static const struct seq_operations uprobe_profile_seq_op = {
	.show = uprobe_profile_seq_show,
	.start = dyn_event_seq_start,
	.next = dyn_event_seq_next,
	.stop = dyn_event_seq_stop,
};

/* Opening uprobe_events for writing, truncated, removes every uprobe event. */
static int uprobe_events_open(struct inode *inode, struct file *file)
{
	bool truncate = (file->f_mode & FMODE_WRITE) && (file->f_flags & O_TRUNC);
	int err = security_locked_down(LOCKDOWN_TRACEFS);

	if (!err && truncate)
		err = dyn_events_release_all(&trace_uprobe_ops);
	return err ?: seq_open(file, &uprobe_events_seq_op);
}

static int uprobe_profile_open(struct inode *inode, struct file *file)
{
	return security_locked_down(LOCKDOWN_TRACEFS) ?: seq_open(file, &uprobe_profile_seq_op);
}

static ssize_t uprobe_events_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *pos)
{
	return trace_parse_run_command(file, ubuf, len, pos, tu_run_line);
}

static const struct file_operations uprobe_events_fops = {
	.open = uprobe_events_open,
	.write = uprobe_events_write,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release,
	.owner = THIS_MODULE,
};

static const struct file_operations uprobe_profile_fops = {
	.open = uprobe_profile_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release,
	.owner = THIS_MODULE,
};

/* -------------------------------------------------- perf and BPF glue */

#ifdef CONFIG_PERF_EVENTS
/**
 * create_local_trace_uprobe - a probe event of perf's own
 * @name: the probed file, or "/proc/PID" for a place by process and
 *	address, as in uprobe_events
 * @offs: the probed offset in it, or the address in that process
 * @ref_ctr_offset: the offset of its SDT semaphore, or 0
 * @is_return: probe the returns of the function at @offs
 *
 * The event is in no list: only the perf event that made it uses it,
 * and destroy_local_trace_uprobe() frees it.
 *
 * Return: the event, or an ERR_PTR: -ENOENT (or another lookup error)
 * for a missing file, -EINVAL for one that is not a regular file or an
 * SDT semaphore with a process, -ESRCH for no such process, -ENOMEM.
 */
struct trace_event_call *
create_local_trace_uprobe(char *name, unsigned long offs, unsigned long ref_ctr_offset,
			  bool is_return)
{
	struct tu_place place = {
		.offset = offs,
		.ref_ctr_offset = ref_ctr_offset,
		.is_return = is_return,
	};
	char event[MAX_EVENT_NAME_LEN];
	struct trace_uprobe *tu;
	int ret;

	ret = tu_process_of(name, &place.pid);
	if (ret > 0)
		ret = tu_lookup_file(name, &place.path);
	else if (!ret && ref_ctr_offset)
		ret = -EINVAL;
	if (ret)
		goto release_place;
	place.filename = kstrdup(name, GFP_KERNEL);
	if (!place.filename) {
		ret = -ENOMEM;
		goto release_place;
	}
	tu_default_name(event, name, offs);
	tu = alloc_trace_uprobe(UPROBE_EVENT_SYSTEM, event, 0, &place);
	if (IS_ERR(tu)) {
		ret = PTR_ERR(tu);
		goto release_place;
	}
	ret = tu_init_event_call(tu);
	if (ret) {
		free_trace_uprobe(tu);
		return ERR_PTR(ret);
	}
	return trace_probe_event_call(&tu->tp);

release_place:
	tu_place_release(&place);
	return ERR_PTR(ret);
}

/**
 * destroy_local_trace_uprobe - free an event of create_local_trace_uprobe()
 * @event_call: the event, disabled
 */
void destroy_local_trace_uprobe(struct trace_event_call *event_call)
{
	struct trace_uprobe *tu = trace_uprobe_primary_from_call(event_call);

	if (!tu || WARN_ON_ONCE(trace_probe_is_enabled(&tu->tp)))
		return;
	free_trace_uprobe(tu);
}

/**
 * bpf_get_uprobe_info - what a perf event of a uprobe event probes
 * @event: the perf event
 * @fd_type: BPF_FD_TYPE_UPROBE or BPF_FD_TYPE_URETPROBE, out
 * @filename: the probed file's name, out
 * @probe_offset: the probed offset, out
 * @probe_addr: 0, out: the probe has an address in each process
 * @perf_type_tracepoint: @event is of the tracepoint PMU, opened by id
 *
 * Return: 0, or -EINVAL when @event is not of a uprobe event.
 */
int bpf_get_uprobe_info(const struct perf_event *event, u32 *fd_type,
			const char **filename, u64 *probe_offset,
			u64 *probe_addr, bool perf_type_tracepoint)
{
	struct trace_event_call *call = event->tp_event;
	struct trace_uprobe *tu;

	if (perf_type_tracepoint)
		tu = find_probe_event(trace_event_name(call), call->class->system);
	else
		tu = trace_uprobe_primary_from_call(call);
	if (!tu)
		return -EINVAL;
	*fd_type = trace_uprobe_is_return(tu) ? BPF_FD_TYPE_URETPROBE : BPF_FD_TYPE_UPROBE;
	*filename = tu->filename;
	*probe_offset = tu->offset;
	*probe_addr = 0;
	return 0;
}
#endif /* CONFIG_PERF_EVENTS */

/* ---------------------------------------------------------------- init */

/* The dynamic event type exists before tracefs does. */
static __init int init_uprobe_trace_early(void)
{
	return dyn_event_register(&trace_uprobe_ops);
}
core_initcall(init_uprobe_trace_early);

static __init int init_uprobe_trace(void)
{
	if (tracing_init_dentry())
		return 0;
	trace_create_file("uprobe_events", TRACE_MODE_WRITE, NULL, NULL, &uprobe_events_fops);
	trace_create_file("uprobe_profile", TRACE_MODE_READ, NULL, NULL, &uprobe_profile_fops);
	return 0;
}
fs_initcall(init_uprobe_trace);
