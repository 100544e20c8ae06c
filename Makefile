# Builds common/, every chapter NN_topic/ and the CTest suite; `make help`
# lists targets and variables. Products go to $(BUILD)/ only. Each chapter
# has two programs: its lesson, NN_topic/lesson.cu alone, built as
# $(BUILD)/bin/NN_topic.lesson (exercise.cu beside it as .exercise), and its
# lab, $(BUILD)/bin/NN_topic, built from every other .cu and .c file in the
# folder (a subfolder holds a program of its own, built by the chapter's
# extra.mk); the lab's main() lives in a .cu, so tests can link its .c
# files.

CUDA_PATH   ?= /usr/local/cuda
NVCC        ?= $(CUDA_PATH)/bin/nvcc
# Compute capabilities, ascending: machine code for each (Turing through
# Blackwell), plus PTX of the last so newer GPUs can JIT-compile it. By
# default, with a GPU here (NVIDIA_SMI answers), those of its GPUs when
# this nvcc lists them all: about 2.5 times less CPU time than all seven.
# Else those of SMS_ALL that this nvcc can build, as it lists them (CUDA
# 12.0 to 12.6 stop at 90); all of them if it cannot tell us.
SMS_ALL     := 75 80 86 89 90 100 120
NVIDIA_SMI  ?= nvidia-smi
ifeq ($(origin SMS),undefined)
  NVCC_SMS  := $(patsubst sm_%,%,$(filter sm_%,\
                 $(shell $(NVCC) --list-gpu-code 2>/dev/null)))
  GPU_SMS   := $(shell $(NVIDIA_SMI) --query-gpu=compute_cap \
                 --format=csv,noheader 2>/dev/null | \
                 grep -xE '[0-9]+[.][0-9]+' | tr -d . | sort -n -u)
  ifneq ($(and $(GPU_SMS),$(NVCC_SMS)),)
    ifeq ($(filter-out $(NVCC_SMS),$(GPU_SMS)),)
      SMS_FROM := the GPUs here, as $(NVIDIA_SMI) lists them
      SMS       := $(GPU_SMS)
    endif
  endif
  ifeq ($(SMS_FROM),)
    SMS_FROM := no GPU here, or one this nvcc cannot build for
    SMS       := $(or $(filter $(NVCC_SMS),$(SMS_ALL)),$(SMS_ALL))
  endif
else
  SMS_FROM  := as given
endif
# V=1 shows each command in full; by default one short line a file.
V           ?=
show = $(if $(filter 1,$(V)),,@printf '  %-4s %s\n' '$(1)' '$(2)';)
CFLAGS      ?= -O2 -g
NVCCFLAGS   ?= -O2 -lineinfo
STB_INCLUDE ?= $(firstword $(wildcard .deps/stb) /usr/include/stb)
BUILD       ?= build
SANITIZE    ?=
ARGS        ?=
PYTHON      ?= python3
JOBS        ?= $(shell nproc 2>/dev/null || echo 2)
# Builds run JOBS compiles at once unless the command line says -j.
ifeq ($(filter -j%,$(MAKEFLAGS)),)
  MAKEFLAGS += -j$(JOBS)
endif

ifneq ($(SANITIZE),)
  ifeq ($(SANITIZE),thread)
    SAN_FLAGS := -fsanitize=thread
  else
    SAN_FLAGS := -fsanitize=address -fsanitize=undefined \
                 -fno-sanitize-recover=all
  endif
  SAN_FLAGS += -fno-omit-frame-pointer
  override BUILD := $(BUILD)/sanitize-$(if $(filter thread,$(SANITIZE)),thread,address)
  CTEST_LABEL := -L cpu
endif

BIN       := $(BUILD)/bin
GENCODE   := $(foreach sm,$(SMS),-gencode arch=compute_$(sm),code=sm_$(sm)) \
             -gencode arch=compute_$(lastword $(SMS)),code=compute_$(lastword $(SMS))
CPPFLAGS  += -Icommon -I$(CUDA_PATH)/include -I$(STB_INCLUDE)
# The compute capabilities built, as a string, so that a program can tell
# a GPU it has no code for from a broken one (common/device.c).
CPPFLAGS  += -DCM_BUILT_SMS='"$(SMS)"'
C_ALL     := -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror \
             $(CFLAGS) $(SAN_FLAGS) -MMD -MP
