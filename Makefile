# SPDX-License-Identifier: GPL-2.0
#
# futex-lock: build the patched 6.12 kernel, boot it under QEMU, run the
# futex_lock comparison (make run) or every test (make check).
# "make help" lists the targets.

SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -ec
.DEFAULT_GOAL := help

REPO    := $(CURDIR)
BUILD   := $(REPO)/build
TARBALL ?= /usr/src/linux-source-6.12.tar.xz
KSRC    := $(BUILD)/linux-source-6.12
# base: the kernel benchmarks run on; debug: base + lockdep etc., for tests
FLAVOUR ?= base
KOUT     = $(BUILD)/kbuild-$(FLAVOUR)
BZIMAGE  = $(KOUT)/arch/x86/boot/bzImage
JOBS    ?= $(shell echo $$(( $$(nproc) + 1 )))
SMP     ?= 2
MEM     ?= 2048
VM_TIMEOUT ?= 1200
ACCEL   ?= auto
export CCACHE_DIR ?= $(HOME)/.cache/ccache
# Paths below build/ are hashed relative to it, so a second clone (CI's
# fresh clone on the same machine) hits the same cache entries.
export CCACHE_BASEDIR ?= $(BUILD)

VM      := tools/testing/vm
VMRUN    = REPO=$(REPO) BUILD=$(BUILD) KSRC=$(KSRC) KOUT=$(KOUT) \
	   $(VM)/vm-run --smp $(SMP) --mem $(MEM) --accel $(ACCEL) --timeout $(VM_TIMEOUT)
# LOCALVERSION= (empty, but set) stops setlocalversion adding "+" for the git tree.
KMAKE    = $(MAKE) -C $(KSRC) O=$(KOUT) ARCH=x86_64 CC="ccache gcc" LOCALVERSION= -j$(JOBS)
SELFTESTS := tools/testing/selftests/futex_lock
# perf from the patched tree's tools/perf (perf bench futex lock), minimal build
PERF_OUT  := $(BUILD)/perf
FTORTURE  := tools/testing/futex_torture
MODEL     := tools/testing/futex_lock_model
# make torture / make fuzz: seconds of the run, seed, extra arguments
DURATION  ?= 60
SEED      ?= 1
TORTURE_ARGS ?=
FUZZ_ARGS ?=

# guest_env,PREFIX: every make variable PREFIX* (command line or
# environment) but the host's *_TIMEOUT guards, as NAME='value' words for
# "env" in the guest, which sees only what vm-run passes (apps, matrix,
# ablation)
guest_env = $(foreach v,$(sort $(filter-out %_TIMEOUT,$(filter $(1)%,$(.VARIABLES)))),$(v)='$($(v))')

# Packages needed for what they hold, not for a command: headers,
# libraries, the kernel source.  Every command we call, and its package, is
# listed in $(VM)/commands; "make deps" installs both and checks each
# command.  "make run" and "make check" then run with PATH = $(TOOLPATH):
# the commands of a minimal Debian 12 plus that list, nothing else.
DEB_PKGS := build-essential libelf-dev libssl-dev python3-ply linux-source-6.12 libpython3.11-testsuite
TOOLPATH := $(BUILD)/toolpath

.PHONY: help ablation apps deps toolpath run-steps check-steps kernel kernel-src kernel-config userspace module selftests \
	vm run check check-host check-vm check-voluntary check-base check-up check-bisect check-harness checkpatch lockcmp \
	matrix matrix-judge matrix-pool seedbench patches-export clean distclean futex-torture torture fuzz model perf check-perf check-perf-all perfagree

