// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe events, a hit: what the handlers of an event's probes do, with
 * what the event's records look like.  The events themselves (their
 * definitions, their probes' life, enabling and arming) are
 * trace_uprobe.c's, which calls the functions here (trace_uprobe.h).
 *
 * The handlers run in the probed task, where they may sleep: the
 * arguments are fetched first, with preemption on, so that reading user
 * memory may fault pages in; into a per-CPU scratch page (its mutex keeps
 * it to the task if the task moves; a task that finds it taken fetches
 * into a page of its own rather than wait).  Only then are the records
 * reserved, filled from the scratch page and committed, in each trace
 * buffer that has the event enabled and in perf's buffer, with
 * preemption off.  A fetch that fails leaves zeros, or "(fault)" for a
 * string: never the bytes of an earlier hit.  BPF programs attached
 * through perf run first, sleepable ones included; they and @+OFFSET find
 * the hit's data in current->utask->vaddr (struct uprobe_dispatch_data).
 *
 * Whom a hit is for (tu_wanted()): ftrace wants every process, perf the
 * processes that the event's perf events want, as its struct
 * trace_uprobe_filter lists them; the consumer's filter() asks the same.
 * The filter changes at the open and close of a perf event, under
 * event_mutex and its rwlock (see "Locking" in trace_uprobe.c); each
 * probe of the event then gets a copy of it (struct tu_wants), which the
 * hits read under RCU.
 */
#include <linux/filter.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched/task.h>
#include <linux/uaccess.h>

#include "trace_uprobe.h"
#include "trace_probe_tmpl.h"

/* The scratch page of one CPU: the arguments of one hit, as fetched. */
#define TU_SCRATCH_SIZE		PAGE_SIZE

/* The fixed part of an entry event's records; the arguments follow. */
struct uprobe_entry_record {
	struct trace_entry	ent;
	unsigned long		ip;
};

/* The fixed part of a return event's records; the arguments follow. */
struct uprobe_return_record {
	struct trace_entry	ent;
	unsigned long		func;
	unsigned long		ret_ip;
};

/*
 * Whom the perf events of an event want, as of the last open or close of
 * one: every process (a CPU-wide event), or the processes of @tasks,
 * whose references the copy holds until a grace period after it is
 * replaced.
 */
struct tu_wants {
	struct rcu_head		rcu;
	bool			systemwide;
	unsigned int		nr_tasks;
	struct task_struct	*tasks[] __counted_by(nr_tasks);
};

/* One hit, as the handlers pass it on to the writers of records. */
struct tu_hit {
	struct pt_regs	*regs;
	unsigned long	func;		/* the probed address */
	unsigned long	ret_ip;		/* return probes: where it returned */
	size_t		head_size;	/* the fixed part of the record */
	void		*args;		/* the fetched arguments, or NULL */
	int		dyn_size;	/* their dynamic (string) part */
	struct tu_scratch *scratch;	/* locked while it holds @args */
	void		*own_page;	/* or the page that holds them */
};

struct tu_scratch {
	struct mutex	lock;	/* one hit at a time fills @buf */
	void		*buf;
};

/*
 * The scratch pages, while an event is enabled (@tu_scratch_users); the
 * set the last user leaves is freed after the handlers that may still
 * fill it (trace_uprobe_scratch_put()).
 */
static struct tu_scratch_set *tu_scratch;
static unsigned int tu_scratch_users;		/* event_mutex */

static struct trace_uprobe_filter *tu_filter(struct trace_uprobe *tu)
{
	return tu->tp.event->filter;
}

/* ------------------------------------------------------------ fetching */

/*
 * The trace_probe library's fetch programs, run in the probed task with
 * preemption on: memory is the task's, read with copy_from_user() and
 * friends, which may fault pages in.  A failed read leaves zeros.
 */
static nokprobe_inline int probe_mem_read_user(void *dest, void *src, size_t size)
{
	return copy_from_user(dest, (void __user *)src, size) ? -EFAULT : 0;
}

/* @ADDR and +OFFS() of a uprobe are user addresses too. */
static nokprobe_inline int probe_mem_read(void *dest, void *src, size_t size)
{
	return probe_mem_read_user(dest, src, size);
}

