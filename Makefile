# SPDX-License-Identifier: GPL-2.0
#
# The one entry point: stage the patched 7.3 tree, build the test kernel,
# boot it in QEMU, test, export the series. See README.
#
#   make              stage, build, boot and show what the series does
#   make check        every test (check-fast + the QEMU boot); last line
#                     is "N passed, N failed"
#   make check-fast   userspace algorithm tests and checkpatch, in seconds
#   make export       git-am-ready series under build/export, proven, and
#                     its fixes for 6.12 (build/export/stable-6.12)
#   make prefixes     every prefix of the series builds and passes its
#                     KUnit suites (kunit.py); FROM=k starts at prefix k
#   make figures      rewrite the figures of the counter assignment
#                     (tools/testing/x86-perf-sched/README, README) from
#                     the harness's check and bench and sched_sim's runs
#   make refresh      rewrite series/*.patch to apply without offsets
#   make deb-pkg      Debian kernel package of the patched tree for real
#                     Intel machines (config of the running kernel)
#   make qemu         qemu-system-x86_64 with the emulated Intel PMU (tools/testing/qemu-pmu/)
#   make qemu-prefixes checks that every prefix of the QEMU series builds
#   make boot-pmu     boot the built test kernel on it (PMU=loss: the
#                     erratum's loss model, its tests, then the others;
#                     PMU=skylake: an emulated Skylake with PEBS, its
#                     tests only;
#                     PMU=skylake-adaptive: the same, PEBS format 4;
#                     PMU=off: stock QEMU behaviour)
#   make cost         the emulated PMU's cost: instructions per second of
#                     a guest loop, PMU off, on, erratum on, PEBS; and the
#                     loop's TB with no counter enabled against PMU off
#   make soak         the kernel under fuzz on the emulated Haswell for
#                     SOAK_SECS seconds (default 600): perf_fuzz and trinity
#   make fuzz-loop    make check's fuzz phase alone in RUNS boots (default
#                     10), from boot HOGS_FROM on (default none) beside
#                     HOGS host busy loops
#   make pebs-figures frequency-mode PEBS on the emulated Skylake, 7.3 as
#                     shipped against the series, at the defaults
#   make readings     the guest tests under the readings of what the SDM
#                     leaves open that make check does not boot

# The base, pinned in one place: Debian's linux-source-7.3 package, in the
# trixie-backports suite of the archive (mk/base.sh fetches it under build/
# without changing the machine's apt setup or installing anything).
DEB_PACKAGE	:= linux-source-7.3
DEB_VERSION	?= 7.3.4-1~bpo13+1
DEB_SUITE	?= trixie-backports
# Or a 7.3 tree of your own: make KSRC=/path/to/linux-7.3
KSRC		?=
# The stable tree the fixes must reach (make export proves they do):
# Debian 12's own linux-source-6.12, fetched the same way.
STABLE_PACKAGE	:= linux-source-6.12
STABLE_VERSION	?= 6.12.117-1~deb12u1
STABLE_SUITE	?= bookworm-security

B		:= build
STABLE_TREE	:= $(B)/src/$(STABLE_PACKAGE)
STABLE_STAMP	:= $(B)/src/.extracted-$(STABLE_PACKAGE)-$(STABLE_VERSION)
ifeq ($(KSRC),)
PRISTINE	:= $(B)/src/$(DEB_PACKAGE)
BASE_STAMP	:= $(B)/src/.extracted-$(DEB_PACKAGE)-$(DEB_VERSION)
else
PRISTINE	:= $(KSRC)
BASE_STAMP	:=
endif
STAGED		:= $(B)/linux
KOUT		:= $(abspath $(B)/kernel)
# The config fragment as the whole series leaves it (a patch may add to it)
FRAGMENT	:= $(STAGED)/arch/x86/events/.kunitconfig
BZIMAGE		:= $(KOUT)/arch/x86/boot/bzImage
INITRAMFS	:= $(B)/initramfs.cpio.gz
KST_OUT		:= $(abspath $(B)/kselftest)
KST_INSTALL	:= $(abspath $(B)/kselftest-install)
FAST_OUT	:= $(abspath $(B)/check-fast)
JOBS		?= $(shell nproc)