help:
	@echo "futex-lock - FUTEX_LOCK / FUTEX_LOCK_ADAPTIVE on Linux 6.12"
	@echo
	@echo "  make run        set-up, build the patched kernel, boot it, print the futex_lock comparison"
	@echo "  make check      set-up and every test (host; debug kernel in the VM: kselftests, module, torture, fuzz, real-program smoke)"
	@echo "  make check-voluntary  the kselftests on the debug kernel booted preempt=voluntary (CI runs it after make check)"
	@echo "  make check-base the kselftests on the base kernel (CI runs it after make check)"
	@echo "  make check-up   the kselftests on the uniprocessor kernel, one vCPU (CI runs it after check-base)"
	@echo "  make check-bisect  every prefix of patches/series applies and builds kernel/futex/ (SMP and UP; CI)"
	@echo
	@echo "  make deps       install the Debian packages needed (apt-get, idempotent)"
	@echo "  make kernel     unpack linux-source-6.12, apply patches/series, build bzImage (FLAVOUR=$(FLAVOUR))"
	@echo "  make userspace  build userspace/ (futex_lock and the benchmarks)"
	@echo "  make module     build the kernel/ test module against the built kernel"
	@echo "  make selftests  build tools/testing/selftests/futex_lock and upstream futex selftests"
	@echo "  make perf       build perf (perf bench futex lock) from the patched tree, minimal, into build/perf"
	@echo "  make perfagree  perf bench futex lock against futex_lock -s in the VM (paired runs, A/A band)"
	@echo "  make vm CMD=... boot the kernel and run CMD in the guest (SMP=$(SMP) MEM=$(MEM) ACCEL=$(ACCEL))"
	@echo "  make lockcmp    mutex vs semaphore table from the kernel/ module, in the VM"
	@echo "  make matrix     issue-17 matrix in the VM (threads x hold x outside, every lock, A/A per cell): resumable,"
	@echo "                  one file per cell, each cell extended until resolved (A/A in [0.95,1.05]); verdict table, plots"
	@echo "                  FL_MATRIX_THREADS/HOLD/OUTSIDE, _REPEAT/_DURATION (first), _MAX_REPEAT/_MAX_DURATION (caps),"
	@echo "                  FL_MATRIX_REDO=1|unresolved, MATRIX_TIMEOUT (guest s; a rerun resumes)"
	@echo "  make matrix-judge  host: the issue-17 verdict table and plots from the cell files there are"
	@echo "  make matrix-pool POOL=\"LABEL...\"  host: the verdict table over several boots of one matrix"
	@echo "                  (make matrix run again under other labels), their pairs taken together"
	@echo "  make ablation  issue-17 ablation in the VM: ADAPTIVE with each spin-policy rule switched off alone (FL_ABL_*)"
	@echo "  make apps       real programs (RocksDB, sysbench, memcached, stress-ng) under glibc vs the LD_PRELOAD library, in the VM"
	@echo "  make seedbench  lockbench, wakebench, queuebench in the VM and on the host, plots in Documentation/results/"
	@echo "  make torture    futex_torture in the VM for DURATION=s (FLAVOUR=base|debug, SEED, TORTURE_ARGS)"
	@echo "  make fuzz       futex_fuzz in the VM for DURATION=s (FLAVOUR=base|debug, SEED, FUZZ_ARGS)"
	@echo "  make checkpatch scripts/checkpatch.pl --strict on patches/ and kernel/"
	@echo "  make model      SPIN model check of the lock word protocol: v3 passes, v2 and broken v3 fail as expected"
	@echo "  make patches-export  write the commits base..futex-lock of build/linux-source-6.12 to patches/"
	@echo "  make clean      remove build products (keeps the unpacked source and ccache)"
	@echo "  make distclean  remove build/ entirely"
	@echo
	@echo "Variables: FLAVOUR=base|debug|kcsan (check uses debug), JOBS=$(JOBS), SMP, MEM, ACCEL=auto|tcg|kvm, VM_TIMEOUT (check-*: CHECK_VM_TIMEOUT)"

deps:
	@$(VM)/install-deps $(VM)/commands $(DEB_PKGS)

toolpath: deps
	@$(VM)/toolpath $(VM)/commands $(TOOLPATH)

kernel-src: deps
	@mkdir -p $(BUILD)
	@$(VM)/prepare-kernel $(TARBALL) $(KSRC) $(REPO)/patches

