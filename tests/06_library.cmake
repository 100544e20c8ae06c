# imgbatch as a library (included by 06_image_preprocess.cmake, whose
# functions and folders they use, at this point of it): the library never
# exits its host and exports imgbatch.h alone, the Python module over it,
# and the benchmark's corpus and scripts.

# The library never ends its host process: its objects refer to no
# exit (batch/never_exits.sh, nm). tests/test_06_loader.c, a unit test on
# the CPU (it hides the GPUs itself), checks its statuses without a GPU;
# on a GPU (imgbatch.gpu_loader) allocations of open + next + close
# failing in turn (40 of them spread over all, for each of three ways to
# run; IMGBATCH_TEST_EVERY_ALLOCATION=1: every one), two loaders at once,
# another thread, and a file changed between open and next on every
# decode path.
add_test(imgbatch.library_never_exits sh
         "${SRC_DIR}/${ch}/batch/never_exits.sh"
         "${TEST_BIN_DIR}/../obj/${ch}/batch")
set_tests_properties(imgbatch.library_never_exits PROPERTIES LABELS cpu)
# libimgbatch.so, which make builds but for the sanitizer builds, exports
# imgbatch.h's functions and nothing else, and refers to no exit
# (batch/so_check.sh: nm on the linked library; stb_image's assert, the
# one exception, named there).
if(NOT SANITIZE)
  add_test(imgbatch.so_exports sh "${SRC_DIR}/${ch}/batch/so_check.sh"
           "${TEST_BIN_DIR}/../lib/libimgbatch.so"
           "${SRC_DIR}/${ch}/batch/imgbatch.h" "${TEST_BIN_DIR}/../pic")
  set_tests_properties(imgbatch.so_exports PROPERTIES LABELS cpu)
endif()
# The Python module over it (batch/python/imgbatch, tests/imgbatch_py_test.py
# says what each run checks): on the CPU, with site-packages out of the
# path (python3 -S: the standard library alone) and the GPUs hidden, its
# errors and a batch's array interface; the module, its test and the
# training example compile, the README shows the example as it is, and
# the example without PyTorch exits 77. On
# a GPU with PyTorch (else skipped), its tensors against the command
# line's .npy, bit for bit, and the example for two steps.
if(NOT SANITIZE)
  set(py_dir "${SRC_DIR}/${ch}/batch/python")
  set(py_test "${SRC_DIR}/tests/imgbatch_py_test.py")
  set(py_env "IMGBATCH_LIBRARY=${TEST_BIN_DIR}/../lib/libimgbatch.so"
      "PYTHONPYCACHEPREFIX=${TEST_BIN_DIR}/pycache")
  add_test(imgbatch.py_compiles ${PYTHON} -m py_compile
           "${py_dir}/imgbatch/__init__.py" "${py_dir}/train_example.py"
           "${py_test}")
  add_test(imgbatch.py_cpu ${RUN} pass ${PYTHON} -S "${py_test}" cpu
           "${py_dir}" "${fx}")
  add_test(imgbatch.py_readme_example ${RUN} pass ${PYTHON} "${py_test}"
           readme "${py_dir}" "${SRC_DIR}/${ch}/batch/README.md"
           "${py_dir}/train_example.py")
  add_test(imgbatch.py_train_no_torch ${RUN} exit 77
           "^train_example.py: skipped: No module named .torch.$" ${PYTHON} -S
           "${py_dir}/train_example.py" "${fx}/batch")
  set_tests_properties(imgbatch.py_compiles imgbatch.py_cpu
                       imgbatch.py_readme_example
                       imgbatch.py_train_no_torch PROPERTIES LABELS cpu
                       ENVIRONMENT "${py_env};CUDA_VISIBLE_DEVICES=-1")
  set_tests_properties(imgbatch.py_cpu PROPERTIES FIXTURES_REQUIRED images06)
  add_test(imgbatch.gpu_python_npy ${RUN} pass ${PYTHON} "${py_test}" gpu
           "${py_dir}" "${fx}" "${tool}" "${TEST_BIN_DIR}/06_python")
  add_test(imgbatch.gpu_python_train ${RUN} pass ${PYTHON} "${py_test}"
           train "${py_dir}" "${py_dir}/train_example.py" "${tool}"
           "${TEST_BIN_DIR}/06_python_train")
  set_tests_properties(imgbatch.gpu_python_npy imgbatch.gpu_python_train
                       PROPERTIES LABELS gpu SKIP_RETURN_CODE 77
                       ENVIRONMENT "${py_env}" FIXTURES_REQUIRED images06)