/* The size of the user string at @addr with its NUL, capped, or -EFAULT. */
static nokprobe_inline int fetch_store_strlen_user(unsigned long addr)
{
	long len = strnlen_user((const char __user *)addr, MAX_STRING_SIZE);

	if (len <= 0)
		return -EFAULT;
	return min_t(long, len, MAX_STRING_SIZE);
}

static nokprobe_inline int fetch_store_strlen(unsigned long addr)
{
	return fetch_store_strlen_user(addr);
}

/*
 * Copies the user string at @addr to the room *@dest describes (a data
 * location relative to @base), cut to that room, and makes *@dest describe
 * what it holds: nothing after a fault, which prints as "(fault)".
 * Returns the bytes used, NUL included, or an error.
 */
static nokprobe_inline int fetch_store_string_user(unsigned long addr, void *dest, void *base)
{
	u32 loc = *(u32 *)dest;
	int room = get_loc_len(loc);
	char *to = get_loc_data(dest, base);
	long len;

	if (unlikely(!room))
		return -ENOMEM;
	len = strncpy_from_user(to, (const char __user *)addr, room);
	if (len == room)
		to[room - 1] = '\0';
	else if (len >= 0)
		len++;
	*(u32 *)dest = make_data_loc(len < 0 ? 0 : len, get_loc_offs(loc));
	return len;
}

static nokprobe_inline int fetch_store_string(unsigned long addr, void *dest, void *base)
{
	return fetch_store_string_user(addr, dest, base);
}

/*
 * $comm and "immediate strings" are the only kernel strings an argument
 * may hold; they are copied here, so that no user-given address is ever
 * read as a kernel one.
 */
static int fetch_kernel_string(struct fetch_insn *code, void *dest, void *base)
{
	const char *str = code->op == FETCH_OP_COMM ? current->comm : code->data;
	u32 loc;
	int room;
	ssize_t len;

	if (code[1].op != FETCH_OP_ST_STRING || code[2].op != FETCH_OP_END)
		return -EILSEQ;
	if (!dest)
		return strnlen(str, MAX_STRING_SIZE - 1) + 1;
	loc = *(u32 *)dest;
	room = get_loc_len(loc);
	if (unlikely(!room))
		return -ENOMEM;
	len = strscpy(get_loc_data(dest, base), str, room);
	len = (len < 0 ? room - 1 : len) + 1;
	*(u32 *)dest = make_data_loc(len, get_loc_offs(loc));
	return len;
}

/* The @n-th word of the user stack, or 0. */
static unsigned long user_stack_nth(struct pt_regs *regs, unsigned int n)
{
	unsigned long __user *sp = (unsigned long __user *)user_stack_pointer(regs);
	unsigned long val;

	if (get_user(val, sp + n))
		return 0;
	return val;
}

/* @+OFFSET: where the mapping that hit has the file's @foffs. */
static unsigned long file_offset_to_vaddr(unsigned long foffs)
{
	struct uprobe_dispatch_data *udd = (void *)current->utask->vaddr;

	return udd->bp_addr - udd->tu->offset + foffs;
}

/* Where a fetch program starts from: a register, the stack, an address. */
static int fetch_start_value(struct fetch_insn *code, struct pt_regs *regs,
			     unsigned long *v)
{
	switch (code->op) {
	case FETCH_OP_RETVAL:
		*v = regs_return_value(regs);
		return 0;
	case FETCH_OP_REG:
		*v = regs_get_register(regs, code->param);
		return 0;
	case FETCH_OP_STACKP:
		*v = user_stack_pointer(regs);
		return 0;
	case FETCH_OP_STACK:
		*v = user_stack_nth(regs, code->param);
		return 0;
	case FETCH_OP_FOFFS:
		*v = file_offset_to_vaddr(code->immediate);
		return 0;
	default:
		return process_common_fetch_insn(code, v);
	}
}

static int process_fetch_insn(struct fetch_insn *code, void *rec, void *edata,
			      void *dest, void *base)
{
	unsigned long v;
	int err;

	if (code->op == FETCH_OP_COMM || code->op == FETCH_OP_DATA)
		return fetch_kernel_string(code, dest, base);
	err = fetch_start_value(code, rec, &v);
	return err < 0 ? err : process_fetch_insn_bottom(code + 1, v, dest, base);
}