# tinyconfig + fragments; redone only when a fragment is newer than .config.
# Flavour F = base.config plus configs/F.config when it exists (debug, kcsan).
flavour_frags = $(VM)/configs/base.config $(filter-out %/base.config,$(wildcard $(VM)/configs/$(1).config))
$(BUILD)/kbuild-%/.config: $(wildcard $(VM)/configs/*.config)
	@mkdir -p $(@D)
	@echo "kernel: configuring $* (tinyconfig + $(call flavour_frags,$*))"
	@$(MAKE) -s -C $(KSRC) O=$(@D) ARCH=x86_64 tinyconfig >/dev/null
	@cd $(KSRC) && scripts/kconfig/merge_config.sh -m -O $(@D) $(@D)/.config \
		$(addprefix $(REPO)/,$(call flavour_frags,$*)) >$(@D)/merge_config.log
	@$(MAKE) -s -C $(KSRC) O=$(@D) ARCH=x86_64 olddefconfig >/dev/null
	@$(VM)/check-config $@ $(call flavour_frags,$*) || { rm -f $@; exit 1; }

kernel-config: kernel-src
	@$(MAKE) -s --no-print-directory $(KOUT)/.config

kernel: kernel-config
	@echo "kernel: building $(FLAVOUR) flavour in $(KOUT) (make -j$(JOBS), ccache)"
	@start=$$SECONDS; $(KMAKE) -s bzImage modules headers; \
		echo "kernel: $$(cat $(KOUT)/include/config/kernel.release) $(FLAVOUR) ready in $$((SECONDS - start)) s: $(BZIMAGE)"; \
		echo "kernel: source $(notdir $(TARBALL)) from Debian package linux-source-6.12 $$(dpkg-query -W -f='$${Version}' linux-source-6.12 2>/dev/null), series: $$(git -C $(KSRC) rev-list --count base..HEAD) patch(es)"

userspace: deps
	@$(MAKE) -C userspace

module: kernel
	@$(MAKE) -C kernel KOUT=$(KOUT)

selftests: kernel
	@$(MAKE) -C $(SELFTESTS) KSRC=$(KSRC) KOUT=$(KOUT) OUTPUT=$(BUILD)/selftests/futex_lock

# Only tools/perf of the patched tree is built (about a minute; then a no-op).
perf: kernel-src
	@$(VM)/build-perf $(KSRC) $(PERF_OUT)

vm: kernel
	@[ -n "$(CMD)" ] || { echo "usage: make vm CMD='command to run in the guest'"; exit 2; }
	@$(VMRUN) -- bash -c '$(CMD)'

# The two README commands: set-up with the full PATH (apt-get, dpkg), then
# everything else with PATH = $(TOOLPATH), so that a command the project
# does not install fails here and not on a user's fresh machine.
run check: toolpath
	@env PATH=$(TOOLPATH) $(MAKE) --no-print-directory $@-steps

# The main job: the futex_lock comparison on the patched (non-debug) kernel.
run-steps: FLAVOUR = base
run-steps: kernel userspace perf
	@$(VMRUN) -- userspace/scripts/compare.sh

# Real programs (issue 18 part 3): RocksDB cache_bench and db_bench, sysbench
# threads, memcached + memcslap, stress-ng --mutex under glibc, an A/A
# control, FUTEXLOCK_PRELOAD=lock, lock's own A/A and =adaptive, in the VM;
# tables, JSON and the plot in Documentation/results/apps-*.  20-40
# minutes under TCG at 10 repetitions.  APPS and the APPS_* variables
# (APPS_REPS, APPS_SECS, APPS_MODES: userspace/scripts/apps.sh --help) go
# into the guest, as matrix's do.  The guard, APPS_TIMEOUT, scales with
# the repetitions and seconds (about 7 s per run of 4 s under TCG, five
# modes, five programs, and half as much again).
APPS_TIMEOUT ?= $$(( 900 + $(or $(APPS_REPS),10) * 25 * ($(or $(APPS_SECS),4) + 6) ))
apps: FLAVOUR = base
apps: VM_TIMEOUT = $(APPS_TIMEOUT)
apps: kernel userspace
	@$(VMRUN) -- env $(call guest_env,APPS) userspace/scripts/apps.sh
	@userspace/scripts/appsplot.sh

lockcmp: FLAVOUR = base
lockcmp: module
	@$(VMRUN) -- tools/testing/lockcmp/lockcmp --insmod kernel/lockcmp.ko

# The issue-17 matrix: resumable, one record per cell in
# Documentation/results/matrix-cells-<label>/, each cell extended until its
# A/A interval lies in [0.95, 1.05] (or recorded unresolved).  The FL_MATRIX_*
# variables of userspace/scripts/matrix.py go into the guest.  A guest that
# stops (MATRIX_TIMEOUT) leaves the done cells: make matrix again resumes.
# Then, on the host, the verdict table (matrix-judge.py) and the plots.
MATRIX_TIMEOUT ?= 14400
matrix: FLAVOUR = base
matrix: VM_TIMEOUT = $(MATRIX_TIMEOUT)
matrix: kernel userspace
	@rc=0; $(VMRUN) -- env $(call guest_env,FL_MATRIX_) userspace/scripts/matrix.sh || rc=$$?; \
		[ $$rc = 0 ] || echo "matrix: the guest run ended with status $$rc; make matrix again resumes from the cells done"; \
		$(MAKE) --no-print-directory matrix-judge; exit $$rc

# Issue 17's ablation: per cell, FUTEX_LOCK_ADAPTIVE with every rule of the
# spin policy on against itself (A/A), each rule switched off alone (its
# debugfs knob, set by futex_lock around that instance's runs), all of them
# off and FUTEX_LOCK.  FL_ABL_* (userspace/scripts/ablation.sh --help) go
# into the guest.
ABLATION_TIMEOUT ?= 3600
ablation: FLAVOUR = base
ablation: VM_TIMEOUT = $(ABLATION_TIMEOUT)
ablation: kernel userspace
	@$(VMRUN) -- env $(call guest_env,FL_ABL_) userspace/scripts/ablation.sh

# Host only: the verdict table and the plots of the matrix cells there are.
matrix-judge:
	@userspace/scripts/matrix-judge.py --counters
	@userspace/scripts/plot.sh

# Host only: several boots of one matrix (labels of matrix-cells-<label>/,
# same kernel and modes) judged as one run with more repetitions.
matrix-pool: userspace
	@[ -n "$(POOL)" ] || { echo 'make matrix-pool POOL="LABEL..." (the labels of Documentation/results/matrix-cells-LABEL/)'; exit 2; }
	@userspace/scripts/matrix-judge.py --pool $(addprefix Documentation/results/matrix-cells-,$(POOL))

# The three seed write-up benchmarks (Documentation/seed-benchmarks.md):
# in the VM on the base kernel (TCG: emulation figures), then natively here.
# perf bench futex lock and futex_lock -s on the same workload, paired
# repetitions in random order, with a perf-vs-perf A/A band (a measurement,
# not a test; under TCG emulation figures).
perfagree: FLAVOUR = base
perfagree: kernel userspace perf
	@$(VMRUN) -- userspace/scripts/perf-agree.sh

seedbench: FLAVOUR = base
seedbench: kernel userspace
	@$(VMRUN) -- userspace/scripts/seedbench.sh
	@userspace/scripts/seedbench.sh
	@userspace/scripts/seedplot.sh

# Every test, on the debug kernel (full preemption, lockdep, KASAN...).
# The kernel (unpacking, then a build of about 6.5 minutes of both CPUs of
# a 2-CPU machine with an empty ccache) is made beside the host's steps,
# which need no kernel and run niced (the model and the userspace tests
# first: they need no kernel source either); its log is printed after
# them ($(VM)/run-beside: the first to fail ends the other).  Then the
# harness tests and the guest, alone.  Each step stops the check on
# failure; the last line counts the suites that ran.
check-steps: override FLAVOUR = debug
check-steps:
	@mkdir -p $(BUILD)
	@echo "check: making the debug kernel beside the host steps (log: $(BUILD)/check-kernel.log)"
	@$(VM)/run-beside $(BUILD)/check-kernel.log \
		-- $(MAKE) --no-print-directory FLAVOUR=debug kernel \
		-- nice -n 10 $(MAKE) --no-print-directory FLAVOUR=debug \
			model check-host check-commands check-perf checkpatch
	@$(MAKE) --no-print-directory -o kernel FLAVOUR=debug check-harness check-vm
	@echo "check: kernel $$(cat $(KOUT)/include/config/kernel.release) (debug: preempt=full) from $(notdir $(TARBALL))"
	@echo "check: $$((6 + $$(cat $(BUILD)/vm/guest-check.passed))) passed, 0 failed"

# The SPIN model of the FUTEX_LOCK word protocol (tools/testing/futex_lock_model):
# v3 must pass exhaustively; v2's counterexamples (N1, N2, N3) and broken v3
# variants must be found.  TAP; counterexamples in build/futex_lock_model/.
model: deps
	@OUT=$(BUILD)/futex_lock_model $(MODEL)/run.sh

check-host: userspace
	@$(MAKE) -C userspace check

# perf bench futex lock on the host's kernel (normally without the ops):
# "not supported", exit 0, and perf bench futex all still works.
check-perf: perf userspace
	@$(VM)/tests/perf-test $(PERF_OUT)/perf userspace/build/futex_lock

# The same with "perf bench futex all" (about 25 s; CI runs it after make
# check, whose cold budget has no room for it).
check-perf-all: perf userspace
	@$(VM)/tests/perf-test --all $(PERF_OUT)/perf userspace/build/futex_lock

# The reduced PATH itself is tested: a command outside it must fail.
check-commands: kernel-src
	@$(VM)/tests/toolpath-test $(VM)/commands $(TOOLPATH) $(KSRC)

check-harness: kernel
	@$(VM)/tests/harness-test $(BZIMAGE)
	@$(VM)/tests/run-beside-test
	@$(VM)/tests/prepare-kernel-test
	@$(VM)/tests/kselftest-tap-test $(KSRC)
	@$(VM)/tests/guest-check-test

patches-export:
	@$(VM)/export-patches $(KSRC) $(REPO)/patches

checkpatch: kernel-src
	@$(VM)/checkpatch-all $(KSRC)

# Every prefix of the series applies and builds kernel/futex/ with -Werror,
# with and without CONFIG_SMP (CI runs it; a scratch worktree of KSRC).
check-bisect: kernel-src
	@$(VM)/check-bisect $(KSRC) $(REPO)/patches $(BUILD)/bisect

# Torture test and fuzzer of the new ops (host-built, run in the guest over 9p).
futex-torture: deps
	@$(MAKE) --no-print-directory -C $(FTORTURE) OUTPUT=$(BUILD)/futex_torture

torture fuzz: VM_TIMEOUT = $$(( $(DURATION) * 2 + 300 ))
torture: kernel futex-torture
	@$(VMRUN) -- $(BUILD)/futex_torture/futex_torture --duration $(DURATION) --seed $(SEED) $(TORTURE_ARGS)

fuzz: kernel futex-torture
	@$(VMRUN) -- $(BUILD)/futex_torture/futex_fuzz --duration $(DURATION) --seed $(SEED) $(FUZZ_ARGS)

# The guest's hang guard: the guest part takes some 11 minutes on an idle
# host under TCG (CI, 2026-11-28: 643 s) and more than 20 minutes with a
# second make check beside it, so the guard is 45 minutes; it ends a hang,
# it does not judge the time (each suite has its own guard as well).
CHECK_VM_TIMEOUT ?= 2700
check-vm check-voluntary check-base check-up: VM_TIMEOUT = $(CHECK_VM_TIMEOUT)
check-vm: kernel module selftests userspace futex-torture perf
	@rm -f $(BUILD)/vm/guest-check.passed
	@$(VMRUN) -- $(VM)/guest-check
	@test -s $(BUILD)/vm/guest-check.passed

# The kselftests once more on the debug kernel booted as Debian's model
# (PREEMPT_DYNAMIC, voluntary): the same checks, another preemption model.
# CI runs it after make check (two minutes more than the 15-minute cold
# budget of make check has room for); check-base runs them voluntary too.
check-voluntary: FLAVOUR = debug
check-voluntary: kernel selftests
	@$(VMRUN) --append preempt=voluntary -- $(SELFTESTS)/vm-test.sh

# The kselftests on the base kernel itself (CI runs it after make check; not
# in make check, whose cold budget has room for one kernel build): a bug can
# hide behind the debug config (the futex hash was zeroed there by chance,
# so the ADAPTIVE spinner slot was never seen uninitialised).
# Then the F1 test once more with the base kernel booted preempt=full: only
# there does the spinner stop on need_resched and get preempted inside the
# call often enough under TCG to judge the fix (the debug kernel is too slow,
# preempt=voluntary never preempts it); status 4 is its SKIP (no such round).
check-base: FLAVOUR = base
check-base:
	@$(MAKE) --no-print-directory FLAVOUR=base kernel selftests
	@$(VMRUN) -- $(SELFTESTS)/vm-test.sh
	@$(VMRUN) --append preempt=full -- bash -c '$(BUILD)/selftests/futex_lock/futex_lock_test \
		-t relay_stall_preempted_spinner; rc=$$?; [ $$rc = 0 ] || [ $$rc = 4 ]'

# The kselftests on the uniprocessor kernel (FLAVOUR=up: base with
# CONFIG_SMP off), booted with one vCPU: the !CONFIG_SMP paths of the
# series, where FUTEX_LOCK_ADAPTIVE must not spin or leave a spinner slot
# behind (a slot left set lost every later wake-up there); tests that need
# two CPUs SKIP.  CI runs it after check-base; it builds a third kernel,
# so it is not in make check.
check-up: FLAVOUR = up
check-up: SMP = 1
check-up:
	@$(MAKE) --no-print-directory FLAVOUR=up kernel selftests
	@$(VMRUN) -- $(SELFTESTS)/vm-test.sh

clean:
	@rm -rf $(BUILD)/kbuild-* $(BUILD)/selftests $(BUILD)/vm $(BUILD)/futex_torture $(PERF_OUT)
	@$(MAKE) -C userspace clean
	@$(MAKE) -C kernel clean KOUT=$(KOUT) 2>/dev/null || true

distclean: clean
	@rm -rf $(BUILD)
