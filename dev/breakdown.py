#!/usr/bin/env python3
"""breakdown.py OUTDIR KERNEL...: the tables of dev/breakdown.sh.

Reads OUTDIR/KERNEL/windows.txt (the plugin's counts, a window per case)
and OUTDIR/KERNEL/bench.tsv (which window is which case, and where the
program's text and [uprobes] pages were), and prints for each case the
instructions per call of every function or user mapping that ran in it,
kernels side by side: first by stage of the hit (STAGES), then function
by function (those of at least MIN_SHOWN a call).
"""
import re
import sys
from collections import defaultdict

MIN_SHOWN = 2.0
# Below this many a call, a function ran for something else than the
# calls (a timer interrupt, another task): background.
BACKGROUND = 0.9
# The stage of a kernel function, by its name: the first that matches;
# the rest is uprobes' own work.
STAGES = [
    ("kernel entry and exit", r"^(entry_|do_syscall_64$|x64_sys_call$|syscall_exit|"
     r"syscall_return_via_sysret|entry_SYSRETQ|arch_exit_to_user_mode|exit_to_user_mode|"
     r"irqentry_|asm_exc_int3$|exc_int3$|error_entry$|error_return$|swapgs_restore|"
     r"native_irq_return|restore_regs_and_return|resume_user_mode_work$|"
     r"fpregs_restore_userregs$|switch_fpu_return$|sync_regs$|uprobe_syscall_entry$|"
     # arm64
     r"vectors$|el0t_64_sync|el0_svc|do_el0_svc$|invoke_syscall|ret_to_user$|el0_brk64$|"
     r"do_el0_brk64$|arch_local_irq_)"),
    ("the trap's notifier chain", r"^(do_int3|poke_int3_handler|notify_die|"
     r"(atomic_)?notifier_call_chain|arch_uprobe_exception_notify|uprobe_(pre|post)_sstep_notifier|"
     r"kprobe_exceptions_notify|hw_breakpoint_exceptions_notify|trace_die_panic_handler|"
     r"ftrace_dump_on_oops_enabled|kgdb_notify|die_notifier|"
     # arm64
     r"brk_handler$|call_break_hook$|uprobe_brk_handler$)"),
    ("single-step", r"^(asm_exc_debug|exc_debug|noist_exc_debug|.*_xol$|.*_xol_(?!area)|"
     r"(?!user_fastforward).*single_?step|enable_step|disable_step|handle_singlestep|user_(en|dis)able_|"
     # arm64: the step exception, and the slot's write and cache maintenance
     r"el0_softstp$|do_el0_softstep$|do_softstep$|call_step_hook$|.*_ixol$|"
     r"try_step_suspended_breakpoints$|caches_clean_inval_pou$|sync_icache_aliases$)"),
    ("the consumer (perf counting event)", r"^(tu_|perf_|tracing_|trace_uprobe|"
     r"uprobe_dispatcher$|uretprobe_dispatcher$|__uprobe_perf|uprobe_perf|"
     r"prepare_uprobe_buffer$|process_fetch|store_trace|fetch_store|__get_data_size|"
     r"kfree$)"),
    ("finding the probe", r"^(find_active_uprobe|find_uprobe|__find_uprobe|lookup_uprobe|"
     r"mtree_load|mas_|ma_|find_vma|vma_lookup|valid_vma|mmap_read_|down_read|up_read|"
     r"rwsem_read_trylock|lock_vma_under_rcu|__srcu_read_|srcu_read_|stub_starting_at|"
     r"site_at|find_stub_page|stub_source|uprobe_cmp|rb_find|is_trap_at_addr|"
     r"get_user_pages|__get_user_pages|uprobe_is_stub$|uprobe_svc_from_stub$|"
     r"uprobe_in_stub_page$|uprobe_stub_site$|site_in$)"),
    ("the syscall's own work", r"^(__x64_sys_getppid|__task_pid_nr_ns|pid_nr_ns|task_active_pid_ns)$"),
]


def stage_of(name, per_call):
    if name.startswith("user:"):
        return {"user:[uprobes]": "user: the stub", "user:bench": "user: the program"}.get(
            name, "user: libc")
    if per_call < BACKGROUND:
        return "background (interrupts, other tasks)"
    for stage, pattern in STAGES:
        if re.search(pattern, name):
            return stage
    return "uprobes: handlers, emulation, the way out"


def read_bench(path):
    cases, maps = {}, []
    with open(path) as tsv:
        for line in tsv:
            fields = line.rstrip("\n").split("\t")
            if len(fields) == 4 and fields[1] == "window":
                cases[int(fields[2])] = (fields[0], int(fields[3].split("=")[1]))
            elif len(fields) == 3 and fields[0] == "map":
                start, end = (int(x, 16) for x in fields[1].split("-"))
                maps.append((start, end, fields[2]))
    return cases, maps


def user_name(page, maps):
    for start, end, name in maps:
        if start <= page < end:
            return "user:" + name
    return "user:other"


def read_windows(path, maps):
    windows, current = {}, None
    with open(path) as f:
        for line in f:
            if line.startswith("window "):
                current = windows.setdefault(int(line.split()[1]), defaultdict(int))
                continue
            count, name = line.rstrip("\n").split("\t")
            if name.startswith("user:0x"):
                name = user_name(int(name[5:], 16), maps)
            current[name] += int(count)
    return windows


def main():
    out, kernels = sys.argv[1], sys.argv[2:]
    per_case = defaultdict(dict)
    order = []
    for kernel in kernels:
        cases, maps = read_bench(f"{out}/{kernel}/bench.tsv")
        windows = read_windows(f"{out}/{kernel}/windows.txt", maps)
        if sorted(windows) != sorted(cases):
            sys.exit(f"breakdown.py: {kernel}: windows {sorted(windows)} for cases "
                     f"{sorted(cases)}: another process opened or closed one")
        for n, (case, calls) in sorted(cases.items()):
            if case not in order:
                order.append(case)
            per_case[case][kernel] = {k: v / calls for k, v in windows[n].items()}
    width = max(12, *(len(k) for k in kernels))
    for case in order:
        counts = per_case[case]
        print(f"\n{case}: instructions per call")
        head = "".join(f"{k:>{width}}" for k in kernels)
        stages = defaultdict(lambda: defaultdict(float))
        for kernel, buckets in counts.items():
            for name, n in buckets.items():
                stages[stage_of(name, n)][kernel] += n
        print(f"  {'stage':<44}{head}")
        for stage in sorted(stages, key=lambda s: -max(stages[s].values())):
            print(f"  {stage:<44}" + "".join(f"{stages[stage].get(k, 0):>{width}.1f}"
                                             for k in kernels))
        print(f"  {'total':<44}" + "".join(f"{sum(counts.get(k, {}).values()):>{width}.1f}"
                                           for k in kernels))
        print(f"  {'function':<44}{head}")
        names = {n for b in counts.values() for n in b}
        for name in sorted(names, key=lambda n: -max(b.get(n, 0) for b in counts.values())):
            if max(b.get(name, 0) for b in counts.values()) < MIN_SHOWN:
                break
            print(f"  {name[:44]:<44}" + "".join(f"{counts.get(k, {}).get(name, 0):>{width}.1f}"
                                                 for k in kernels))


if __name__ == "__main__":
    main()
