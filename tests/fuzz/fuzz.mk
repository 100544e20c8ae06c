# tests/fuzz/fuzz.mk - `make fuzz`: the libFuzzer targets of the parsers
# of untrusted bytes (tests/fuzz/fuzz_*.c), built with clang under ASan
# and UBSan (which stops at the first undefined behaviour) into
# $(BUILD)/fuzz, each run for FUZZ_SECONDS from a copy of its seed corpus
# (tests/fuzz/corpus/NAME/; what it finds stays in $(BUILD)/fuzz). A
# crash stops make, its input saved as $(BUILD)/fuzz/NAME-crash-*.
#   make fuzz                        every target, 60 s each, in turn
#   make -j2 fuzz                    two at a time
#   make fuzz FUZZ_SECONDS=600 FUZZ_TARGETS=fuzz_load
#   make fuzz-msan                   the corpus and crash inputs replayed
#                                    under MemorySanitizer
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= $(basename $(notdir $(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all \
                -fno-omit-frame-pointer
FUZZ_CFLAGS  := -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -g -Wall -Wextra \
                -Icommon -I$(STB_INCLUDE) $(FUZZ_SAN)
# The sources the targets reach, and what they call in common/.
FUZZ_SRC := $(addprefix 06_image_preprocess/,image_format.c image_io.c \
              jpeg_walk.c jpeg_walk_codes.c stb_impl.c stb_write_impl.c \
              batch/jpeg_screen.c batch/batch_inputs.c batch/dataset.c \
              batch/batch_head.c \
              batch/exif.c batch/lib_support.c batch/transform_ref.c \
              batch/transform_aa.c) \
            common/files.c common/options.c common/option_values.c \
            common/cpus.c
FUZZ_OBJS := $(FUZZ_SRC:%.c=$(FUZZ_DIR)/obj/%.o)

.PHONY: fuzz fuzz-build fuzz-clang
fuzz-clang:
	@mkdir -p $(FUZZ_DIR)
	@printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)%s\n' \
	  '{ (void)d; (void)n; return 0; }' > $(FUZZ_DIR)/probe.c
	@$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_DIR)/probe.c \
	  -o $(FUZZ_DIR)/probe >/dev/null 2>&1 || { echo "make fuzz:" \
	  "$(FUZZ_CC) with libFuzzer (-fsanitize=fuzzer) not found;" \
	  "install clang and its libFuzzer (sudo apt-get install clang; on" \
	  "Debian 12 also libclang-rt-14-dev)" >&2; exit 1; }
$(FUZZ_DIR)/obj/%.o: %.c | fuzz-clang
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP \
	  -c $< -o $@
# stb_image compiled as in every build (06_image_preprocess/extra.mk,
# which sets STB_FLAGS when chapter 06 is built), every shift checked.
STB_FLAGS ?= -fwrapv
$(FUZZ_DIR)/obj/06_image_preprocess/stb_impl.o: FUZZ_CFLAGS += $(STB_FLAGS)
$(FUZZ_DIR)/obj/06_image_preprocess/stb_impl.o: \
  06_image_preprocess/extra.mk tests/fuzz/fuzz.mk
$(FUZZ_DIR)/%: tests/fuzz/%.c $(FUZZ_OBJS) | fuzz-clang
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -MMD -MP -o $@ $< \
	  $(FUZZ_OBJS) -lpthread -lm
fuzz-build: $(FUZZ_TARGETS:%=$(FUZZ_DIR)/%)

# Each target from a fresh copy of its corpus, so that nothing it finds
# is written into the repository; with -j, targets side by side (each
# uses one core), its lines named by the target.
FUZZ_RUNS := $(FUZZ_TARGETS:%=fuzz-run-%)
.PHONY: $(FUZZ_RUNS)
fuzz: $(FUZZ_RUNS)
$(FUZZ_RUNS): fuzz-run-%: $(FUZZ_DIR)/%
	@rm -rf $(FUZZ_DIR)/run/$*; mkdir -p $(FUZZ_DIR)/run/$*
	@cp tests/fuzz/corpus/$*/* $(FUZZ_DIR)/run/$*/
	@echo "fuzz: $* for $(FUZZ_SECONDS) s"
	@$(FUZZ_DIR)/$* -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
	  -rss_limit_mb=2048 -print_final_stats=1 \
	  -artifact_prefix=$(FUZZ_DIR)/$*- $(FUZZ_DIR)/run/$* \
	  > $(FUZZ_DIR)/$*.log 2>&1 || \
	  { tail -n 40 $(FUZZ_DIR)/$*.log; \
	    echo "fuzz: $* failed, see $(FUZZ_DIR)/$*.log" >&2; exit 1; }
	@grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' \
	  $(FUZZ_DIR)/$*.log | tail -n 2 | sed 's/^/$*: /'
# The seed corpus and every crash input replayed (tests/test_06_fuzz.c)
# under MemorySanitizer, which finds what ASan and UBSan do not: a read
# of memory never written, such as stb_image making a pixel of it. MSan
# wants every line of code instrumented; the replay calls nothing but
# these sources and libc, so they are compiled in one go, all with
# stb_image's flags.
FUZZ_MSAN := $(FUZZ_DIR)/msan-replay
.PHONY: fuzz-msan
$(FUZZ_MSAN): tests/test_06_fuzz.c $(wildcard tests/fuzz/*.c) $(FUZZ_SRC) \
  tests/fuzz/fuzz.mk | fuzz-clang
	$(FUZZ_CC) -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -g -Wall -Wextra \
	  -Icommon -Itests -I$(STB_INCLUDE) $(STB_FLAGS) -fsanitize=memory \
	  -fsanitize-memory-track-origins -fno-omit-frame-pointer -o $@ \
	  tests/test_06_fuzz.c $(FUZZ_SRC) -lpthread -lm
fuzz-msan: $(FUZZ_MSAN)
	$(FUZZ_MSAN) tests/fuzz

-include $(shell find $(FUZZ_DIR)/obj -name '*.d' 2>/dev/null) \
         $(wildcard $(FUZZ_DIR)/*.d)
# The antialiased resize's weights, rounded step by step as everywhere
# (06_image_preprocess/extra.mk's AA_FLAGS; clang would fuse them).
$(FUZZ_DIR)/obj/06_image_preprocess/batch/transform_aa.o: \
  FUZZ_CFLAGS += -ffp-contract=off