/*
 * Stores the arguments at @data, the dynamic ones after them in at most
 * @dyn_size bytes; @head_size is where @data is in the record.  Unlike
 * the library's store_trace_args(), a string that could not be read is
 * left empty rather than pointing at whatever the buffer held.
 */
static void tu_store_args(struct trace_uprobe *tu, struct pt_regs *regs, void *data,
			  size_t head_size, int dyn_size)
{
	void *base = data - head_size, *dyn = data + tu->tp.size;
	struct probe_arg *arg;
	u32 *loc;
	int i, ret;

	memset(data, 0, tu->tp.size);
	for (i = 0; i < tu->tp.nr_args; i++) {
		arg = &tu->tp.args[i];
		loc = data + arg->offset;
		if (arg->dynamic)
			*loc = make_data_loc(dyn_size, dyn - base);
		ret = process_fetch_insn(arg->code, regs, NULL, loc, base);
		if (!arg->dynamic)
			continue;
		if (ret > 0) {
			dyn += ret;
			dyn_size -= ret;
		} else {
			*loc = make_data_loc(0, dyn - base);
		}
	}
}

/*
 * A page for the arguments of @hit: this CPU's scratch page, locked until
 * tu_put_args(); or, when another task fetches into it (and may be waiting
 * for a page fault), a page of its own, so as not to wait behind it; so
 * too when the pages are gone (a hit of an event disabled meanwhile).
 */
static void *tu_get_scratch(struct tu_hit *hit)
{
	struct tu_scratch_set *set = READ_ONCE(tu_scratch);
	struct tu_scratch *scratch = set ? raw_cpu_ptr(set->cpu) : NULL;

	if (scratch && mutex_trylock(&scratch->lock)) {
		hit->scratch = scratch;
		return scratch->buf;
	}
	hit->own_page = kmalloc(TU_SCRATCH_SIZE, GFP_KERNEL);
	return hit->own_page;
}

/*
 * Fetches the arguments of @tu for @hit into a scratch page; false when
 * there is no page to fetch them into.
 */
static bool tu_fetch_args(struct trace_uprobe *tu, struct tu_hit *hit)
{
	void *page;
	int room;

	hit->args = NULL;
	hit->dyn_size = 0;
	if (!tu->tp.nr_args)
		return true;
	page = tu_get_scratch(hit);
	if (!page)
		return false;
	room = TU_SCRATCH_SIZE - hit->head_size - tu->tp.size;
	hit->dyn_size = clamp(__get_data_size(&tu->tp, hit->regs, NULL), 0, max(room, 0));
	hit->args = page + hit->head_size;
	tu_store_args(tu, hit->regs, hit->args, hit->head_size, hit->dyn_size);
	return true;
}

/* Gives back the page of tu_fetch_args(), if it took one. */
static void tu_put_args(struct tu_hit *hit)
{
	/* A probe without arguments took none: no call of kfree(NULL). */
	if (!hit->args)
		return;
	if (hit->scratch)
		mutex_unlock(&hit->scratch->lock);
	kfree(hit->own_page);
}

/* ------------------------------------------------------------- records */

/* @hit's record at @entry: its fixed part, then the fetched arguments. */
static void tu_fill_record(struct trace_uprobe *tu, void *entry, const struct tu_hit *hit)
{
	struct uprobe_return_record *ret = entry;
	struct uprobe_entry_record *in = entry;

	if (trace_uprobe_is_return(tu)) {
		ret->func = hit->func;
		ret->ret_ip = hit->ret_ip;
	} else {
		in->ip = hit->func;
	}
	if (hit->args)
		memcpy(entry + hit->head_size, hit->args, tu->tp.size + hit->dyn_size);
}

static void tu_trace_file(struct trace_uprobe *tu, struct trace_event_file *file,
			  const struct tu_hit *hit)
{
	struct trace_event_buffer fbuffer;
	void *entry;

	if (trace_trigger_soft_disabled(file))
		return;
	entry = trace_event_buffer_reserve(&fbuffer, file,
					   hit->head_size + tu->tp.size + hit->dyn_size);
	if (!entry)
		return;
	tu_fill_record(tu, entry, hit);
	fbuffer.regs = hit->regs;
	trace_event_buffer_commit(&fbuffer);
}

