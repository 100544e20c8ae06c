# Chapter 06's own make rules, included by the top Makefile: its batch
# tool, imgbatch, the example program of its library, and nvJPEG for the
# tool's GPU decode.
#
# imgbatch is batch/*.cu and batch/*.c (its main in batch/imgbatch.cu)
# plus the chapter's loader, reference and .npy writer; the example,
# batch/example.cu, links the same objects but imgbatch.cu's:
#   make imgbatch                          build $(BIN)/imgbatch
#   make imgbatch_example                  build $(BIN)/imgbatch_example
#   make run-06-batch ARGS="images/ ..."   build and run imgbatch
# The chapter's tests (tests/test_06_*) link batch/'s .c files too (a rule
# of their own, so that libcommon.a comes after them); test_06_loader,
# which opens loaders, links the whole library, .cu files included.
IMGBATCH_DIR := 06_image_preprocess/batch
IMGBATCH_LIB_SRC := $(filter-out %/imgbatch.cu %/example.cu,\
  $(wildcard $(IMGBATCH_DIR)/*.cu $(IMGBATCH_DIR)/*.c)) \
  $(addprefix 06_image_preprocess/,image_io.c image_format.c jpeg_walk.c \
                                   jpeg_walk_codes.c stb_impl.c \
                                   stb_write_impl.c npy.c reference.c)
IMGBATCH_LIB_OBJS := $(IMGBATCH_LIB_SRC:%=$(BUILD)/obj/%.o)
IMGBATCH_OBJS := $(IMGBATCH_LIB_OBJS) $(BUILD)/obj/$(IMGBATCH_DIR)/imgbatch.cu.o
EXAMPLE_OBJS := $(IMGBATCH_LIB_OBJS) $(BUILD)/obj/$(IMGBATCH_DIR)/example.cu.o
IMGBATCH_C_OBJS := $(patsubst %,$(BUILD)/obj/%.o,\
  $(wildcard $(IMGBATCH_DIR)/*.c))
ifneq ($(filter 06_image_preprocess,$(CHAPTERS)),)
all: $(BIN)/imgbatch $(BIN)/imgbatch_example
objects: $(IMGBATCH_OBJS) $(EXAMPLE_OBJS)
$(IMGBATCH_OBJS) $(EXAMPLE_OBJS): | stb
LOADER_TEST := $(BUILD)/tests/test_06_loader
TESTS_06 := $(filter-out $(LOADER_TEST),\
  $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/test_06_*.c)))
$(TESTS_06): $(BUILD)/tests/%: $(BUILD)/obj/tests/%.c.o \
  $(call c_objs,06_image_preprocess) $(IMGBATCH_C_OBJS) $(LIBCOMMON)
	@mkdir -p $(@D)
	$(call show,LINK,$@)$(CXX) -o $@ $^ $(LDFLAGS) $(LDLIBS) $(SAN_FLAGS)
$(LOADER_TEST): $(BUILD)/obj/tests/test_06_loader.c.o $(IMGBATCH_LIB_OBJS) \
  $(LIBCOMMON)
	@mkdir -p $(@D)
	$(call show,LINK,$@)$(CXX) -o $@ $^ $(LDFLAGS) $(LDLIBS) $(SAN_FLAGS)
endif
$(BIN)/imgbatch: $(IMGBATCH_OBJS) $(LIBCOMMON)
	@mkdir -p $(@D)
	$(call show,LINK,$@)$(CXX) -o $@ $^ $(LDFLAGS) $(LDLIBS) $(SAN_FLAGS)
$(BIN)/imgbatch_example: $(EXAMPLE_OBJS) $(LIBCOMMON)
	@mkdir -p $(@D)
	$(call show,LINK,$@)$(CXX) -o $@ $^ $(LDFLAGS) $(LDLIBS) $(SAN_FLAGS)
.PHONY: imgbatch imgbatch_example run-06-batch
imgbatch: $(BIN)/imgbatch
imgbatch_example: $(BIN)/imgbatch_example
run-06-batch: $(BIN)/imgbatch
	@$(call run_prog,$@,$(BIN)/imgbatch $(ARGS))

# nvJPEG
#
# NVJPEG_PATH is a folder holding include/nvjpeg.h and lib64/ or lib/ with
# libnvjpeg.so (or libnvjpeg.so.N). By default it is the first of these
# that has both: CUDA_PATH (a full CUDA Toolkit), then build/nvjpeg (made
# by `make nvjpeg` from PyPI's wheel). `make NVJPEG_PATH=` builds without
# nvJPEG. When it is found, CM_HAVE_NVJPEG is defined, and the library
# linked, for chapter 06's objects, imgbatch and the chapter's tests
# (tests/test_06_*) only; other chapters never see it. Without it
# everything still builds, and imgbatch's GPU decode reports itself
# unavailable.
#   make nvjpeg        fetch the wheel for this nvcc's CUDA major version
#   make nvjpeg-info   say what was found
NVJPEG_WHEEL_DIR := build/nvjpeg
# nvjpeg_lib DIR: DIR's nvJPEG library file, the plain .so first (empty
# when DIR lacks the header or the library).
nvjpeg_lib = $(if $(wildcard $(1)/include/nvjpeg.h),$(firstword \
  $(wildcard $(1)/lib64/libnvjpeg.so $(1)/lib/libnvjpeg.so) \
  $(wildcard $(1)/lib64/libnvjpeg.so.[0-9] $(1)/lib64/libnvjpeg.so.[0-9][0-9] \
             $(1)/lib/libnvjpeg.so.[0-9] $(1)/lib/libnvjpeg.so.[0-9][0-9])))
ifeq ($(origin NVJPEG_PATH),undefined)
  NVJPEG_PATH := $(firstword $(foreach d,$(CUDA_PATH) $(NVJPEG_WHEEL_DIR),\
                   $(if $(call nvjpeg_lib,$(d)),$(d))))
endif
NVJPEG_LIB := $(if $(NVJPEG_PATH),$(call nvjpeg_lib,$(NVJPEG_PATH)))

# What sees nvJPEG: chapter 06's objects, imgbatch, the chapter's tests.
NVJPEG_TESTS := $(patsubst tests/%.c,%,$(wildcard tests/test_06_*.c))
NVJPEG_OBJS := $(sort $(call objs,06_image_preprocess) $(IMGBATCH_OBJS) \
  $(EXAMPLE_OBJS)) \
  $(NVJPEG_TESTS:%=$(BUILD)/obj/tests/%.c.o)
NVJPEG_BINS := $(BIN)/imgbatch $(BIN)/imgbatch_example \
  $(NVJPEG_TESTS:%=$(BUILD)/tests/%)
ifneq ($(NVJPEG_LIB),)
  NVJPEG_LIBDIR := $(abspath $(dir $(NVJPEG_LIB)))
  NVJPEG_CPPFLAGS := -I$(NVJPEG_PATH)/include -DCM_HAVE_NVJPEG=1
  # -l:FILE links the file found (libnvjpeg.so, or the wheel's
  # libnvjpeg.so.13, which has no plain .so beside it); rpath finds it at
  # run time. After the common LDLIBS' --as-needed: a program that calls
  # no nvJPEG function does not depend on it.
  NVJPEG_LDLIBS := -L$(NVJPEG_LIBDIR) -Wl,-rpath,$(NVJPEG_LIBDIR) \
                   -l:$(notdir $(NVJPEG_LIB))
  $(NVJPEG_OBJS): CPPFLAGS += $(NVJPEG_CPPFLAGS)
  $(NVJPEG_BINS): LDLIBS += $(NVJPEG_LDLIBS)
  # A different nvJPEG (or none before) rebuilds chapter 06's objects.
  NVJPEG_STAMP_TEXT := $(NVJPEG_PATH) $(NVJPEG_LIB)
else
  NVJPEG_STAMP_TEXT := none
endif
NVJPEG_STAMP := $(BUILD)/nvjpeg.stamp
$(NVJPEG_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(NVJPEG_STAMP_TEXT)' | cmp -s - $@ || \
	  echo '$(NVJPEG_STAMP_TEXT)' > $@
$(NVJPEG_OBJS): $(NVJPEG_STAMP)

# make nvjpeg: fetch_nvjpeg.sh says which wheel; NVJPEG_WHEEL="name==
# version" picks another.
NVJPEG_WHEEL ?=
.PHONY: nvjpeg nvjpeg-info
nvjpeg:
	@sh 06_image_preprocess/fetch_nvjpeg.sh $(NVJPEG_WHEEL_DIR) $(NVCC) \
	  '$(NVJPEG_WHEEL)'
nvjpeg-info:
	@if [ -n '$(NVJPEG_LIB)' ]; then \
	  echo "nvJPEG: $(NVJPEG_PATH)/include/nvjpeg.h, $(NVJPEG_LIB)"; \
	else echo "nvJPEG: none in NVJPEG_PATH='$(NVJPEG_PATH)': chapter 06" \
	  "builds without it (make nvjpeg fetches it into" \
	  "$(NVJPEG_WHEEL_DIR))"; fi

# stb_image 2.27's decoders overflow signed ints on hostile data (a
# progressive JPEG's DC sums, among others; 2.28 checks them): with
# -fwrapv that is defined, wrapping, arithmetic (garbage pixels from
# garbage bytes) rather than undefined behaviour that a compiler may
# build on. Every build of the one file that compiles stb has it; so has
# the fuzz build (tests/fuzz/fuzz.mk).
STB_FLAGS := -fwrapv
$(BUILD)/obj/06_image_preprocess/stb_impl.c.o: C_ALL += $(STB_FLAGS)
$(BUILD)/obj/06_image_preprocess/stb_impl.c.o: 06_image_preprocess/extra.mk

# stb_image_write's JPEG writer (the corpus's baseline files) keeps its
# bits in an int and shifts them left past the sign bit, which C leaves
# undefined (gcc wraps, and the bytes come out right). The sanitizer
# builds, which stop at undefined behaviour, do not check shifts in the
# one file that compiles it; stb_image's are all checked.
ifneq ($(SANITIZE),)
  $(BUILD)/obj/06_image_preprocess/stb_write_impl.c.o: \
    C_ALL += -fno-sanitize=shift
endif

# libimgbatch.so: the library (imgbatch.h) for programs that load it, such
# as the Python module (batch/python/imgbatch). Its objects are compiled
# again, position-independent, under $(BUILD)/pic, each function in a
# section of its own so that the link keeps only what the API reaches;
# libimgbatch.map exports the API alone. cudart is linked statically, as
# in every program here; nvJPEG, where the build has it, is found by
# rpath. The sanitizer builds have no .so (a Python process would need
# their runtime preloaded).
#   make libimgbatch                       build $(BUILD)/lib/libimgbatch.so
IMGBATCH_SO := $(BUILD)/lib/libimgbatch.so
IMGBATCH_SO_MAP := $(IMGBATCH_DIR)/libimgbatch.map
# The library's files: batch/ but the command line's main, options and
# --bare-decode, the example and the corpus writer; and the chapter's
# loader. (batch_report.c counts where files went, for the pipeline too.)
IMGBATCH_SO_SRC := $(filter-out $(addprefix $(IMGBATCH_DIR)/,imgbatch.cu \
  example.cu batch_cli.c bare_decode.cu corpus_main.c \
  corpus.c corpus_wild.c corpus_jpeg.c corpus_jpeg_bits.c),\
  $(wildcard $(IMGBATCH_DIR)/*.cu $(IMGBATCH_DIR)/*.c)) \
  $(addprefix 06_image_preprocess/,image_io.c image_format.c jpeg_walk.c \
                                   jpeg_walk_codes.c stb_impl.c reference.c)
IMGBATCH_SO_OBJS := $(IMGBATCH_SO_SRC:%=$(BUILD)/pic/%.o)
PIC_COMMON := $(BUILD)/pic/libcommon.a
PIC_FLAGS := -fPIC -ffunction-sections -fdata-sections
PIC_NVCC := -Xcompiler -fPIC,-ffunction-sections,-fdata-sections
$(BUILD)/pic/%.c.o: %.c
	@mkdir -p $(@D)
	$(call show,CC,$<)$(CC) $(CPPFLAGS) $(C_ALL) $(PIC_FLAGS) -c $< -o $@
$(BUILD)/pic/%.cu.o: %.cu $(SMS_STAMP)
	@mkdir -p $(@D)
	$(call show,NVCC,$<)$(NVCC) $(CPPFLAGS) $(NVCC_ALL) $(PIC_NVCC) -c $< \
	  -o $@
$(BUILD)/pic/common/device.c.o: $(SMS_STAMP)
$(BUILD)/pic/06_image_preprocess/stb_impl.c.o: C_ALL += $(STB_FLAGS)
$(PIC_COMMON): $(patsubst %,$(BUILD)/pic/%.o,$(wildcard common/*.c))
	@mkdir -p $(@D)
	$(call show,AR,$@)$(AR) rcs $@ $^
$(IMGBATCH_SO): $(IMGBATCH_SO_OBJS) $(PIC_COMMON) $(IMGBATCH_SO_MAP)
	@mkdir -p $(@D)
	$(call show,LINK,$@)$(CXX) -shared -o $@ $(IMGBATCH_SO_OBJS) \
	  $(PIC_COMMON) -Wl,--version-script=$(IMGBATCH_SO_MAP) \
	  -Wl,--gc-sections -Wl,--no-undefined $(LDFLAGS) $(LDLIBS)
$(IMGBATCH_SO_OBJS): | stb
$(IMGBATCH_SO_OBJS): CPPFLAGS += $(if $(NVJPEG_LIB),$(NVJPEG_CPPFLAGS))
$(IMGBATCH_SO_OBJS): $(NVJPEG_STAMP)
$(IMGBATCH_SO): LDLIBS += $(if $(NVJPEG_LIB),$(NVJPEG_LDLIBS))
.PHONY: libimgbatch
libimgbatch: $(IMGBATCH_SO)
# What each position-independent object includes, as for $(BUILD)/obj.
-include $(shell find $(BUILD)/pic -name '*.d' 2>/dev/null)
ifeq ($(SANITIZE),)
ifneq ($(filter 06_image_preprocess,$(CHAPTERS)),)
all: $(IMGBATCH_SO)
endif
endif

# The antialiased resize's weights must be the same doubles on the CPU as
# Pillow's and the GPU's: one rounding per operation, none fused
# (batch/transform_aa.c says where it would matter).
AA_FLAGS := -ffp-contract=off
$(BUILD)/obj/$(IMGBATCH_DIR)/transform_aa.c.o: C_ALL += $(AA_FLAGS)
$(BUILD)/pic/$(IMGBATCH_DIR)/transform_aa.c.o: C_ALL += $(AA_FLAGS)

# tests/test_06_aa_kernel.c runs transform_aa.cu's kernel on the CPU: the
# kernel's code (from its constants to its launch, and stored_at of
# transform_device.h), cut out by sed into a file the test includes. An
# empty cut fails the build rather than testing nothing.
AA_KERNEL_INC := $(BUILD)/gen/transform_aa_kernel.inc
$(AA_KERNEL_INC): $(IMGBATCH_DIR)/transform_aa.cu \
  $(IMGBATCH_DIR)/transform_device.h 06_image_preprocess/extra.mk
	@mkdir -p $(@D)
	@sed -n '/^static __device__ __forceinline__ size_t stored_at/,/^}/p' \
	  $(IMGBATCH_DIR)/transform_device.h > $@.tmp
	@sed -n '/^enum { TILE_W/,/^cudaError_t launch_transform_aa/p' \
	  $(IMGBATCH_DIR)/transform_aa.cu | sed '$$d' >> $@.tmp
	@grep -q stored_at $@.tmp && grep -q transform_aa_kernel $@.tmp || \
	  { echo "$@: the kernel's code not found in transform_aa.cu" >&2; \
	    rm -f $@.tmp; exit 1; }
	@mv $@.tmp $@
$(BUILD)/obj/tests/test_06_aa_kernel.c.o: $(AA_KERNEL_INC)
$(BUILD)/obj/tests/test_06_aa_kernel.c.o: CPPFLAGS += -I$(BUILD)/gen
$(BUILD)/obj/tests/test_06_aa_kernel.c.o: C_ALL += $(AA_FLAGS)