endif()
add_test(imgbatch.gpu_loader "${TEST_BIN_DIR}/test_06_loader" gpu)
set_tests_properties(imgbatch.gpu_loader PROPERTIES LABELS gpu
                     SKIP_RETURN_CODE 77 TIMEOUT 600)

# The benchmark corpus (imgbatch --make-corpus, no GPU): its usage errors,
# and the files it writes (batch/corpus_check.sh; tests/test_06_corpus.c
# decodes them).
cm_cpu_run(imgbatch.corpus_help help "${tool}" --make-corpus --help)
foreach(case
    "no_dir|give the folder to write: --make-corpus DIR|"
    "unknown|unknown option '--colour'|d;--colour;red"
    "no_value|option '--count' needs a value|d;--count"
    "count_zero|--count: '0' must be at least 1|d;--count;0"
    "count_text|--count: 'many' is not a whole number|d;--count;many"
    "quality_high|--quality: '101' must be at most 100|d;--quality;101"
    "kind|--kind: 'cmyk' is not one of baseline, progressive|d;--kind;cmyk"
    "size_text|--size: 'vga' is not WIDTHxHEIGHT, imagenet|d;--size;vga"
    "size_zero|--size: '0x5' is not WIDTHxHEIGHT|d;--size;0x5"
    "size_side|--size: '70000x2': JPEG allows at most 65535|d;--size;70000x2"
    "two_dirs|unexpected argument 'e'|d;e"
    "wild_q|--quality does nothing with --kind wild|d;--kind;wild;--quality;8"
    "chroma_kind|--chroma is for --kind wild|d;--chroma;420"
    "chroma_value|--chroma: '411' is not mixed or 420|d;--chroma;411")
  string(REPLACE "|" ";" fields "${case}")
  list(GET fields 0 suffix)
  list(GET fields 1 regex)
  set(args "")
  list(LENGTH fields n)
  if(n GREATER 2)
    list(SUBLIST fields 2 -1 args)
  endif()
  tool_usage(corpus_${suffix} "--make-corpus: ${regex}" --make-corpus
             ${args})
endforeach()
# A file where the folder should be: one line, exit 1, nothing written.
cm_cpu_run(imgbatch.corpus_not_folder exit 1
           "^imgbatch: .*/README[.]md exists and is not a folder$"
           "${tool}" --make-corpus "${SRC_DIR}/README.md")
add_test(imgbatch.corpus_files sh "${SRC_DIR}/${ch}/batch/corpus_check.sh"
         "${tool}")
set_tests_properties(imgbatch.corpus_files PROPERTIES LABELS cpu
                     ENVIRONMENT "CUDA_VISIBLE_DEVICES=-1")