/* A record of @hit in every trace buffer that has the event enabled. */
static void tu_trace(struct trace_uprobe *tu, const struct tu_hit *hit)
{
	struct event_file_link *link;

	rcu_read_lock();
	preempt_disable();
	trace_probe_for_each_link_rcu(link, &tu->tp)
		tu_trace_file(tu, link->file, hit);
	preempt_enable();
	rcu_read_unlock();
}

#ifdef CONFIG_PERF_EVENTS
/*
 * The perf events of this CPU for @tu, or NULL; preemption off.  The flag
 * is read again here: perf frees call->perf_events an RCU grace period
 * after its last event leaves, and sets it to NULL at once
 * (perf_uprobe_events_free()), with no wait for the handlers.
 */
static __always_inline struct hlist_head *tu_perf_head(struct trace_uprobe *tu)
{
	struct trace_event_call *call = trace_probe_event_call(&tu->tp);
	struct hlist_head __percpu *list;

	list = trace_probe_test_flag(&tu->tp, TP_FLAG_PROFILE) ?
	       READ_ONCE(call->perf_events) : NULL;
	return list ? this_cpu_ptr(list) : NULL;
}

/*
 * Counts a hit at @regs for the perf events of this CPU, if every one
 * only counts (perf_tp_event_count(), which else counts nothing).
 *
 * Return: true when no perf event of this CPU wants the hit's record.
 */
static __always_inline bool tu_perf_counted(struct trace_uprobe *tu, struct pt_regs *regs)
{
	struct hlist_head *head;
	bool counted;

	preempt_disable();
	head = tu_perf_head(tu);
	counted = !head || hlist_empty(head) || perf_tp_event_count(1, regs, head);
	preempt_enable();
	return counted;
}

/*
 * What perf wants of @hit before any record: the BPF programs attached
 * through perf run (they may sleep), and perf events that only count are
 * counted.  False when the programs want no record, or when that was all
 * (no perf event of this CPU needs the record); true when tu_perf() is to
 * build one.
 */
static bool tu_perf_wants_record(struct trace_uprobe *tu, const struct tu_hit *hit,
				 bool wanted)
{
	struct trace_event_call *call = trace_probe_event_call(&tu->tp);

	if (wanted && bpf_prog_array_valid(call) &&
	    !bpf_prog_run_array_sleepable(call->prog_array, hit->regs, bpf_prog_run))
		return false;
	return !tu_perf_counted(tu, hit->regs);
}

/*
 * A hit of @tu that perf events only count, with no BPF program to run
 * and no trace buffer to write: counted at once, with no record, no
 * fetch and no dispatch data built for it.  perf_tp_event_count()
 * counts nothing when it says false: the caller then goes the whole way
 * (tu_record()), which asks it again.
 *
 * Return: true when that was all of the hit.
 */
static __always_inline bool tu_only_counted(struct trace_uprobe *tu, unsigned int flags,
					    struct pt_regs *regs)
{
	if ((flags & TP_FLAG_TRACE) || !(flags & TP_FLAG_PROFILE) ||
	    bpf_prog_array_valid(trace_probe_event_call(&tu->tp)))
		return false;
	return tu_perf_counted(tu, regs);
}

/* A record of @hit for the perf events of this CPU. */
static void tu_perf(struct trace_uprobe *tu, const struct tu_hit *hit)
{
	struct trace_event_call *call = trace_probe_event_call(&tu->tp);
	int used = hit->head_size + tu->tp.size + hit->dyn_size;
	int size = ALIGN(used + sizeof(u32), sizeof(u64)) - sizeof(u32);
	struct hlist_head *head;
	void *entry;
	int rctx;

	if (WARN_ON_ONCE(size > PERF_MAX_TRACE_SIZE))
		return;
	preempt_disable();
	head = tu_perf_head(tu);
	entry = head && !hlist_empty(head) ? perf_trace_buf_alloc(size, NULL, &rctx) : NULL;
	if (entry) {
		/* The bytes past @used are in the last u64, which perf zeroed. */
		tu_fill_record(tu, entry, hit);
		perf_trace_buf_submit(entry, size, rctx, call->event.type, 1, hit->regs,
				      head, NULL);
	}
	preempt_enable();
}
#else
static bool tu_perf_wants_record(struct trace_uprobe *tu, const struct tu_hit *hit,
				 bool wanted)
{
	return false;
}

