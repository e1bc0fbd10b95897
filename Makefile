# fabricd: one plain Makefile.  Every folder that is part of the daemon
# contributes all of its .c files; nothing here needs editing when a module
# gains a file.  Build outputs go to $(O) (default build/), so the sanitizer
# build (build-san/) lives beside the normal one.

PREFIX  ?= /usr/local
DESTDIR ?=
O       ?= build
CC      ?= cc

PKGS     = libevent_core libevent_extra libevent_pthreads yaml-0.1 sqlite3 libibumad libibmad jansson libmnl \
           libsystemd libcrypto libssl libevent_openssl
CLI_PKGS = jansson libssl libcrypto

DEB_PKGS = build-essential pkg-config libevent-dev libyaml-dev libsqlite3-dev \
           libibumad-dev libibmad-dev libopensm-dev libjansson-dev libcmocka-dev \
           libmnl-dev libssl-dev openssl ibsim-utils infiniband-diags opensm iproute2 sqlite3 \
           util-linux procps psmisc ethtool jq \
           libsystemd-dev systemd curl prometheus lintian debhelper fakeroot dpkg-dev
# graphviz: the tests render topology --format dot to SVG (sm_topology_plan.sh)
# and judge its layout with python3 (sm_topology_dot.sh)
DEB_PKGS += graphviz python3
# etcd: the HA tests start a 3-member cluster on loopback (tests/lib/etcd.sh)
DEB_PKGS += etcd-server etcd-client
# slurm: the job-partition tests start a private slurmctld, slurmd and munged
# on loopback (tests/lib/slurm.sh); slurm-wlm would add nothing more
DEB_PKGS += slurmctld slurmd slurm-client munge
# clang: the fuzz targets (libFuzzer ships with it: tests/fuzz/)
DEB_PKGS += clang

WARN     = -Wall -Wextra -Werror -Wshadow -Wpointer-arith -Wstrict-prototypes \
           -Wmissing-prototypes -Wno-unused-parameter
CFLAGS  ?= -O2 -g
SAN     ?=
ALL_CFLAGS = -std=gnu11 $(WARN) $(CPPFLAGS) $(CFLAGS) $(SAN) -I. -D_GNU_SOURCE \
             -isystem /usr/include/infiniband \
             $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LIBS     = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread -lm
CLI_LIBS = $(shell pkg-config --libs $(CLI_PKGS) 2>/dev/null)
TEST_LIBS = $(shell pkg-config --libs cmocka 2>/dev/null)