export CCACHE_BASEDIR	:= $(CURDIR)
export CCACHE_NOHASHDIR	:= true
export CCACHE_MAXSIZE	?= 5G

# The emulated Intel PMU: Debian's qemu source package, pinned here (sid
# has the newest QEMU whose source the archive serves), and the quilt
# series of tools/testing/qemu-pmu/; Debian's meson of bookworm-backports
# where the machine's is older than QEMU's 1.5 (Debian 12). The stamp is
# keyed on the pins, the series, its patches and the build scripts:
# nothing rebuilds unless one of them changes.
QEMU_DEB_VERSION ?= 1:10.2.2+ds-1
QEMU_DEB_SUITE	?= sid
QEMU_MESON_VERSION ?= 1.7.0-1~bpo12+1
QEMU_MESON_SUITE ?= bookworm-backports
QEMU_OUT	:= $(B)/qemu
QEMU_DIR	:= tools/testing/qemu-pmu
QEMU_PATCHES	:= $(addprefix $(QEMU_DIR)/,$(shell grep -v -e '^\#' -e '^[[:space:]]*$$' $(QEMU_DIR)/series))
QEMU_HASH	:= $(shell { echo '$(QEMU_DEB_VERSION) $(QEMU_DEB_SUITE)' \
			'$(QEMU_MESON_VERSION) $(QEMU_MESON_SUITE)'; \
			cat mk/qemu.sh mk/qemu-opts.sh mk/aptsuite.sh mk/qemu-refusals.sh \
			$(QEMU_DIR)/series \
			$(QEMU_PATCHES); } 2>/dev/null | sha256sum | cut -c1-16)
QEMU_STAMP	:= $(QEMU_OUT)/.built-$(QEMU_HASH)
QEMU_BIN	:= $(QEMU_OUT)/build/qemu-system-x86_64
PMU		?= on
PMU_KERNEL	?= $(BZIMAGE)
PMU_INITRAMFS	?= $(INITRAMFS)
HASWELL		:= $(B)/boot-pmu-on
HASWELL_LOSS	:= $(B)/boot-pmu-loss
SKYLAKE		:= $(B)/boot-pmu-skylake
SKYLAKE_ADAPTIVE := $(B)/boot-pmu-skylake-adaptive
SKYLAKE_UNSTABLE := $(B)/boot-pmu-skylake-unstable
HASWELL_MIGRATE	:= $(B)/boot-pmu-migrate
SKYLAKE_MIGRATE	:= $(B)/boot-pmu-skylake-migrate

KMAKE = $(MAKE) -s -C $(STAGED) O=$(KOUT) ARCH=x86_64 CC="ccache gcc" \
	HOSTCC="ccache gcc" -j$(JOBS)
CHECKPATCH = perl $(PRISTINE)/scripts/checkpatch.pl --strict --no-tree \
	--quiet --show-types
KUNIT_PY = $(STAGED)/tools/testing/kunit/kunit.py

.PHONY: all deps base stage kernel kselftest initramfs boot haswell check \
	check-fast prefixes figures refresh export deb-pkg qemu qemu-prefixes \
	boot-pmu cost soak fuzz-loop pebs-figures sigtrap-figures readings clean