static bool tu_only_counted(struct trace_uprobe *tu, unsigned int flags, struct pt_regs *regs)
{
	return false;
}

static void tu_perf(struct trace_uprobe *tu, const struct tu_hit *hit)
{
}
#endif

/*
 * Records @hit where the event is enabled; @wanted: the event's filter
 * wants this process (see tu_wanted()).  The arguments are fetched only
 * for a record: not for perf events that only count, nor for BPF.  For
 * the while, the task's uprobe_dispatch_data says which probe hit where:
 * BPF's bpf_get_func_ip() and @+OFFSET read it.
 */
static void tu_record(struct trace_uprobe *tu, struct tu_hit *hit, unsigned int flags,
		      bool wanted)
{
	struct uprobe_dispatch_data udd = { .tu = tu, .bp_addr = hit->func };
	struct uprobe_task *utask = current->utask;
	unsigned long saved = utask->vaddr;
	bool perf, trace = flags & TP_FLAG_TRACE;

	utask->vaddr = (unsigned long)&udd;
	perf = (flags & TP_FLAG_PROFILE) && tu_perf_wants_record(tu, hit, wanted);
	if ((trace || perf) && tu_fetch_args(tu, hit)) {
		if (trace)
			tu_trace(tu, hit);
		if (perf)
			tu_perf(tu, hit);
		tu_put_args(hit);
	}
	utask->vaddr = saved;
}

/* ----------------------------------------------------------- filtering */

/*
 * Whether a perf event of @filter other than @skip wants @mm: a CPU-wide
 * one, or one for a task of @mm.
 */
static bool tu_filter_wants(struct trace_uprobe_filter *filter, struct mm_struct *mm,
			    struct perf_event *skip)
{
	struct perf_event *event;
	bool wants;

	read_lock(&filter->rwlock);
	wants = filter->nr_systemwide;
	list_for_each_entry(event, &filter->perf_events, hw.tp_list) {
		if (wants)
			break;
		wants = event != skip && READ_ONCE(event->hw.target->mm) == mm;
	}
	read_unlock(&filter->rwlock);
	return wants;
}

/*
 * Whether @tu is wanted in @mm: by ftrace anywhere, by perf per filter.
 * It decides where the probe is armed, whether BPF runs and what
 * uprobe_profile counts; not where perf records go.  perf keeps the
 * events of the running task and the CPU-wide ones on the CPU's list, so
 * a record reaches only those.  And when perf swaps the contexts of a
 * parent and a child whose events it deems equal (inherited ones), the
 * event that counts a hit may be the other task's: the record must go to
 * the list of whichever probe's event runs, wanted or not.
 */
static __always_inline bool tu_wanted(struct trace_uprobe *tu, unsigned int flags,
				      struct mm_struct *mm)
{
	struct tu_wants *wants;
	bool wanted = false;
	unsigned int i;

	if (flags & TP_FLAG_TRACE)
		return true;
	rcu_read_lock();
	wants = rcu_dereference(tu->wants);
	if (wants) {
		wanted = wants->systemwide;
		for (i = 0; i < wants->nr_tasks && !wanted; i++)
			wanted = READ_ONCE(wants->tasks[i]->mm) == mm;
	}
	rcu_read_unlock();
	/* No copy (no perf event yet, or no memory for it): the filter. */
	return wants ? wanted : tu_filter_wants(tu_filter(tu), mm, NULL);
}

static void tu_wants_free_rcu(struct rcu_head *head)
{
	struct tu_wants *wants = container_of(head, struct tu_wants, rcu);
	unsigned int i;

	for (i = 0; i < wants->nr_tasks; i++)
		put_task_struct(wants->tasks[i]);
	kfree(wants);
}

static void tu_wants_free(struct tu_wants *wants)
{
	if (wants)
		call_rcu(&wants->rcu, tu_wants_free_rcu);
}

