# SPDX-License-Identifier: GPL-2.0
#
# uprobes for Linux 6.12: fetch, build, boot and test in one pipeline.
# `make help` lists the targets and the variables that steer them.

KERNEL ?= ours
DEBUG ?=
T ?=
TIMEOUT_NORMAL := 2400
TIMEOUT_DEBUG := 7200
TIMEOUT ?= $(if $(DEBUG),$(TIMEOUT_DEBUG),$(TIMEOUT_NORMAL))
TORTURE_SECONDS ?= 60
FUZZ_LINES ?= 1500
DURATION ?= 600
TORTURE_LINES ?= 100000
TORTURE_DEBUG ?= 1
MUTANT ?=
TCG ?= multi
ARCH ?= x86_64
CROSS_ARCHES ?=
STEPS ?=
MUTANTS ?=
MUTANTS_FROM ?=
MUTANTS_MIN ?=
AA ?=
# KERNEL=step: the series up to patch STEP (default: the core's
# replacement at parity, the patch that deletes kernel/events/uprobes.c, as
# dev/series-rules.sh finds it), tested as the base is (ENGINE=base).
STEP ?= $(shell grep -l '^diff --git a/kernel/events/uprobes.c ' $(CURDIR)/series/*.patch | \
	sed -n 's|.*/0*\([0-9]*\)-[^/]*$$|\1|p')
ENGINE ?= $(if $(filter step,$(KERNEL)),base)

TOP := $(CURDIR)
OUT := $(TOP)/out
# A mutant is built in ours' own tree and build directory, so that only the
# files it changes are compiled again; the next build of ours undoes it.
TREE := $(KERNEL)
SRC := $(OUT)/src/$(TREE)
# x86-64 keeps the names it always had; arm64 builds and tests beside it.
ARCH_SUFFIX := $(if $(filter arm64,$(ARCH)),-arm64)
FLAVOUR := $(TREE)$(if $(DEBUG),-debug)$(ARCH_SUFFIX)
BUILD := $(OUT)/build/$(FLAVOUR)
# The mutant the kernel in $(BUILD) was built with, empty for none.
BUILD_MUTANT := $(BUILD)/.uprobes-mutant
TESTS := $(OUT)/tests$(ARCH_SUFFIX)
RESULTS ?= $(OUT)/results/$(FLAVOUR)$(if $(MUTANT),-$(MUTANT))
INIT := $(OUT)/guest/init
NPROC := $(shell nproc)

BENCH := $(OUT)/bench$(ARCH_SUFFIX)
BENCH_BIN := $(BENCH)/bin/uprobe_bench
SELFTEST := $(OUT)/src/ours/tools/testing/selftests/uprobes

FRAGMENTS := $(addprefix $(TOP)/configs/,guest.config guest-$(ARCH).config tracing.config \
	bpf.config kunit.config fault.config)
FRAGMENTS += $(wildcard $(TOP)/configs/bpf-$(ARCH).config)
FRAGMENTS += $(if $(filter ours wip,$(KERNEL)),$(wildcard $(TOP)/configs/ours-$(ARCH).config))
FRAGMENTS += $(if $(DEBUG),$(TOP)/configs/debug.config)

# Paths under the checkout are hashed relative to it, and the directory of a
# compile is not hashed: a fresh clone elsewhere (CI) finds the objects built
# here.  The cost is debug info that may name the other checkout's directory.
export CCACHE_BASEDIR := $(TOP)
export CCACHE_NOHASHDIR := 1
KBUILD_ENV := KBUILD_BUILD_TIMESTAMP="2024-11-17" KBUILD_BUILD_USER=uprobes \
	KBUILD_BUILD_HOST=build
ifeq ($(ARCH),x86_64)
IMAGE := $(BUILD)/arch/x86/boot/bzImage
IMAGE_TARGET := bzImage
KARCH :=
else ifeq ($(ARCH),arm64)
IMAGE := $(BUILD)/arch/arm64/boot/Image
IMAGE_TARGET := Image
CROSS := aarch64-linux-gnu-
KARCH := ARCH=arm64 CROSS_COMPILE=$(CROSS)
else
$(error ARCH must be 'x86_64' or 'arm64', not '$(ARCH)')
endif
KMAKE := $(MAKE) -C $(SRC) O=$(BUILD) $(KARCH) CC="ccache $(CROSS)gcc" -j$(NPROC) $(KBUILD_ENV)

ifeq ($(filter $(KERNEL),ours upstream perfcore wip step),)
$(error KERNEL must be 'ours', 'upstream', 'perfcore', 'wip' or 'step', not '$(KERNEL)')
endif
ifneq ($(MUTANT),)
ifneq ($(KERNEL),ours)
$(error MUTANT applies to KERNEL=ours only)
endif
MUTANT_PATCH := $(TOP)/dev/mutants/$(MUTANT).patch
ifeq ($(wildcard $(MUTANT_PATCH)),)
$(error no mutant $(MUTANT_PATCH))
endif
endif

# The package groups of dev/deps.sh: deps-GROUP installs GROUP's packages
# when missing, and each target below names the groups it needs.  ARCH=arm64
# adds the arm64 group to every kernel; cross installs only the compilers of
# CROSS_ARCHES.
DEPS_GROUPS := base tests arm64 cross bench series
DEPS_ARCH := $(if $(CROSS),deps-arm64)
CROSS_GROUPS := $(if $(CROSS_ARCHES),$(addprefix cross-,$(CROSS_ARCHES)),cross)

.PHONY: help deps $(addprefix deps-,$(DEPS_GROUPS)) tree config kernel init root tests check \
	check-all retest torture mutants mutants-apply bench bench-program breakdown pathlen run sweep shell series series-fold \
	series-export cross cleanroom clean

help:
	@echo 'Targets:'
	@echo '  run        install, build, boot our kernel and show a live probe'
	@echo '  check      install, build, boot and run every test; ends "N passed, N failed"'
	@echo '  check-all  what CI runs: check, the core suites on upstream, a seventh of the'
	@echo '             mutants; then, as time allows, check ARCH=arm64, cross, the other'
	@echo '             suites on upstream, more mutants; one last count (dev/check-all.sh)'
	@echo '  shell      boot the kernel to an interactive shell (exit it to stop)'
	@echo '  sweep      probe every function entry of libc.so.6 and tell how each hit one is'
	@echo '             entered (jump, punned jump, breakpoint and why); out/sweep/sweep.txt'
	@echo '  series     the patch series (series/) checked: its end is ours, checkpatch'
	@echo '             --strict, the review rules; ready to send in out/series/'
	@echo '  series-fold    fold what overlay.list files gained into patch P (P=N)'
	@echo '  series-export  write series/ anew from out/series.git after work by hand'
	@echo '  cross      build ours for every other architecture with uprobes (tinyconfig)'
	@echo '  cleanroom  compare our files with the base tree'"'"'s uprobes implementation'
	@echo '  deps       install the packages of every target (apt-get, idempotent); each'
	@echo '             target installs its own groups (deps-GROUP, dev/deps.sh):'
	@echo '             $(DEPS_GROUPS)'
	@echo '  tree       prepare out/src/$$KERNEL from the base tarball'
	@echo '  kernel     configure and build out/build/$$KERNEL'
	@echo '  tests      build the test programs and the test module'
	@echo '  retest     rebuild the tests and run them on the kernel already built'
	@echo '  torture    uprobe_torture for DURATION seconds, then uprobe_fuzz with'
	@echo '             TORTURE_LINES lines, on the debug kernel'
	@echo '  mutants    check that the tests fail on kernels broken on purpose (dev/mutants/)'
	@echo '  mutants-apply  check that every mutant still applies to ours and compiles'
	@echo '  bench      benchmark ours against upstream and perfcore in one run; table in'
	@echo '             out/bench/ (ARCH=arm64: out/bench-arm64/; AA=1: out/bench-aa/)'
	@echo '  breakdown  where the instructions of a hit go, function by function and by'
	@echo '             stage, upstream beside ours (a QEMU plugin counts them;'
	@echo '             ARCH=arm64: out/breakdown-arm64/)'
	@echo '  pathlen    the hit path'"'"'s instructions per call on ours (QEMU -icount) against'
	@echo '             bench/pathlen-budget: fails on a case over its budget (CI runs it)'
	@echo '  clean      remove out/'
	@echo 'Variables:'
	@echo '  KERNEL=ours|upstream|perfcore|wip|step  which kernel (default ours); upstream is'
	@echo '                        the untouched base, perfcore the base with the perf-core'
	@echo '                        patches only, wip ours plus the replacements of'
	@echo '                        overlay-wip.list, step the series up to patch STEP'
	@echo '  STEP=N                the last patch of KERNEL=step (default $(STEP), the core'"'"'s'
	@echo '                        replacement at parity, under x86'"'"'s old code)'
	@echo '  ENGINE=base|ours      the behaviour the tests expect (default: ours if the tree'
	@echo '                        has no base engine; base for KERNEL=step)'
	@echo '  DEBUG=1               add configs/debug.config (KASAN, lockdep, DEBUG_VM)'
	@echo '  ARCH=x86_64|arm64     the guest architecture (default x86_64); arm64 boots'
	@echo '                        QEMU virt with a Debian arm64 root (kernel, check, run, shell)'
	@echo '  CROSS_ARCHES=...      the architectures of cross (default: all eight others;'
	@echo '                        x86_64 and i386 when named)'
	@echo '  STEPS=1               series also builds every step for x86_64 and arm64'
	@echo '                        (tinyconfig and configs/steps.config), each C file'
	@echo '                        the series changed compiled by one of them; slow'
	@echo '  P=N                   the patch of series/ that series-fold folds into'
	@echo '  T=REGEX               run only the suites whose name matches (check)'
	@echo '  TIMEOUT=SECONDS       hard limit for one boot (default $(TIMEOUT_NORMAL); $(TIMEOUT_DEBUG) with DEBUG=1)'
	@echo '  RESULTS=DIR           where a test boot leaves its TAP and console log'
	@echo '  MUTANT=NAME           build ours with dev/mutants/NAME.patch applied, in ours'"'"''
	@echo '                        tree and build (the next build of ours undoes it)'
	@echo '  MUTANTS=REGEX         the mutants that mutants runs (default: all)'
	@echo '  MUTANTS_FROM=N        check-all runs the mutants from the Nth (default: after the'
	@echo '                        last one a check-all on this machine ran, else by the day)'
	@echo '  MUTANTS_MIN=N         check-all runs at least N mutants (default: a seventh of them)'
	@echo '  AA=1                  bench runs each kernel against itself: the noise band'
	@echo '  ICOUNT=1              bench counts instructions per call instead of time (QEMU'
	@echo '                        -icount), single-thread cases; table in out/bench-icount/'
	@echo '  NO_PERFCORE=1         bench leaves perfcore out: upstream and ours only'
	@echo '  CASES=GROUP,...       the case groups of bench'"'"'s side-by-side boots (default'
	@echo '                        base,hit,uret,rss,register)'
	@echo '  TCG=multi|single      test boots run a host thread per vCPU (default), or both'
	@echo '                        vCPUs on one thread, taking turns (reproducible)'
	@echo '  TORTURE_SECONDS=N     how long check runs uprobe_torture (default $(TORTURE_SECONDS))'
	@echo '  FUZZ_LINES=N          uprobe_events lines check has uprobe_fuzz write (default $(FUZZ_LINES))'
	@echo '  DURATION=N            how long torture runs it (default $(DURATION)); with'
	@echo '                        TORTURE_DEBUG= (empty) on the normal kernel instead'
	@echo '  TORTURE_LINES=N       uprobe_events lines torture has uprobe_fuzz write'
	@echo '                        (default $(TORTURE_LINES))'

deps:
	@$(TOP)/dev/deps.sh all

deps-base deps-tests deps-arm64 deps-bench:
	@$(TOP)/dev/deps.sh $(@:deps-%=%)

deps-cross:
	@$(TOP)/dev/deps.sh $(CROSS_GROUPS)

# series STEPS=1 builds for arm64 too.
deps-series:
	@$(TOP)/dev/deps.sh series $(if $(STEPS),cross-arm64)

tree: deps-base $(DEPS_ARCH)
	@$(TOP)/dev/tree.sh ours $(MUTANT_PATCH)
	$(if $(filter-out ours,$(TREE)),@$(TOP)/dev/tree.sh $(TREE) $(if $(filter step,$(TREE)),$(STEP)))

config: tree
	@$(KARCH) $(TOP)/dev/config.sh $(SRC) $(BUILD) $(FRAGMENTS)

kernel: config
	@echo "  KERNEL  $(KERNEL)$(if $(MUTANT), with mutant $(MUTANT))$(if $(DEBUG), (debug)) for $(ARCH) from $$(cat $(OUT)/src/upstream.version)"
	@+$(KMAKE) -s $(IMAGE_TARGET) modules
	@echo '$(MUTANT)' >$(BUILD_MUTANT)

init: $(INIT) $(if $(CROSS),root)

$(INIT): $(TOP)/guest/init.c | deps-base
	@mkdir -p $(dir $@)
	gcc -static -O2 -Wall -Wextra -o $@ $<

# The arm64 guest's root: Debian, with its init (dev/arm64-root.sh).
root: deps-arm64
	@$(TOP)/dev/arm64-root.sh $(OUT)/arm64 $(TOP)/guest/init.c

tests: deps-tests kernel
	@+$(KARCH) $(TOP)/dev/tests.sh $(OUT)/src/ours $(BUILD) $(TESTS)

check: deps-tests kernel tests init
	@ARCH=$(ARCH) TCG=$(TCG) ENGINE=$(ENGINE) $(TOP)/dev/check.sh $(KERNEL) $(IMAGE) $(TESTS) $(BUILD) $(RESULTS) $(TIMEOUT) '$(T)' \
		$(TORTURE_SECONDS) $(FUZZ_LINES)

# The test boot alone, against the kernel already built: for test writers.
retest: deps-tests init
	@[ "$$(cat $(BUILD_MUTANT) 2>/dev/null)" = '$(MUTANT)' ] || \
		{ echo "retest: $(BUILD) holds mutant '$$(cat $(BUILD_MUTANT))': make kernel first" >&2; exit 1; }
	@$(TOP)/dev/tree.sh ours $(MUTANT_PATCH)
	@+$(KARCH) $(TOP)/dev/tests.sh $(OUT)/src/ours $(BUILD) $(TESTS)
	@ARCH=$(ARCH) TCG=$(TCG) ENGINE=$(ENGINE) $(TOP)/dev/check.sh $(KERNEL) $(IMAGE) $(TESTS) $(BUILD) $(RESULTS) $(TIMEOUT) '$(T)' \
		$(TORTURE_SECONDS) $(FUZZ_LINES)

# The torture and fuzz suites alone, long, with the checkers on; the boot's
# limit leaves 50 ms a fuzzed line.
torture:
	@+$(MAKE) --no-print-directory check DEBUG=$(TORTURE_DEBUG) \
		T='^(uprobe_torture|uprobe_fuzz)$$' TORTURE_SECONDS=$(DURATION) \
		FUZZ_LINES=$(TORTURE_LINES) \
		TIMEOUT=$$(($(DURATION) + $(TORTURE_LINES) / 20 + 2400))

# Every mutant still applies to ours' tree and compiles in its build.
mutants-apply: deps-base
	@+$(MAKE) --no-print-directory kernel ARCH=x86_64 KERNEL=ours DEBUG= MUTANT=
	@$(TOP)/dev/mutants-apply.sh $(OUT)/src/ours $(OUT)/build/ours

# Every mutant kernel: the suites its patch names must fail.
# Each mutant is a make check or make cross, which install their own.
mutants: init
	@$(TOP)/dev/mutants.sh $(TIMEOUT) '$(MUTANTS)'

# The kernels, same config, same QEMU, same guest program: one table.
bench: deps-bench init
	@+$(MAKE) --no-print-directory kernel KERNEL=upstream DEBUG= MUTANT=
	$(if $(AA)$(NO_PERFCORE),,@+$(MAKE) --no-print-directory kernel KERNEL=perfcore DEBUG= MUTANT=)
	@+$(MAKE) --no-print-directory kernel KERNEL=ours DEBUG= MUTANT=
	@+$(MAKE) --no-print-directory bench-program
	@ARCH=$(ARCH) NO_PERFCORE=$(NO_PERFCORE) CASES=$(CASES) $(TOP)/dev/bench.sh $(BENCH_BIN) $(BENCH)$(if $(AA),-aa)$(if $(ICOUNT),-icount) \
		$(TIMEOUT) $(if $(AA),aa)$(if $(ICOUNT),icount)

# The guest program of bench and pathlen.
bench-program: deps-bench tree
	@mkdir -p $(dir $(BENCH_BIN))
	$(CROSS)gcc -O2 -g -Wall -fno-omit-frame-pointer -pthread -I$(SELFTEST) -o $(BENCH_BIN) \
		$(TOP)/bench/uprobe_bench.c $(TOP)/bench/bench_targets.S $(SELFTEST)/uprobe_util.c

# Where a hit's instructions go, function by function, on upstream and
# ours (x86-64, or arm64 with ARCH=arm64): a QEMU plugin counts them
# (dev/breakdown.sh).
breakdown: deps-bench init
	@+$(MAKE) --no-print-directory kernel KERNEL=upstream DEBUG= MUTANT=
	@+$(MAKE) --no-print-directory kernel KERNEL=ours DEBUG= MUTANT=
	@+$(MAKE) --no-print-directory bench-program
	@ARCH=$(ARCH) $(TOP)/dev/breakdown.sh $(BENCH_BIN) $(OUT)/breakdown$(ARCH_SUFFIX) $(TIMEOUT) upstream ours

# CI's gate on the hit path: instructions per call of ours against
# bench/pathlen-budget (x86-64).
pathlen: deps-bench kernel init bench-program
	@$(TOP)/dev/pathlen.sh $(BENCH_BIN) $(IMAGE) $(OUT)/pathlen $(TOP)/bench/pathlen-budget $(TIMEOUT)

run: kernel init
	@$(TOP)/dev/boot.sh --arch $(ARCH) $(IMAGE) $(RESULTS) $(TIMEOUT) -- $(TOP)/guest/demo.sh

# How the entries of libc.so.6, all probed, are entered (guest/libc-sweep.sh).
sweep: kernel init
	@$(TOP)/dev/boot.sh --multi-thread --arch $(ARCH) $(IMAGE) $(OUT)/sweep $(TIMEOUT) -- \
		$(TOP)/guest/libc-sweep.sh /tmp/results

shell: kernel init
	@$(TOP)/dev/boot.sh --interactive --arch $(ARCH) $(IMAGE) $(RESULTS) 0 -- /bin/bash

series: tree deps-series
	@$(TOP)/dev/series.sh $(OUT)/series
	$(if $(STEPS),@$(TOP)/dev/series-build.sh $(OUT)/series.git $(OUT)/series-build x86_64 arm64)

# What the files of overlay.list gained since the last fold, into patch P.
series-fold: tree deps-series
	@$(TOP)/dev/series-fold.sh $(P)

# series/ written anew from out/series.git, after work done there by hand.
series-export:
	@$(TOP)/dev/series-export.sh $(OUT)/series.git

# What CI runs: the tests, on ours and on the base, the mutants, arm64 and
# cross, in an order that keeps within CI's time; one last line.
check-all: deps
	@CROSS_ARCHES="$(CROSS_ARCHES)" MUTANTS_FROM="$(MUTANTS_FROM)" \
		$(if $(MUTANTS_MIN),MUTANTS_MIN="$(MUTANTS_MIN)") $(TOP)/dev/check-all.sh

# Our tree for every other architecture with uprobes: one line each.
cross: tree deps-cross
	@$(TOP)/dev/cross.sh $(SRC) $(OUT)/cross/$(TREE) $(TOP)/configs/cross.config $(CROSS_ARCHES)

cleanroom: deps-base
	@$(TOP)/../shared/tools/cleanroom-check $(TOP)

clean:
	rm -rf $(OUT)