all: boot haswell
	@mk/show.sh $(HASWELL)/tests.log $(HASWELL_LOSS)/tests.log $(SKYLAKE)/tests.log \
		$(SKYLAKE_ADAPTIVE)/tests.log
	@python3 mk/evaluate.py $(KUNIT_PY) $(B)/console.log $(B)/tests.log \
		--haswell $(HASWELL)/console.log $(HASWELL)/tests.log \
		--haswell-loss $(HASWELL_LOSS)/console.log $(HASWELL_LOSS)/tests.log \
		--skylake $(SKYLAKE)/console.log $(SKYLAKE)/tests.log \
		--skylake-adaptive $(SKYLAKE_ADAPTIVE)/console.log \
		$(SKYLAKE_ADAPTIVE)/tests.log \
		--skylake-unstable $(SKYLAKE_UNSTABLE)/console.log \
		$(SKYLAKE_UNSTABLE)/tests.log \
		--haswell-migrate $(HASWELL_MIGRATE)/console.log \
		$(HASWELL_MIGRATE)/tests.log \
		--skylake-migrate $(SKYLAKE_MIGRATE)/console.log \
		$(SKYLAKE_MIGRATE)/tests.log

deps:
	@mk/deps.sh

$(BASE_STAMP):
	@mk/timed.sh base mk/base.sh $(DEB_PACKAGE) '$(DEB_VERSION)' $(DEB_SUITE) $(B)/src

base: deps
ifeq ($(KSRC),)
	@$(MAKE) -s $(BASE_STAMP)
else
	@test -f $(KSRC)/Makefile || { echo "base: KSRC=$(KSRC) is no kernel tree"; exit 1; }
endif

stage: base
	@mk/stage.sh $(PRISTINE) $(STAGED) .

kernel: stage
	@mk/config.sh $(FRAGMENT) $(KOUT) $(KMAKE)
	@echo "kernel: building $(BZIMAGE)"
	@mk/timed.sh kernel $(KMAKE) bzImage
	@$(KMAKE) headers

kselftest: kernel
	@rm -rf $(KST_INSTALL)
	@$(MAKE) -s -C $(STAGED)/tools/testing/selftests TARGETS=perf_events \
		O=$(KST_OUT) KHDR_INCLUDES="-isystem $(KOUT)/usr/include" \
		INSTALL_PATH=$(KST_INSTALL) install > $(B)/kselftest-build.log 2>&1 || \
		{ cat $(B)/kselftest-build.log; exit 1; }

initramfs: kselftest
	@mk/timed.sh initramfs mk/initramfs.sh $(KST_INSTALL) $(INITRAMFS)

# The boots, as shell commands: the plain one (make boot) and the seven
# on the emulated PMUs (make haswell), each with its time; make check runs
# them beside check-fast. The readings of what the SDM leaves open (QEMU's
# README) are the defaults but in two boots: the erratum's loss model with
# no skid (PMU_SKID=0) and the Skylake with tsc=unstable with the record's
# event counted after the reload (PEBS_RELOAD_FIRST=on); make readings
# boots the others. The second boot, on the emulated Haswell
# (alone: its fuzz phase), then short ones side by side, the erratum's
# loss model followed by the migration boot (the Haswell saved to a file
# while it counts and samples, and run on from there by a second QEMU),
# and the emulated Skylake (PEBS) with tsc=unstable followed by the
# Skylake's migration boot,
# then two long ones side by side, the Skylake and the same with
# adaptive PEBS (record format 4); a boot uses 1.3 of the host's cores:
# judged by mk/evaluate.py. $(call BOOT_PMU,MODE): the boot of
# mk/boot-pmu.sh MODE, its output in build/boot-pmu-MODE.log; a fourth
# argument sets a reading (VAR=VALUE in its environment).
BOOT_PLAIN = echo "boot: QEMU (TCG, 2 CPUs): KUnit, kselftests, perf" && \
	mk/timed.sh boot mk/boot.sh $(BZIMAGE) $(INITRAMFS) $(B)/console.log \
		$(B)/tests.log
BOOT_PMU = mk/timed.sh -o $(B)/boot-pmu-$(1).log "boot $(1)" \
	$(if $(3),mk/pin.sh $(3)) $(if $(4),env $(4)) mk/boot-pmu.sh \
	$(QEMU_BIN) $(BZIMAGE) $(INITRAMFS) $(B)/boot-pmu-$(1) $(1) $(2)