MODULE_DIRS = common mad fabric daemon ha sm sm/core sm/sa sm/audit sm/qos sm/mcast partitions roce_qos health validation
LIB_SRCS = $(filter-out daemon/main.c,$(wildcard $(addsuffix /*.c,$(MODULE_DIRS))))
LIB_OBJS = $(LIB_SRCS:%.c=$(O)/%.o) $(O)/schemas.o
CLI_SRCS = $(wildcard cli/*.c) $(wildcard common/*.c)
CLI_OBJS = $(CLI_SRCS:%.c=$(O)/%.o)
UNIT_SRCS = $(wildcard tests/unit/test_*.c)
UNIT_BINS = $(UNIT_SRCS:tests/unit/%.c=$(O)/tests/%)
TOOL_SRCS = $(wildcard tools/*.c)
TOOL_BINS = $(TOOL_SRCS:tools/%.c=$(O)/tools/%)
SQL      = $(sort $(wildcard schemas/*.sql))

all: deps-quiet $(O)/fabricd $(O)/fabricctl $(TOOL_BINS) $(UNIT_BINS) $(O)/tests/libroce_nlfake.so \
    $(O)/tests/libmadlog.so $(O)/tests/libumad_sendspy.so $(O)/tests/libmultisim.so \
    $(O)/tests/libfileblock.so \
    $(O)/tests/liboptsl2vl.so $(O)/tests/libreport_inject.so $(O)/tests/libsa_gettable.so \
    $(O)/bench/routebench \
    $(O)/fabricctl.bash

# deps: install the Debian packages that are missing.  Idempotent and quiet
# when all are present; apt-get update only when something must be fetched.
deps:
	@sh tools/deps.sh $(DEB_PKGS)
deps-quiet:
	@if [ -z "$$FABRICD_NO_DEPS" ]; then sh tools/deps.sh $(DEB_PKGS); fi

$(O)/fabricd: $(O)/daemon/main.o $(O)/libfabricd.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

$(O)/fabricctl: $(CLI_OBJS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(CLI_LIBS)

# bash completion, generated from common/commands.def by fabricctl itself
# (installed as /usr/share/bash-completion/completions/fabricctl).
completion: $(O)/fabricctl.bash
$(O)/fabricctl.bash: $(O)/fabricctl
	$(O)/fabricctl completion bash > $@.tmp && mv $@.tmp $@

$(O)/libfabricd.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(O)/tests/%: tests/unit/%.c $(O)/libfabricd.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(O)/libfabricd.a $(LIBS) $(TEST_LIBS)

# Fuzz targets (tests/fuzz/fuzz_*.c, libFuzzer): one per parser of outside
# input, built by clang with ASan+UBSan into build-fuzz/ (make fuzz-build);
# make check replays their corpora and runs each briefly
# (tests/integration/core_fuzz.sh), make fuzz runs each FUZZ_SECONDS (600).
FUZZ_SRCS = $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS = $(FUZZ_SRCS:tests/fuzz/%.c=$(O)/fuzz/%)
FUZZ_SECONDS ?= 600
$(O)/fuzz/%: tests/fuzz/%.c $(O)/libfabricd.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $< $(O)/libfabricd.a $(LIBS) $(TEST_LIBS)
fuzz-bins: $(FUZZ_BINS)
# clang's warnings are not gcc's: the warnings gate is the gcc build's
fuzz-build:
	@$(MAKE) --no-print-directory O=build-fuzz CC=clang WARN="-Wall -Wno-unused-parameter" \
	    SAN="-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
	    CFLAGS="-O1 -g" FABRICD_NO_DEPS=1 fuzz-bins
fuzz: deps-quiet fuzz-build
	@sh tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS)

# The model-only routing benchmark (make bench runs it first).
$(O)/bench/routebench: bench/routebench.c $(O)/libfabricd.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(O)/libfabricd.a $(LIBS)

$(O)/tools/%: tools/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIBS)

# The netlink test double for roce_qos (LD_PRELOAD into iproute2 dcb and
# fabricd): a plain shared object, never sanitized, since dcb loads it.
$(O)/tests/libroce_nlfake.so: tests/fixtures/roce/nlfake.c tests/fixtures/roce/fake_mlx5.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -O2 -g -D_GNU_SOURCE -fPIC -shared -o $@ $< -ldl

# The MAD-log double (LD_PRELOAD before umad2sim into fabricd): what the
# daemon sends, counted by the tests without asking the daemon.
$(O)/tests/libmadlog.so: tests/fixtures/mad/madlog.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -O2 -g -D_GNU_SOURCE -isystem /usr/include/infiniband -fPIC -shared -o $@ $< -ldl

# The master SA's Report to a subscriber, which ibsim gives only an IsSM
# client (LD_PRELOAD before umad2sim into an observer): injected below
# umad_recv.
$(O)/tests/libreport_inject.so: tests/fixtures/mad/report_inject.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -O2 -g -D_GNU_SOURCE -isystem /usr/include/infiniband -fPIC -shared \
	    -o $@ $< -ldl

# An SA's GetTable answered with RMPP and reassembled by the kernel, which
# ibsim cannot show (LD_PRELOAD before umad2sim into an observer): asked
# of the real SA record by record, handed over whole.
$(O)/tests/libsa_gettable.so: tests/fixtures/mad/sa_gettable.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -O2 -g -D_GNU_SOURCE -isystem /usr/include/infiniband -fPIC -shared \
	    -o $@ $< -ldl -lpthread

# Switch firmware with OptimizedSLtoVLMappingProgramming, which ibsim
# lacks (LD_PRELOAD before umad2sim into fabricd): the all-ports SL2VL Set
# written as per-pair Sets.
$(O)/tests/liboptsl2vl.so: tests/fixtures/mad/optsl2vl.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -O2 -g -D_GNU_SOURCE -isystem /usr/include/infiniband -fPIC -shared \
	    -o $@ $< -ldl -lpthread

# A passed file whose read blocks (LD_PRELOAD into fabricd): the test of
# reading client files off the event loop.
$(O)/tests/libfileblock.so: tests/fixtures/core/fileblock.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -O2 -g -D_GNU_SOURCE -fPIC -shared -o $@ $< -ldl

# What fabricd hands libibumad (umad_send, agent registration), recorded
# for the SA/RMPP and ClientReregister tests: LD_PRELOAD beside umad2sim.
$(O)/tests/libumad_sendspy.so: tests/fixtures/mad/sendspy.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -O2 -g -D_GNU_SOURCE -isystem /usr/include/infiniband -fPIC -shared \
	    -o $@ $< -ldl

# Several umad devices in one process, each on its own ibsim (LD_PRELOAD
# instead of umad2sim): fabricd's planes, two subnets at once, and SMI/GSI
# pairs.  rdma-core v56's umad.h declares the pair calls the double defines.
MULTISIM_FLAGS = $(shell grep -qs 'struct umad_ca_pair' /usr/include/infiniband/umad.h && \
    echo -DMULTISIM_HEADER_HAS_PAIRS)
MULTISIM_SRC = $(addprefix tests/fixtures/mad/,multisim.c multisim_devs.c multisim_sim.c \
    multisim_pairs.c multisim_issm.c)
$(O)/tests/libmultisim.so: $(MULTISIM_SRC) tests/fixtures/mad/multisim.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -O2 -g -D_GNU_SOURCE $(MULTISIM_FLAGS) -isystem /usr/include/infiniband \
	    -fPIC -shared -o $@ $(MULTISIM_SRC) -ldl -lpthread

# The SQL migrations are compiled into the daemon so that an installed
# fabricd never depends on finding schema files at run time.
$(O)/schemas.c: $(SQL) tools/embed_sql.sh
	@mkdir -p $(O)
	sh tools/embed_sql.sh $(SQL) > $@

$(O)/schemas.o: $(O)/schemas.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

-include $(shell find $(O) -name '*.d' -type f 2>/dev/null)

# check: the whole suite twice, plainly and under ASan+UBSan, one total.
# Its three builds use every CPU unless the caller gave make a -j of its
# own (make check alone was a third of a clean clone's run built serially).
CHECK_J = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1))
check: deps-quiet
	@$(MAKE) --no-print-directory $(CHECK_J) all
	@$(MAKE) --no-print-directory $(CHECK_J) O=build-san SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" CFLAGS="-O1 -g" FABRICD_NO_DEPS=1 all
	@$(MAKE) --no-print-directory $(CHECK_J) fuzz-build
	@sh tests/run.sh build build-san

# layout-check: no circle of files, no use up the folders' order, beyond
# tests/layout-allow.txt (read from the objects; the suite runs it too).
layout-check: all
	@python3 tools/layout_check.py $(O) tests/layout-allow.txt

# unit / integration alone, against the plain build.
test: all
	@sh tests/run.sh build

demo: all
	@sh tools/demo.sh $(O)

# sim / sim-stop: a simulated fabric and fabricd left running in SIM_DIR
# (tools/sim.sh; SIM_TOPO: other topogen arguments), and the lines to use
# fabricctl and infiniband-diags on it.
SIM_DIR ?= $(O)/sim
sim: all
	@sh tools/sim.sh start $(O) $(SIM_DIR)
sim-stop:
	@sh tools/sim.sh stop $(O) $(SIM_DIR)

bench: all
	$(O)/bench/routebench 36 4 16 36
	$(O)/bench/routebench 64 44
	@sh bench/run.sh $(O)
	@sh bench/subnets.sh $(O) 1296
	@sh bench/reconverge.sh $(O) 1296 5184
	@sh bench/ha_latency.sh $(O) 1296
	@sh bench/ha_takeover.sh $(O)
	@sh bench/job_partitions.sh $(O) 1296
	@sh bench/observer_sa.sh $(O) 1296
	@sh bench/observer_load.sh $(O) 1296

# install: DESTDIR for staging (make deb, the tests); binaries stripped by
# install -s with $(STRIP).  The configuration is installed only where none
# exists, so that reinstalling never overwrites an operator's file.
# BASH_COMPLETION: the file `fabricctl` completion is installed from, when a
# build produces one (empty: none).
SYSCONFDIR ?= /etc
UNITDIR    ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
DOCDIR     ?= $(PREFIX)/share/doc/fabricd
DATADIR    ?= $(PREFIX)/share/fabricd
# the Slurm scripts of job partitions (docs/slurm.md)
SLURMDIR   ?= $(PREFIX)/lib/fabricd/slurm
SLURM_SCRIPTS = prolog-slurmctld epilog-slurmctld prolog task-prolog epilog
STRIP      ?= strip
BASH_COMPLETION ?= $(wildcard $(O)/fabricctl.bash)
INSTALL_BIN = install -s --strip-program=$(STRIP) -m 0755

install: $(O)/fabricd $(O)/fabricctl
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/bin \
	    $(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/man/man8 \
	    $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR) \
	    $(DESTDIR)$(SYSCONFDIR)/fabricd $(DESTDIR)$(DOCDIR)/examples \
	    $(DESTDIR)$(DATADIR)/grafana $(DESTDIR)$(DATADIR)/prometheus $(DESTDIR)$(SLURMDIR)
	$(INSTALL_BIN) $(O)/fabricd $(DESTDIR)$(PREFIX)/sbin/fabricd
	$(INSTALL_BIN) $(O)/fabricctl $(DESTDIR)$(PREFIX)/bin/fabricctl
	install -m 0644 man/fabricd.8 man/fabricctl.8 $(DESTDIR)$(PREFIX)/share/man/man8/
	install -m 0644 man/fabricd.yaml.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	sed 's|@PREFIX@|$(PREFIX)|g' systemd/fabricd.service > $(DESTDIR)$(UNITDIR)/fabricd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/fabricd.service
	install -m 0644 systemd/fabricd.sysusers $(DESTDIR)$(SYSUSERSDIR)/fabricd.conf
	install -m 0644 systemd/fabricd.tmpfiles $(DESTDIR)$(TMPFILESDIR)/fabricd.conf
	[ -e $(DESTDIR)$(SYSCONFDIR)/fabricd/fabricd.yaml ] || \
	    install -m 0644 systemd/fabricd.yaml $(DESTDIR)$(SYSCONFDIR)/fabricd/fabricd.yaml
	install -m 0644 examples/fabricd.yaml $(DESTDIR)$(DOCDIR)/examples/fabricd.yaml
	install -m 0644 examples/slurm-prolog.sh $(DESTDIR)$(DOCDIR)/examples/slurm-prolog.sh
	install -m 0644 contrib/grafana/fabricd.json $(DESTDIR)$(DATADIR)/grafana/fabricd.json
	install -m 0644 contrib/prometheus/fabricd-rules.yml $(DESTDIR)$(DATADIR)/prometheus/fabricd-rules.yml
	install -m 0644 contrib/slurm/common.sh $(DESTDIR)$(SLURMDIR)/common.sh
	for f in $(SLURM_SCRIPTS); do install -m 0755 contrib/slurm/$$f $(DESTDIR)$(SLURMDIR)/$$f; done
	if [ -n "$(BASH_COMPLETION)" ]; then \
	    install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions && \
	    install -m 0644 $(BASH_COMPLETION) $(DESTDIR)$(PREFIX)/share/bash-completion/completions/fabricctl; \
	fi

# deb: a Debian package built from a copy of the tree (so that neither
# build/ nor the folder above the checkout is touched); the .deb lands in
# $(O)/deb/.  lintian checks it when installed (LINTIAN=true: not here, for
# a caller that runs lintian itself, as tests/integration/core_deb.sh does).
LINTIAN ?= lintian
VERSION = $(shell sed -n 's/^\#define FABRICD_VERSION[^"]*"\(.*\)"/\1/p' common/proto.h)
deb:
	rm -rf $(O)/deb && mkdir -p $(O)/deb/fabricd-$(VERSION)
	tar -cf - --exclude='./build*' --exclude=./.git . | tar -xf - -C $(O)/deb/fabricd-$(VERSION)
	cd $(O)/deb/fabricd-$(VERSION) && dpkg-buildpackage -b -us -uc
	@if command -v $(LINTIAN) >/dev/null; then $(LINTIAN) --fail-on error $(O)/deb/fabricd_$(VERSION)_*.deb; fi
	@ls $(O)/deb/*.deb

clean:
	rm -rf build build-san build-deb build-fuzz

.PHONY: all deps deps-quiet check fuzz fuzz-build fuzz-bins layout-check test demo sim sim-stop bench install deb clean completion
