# tracepress: GNU make build.  `make` builds build/tracepress; `make test`
# runs the whole suite (normal build, then ASan+UBSan build); see README.

CC      ?= cc
PREFIX  ?= /usr/local
OPT     ?= -O2
CFLAGS_BASE := -std=c11 -D_GNU_SOURCE -g -Wall -Wextra -Werror -Wno-unused-parameter \
               -Wshadow -Wstrict-prototypes -Wmissing-prototypes -I.
PKGS    := cairo libzip freetype2 libisal harfbuzz-subset sqlite3
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
LIBS    := $(PKG_LIBS) -lhpdf -lz -lm -lpthread -lstdc++
VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

# Every .c under these folders (at any depth) is part of the program: adding a
# reader or a page is adding a file, not editing this Makefile.  Includes name
# their room from the root: #include "convert/model/model.h".
LIB_SRCS  := commands.c $(sort $(shell find convert report render -name '*.c'))
MAIN_SRC  := tracepress.c
TEST_SRCS := $(sort $(shell find tests -name '*.c' -not -path 'tests/fuzz/*'))

define objs
$(patsubst %.c,$(1)/%.o,$(2))
endef

BUILD ?= build
ASAN  ?= $(BUILD)/asan

all: $(BUILD)/tracepress

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC $<"; $(CC) $(CFLAGS_BASE) $(OPT) $(PKG_CFLAGS) -DTP_VERSION='"$(VERSION)"' $(CFLAGS) -MMD -MP -c $< -o $@

$(ASAN)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC (asan) $<"; $(CC) $(CFLAGS_BASE) -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all \
	  $(PKG_CFLAGS) -DTP_VERSION='"$(VERSION)"' $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/tracepress: $(call objs,$(BUILD)/obj,$(LIB_SRCS) $(MAIN_SRC))
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/tp_tests: $(call objs,$(BUILD)/obj,$(LIB_SRCS) $(TEST_SRCS))
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(ASAN)/tracepress: $(call objs,$(ASAN)/obj,$(LIB_SRCS) $(MAIN_SRC))
	$(CC) -fsanitize=address,undefined $(LDFLAGS) -o $@ $^ $(LIBS)

$(ASAN)/tp_tests: $(call objs,$(ASAN)/obj,$(LIB_SRCS) $(TEST_SRCS))
	$(CC) -fsanitize=address,undefined $(LDFLAGS) -o $@ $^ $(LIBS)

# The category rule table and the device peaks are built into the program
# (.incbin): their objects depend on the data files.
$(BUILD)/obj/report/rules/cat_rules_data.o $(ASAN)/obj/report/rules/cat_rules_data.o: report/rules/categories.rules
$(BUILD)/obj/report/findings/find_rules_data.o $(ASAN)/obj/report/findings/find_rules_data.o: report/findings/findings.rules
$(BUILD)/obj/report/job/job_rules_data.o $(ASAN)/obj/report/job/job_rules_data.o: report/job/job_findings.rules
$(BUILD)/obj/report/perf_models/devices_data.o $(ASAN)/obj/report/perf_models/devices_data.o: report/perf_models/devices.table

# Synthetic trace generators (scripts/gen/gen_*.c): standalone C programs.
$(BUILD)/gen/%: scripts/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -o $@ $< -lz -lm

# Measures Debian's JSON libraries against our tokenizer (docs/JSON_READER.md).
$(BUILD)/json_lib_compare: scripts/json_lib_compare.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror -o $@ $< -lyajl -ljson-c

# The whole suite: unit, golden and end-to-end tests, then again under
# ASan+UBSan.  Ends with "N passed, N failed".
test: $(BUILD)/tracepress $(BUILD)/tp_tests $(ASAN)/tracepress $(ASAN)/tp_tests $(BUILD)/gen/gen_kineto $(BUILD)/gen/gen_xplane \
      $(BUILD)/gen/gen_realshaped $(BUILD)/gen/gen_graphs $(BUILD)/gen/gen_job
	@tests/run

# Regenerate golden/ expected files from the current build (review with git diff).
golden: $(BUILD)/tracepress $(BUILD)/tp_tests
	@TP_GOLDEN_UPDATE=1 $(BUILD)/tp_tests golden

# The README's first command ends here: convert the bundled example.
demo: $(BUILD)/tracepress
	@mkdir -p out
	$(BUILD)/tracepress convert golden/example.pt.trace.json -o out/example.perfetto.json.gz
	$(BUILD)/tracepress report golden/example.pt.trace.json -o out/example.report --batch-size 64
	@echo "converted trace: $(CURDIR)/out/example.perfetto.json.gz (open it in https://ui.perfetto.dev)"
	@echo "report:          $(CURDIR)/out/example.report/report.pdf (and summary.md, summary.json, png/)"

# bench: the throughput tables, then the same-run A/B against the ruler
# binary (ac9fc9f, built from git history into build/ruler/); BENCH_RULER=0
# skips the A/B, `make bench-ruler` runs only it (knobs: scripts/bench/ruler)
bench: $(BUILD)/tracepress
	@scripts/bench/run
	@[ "$${BENCH_RULER:-1}" = 0 ] || scripts/bench/ruler

bench-ruler: $(BUILD)/tracepress
	@scripts/bench/ruler

# Fuzzing (docs/ERRORS.md): libFuzzer targets in tests/fuzz/, built with clang
# under ASan+UBSan; `make fuzz` runs each for FUZZ_SECONDS with a seed corpus
# cut from the shared samples; `make fuzz-smoke` is the short CI run
# (regression inputs in tests/fuzz/regress/, then runs from a fixed seed).
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ         := build/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,$(FUZZ)/%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))

$(FUZZ)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC (fuzz) $<"; $(FUZZ_CC) $(CFLAGS_BASE) -O1 $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
	  $(PKG_CFLAGS) -DTP_VERSION='"$(VERSION)"' $(CFLAGS) -MMD -MP -c $< -o $@

$(FUZZ)/fuzz_%: $(FUZZ)/obj/tests/fuzz/fuzz_%.o $(call objs,$(FUZZ)/obj,$(LIB_SRCS))
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer $(LDFLAGS) -o $@ $^ $(LIBS)

.PRECIOUS: $(FUZZ)/obj/%.o

fuzz: $(FUZZ_TARGETS)
	@scripts/fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-smoke: $(FUZZ_TARGETS)
	@scripts/fuzz --smoke $(FUZZ_TARGETS)

.PHONY: fuzz fuzz-smoke memcheck

# Valgrind memcheck over the shared samples (stats and convert of each).
memcheck: $(BUILD)/tracepress
	@scripts/memcheck $(BUILD)/tracepress

install: $(BUILD)/tracepress
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BUILD)/tracepress $(DESTDIR)$(PREFIX)/bin/tracepress

clean:
	rm -rf build

.PHONY: all test golden bench bench-ruler install clean demo

-include $(shell find $(sort $(BUILD) $(ASAN)) -name '*.d' 2>/dev/null)