# Two boots side by side run one on each of the first two host CPUs that
# make may use ($(call BOOT_PMU,MODE,LIMIT,1 or 2), mk/pin.sh; unpinned
# on a host of one): unpinned, in the two Skylake boots 1 and 3 of the
# 50 nanosleeps of 20 ms of tests 16-17 did not sleep in 2 of their 5
# runs (one run again); pinned, all 50 slept in each, and the two took
# 410 and 413 s, against 375 and 410 (2026-12-02, the host otherwise
# idle). In the pinned pair of the cold run of be409e7 PEBS test
# 12 failed once: most likely three of the loop's records lost at its
# preemptions and reported lost, which the test did not count (it does
# since 24a6160).
# The two Skylake boots with a full PEBS buffer (PEBS test 18 then; the
# kselftest large_pebs's full_buffer_accounted since 5a90653) get 1,200 s
# before mk/hang.py reports them hung, not 600: with that test's dump
# cut to its samples (issue 47) the format-3 boot (then at 512 KiB) took
# 522 s in a make check of 2026-12-02 on a machine of CI's kind, busy but
# near the 600, which a slower machine would pass.
PEBS_LIMIT	:= 1200
BOOTS_PMU = \
	echo "boot: QEMU (TCG, emulated Haswell, 1 core, 2 threads): KUnit, kselftests, perf, pmu"; \
	$(call BOOT_PMU,on); \
	echo "boot: QEMU (the same, x-pmu-ht-erratum=loss, x-pmu-skid=0): the pmu tests, then"; \
	echo "boot: QEMU (the same as the first, migrated to a file and run on from it): the migration tests, beside"; \
	echo "boot: QEMU (TCG, emulated Skylake, tsc=unstable, x-pmu-pebs-reload-first=on): PEBS tests 1-8, then"; \
	echo "boot: QEMU (TCG, emulated Skylake, PEBS, migrated to a file and run on from it): the migration tests"; \
	{ $(call BOOT_PMU,loss,,1,PMU_SKID=0); $(call BOOT_PMU,migrate,,1); } & b=$$!; \
	{ $(call BOOT_PMU,skylake-unstable,,2,PEBS_RELOAD_FIRST=on); \
	  $(call BOOT_PMU,skylake-migrate,,2); }; wait $$b; \
	echo "boot: QEMU (TCG, emulated Skylake, PEBS): the PEBS tests, beside"; \
	echo "boot: QEMU (the same, pebs-fmt=4, x-pmu-pebs-baseline=on): the PEBS tests, format 4"; \
	$(call BOOT_PMU,skylake,$(PEBS_LIMIT),1) & b=$$!; \
	$(call BOOT_PMU,skylake-adaptive,$(PEBS_LIMIT),2); wait $$b

boot: kernel initramfs
	@$(BOOT_PLAIN)

check-fast: stage
	@mk/check-fast.sh $(PRISTINE) $(FAST_OUT) $(B)/check-fast.result

haswell: kernel initramfs qemu
	-@$(BOOTS_PMU)