static bool tu_consumer_filter(struct uprobe_consumer *uc, struct mm_struct *mm)
{
	struct trace_uprobe *tu = container_of(uc, struct trace_uprobe, consumer);

	return tu_wanted(tu, trace_probe_load_flag(&tu->tp), mm);
}

#ifdef CONFIG_PERF_EVENTS
/* A copy of @filter for the hit path, or NULL when memory is short. */
static struct tu_wants *tu_wants_copy(struct trace_uprobe_filter *filter)
{
	struct tu_wants *wants;
	struct perf_event *event;
	unsigned int nr = 0;

	lockdep_assert_held(&event_mutex);
	list_for_each_entry(event, &filter->perf_events, hw.tp_list)
		nr++;
	wants = kzalloc(struct_size(wants, tasks, nr), GFP_KERNEL);
	if (!wants)
		return NULL;
	wants->systemwide = filter->nr_systemwide;
	list_for_each_entry(event, &filter->perf_events, hw.tp_list)
		wants->tasks[wants->nr_tasks++] = get_task_struct(event->hw.target);
	return wants;
}

/* Gives every probe of the event of @tp a copy of its filter as it is now. */
static void tu_wants_update(struct trace_probe *tp)
{
	struct trace_uprobe_filter *filter = tp->event->filter;
	struct trace_probe *pos;
	struct trace_uprobe *tu;

	list_for_each_entry(pos, &tp->event->probes, list) {
		tu = container_of(pos, struct trace_uprobe, tp);
		tu_wants_free(rcu_replace_pointer(tu->wants, tu_wants_copy(filter),
						  lockdep_is_held(&event_mutex)));
	}
}

/**
 * trace_uprobe_filter_covers - whether a perf event adds no process
 * @filter: the filter of a uprobe event
 * @event: a perf event of it
 *
 * Return: whether @filter's events other than @event already want what
 * @event wants: every process, or the process of its task.
 */
bool trace_uprobe_filter_covers(struct trace_uprobe_filter *filter, struct perf_event *event)
{
	struct mm_struct *mm = event->hw.target ? event->hw.target->mm : NULL;

	if (!mm)
		return READ_ONCE(filter->nr_systemwide);
	return tu_filter_wants(filter, mm, event);
}

/**
 * trace_uprobe_filter_set - put a perf event into its filter or take it out
 * @tp: a probe of the uprobe event
 * @event: a perf event of it
 * @in: put it in (else take it out)
 *
 * Under event_mutex, at the open and the close of @event; each probe of
 * the event then gets a copy of the filter for its hits.
 */
void trace_uprobe_filter_set(struct trace_probe *tp, struct perf_event *event, bool in)
{
	struct trace_uprobe_filter *filter = tp->event->filter;

	write_lock(&filter->rwlock);
	if (!event->hw.target)
		filter->nr_systemwide += in ? 1 : -1;
	else if (in)
		list_add(&event->hw.tp_list, &filter->perf_events);
	else
		list_del(&event->hw.tp_list);
	write_unlock(&filter->rwlock);
	tu_wants_update(tp);
}
#endif

/* ------------------------------------------------------------ handlers */

/*
 * A hit of @regs at @func (returned to @ret_ip, for a return probe), whose
 * record starts with @head_size bytes.  Every member is named: under -Os a
 * partial initializer has the rest cleared by a rep stos at each hit.
 */
static struct tu_hit tu_hit_start(struct pt_regs *regs, unsigned long func,
				  unsigned long ret_ip, size_t head_size)
{
	return (struct tu_hit) {
		.regs = regs,
		.func = func,
		.ret_ip = ret_ip,
		.head_size = head_size,
		.args = NULL,
		.dyn_size = 0,
		.scratch = NULL,
		.own_page = NULL,
	};
}

/* The records of an entry hit, which not only counts (tu_only_counted()). */
static void tu_entry_record(struct trace_uprobe *tu, struct pt_regs *regs,
			    unsigned int flags, bool wanted)
{
	struct tu_hit hit = tu_hit_start(regs, instruction_pointer(regs), 0,
					 sizeof(struct uprobe_entry_record));

	tu_record(tu, &hit, flags, wanted);
}