# batch/bench_torchvision.py (torchvision doing what imgbatch does) and
# batch/bench.sh (the benchmark of the README's table): they compile or
# parse, a usage error is one line and exit 2; without PyTorch,
# torchvision or a GPU the first says so in one line and exits 77; the
# second extracts what photographs it finds (none here) and, with no GPU,
# stops with 77 after making its corpora.
if(NOT SANITIZE)
  set(bench_tv "${SRC_DIR}/${ch}/batch/bench_torchvision.py")
  add_test(imgbatch.bench_torchvision_compiles python3 -m py_compile
           "${bench_tv}" "${SRC_DIR}/${ch}/batch/pil_loader.py")
  set_tests_properties(imgbatch.bench_torchvision_compiles PROPERTIES
    LABELS cpu ENVIRONMENT "PYTHONPYCACHEPREFIX=${TEST_BIN_DIR}/pycache")
  cm_cpu_run(imgbatch.bench_torchvision_usage exit 2
             "^bench_torchvision.py: argument --repeat: '0' must be at least"
             python3 "${bench_tv}" --repeat 0 "${SRC_DIR}/${ch}")
  cm_cpu_run(imgbatch.bench_torchvision_crop_alone exit 2
             "^bench_torchvision.py: --resize-short S goes with --crop WxH"
             python3 "${bench_tv}" --resize-short 256 "${SRC_DIR}/${ch}")
  cm_cpu_run(imgbatch.bench_torchvision_no_gpu exit 77 "skipped$"
             python3 "${bench_tv}" "${SRC_DIR}/${ch}")
  set(bench_sh sh "${SRC_DIR}/${ch}/batch/bench.sh")
  cm_cpu_run(imgbatch.bench_usage exit 2 "^bench.sh: give the folder"
             ${bench_sh})
  cm_cpu_run(imgbatch.bench_rounds_usage exit 2
             "^bench.sh: --rounds: '0' is not a whole number above 0"
             ${bench_sh} "${TEST_BIN_DIR}/06_bench_rounds" --rounds 0)
  add_test(imgbatch.bench_photos ${bench_sh} "${TEST_BIN_DIR}/06_bench"
           --photos-only)
  set_tests_properties(imgbatch.bench_photos PROPERTIES LABELS cpu
                       PASS_REGULAR_EXPRESSION "^photographs: ")
  cm_cpu_run(imgbatch.bench_no_gpu exit 77
             "^bench.sh: no usable GPU: the corpora are in" ${bench_sh}
             "${TEST_BIN_DIR}/06_bench_cut" --count 6 --bin "${tool}")
  set_tests_properties(imgbatch.bench_no_gpu PROPERTIES
                       FIXTURES_REQUIRED images06 ENVIRONMENT
                       "CUDA_VISIBLE_DEVICES=-1;BENCH_PHOTOS=${fx}/batch")
  # Its parsing and table, with tests/bench_stand_in.sh standing in for
  # imgbatch (100, 130 and 70 images/s in turn, 10% either side), its
  # bare decode (200) and python3 (50): every column of a row filled from
  # the runs' lines, imgbatch's the median of its three rounds (100) and
  # the spread of all (63-143), its time over the bare decode's the
  # median of 2, 1.54 and 2.86; a split row twice as fast in every round
  # (the stand-in's rates with --hybrid-share) beside its bare decode,
  # without torchvision; a stray argument fails the stand-in, so the
  # benchmark; a torchvision run that ends without its result line fails
  # the benchmark.
  set(stand_in "${SRC_DIR}/tests/bench_stand_in.sh")
  set(stand_in_env "PYTHON=${stand_in};BENCH_PHOTOS=${SRC_DIR}/${ch}/batch")
  add_test(imgbatch.bench_table ${bench_sh} "${TEST_BIN_DIR}/06_bench_table"
           --count 2 --bin "${stand_in}")
  set_tests_properties(imgbatch.bench_table PROPERTIES LABELS cpu
    ENVIRONMENT "${stand_in_env}" PASS_REGULAR_EXPRESSION
    "wild_224 +100 \\(63-143\\) +200 \\(190-210\\) +2.00 +50 \\(40-60\\) @64 +2.00.*\nwild_224_split +200 \\(126-286\\) +200 \\(190-210\\) +1.00 +- +- ")
  # The DataLoader column (25 images/s from the stand-in) on the crop
  # rows, the 100,000-file row among them (here 3 hard links).
  add_test(imgbatch.bench_table_dataloader ${bench_sh}
           "${TEST_BIN_DIR}/06_bench_table_dl" --count 2 --big-count 3
           --bin "${stand_in}")
  set_tests_properties(imgbatch.bench_table_dataloader PROPERTIES LABELS cpu
    ENVIRONMENT "${stand_in_env}" PASS_REGULAR_EXPRESSION
    "\nwild_100k_crop_rgb_f16 +[0-9]+ \\([0-9]+-[0-9]+\\) .* 25 \\(20-30\\) +[0-9.]+\n")
  # --cases: only the rows asked for (and the corpus they read), in the
  # table's order; a pattern that matches no case is a usage error that
  # names them.
  add_test(imgbatch.bench_cases ${bench_sh} "${TEST_BIN_DIR}/06_bench_cases"
           --count 2 --bin "${stand_in}" --cases "^wild420_224|same_mixed$")
  set_tests_properties(imgbatch.bench_cases PROPERTIES LABELS cpu
    ENVIRONMENT "${stand_in_env}" PASS_REGULAR_EXPRESSION
    "corpus wild420: stand-in[^\n]*\ncorpus same_mixed: stand-in[^\n]*\n.*\ncase [^\n]*\nsame_mixed [^\n]*\nwild420_224 [^\n]*\nwild420_224_split ")
  set_tests_properties(imgbatch.bench_cases PROPERTIES
    FAIL_REGULAR_EXPRESSION "_crop_|corpus wild:|corpus same:")
  cm_cpu_run(imgbatch.bench_cases_none exit 2
             "^bench.sh: --cases: 'wild_9' matches no case [(]the cases: same same_mixed wild_224 .*wild_crop_rgb_f16_split[)]"
             ${bench_sh} "${TEST_BIN_DIR}/06_bench_none" --cases wild_9)
  add_test(imgbatch.bench_no_result ${bench_sh}
           "${TEST_BIN_DIR}/06_bench_no_result" --count 2 --bin "${stand_in}")
  set_tests_properties(imgbatch.bench_no_result PROPERTIES LABELS cpu
    ENVIRONMENT "${stand_in_env};STAND_IN_NO_RESULT=1"
    PASS_REGULAR_EXPRESSION "\nsame +FAILED\n")
endif()