# The stages of make check side by side where the host has a core to
# spare: QEMU's build, from the fetch of its source on, beside the
# kernel's, from the fetch of its own (once what both need is installed:
# their serial steps, fetches, configure and links, then overlap);
# check-fast beside them and then the boots at nice 19: on the
# host's idle time only, since a cold check-fast beside the boots at
# nice 0 (748 s, its simulator runs uncached) made the Haswell boot pass
# its 600 s in the fuzz phase, every test before it passed (399 s
# alone). Each stage prints its time; what runs beside prints its output
# when it ends.
check:
	@mk/deps.sh qemu
	@mkdir -p $(B)
	@echo "check: QEMU built beside the kernel (its output: $(B)/qemu.log)"
	@echo "check: check-fast beside them and the boots (its output: $(B)/check-fast.log)"
	@$(MAKE) -s qemu > $(B)/qemu.log 2>&1 & q=$$!; \
		$(MAKE) -s stage || { wait $$q; exit 1; }; \
		mk/timed.sh -o $(B)/check-fast.log check-fast nice -n 19 \
			mk/check-fast.sh $(PRISTINE) $(FAST_OUT) \
			$(B)/check-fast.result & f=$$!; \
		$(MAKE) -s initramfs; rc=$$?; \
		wait $$q || rc=1; cat $(B)/qemu.log; \
		[ $$rc != 0 ] || { $(BOOT_PLAIN); rc=$$?; }; \
		[ $$rc != 0 ] || { $(BOOTS_PMU); }; \
		wait $$f; cat $(B)/check-fast.log; exit $$rc
	@python3 mk/evaluate.py $(KUNIT_PY) $(B)/console.log $(B)/tests.log \
		$(B)/check-fast.result \
		--haswell $(HASWELL)/console.log $(HASWELL)/tests.log \
		--haswell-loss $(HASWELL_LOSS)/console.log $(HASWELL_LOSS)/tests.log \
		--skylake $(SKYLAKE)/console.log $(SKYLAKE)/tests.log \
		--skylake-adaptive $(SKYLAKE_ADAPTIVE)/console.log \
		$(SKYLAKE_ADAPTIVE)/tests.log \
		--skylake-unstable $(SKYLAKE_UNSTABLE)/console.log \
		$(SKYLAKE_UNSTABLE)/tests.log \
		--haswell-migrate $(HASWELL_MIGRATE)/console.log \
		$(HASWELL_MIGRATE)/tests.log \
		--skylake-migrate $(SKYLAKE_MIGRATE)/console.log \
		$(SKYLAKE_MIGRATE)/tests.log

# Every prefix of the series staged in build/prefixes/linux, built, and its
# KUnit suites run by upstream's kunit.py (logs in build/prefixes/log/).
FROM		?= 1
prefixes: base
	@mk/prefixes.sh $(PRISTINE) $(B)/prefixes $(JOBS) $(FROM)

# The figures of the counter assignment in the harness's README, from its
# check and bench runs, and the simulator's tables in README and the
# harness's README, from sched_sim's runs (make check-fast checks both).
figures: stage
	@$(MAKE) -s -C tools/testing/x86-perf-sched BASE=$(abspath $(PRISTINE)) \
		O=$(FAST_OUT)/x86-perf-sched check > $(FAST_OUT)/x86-perf-sched.log
	@$(MAKE) -s -C tools/testing/x86-perf-sched BASE=$(abspath $(PRISTINE)) \
		O=$(FAST_OUT)/x86-perf-sched bench > $(FAST_OUT)/bench.txt
	@python3 mk/figures.py --write tools/testing/x86-perf-sched/README \
		$(FAST_OUT)/x86-perf-sched.log \
		$(FAST_OUT)/bench.txt
	@python3 mk/simfigures.py --write $(FAST_OUT)/x86-perf-sched/sched_sim \
		$(FAST_OUT)/simfigures $(JOBS)

# After editing a patch: make every patch apply exactly on its predecessors.
refresh: base
	@mk/refresh.sh $(PRISTINE)

$(STABLE_STAMP):
	@mk/base.sh $(STABLE_PACKAGE) '$(STABLE_VERSION)' $(STABLE_SUITE) $(B)/src

export: stage $(STABLE_STAMP)
	@mk/export.sh $(PRISTINE) $(FRAGMENT) $(B)/export $(STABLE_TREE)

deb-pkg: stage
	@command -v dpkg-buildpackage > /dev/null && dpkg -s debhelper > /dev/null 2>&1 || \
		{ echo "deb-pkg: needs: apt-get install dpkg-dev debhelper"; exit 1; }
	@mkdir -p $(B)/deb
	@cp /boot/config-$$(uname -r) $(B)/deb/.config
	@$(MAKE) -C $(STAGED) O=$(abspath $(B)/deb) olddefconfig
	@$(MAKE) -C $(STAGED) O=$(abspath $(B)/deb) CC="ccache gcc" \
		-j$(JOBS) bindeb-pkg

qemu: $(QEMU_STAMP)