static int tu_entry_handler(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct trace_uprobe *tu = container_of(uc, struct trace_uprobe, consumer);
	unsigned int flags = trace_probe_load_flag(&tu->tp);
	bool wanted = tu_wanted(tu, flags, current->mm);

	if (wanted)
		this_cpu_inc(*tu->hits);
	if (!trace_uprobe_is_return(tu) && !tu_only_counted(tu, flags, regs))
		tu_entry_record(tu, regs, flags, wanted);
	return wanted ? 0 : UPROBE_HANDLER_REMOVE;
}

/* The records of a return hit, which not only counts (tu_only_counted()). */
static void tu_return_record(struct trace_uprobe *tu, unsigned long func,
			     struct pt_regs *regs, unsigned int flags)
{
	struct tu_hit hit = tu_hit_start(regs, func, instruction_pointer(regs),
					 sizeof(struct uprobe_return_record));

	tu_record(tu, &hit, flags, tu_wanted(tu, flags, current->mm));
}

static int tu_return_handler(struct uprobe_consumer *uc, unsigned long func,
			     struct pt_regs *regs)
{
	struct trace_uprobe *tu = container_of(uc, struct trace_uprobe, consumer);
	unsigned int flags = trace_probe_load_flag(&tu->tp);

	if (!tu_only_counted(tu, flags, regs))
		tu_return_record(tu, func, regs, flags);
	return 0;
}

/* ------------------------------------------------------- scratch pages */

/**
 * trace_uprobe_scratch_free - free a set of scratch pages
 * @set: the set, which no handler may fill any more
 */
void trace_uprobe_scratch_free(struct tu_scratch_set *set)
{
	int cpu;

	for_each_possible_cpu(cpu)
		kfree(per_cpu_ptr(set->cpu, cpu)->buf);
	free_percpu(set->cpu);
	kfree(set);
}

static struct tu_scratch_set *tu_scratch_alloc(void)
{
	struct tu_scratch_set *set;
	struct tu_scratch *one;
	int cpu;

	set = kzalloc(sizeof(*set), GFP_KERNEL);
	if (!set)
		return NULL;
	set->cpu = alloc_percpu(struct tu_scratch);
	if (!set->cpu)
		goto free_set;
	for_each_possible_cpu(cpu) {
		one = per_cpu_ptr(set->cpu, cpu);
		mutex_init(&one->lock);
		one->buf = kmalloc_node(TU_SCRATCH_SIZE, GFP_KERNEL, cpu_to_node(cpu));
		if (!one->buf)
			goto free_pages;
	}
	return set;

free_pages:
	trace_uprobe_scratch_free(set);
	return NULL;
free_set:
	kfree(set);
	return NULL;
}

/**
 * trace_uprobe_scratch_get - have the scratch pages, for an enabled event
 *
 * The scratch pages exist while an event is enabled: each enabling of an
 * event takes them, each disabling gives them back.  Under event_mutex.
 *
 * Return: 0, or -ENOMEM.
 */
int trace_uprobe_scratch_get(void)
{
	struct tu_scratch_set *set;

	lockdep_assert_held(&event_mutex);
	if (tu_scratch_users) {
		tu_scratch_users++;
		return 0;
	}
	set = tu_scratch_alloc();
	if (!set)
		return -ENOMEM;
	WRITE_ONCE(tu_scratch, set);
	tu_scratch_users = 1;
	return 0;
}

/**
 * trace_uprobe_scratch_put - give the scratch pages back
 *
 * The last user's going takes the pages away from the hits to come.
 *
 * Return: the pages the last user left, for trace_uprobe_scratch_free()
 * once no handler may use them (tu_free_later()); else NULL.
 */
struct tu_scratch_set *trace_uprobe_scratch_put(void)
{
	struct tu_scratch_set *set = tu_scratch;

	lockdep_assert_held(&event_mutex);
	if (WARN_ON_ONCE(!tu_scratch_users) || --tu_scratch_users)
		return NULL;
	WRITE_ONCE(tu_scratch, NULL);
	return set;
}

/* ------------------------------------------------- the records' format */

/* "EVENT: (0xADDR) ARGS", or for a return "EVENT: (0xRET <- 0xFUNC) ARGS". */
static enum print_line_t print_uprobe_record(struct trace_iterator *iter, int flags,
					     struct trace_event *event)
{
	struct uprobe_return_record *ret = (void *)iter->ent;
	struct uprobe_entry_record *in = (void *)iter->ent;
	struct trace_seq *s = &iter->seq;
	struct trace_probe *tp;
	u8 *args;