NVCC_ALL  := $(GENCODE) $(NVCCFLAGS) -Werror all-warnings \
             -Xcompiler -Wall,-Wextra,-Wno-missing-field-initializers \
             $(foreach f,$(SAN_FLAGS),-Xcompiler $(f)) \
             -MMD -MP
# Linked by the C++ driver: cudart is static, so programs need no CUDA
# library path at run time except for cuBLAS and cuRAND (found by rpath).
LDLIBS    := -L$(CUDA_PATH)/lib64 -Wl,-rpath,$(CUDA_PATH)/lib64 \
             -Wl,--as-needed -lcublas -lcurand -lcudart_static \
             -lpthread -ldl -lrt -lm

# CHAPTERS="03_matmul" on the command line builds and tests just those.
ALL_CHAPTERS := $(sort $(patsubst %/,%,$(dir $(wildcard [0-9][0-9]_*/*.cu))))
CHAPTERS  ?= $(ALL_CHAPTERS)
num    = $(firstword $(subst _, ,$(1)))
# A chapter named wrongly, in CHAPTERS or in a goal (make 08, make
# lesson-99), stops make at once (exit 2) with the chapters there are.
ifneq ($(filter-out $(ALL_CHAPTERS),$(CHAPTERS)),)
  $(error CHAPTERS="$(strip $(CHAPTERS))": no chapter folder \
    $(filter-out $(ALL_CHAPTERS),$(CHAPTERS)); the chapters are \
    $(ALL_CHAPTERS))
endif
# chapter_goal GOAL: NN when GOAL is NN, lesson-NN, exercise-NN, run-NN or
# compare-NN with NN digits only, else nothing.
strip_digits = $(subst 0,,$(subst 1,,$(subst 2,,$(subst 3,,$(subst 4,,\
  $(subst 5,,$(subst 6,,$(subst 7,,$(subst 8,,$(subst 9,,$(1)))))))))))
digits_only = $(if $(1),$(if $(strip $(call strip_digits,$(1))),,$(1)))
chapter_goal = $(call digits_only,$(patsubst lesson-%,%,$(patsubst \
  exercise-%,%,$(patsubst run-%,%,$(patsubst compare-%,%,$(1))))))
NUMS := $(foreach ch,$(CHAPTERS),$(call num,$(ch)))
define CHECK_GOAL
ifeq ($(filter $(call chapter_goal,$(1)),$(NUMS)),)
$$(error make $(1): no chapter $(call chapter_goal,$(1))$(if $(filter \
  $(call chapter_goal,$(1)),$(foreach c,$(ALL_CHAPTERS),$(call num,$(c)))), \
  in CHAPTERS="$(strip $(CHAPTERS))"); the chapters are $(ALL_CHAPTERS))
endif
endef
$(foreach g,$(MAKECMDGOALS),$(if $(call chapter_goal,$(g)),\
  $(eval $(call CHECK_GOAL,$(g)))))
NEEDS_STB := 06_image_preprocess
LIBCOMMON := $(BUILD)/lib/libcommon.a

lab_src = $(if $(1),$(filter-out %/lesson.cu %/exercise.cu,\
  $(wildcard $(1)/*.cu $(1)/*.c)))
objs   = $(patsubst %,$(BUILD)/obj/%.o,$(call lab_src,$(1)))
c_objs = $(patsubst %,$(BUILD)/obj/%.o,$(filter %.c,$(call lab_src,$(1))))
# Lessons and exercises stand alone: no common/, no project headers, built
# as a reader builds them (plus our warnings and -gencode list), and linked
# with every library a lesson may use. They are GPU programs only, so the
# sanitizer builds (CPU tests) skip them.
LESSONS   := $(if $(SANITIZE),,$(foreach ch,$(CHAPTERS),\
  $(if $(wildcard $(ch)/lesson.cu),$(BIN)/$(ch).lesson)\
  $(if $(wildcard $(ch)/exercise.cu),$(BIN)/$(ch).exercise)))
LESSON_BASE  := -O2 -Werror all-warnings -Xcompiler -Wall,-Wextra \
  -I$(STB_INCLUDE)
LESSON_FLAGS := $(GENCODE) $(LESSON_BASE)
# The exercises' partial states (tests/exercise_states.sh, some fifty
# builds) are built for the first of SMS alone, with its PTX, which newer
# GPUs compile when they load it: for every one of SMS they took minutes.
STATE_SM     := $(firstword $(SMS))
STATE_FLAGS  := -gencode arch=compute_$(STATE_SM),code=sm_$(STATE_SM) \
  -gencode arch=compute_$(STATE_SM),code=compute_$(STATE_SM) $(LESSON_BASE)
LESSON_LIBS  := -Xlinker -rpath,$(CUDA_PATH)/lib64 -lcublas -lpthread -lm
# tests/test_NN_x.c belongs to chapter NN: it links that chapter's .c
# files and is built only with the chapter.
test_chapter = $(filter $(word 2,$(subst _, ,$(1)))_%,$(CHAPTERS))
CHAPTER_TESTS := $(wildcard tests/test_[0-9][0-9]_*.c)
UNIT_TESTS := $(patsubst tests/%.c,%,\
  $(filter-out $(CHAPTER_TESTS),$(wildcard tests/test_*.c)) \
  $(foreach t,$(CHAPTER_TESTS),$(if $(call test_chapter,$(notdir $(t))),$(t))))
TESTS     := $(UNIT_TESTS:%=$(BUILD)/tests/%)

.PHONY: all objects test help clean stb FORCE
.SECONDARY:
.DEFAULT_GOAL := all
all: $(LIBCOMMON) $(foreach ch,$(CHAPTERS),$(BIN)/$(ch)) $(LESSONS) $(TESTS)
# Every object file, nothing linked (tests/old-toolkit.sh compiles them so
# against an older CUDA's headers).
objects: $(patsubst %,$(BUILD)/obj/%.o,$(wildcard common/*.c)) \
  $(foreach ch,$(CHAPTERS),$(call objs,$(ch))) \
  $(TESTS:$(BUILD)/tests/%=$(BUILD)/obj/tests/%.c.o)

$(LIBCOMMON): $(patsubst %,$(BUILD)/obj/%.o,$(wildcard common/*.c))
	@mkdir -p $(@D)
	$(call show,AR,$@)$(AR) rcs $@ $^

# SMS_STAMP holds the SMS list of the last build in this folder; it is
# rewritten (and so newer) only when the list changes, which rebuilds
# everything compiled for the GPU and the code that reads CM_BUILT_SMS.
SMS_STAMP := $(BUILD)/sms.stamp
$(SMS_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(SMS)' | cmp -s - $@ || echo '$(SMS)' > $@

$(BUILD)/obj/%.c.o: %.c
	@mkdir -p $(@D)
	$(call show,CC,$<)$(CC) $(CPPFLAGS) $(C_ALL) -c $< -o $@
$(BUILD)/obj/common/device.c.o: $(SMS_STAMP)

$(BUILD)/obj/%.cu.o: %.cu $(SMS_STAMP)
	@mkdir -p $(@D)
	$(call show,NVCC,$<)$(NVCC) $(CPPFLAGS) $(NVCC_ALL) -c $< -o $@

$(BIN)/%.lesson: %/lesson.cu $(SMS_STAMP)
	@mkdir -p $(@D)
	$(call show,NVCC,$<)$(NVCC) $(LESSON_FLAGS) -o $@ $< $(LESSON_LIBS)
$(BIN)/%.exercise: %/exercise.cu $(SMS_STAMP)
	@mkdir -p $(@D)
	$(call show,NVCC,$<)$(NVCC) $(LESSON_FLAGS) -o $@ $< $(LESSON_LIBS)

# run_prog TARGET,CMD: show CMD and run it; skip77 TARGET, just after a
# command: when it exited 77 (no usable GPU), one line saying TARGET
# skipped. Make then stops with that code ("Error 77") and exits 2.
skip77 = rc=$$?; [ $$rc -ne 77 ] || echo "make $(1): skipped, no usable\
  GPU (the program exited 77; make exits 2)" >&2; exit $$rc
run_prog = $(info $(strip $(2)))$(2); $(call skip77,$(1))

define CHAPTER_RULES
$(BIN)/$(1): $(call objs,$(1)) $(LIBCOMMON)
	@mkdir -p $$(@D)
	$$(call show,LINK,$$@)$$(CXX) -o $$@ $$^ $$(LDFLAGS) $$(LDLIBS) $$(SAN_FLAGS)
.PHONY: $(call num,$(1)) run-$(call num,$(1)) lesson-$(call num,$(1)) \
        exercise-$(call num,$(1))
$(call num,$(1)): $(BIN)/$(1)
run-$(call num,$(1)): $(BIN)/$(1)
	@$$(call run_prog,$$@,$(BIN)/$(1) $$(ARGS))
lesson-$(call num,$(1)): $(BIN)/$(1).lesson
	@$$(call run_prog,$$@,$(BIN)/$(1).lesson $$(ARGS))
exercise-$(call num,$(1)): $(BIN)/$(1).exercise
	@$$(call run_prog,$$@,$(BIN)/$(1).exercise $$(ARGS))
$(if $(filter $(1),$(NEEDS_STB)),$(call objs,$(1)) $(BIN)/$(1).lesson \
  $(BIN)/$(1).exercise: | stb)
endef
$(foreach ch,$(CHAPTERS),$(eval $(call CHAPTER_RULES,$(ch))))

# make compare-NN: the chapter's C lab and the tutorial's CuPy code
# (NN_topic/cupy_original.py) on the same GPU, in one table
# (common/compare.py); make compare: every such chapter, then one summary
# row each (ARGS=--summary: the summary alone). Without CuPy they print
# one line saying how to get it.
COMPARE_CHAPTERS := $(foreach ch,$(CHAPTERS),\
  $(if $(wildcard $(ch)/cupy_original.py),$(ch)))
define COMPARE_RULES
.PHONY: compare-$(call num,$(1))
compare-$(call num,$(1)): $(BIN)/$(1)
	$(PYTHON) common/compare.py $(1) $(BIN)/$(1) $$(ARGS)
endef
$(foreach ch,$(COMPARE_CHAPTERS),$(eval $(call COMPARE_RULES,$(ch))))
COMPARE_PAIRS := $(foreach ch,$(COMPARE_CHAPTERS),$(ch) $(BIN)/$(ch))
.PHONY: compare
compare: $(COMPARE_CHAPTERS:%=$(BIN)/%)
	@$(PYTHON) common/compare.py $(COMPARE_PAIRS) $(ARGS)

.SECONDEXPANSION:
$(BUILD)/tests/%: $(BUILD)/obj/tests/%.c.o \
                  $$(call c_objs,$$(call test_chapter,$$*)) $(LIBCOMMON)
	@mkdir -p $(@D)
	$(call show,LINK,$@)$(CXX) -o $@ $^ $(LDFLAGS) $(LDLIBS) $(SAN_FLAGS)

# need TEST,PACKAGE,WHAT: run the shell TEST; if it fails, install PACKAGE
# with apt-get when we are root on a Debian-like system, else stop with one
# line naming the command to run.
need = if $(1); then :; \
  elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
    echo "$(3) not found: installing $(2) with apt-get"; \
    mkdir -p $(BUILD); \
    { apt-get install -y --no-install-recommends $(2) || \
      { apt-get update && apt-get install -y --no-install-recommends $(2); }; \
    } >$(BUILD)/apt-$(2).log 2>&1 || \
    { echo "error: apt-get install $(2) failed, see $(BUILD)/apt-$(2).log" >&2; \
      exit 1; }; \
    $(1) || { echo "error: $(2) is installed but $(3) is still not found" >&2; \
      exit 1; }; \
  else echo "error: $(3) not found; install it with: sudo apt-get install $(2)" >&2; \
    exit 1; fi

# stb_image.h: from libstb-dev by default; a folder the user named in
# STB_INCLUDE is never replaced by a package, and a wrong one is named.
ifeq ($(origin STB_INCLUDE),file)
stb:
	@$(call need,[ -f "$(STB_INCLUDE)/stb_image.h" ],libstb-dev,stb_image.h (STB_INCLUDE=$(STB_INCLUDE)))
else
stb:
	@[ -f "$(STB_INCLUDE)/stb_image.h" ] || { echo "error:" \
	  "STB_INCLUDE=$(STB_INCLUDE) has no stb_image.h" >&2; exit 1; }
endif

$(BUILD)/CTestTestfile.cmake: FORCE
	@mkdir -p $(@D)
	@printf '%s\n' 'cmake_policy(VERSION 3.20)' \
	  'set(BIN_DIR "$(abspath $(BIN))")' \
	  'set(TEST_BIN_DIR "$(abspath $(BUILD)/tests)")' \
	  'set(SRC_DIR "$(CURDIR)")' 'set(SANITIZE "$(SANITIZE)")' \
	  'set(UNIT_TESTS "$(UNIT_TESTS)")' 'set(CHAPTERS "$(CHAPTERS)")' \
	  'set(NVCC "$(NVCC)")' 'set(STB_INCLUDE "$(abspath $(STB_INCLUDE))")' \
	  'set(LESSON_FLAGS "$(STATE_FLAGS) $(LESSON_LIBS)")' \
	  'set(PYTHON "$(PYTHON)")' 'set(HAVE_NVJPEG "$(if $(NVJPEG_LIB),1)")' \
	  'include("$(CURDIR)/tests/tests.cmake")' > $@
FORCE:

# tests/ctest.sh runs ctest (a CTEST_ARGS that selects no test fails) and
# ends with one count of what ran, passed and skipped, and why.
test: all $(BUILD)/CTestTestfile.cmake
	@$(call need,command -v ctest >/dev/null 2>&1,cmake,ctest)
	@ASAN_OPTIONS=protect_shadow_gap=0:allocator_may_return_null=1 \
	  TSAN_OPTIONS=allocator_may_return_null=1 \
	  sh tests/ctest.sh $(BUILD) --output-on-failure -j $(JOBS) \
	  $(CTEST_LABEL) $(CTEST_ARGS)

clean:
	rm -rf build

help:
	@echo "targets:"
	@echo "  make             build common/, every chapter and the tests"
	@echo "  make lesson-NN   build and run chapter NN's lesson (NN_topic/lesson.cu), e.g. make lesson-01"
	@echo "  make exercise-NN build and run its exercise (prints FAIL until you solve it)"
	@echo "  make NN          build one chapter's lab, e.g. make 03 -> $(BIN)/03_matmul"
	@echo "  make run-NN      build and run the lab with the tutorial's sizes; ARGS=\"...\" passes options"
	@echo "  make imgbatch    build 06's batch tool (06_image_preprocess/batch/) -> $(BIN)/imgbatch"
	@echo "  make imgbatch_example  build the example of its library -> $(BIN)/imgbatch_example"
	@echo "  make run-06-batch ARGS=\"DIR ...\"  build and run it: image files into one (N, H, W) tensor"
	@echo "  make compare-NN  chapter NN's C lab and the tutorial's CuPy code on this GPU, one table"
	@echo "                   (needs CuPy; ARGS=--quick for small sizes)"
	@echo "  make compare     every chapter with a cupy_original.py, then one summary row each"
	@echo "                   (ARGS=--summary: the summary alone)"
	@echo "  make plot-07     chart a bandwidth sweep of 07 as a PNG (gnuplot; PLOT07_CSV=FILE skips the sweep)"
	@echo "  make nvjpeg      fetch nvJPEG's header and library from PyPI into build/nvjpeg (06's GPU decode)"
	@echo "  make nvjpeg-info say which nvJPEG the build uses"
	@echo "  make objects     compile every source, link nothing"
	@echo "  make test        build and run the CTest suite (GPU tests skip without a GPU)"
	@echo "  make test SANITIZE=1       CPU tests under ASan+UBSan (SANITIZE=thread: TSan)"
	@echo "  make clean       remove build/"
	@echo "chapters: $(CHAPTERS)"
	@echo "variables (current value):"
	@echo "  CUDA_PATH=$(CUDA_PATH)  NVCC=$(NVCC)"
	@echo "  SMS=\"$(SMS)\"  ($(SMS_FROM))"
	@echo "    compute capabilities: by default the GPUs' here ($(NVIDIA_SMI)), else"
	@echo "    those of \"$(SMS_ALL)\" that nvcc builds; SMS=90: one GPU"
	@echo "  V=1  (show each command in full, not one short line a file)"
	@echo "  STB_INCLUDE=$(STB_INCLUDE)  CFLAGS=$(CFLAGS)  NVCCFLAGS=$(NVCCFLAGS)"
	@echo "  BUILD=$(BUILD)  JOBS=$(JOBS)  CTEST_ARGS=$(CTEST_ARGS)"
	@echo "  PYTHON=$(PYTHON)  (runs the CuPy side of make compare)"
	@echo "  NVJPEG_PATH=$(NVJPEG_PATH)  (nvJPEG for 06's GPU decode; empty: built without it)"
	@echo "  CHAPTERS=\"...\"  (build and test only these chapter folders)"

# A chapter may add its own targets (e.g. plot-07) in NN_topic/extra.mk.
-include $(wildcard $(CHAPTERS:%=%/extra.mk))
-include tests/fuzz/fuzz.mk
-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