$(QEMU_STAMP):
	@mk/deps.sh qemu
	@mk/timed.sh qemu mk/qemu.sh '$(QEMU_DEB_VERSION)' $(QEMU_DEB_SUITE) \
		'$(QEMU_MESON_VERSION)' $(QEMU_MESON_SUITE) $(QEMU_DIR) \
		$(QEMU_OUT) $(JOBS)
	@rm -f $(QEMU_OUT)/.built-*
	@touch $@

# By hand: checks that every prefix of the QEMU series builds with
# -Werror (logs in build/qemu-prefixes/log/); LAST=k stops after prefix k,
# its QEMU in build/qemu-prefixes/build/ for mk/boot-pmu.sh.
qemu-prefixes: qemu
	@mk/qemu-prefixes.sh $(QEMU_OUT) $(QEMU_DIR) $(B)/qemu-prefixes $(JOBS) \
		$(LAST)

# By hand, after make (or make boot) has built the kernel and initramfs;
# PMU_KERNEL= and PMU_INITRAMFS= boot others. Logs under build/boot-pmu-*.
boot-pmu: qemu
	@mk/boot-pmu.sh $(QEMU_BIN) $(PMU_KERNEL) $(PMU_INITRAMFS) \
		$(B)/boot-pmu-$(PMU) $(PMU)

# By hand: five short boots (mk/cost.sh), logs under build/cost/.
cost: kernel initramfs qemu
	@mk/cost.sh $(QEMU_BIN) $(BZIMAGE) $(INITRAMFS) $(B)/cost

# By hand: one boot on the emulated Haswell (lockdep, KASAN, UBSAN on),
# perf_fuzz (tools/testing/x86-perf-fuzz/) with trinity beside it for
# SOAK_SECS seconds, seed SOAK_SEED; logs under build/soak/.
SOAK_SECS	?= 600
SOAK_SEED	?= 1
soak: kernel initramfs qemu
	@TESTS=soak SOAK_SECS=$(SOAK_SECS) SOAK_SEED=$(SOAK_SEED) mk/boot-pmu.sh $(QEMU_BIN) \
		$(BZIMAGE) $(INITRAMFS) $(B)/soak on $$(($(SOAK_SECS) + 600))

# By hand: make check's fuzz phase alone (mk/fuzz-loop.sh), RUNS boots,
# seeds SEEDS in turn, from boot HOGS_FROM on beside HOGS busy loops;
# logs under build/fuzz-loop/.
fuzz-loop: kernel initramfs qemu
	@mk/fuzz-loop.sh $(QEMU_BIN) $(BZIMAGE) $(INITRAMFS) $(B)/fuzz-loop

# By hand: 7.3 as shipped built beside the series (mk/vanilla.sh), then
# two short boots on the emulated Skylake (mk/pebs-figures.sh), logs
# under build/pebs-figures/.
pebs-figures: kernel initramfs qemu
	@mk/vanilla.sh $(PRISTINE) $(FRAGMENT) $(B)/vanilla $(JOBS)
	@mk/pebs-figures.sh $(QEMU_BIN) $(B)/vanilla/kernel/arch/x86/boot/bzImage \
		$(BZIMAGE) $(INITRAMFS) $(B)/pebs-figures

# By hand: the guest tests under the readings of what the SDM leaves open
# that make check does not boot (mk/readings.sh), two boots at a time;
# logs under build/readings/, a summary of each boot's failures at the end.
readings: kernel initramfs qemu
	@mk/readings.sh $(QEMU_BIN) $(BZIMAGE) $(INITRAMFS) $(B)/readings

# By hand: two boots on the emulated Haswell (mk/sigtrap-figures.sh), the
# host otherwise idle, then beside HOGS busy loops (default 2); logs
# under build/sigtrap-figures/.
sigtrap-figures: kernel initramfs qemu
	@mk/sigtrap-figures.sh $(QEMU_BIN) $(BZIMAGE) $(INITRAMFS) \
		$(B)/sigtrap-figures

clean:
	rm -rf $(B)