	tp = trace_probe_primary_from_call(container_of(event, struct trace_event_call, event));
	if (WARN_ON_ONCE(!tp))
		goto out;
	if (trace_uprobe_is_return(container_of(tp, struct trace_uprobe, tp))) {
		trace_seq_printf(s, "%s: (0x%lx <- 0x%lx)", trace_probe_name(tp), ret->ret_ip,
				 ret->func);
		args = (u8 *)&ret[1];
	} else {
		trace_seq_printf(s, "%s: (0x%lx)", trace_probe_name(tp), in->ip);
		args = (u8 *)&in[1];
	}
	if (trace_probe_print_args(s, tp->args, tp->nr_args, args, iter->ent) < 0)
		goto out;
	trace_seq_putc(s, '\n');
out:
	return trace_handle_return(s);
}

static int uprobe_entry_define_fields(struct trace_event_call *event_call)
{
	struct uprobe_entry_record field;
	struct trace_probe *tp;
	int ret;

	tp = trace_probe_primary_from_call(event_call);
	if (WARN_ON_ONCE(!tp))
		return -ENOENT;
	DEFINE_FIELD(unsigned long, ip, FIELD_STRING_IP, 0);

	return traceprobe_define_arg_fields(event_call, sizeof(field), tp);
}

static int uprobe_return_define_fields(struct trace_event_call *event_call)
{
	struct uprobe_return_record field;
	struct trace_probe *tp;
	int ret;

	tp = trace_probe_primary_from_call(event_call);
	if (WARN_ON_ONCE(!tp))
		return -ENOENT;
	DEFINE_FIELD(unsigned long, func, FIELD_STRING_FUNC, 0);
	DEFINE_FIELD(unsigned long, ret_ip, FIELD_STRING_RETIP, 0);

	return traceprobe_define_arg_fields(event_call, sizeof(field), tp);
}

static struct trace_event_functions uprobe_record_funcs = {
	.trace = print_uprobe_record,
};

static struct trace_event_fields uprobe_entry_fields[] = {
	{ .type = TRACE_FUNCTION_TYPE, .define_fields = uprobe_entry_define_fields },
	{}
};

static struct trace_event_fields uprobe_return_fields[] = {
	{ .type = TRACE_FUNCTION_TYPE, .define_fields = uprobe_return_define_fields },
	{}
};

/**
 * trace_uprobe_format_init - give an event the format of its records
 * @tu: the event's first probe
 *
 * Return: 0, or -ENOMEM.
 */
int trace_uprobe_format_init(struct trace_uprobe *tu)
{
	struct trace_event_call *call = trace_probe_event_call(&tu->tp);
	bool ret = trace_uprobe_is_return(tu);

	call->event.funcs = &uprobe_record_funcs;
	call->class->fields_array = ret ? uprobe_return_fields : uprobe_entry_fields;
	return traceprobe_set_print_fmt(&tu->tp, ret ? PROBE_PRINT_RETURN : PROBE_PRINT_NORMAL);
}

/**
 * trace_uprobe_handlers_init - ready the handlers of a new probe
 * @tu: the probe, with its own event yet
 * @is_return: it probes the returns of a function
 *
 * Sets its consumer's handlers and filter, and its event's perf filter.
 */
void trace_uprobe_handlers_init(struct trace_uprobe *tu, bool is_return)
{
	struct trace_uprobe_filter *filter = tu_filter(tu);

	rwlock_init(&filter->rwlock);
	INIT_LIST_HEAD(&filter->perf_events);
	tu->consumer.handler = tu_entry_handler;
	if (is_return)
		tu->consumer.ret_handler = tu_return_handler;
	tu->consumer.filter = tu_consumer_filter;
}

/**
 * trace_uprobe_handlers_cleanup - free what the handlers of a probe kept
 * @tu: the probe, which no handler runs any more
 *
 * Frees its copy of perf's filter (struct tu_wants).
 */
void trace_uprobe_handlers_cleanup(struct trace_uprobe *tu)
{
	tu_wants_free(rcu_dereference_protected(tu->wants, true));
}
