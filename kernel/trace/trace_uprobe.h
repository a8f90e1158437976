/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uprobe events, as their two files share them: trace_uprobe.c makes the
 * events (the lines of uprobe_events, the probes' life, their enabling
 * and arming, perf's own probes) and trace_uprobe_hit.c handles a hit
 * (the arguments, the records of ftrace and perf, BPF, and whom perf's
 * events want).  The first calls the second, never the other way.
 */
#ifndef __TRACE_UPROBE_H
#define __TRACE_UPROBE_H

#include <linux/llist.h>
#include <linux/path.h>
#include <linux/uprobes.h>

#include "trace_dynevent.h"
#include "trace_probe.h"

/**
 * struct trace_uprobe - one probe of a uprobe event
 * @offset: the probed place, an offset in the file, or an address of @pid
 * @pid: the process of a probe by address (/proc/PID:ADDRESS), or NULL
 * @ref_ctr_offset: the file offset of its SDT semaphore, or 0
 * @filename: the file as the definition named it
 * @path: the probed file, held so that its inode stays the probe's key
 * @consumer: what the uprobes core calls; ret_handler is set for returns
 * @uprobe: the core's probe while @consumer is registered, else NULL
 * @hits: per CPU, for uprobe_profile
 * @wants: whom the perf events of the event want, for the hit path and
 *	the core's filter (RCU; rebuilt at each perf open and close)
 * @detached: @consumer left the core with no wait for its handlers
 *	(tu_disarm_event()); they are done when the core says @sync_cookie is
 * @sync_cookie: see @detached
 * @free_node: on tu_to_free, when the probe is freed while @detached
 * @devent: its entry in the dynamic event list (not for perf's own probes)
 * @tp: the trace_probe library's part; its event is shared by siblings
 */
struct trace_uprobe {
	unsigned long		offset;
	struct pid		*pid;
	unsigned long		ref_ctr_offset;
	char			*filename;
	struct path		path;
	struct uprobe_consumer	consumer;
	struct uprobe		*uprobe;
	unsigned long __percpu	*hits;
	struct tu_wants __rcu	*wants;
	bool			detached;
	unsigned long		sync_cookie;
	struct llist_node	free_node;
	struct dyn_event	devent;
	struct trace_probe	tp;
};

/**
 * struct tu_scratch_set - the scratch pages of the hits, one per CPU
 * @cpu: the pages
 * @free_node: on tu_scratch_to_free, once no event is enabled: freed
 *	after the handlers that may still fill it
 */
struct tu_scratch_set {
	struct tu_scratch __percpu	*cpu;
	struct llist_node		free_node;
};

static inline bool trace_uprobe_is_return(struct trace_uprobe *tu)
{
	return tu->consumer.ret_handler;
}

/* trace_uprobe_hit.c */
void trace_uprobe_handlers_init(struct trace_uprobe *tu, bool is_return);
void trace_uprobe_handlers_cleanup(struct trace_uprobe *tu);
int trace_uprobe_format_init(struct trace_uprobe *tu);
int trace_uprobe_scratch_get(void);
struct tu_scratch_set *trace_uprobe_scratch_put(void);
void trace_uprobe_scratch_free(struct tu_scratch_set *set);
bool trace_uprobe_filter_covers(struct trace_uprobe_filter *filter, struct perf_event *event);
void trace_uprobe_filter_set(struct trace_probe *tp, struct perf_event *event, bool in);

#endif /* __TRACE_UPROBE_H */
