# tests.cmake - the CTest suite, included from $(BUILD)/CTestTestfile.cmake,
# which `make test` writes with BIN_DIR, TEST_BIN_DIR, SRC_DIR, SANITIZE,
# UNIT_TESTS (built tests/test_*.c) and CHAPTERS (built chapter folders).
# Labels: cpu (runs anywhere) and gpu (exit 77 = skipped without a GPU).
set(RUN sh "${SRC_DIR}/tests/run.sh")
# What a program says with its GPUs hidden (CUDA_VISIBLE_DEVICES=-1), on
# a machine without a driver and on one with a driver and a GPU.
set(CM_NO_GPU_LINE "no usable CUDA device: (no NVIDIA driver or GPU found$|the driver reports no GPU \\(check nvidia-smi and CUDA_VISIBLE_DEVICES\\)$|no CUDA-capable device is detected$)")

# Every tests/test_*.c is a CPU unit test with its own assertions.
separate_arguments(UNIT_TESTS)
separate_arguments(CHAPTERS)
foreach(name ${UNIT_TESTS})
  add_test(${name} "${TEST_BIN_DIR}/${name}")
  set_tests_properties(${name} PROPERTIES LABELS cpu
                       WORKING_DIRECTORY "${TEST_BIN_DIR}")
endforeach()

# cm_cpu_run(TEST MODE ARGS...): a run.sh check that must not need a GPU.
# Devices are hidden, so a program that touched the GPU before rejecting
# its options would exit 77 instead of 2 and fail the test.
function(cm_cpu_run test)
  add_test(${test} ${RUN} ${ARGN})
  set_tests_properties(${test} PROPERTIES LABELS cpu
                       ENVIRONMENT "CUDA_VISIBLE_DEVICES=-1")
endfunction()

# cm_usage(CHAPTER SUFFIX REGEX ARGS...): ARGS must be a usage error: exit 2
# and one stderr line matching REGEX.
function(cm_usage chapter suffix regex)
  cm_cpu_run(${chapter}.usage_${suffix} exit 2 "${regex}"
             "${BIN_DIR}/${chapter}" ${ARGN})
endfunction()

# cm_gpu(CHAPTER SUFFIX ARGS...): a run that must print PASS on a GPU.
function(cm_gpu chapter suffix)
  add_test(${chapter}.gpu_${suffix} ${RUN} pass "${BIN_DIR}/${chapter}"
           ${ARGN})
  set_tests_properties(${chapter}.gpu_${suffix} PROPERTIES LABELS gpu
                       SKIP_RETURN_CODE 77)
endfunction()

# cm_chapter(CHAPTER [TAKES_ARGUMENTS]): the tests every chapter program
# gets; a program without positional arguments must reject a stray one.
function(cm_chapter chapter)
  set(bin "${BIN_DIR}/${chapter}")
  cm_gpu(${chapter} quick --quick)
  cm_cpu_run(${chapter}.help help "${bin}" --help)
  cm_cpu_run(${chapter}.no_gpu exit 77 "^${chapter}: ${CM_NO_GPU_LINE}"
             "${bin}" --quick)
  cm_usage(${chapter} unknown_option "unknown option '--no-such-option'"
           --no-such-option)
  cm_usage(${chapter} missing_value "option '--repeat' needs a value"
           --repeat)
  cm_usage(${chapter} repeat_zero "--repeat: '0' must be at least 1"
           --repeat 0)
  cm_usage(${chapter} repeat_text "--repeat: 'ten' is not a whole number"
           --repeat ten)
  cm_usage(${chapter} device_negative "--device: '-1' must be at least 0"
           --device -1)
  list(FIND ARGN TAKES_ARGUMENTS takes_arguments)
  if(takes_arguments EQUAL -1)
    cm_usage(${chapter} stray_argument "unexpected argument 'extra'" extra)
  endif()
endfunction()

# cm_leaves_nothing(TEST cpu|gpu RC CMD...): CMD, run in an empty folder,
# exits RC and leaves the folder empty: no output, no temporary file
# (tests/no_leftovers.sh). A cpu test hides the GPUs; a gpu test is
# skipped without one.
function(cm_leaves_nothing test label rc)
  add_test(${test} sh "${SRC_DIR}/tests/no_leftovers.sh" ${rc} ${ARGN})
  if(label STREQUAL "cpu")
    set_tests_properties(${test} PROPERTIES LABELS cpu
                         ENVIRONMENT "CUDA_VISIBLE_DEVICES=-1")
  else()
    set_tests_properties(${test} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)
  endif()
endfunction()

# cm_csv_opened_first(CHAPTER [ARGS...]): --csv is opened before the GPU
# is touched, so a path that cannot be written fails at once (exit 1),
# and a run that stops after the open (here without a GPU, exit 77)
# leaves neither the CSV nor its temporary file. ARGS: more outputs.
function(cm_csv_opened_first chapter)
  cm_cpu_run(${chapter}.csv_unwritable exit 1
             "^${chapter}: cannot write /nonexistent-dir/x.csv"
             "${BIN_DIR}/${chapter}" --quick --csv /nonexistent-dir/x.csv)
  cm_cpu_run(${chapter}.csv_folder exit 1
             "^${chapter}: cannot write .*: it is a folder, not a file$"
             "${BIN_DIR}/${chapter}" --quick --csv "${TEST_BIN_DIR}")
  cm_leaves_nothing(${chapter}.no_gpu_leaves_no_csv cpu 77
                    "${BIN_DIR}/${chapter}" --quick --csv r.csv ${ARGN})
endfunction()

# cm_lesson(CHAPTER): a chapter's lesson.cu and exercise.cu. On the CPU:
# each builds alone from its own header's nvcc line, the exercise is the
# lesson with only numbered FIXMEs changed, and without a GPU both exit 77.
# On a GPU: the lesson prints PASS and the unsolved exercise prints FAIL.
# An exercise never lies (tests/exercise_states.sh): each FIXME solved
# alone, and all but one solved, builds warning-free with the lessons'
# flags for the first of SMS (LESSON_FLAGS, the Makefile's STATE_FLAGS: a
# cpu test, which the gpu test needs as its fixture) and on a GPU ends
# with a FAIL line and exit 1, nothing on stderr; all solved is the
# lesson, and PASSes.
# The sanitizer builds skip them: they build no lessons.
set(LESSONS_WITHOUT_ARGUMENTS 03_matmul 04_memory 05_hybrid_threads
    07_bandwidth)
function(cm_lesson chapter)
  set(dir "${SRC_DIR}/${chapter}")
  set(lesson_sh sh "${SRC_DIR}/tests/lesson.sh")
  foreach(kind lesson exercise)
    add_test(${chapter}.${kind}_builds_alone ${lesson_sh} alone
             "${dir}/${kind}.cu" "${NVCC}" "${STB_INCLUDE}")
    set_tests_properties(${chapter}.${kind}_builds_alone PROPERTIES
                         LABELS cpu)
    cm_cpu_run(${chapter}.${kind}_no_gpu exit 77 "^${CM_NO_GPU_LINE}"
               "${BIN_DIR}/${chapter}.${kind}")
    # No lesson takes two arguments, and those that take none refuse one:
    # a usage line and exit 2, before the GPU is looked for.
    cm_cpu_run(${chapter}.${kind}_extra_arguments exit 2 "^usage: "
               "${BIN_DIR}/${chapter}.${kind}" extra1 extra2)
    if(chapter IN_LIST LESSONS_WITHOUT_ARGUMENTS)
      cm_cpu_run(${chapter}.${kind}_an_argument exit 2 "^usage: "
                 "${BIN_DIR}/${chapter}.${kind}" extra)
    endif()
  endforeach()
  add_test(${chapter}.exercise_only_fixme ${lesson_sh} fixme
           "${dir}/lesson.cu" "${dir}/exercise.cu")
  set_tests_properties(${chapter}.exercise_only_fixme PROPERTIES LABELS cpu)
  add_test(${chapter}.gpu_lesson ${RUN} pass "${BIN_DIR}/${chapter}.lesson")
  add_test(${chapter}.gpu_exercise_fails ${RUN} fail
           "${BIN_DIR}/${chapter}.exercise")
  set_tests_properties(${chapter}.gpu_lesson ${chapter}.gpu_exercise_fails
                       PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)
  set(states_sh sh "${SRC_DIR}/tests/exercise_states.sh")
  set(states "${TEST_BIN_DIR}/exercise_states/${chapter}")
  set(flags ${LESSON_FLAGS})
  separate_arguments(flags)
  add_test(${chapter}.exercise_states_build ${states_sh} build
           "${dir}/lesson.cu" "${dir}/exercise.cu" "${states}" "${NVCC}"
           ${flags})
  # From the source folder: LESSON_FLAGS may name STB_INCLUDE relatively.
  # Its 6 to 12 builds take minutes: a high COST starts it first.
  set_tests_properties(${chapter}.exercise_states_build PROPERTIES
                       LABELS cpu WORKING_DIRECTORY "${SRC_DIR}" COST 1000
                       FIXTURES_SETUP ${chapter}.exercise_states)
  add_test(${chapter}.gpu_exercise_states ${states_sh} run "${states}"
           "${BIN_DIR}/${chapter}.exercise" "${BIN_DIR}/${chapter}.lesson")
  set_tests_properties(${chapter}.gpu_exercise_states PROPERTIES LABELS gpu
                       SKIP_RETURN_CODE 77
                       FIXTURES_REQUIRED ${chapter}.exercise_states)
endfunction()

# The build with older toolkits (tests/old-toolkit.sh): the default SMS is
# what nvcc supports, and every source compiles against the headers of
# CUDA 12.0 and 12.8, which `tests/old-toolkit.sh fetch build/old-cuda`
# downloads (CI does); without them the test is skipped. Both run in the
# plain build only: the sanitizers change nothing they check.
# The exercise-state test's own test: made-up files and programs.
if(NOT SANITIZE)
  add_test(exercise_states.self_test sh
           "${SRC_DIR}/tests/exercise_states_test.sh")
  set_tests_properties(exercise_states.self_test PROPERTIES LABELS cpu)
endif()

if(NOT SANITIZE)
  set(old_toolkit sh "${SRC_DIR}/tests/old-toolkit.sh")
  string(REPLACE ";" " " chapter_list "${CHAPTERS}")
  add_test(makefile.sms_from_nvcc ${old_toolkit} sms "${SRC_DIR}")
  add_test(old_toolkit.compiles ${old_toolkit} check "${SRC_DIR}"
           "${SRC_DIR}/build/old-cuda" "${TEST_BIN_DIR}/old-toolkit"
           "${NVCC}" "${STB_INCLUDE}" "${chapter_list}")
  set_tests_properties(makefile.sms_from_nvcc old_toolkit.compiles
                       PROPERTIES LABELS cpu SKIP_RETURN_CODE 77)
endif()

# What the top Makefile and `make test` promise (tests/makefile.sh, with
# stand-in compilers and nvidia-smi): one short line a file and V=1, the
# default SMS from the GPUs here, a rebuild when that changes, a wrong
# chapter or STB_INCLUDE named, the closing count of tests/ctest.sh and
# its failure when no test is selected. The plain build only.
if(NOT SANITIZE)
  foreach(check short_lines verbose native_sms sms_stamp bad_chapter
                stb_include ctest_summary ctest_no_tests)
    add_test(makefile.${check} sh "${SRC_DIR}/tests/makefile.sh" ${check}
             "${SRC_DIR}")
    set_tests_properties(makefile.${check} PROPERTIES LABELS cpu)
  endforeach()
endif()

# Each chapter's own tests live in tests/<chapter>.cmake. Every chapter has
# a lesson and an exercise; their tests come from cm_lesson, in the plain
# build (the one that builds them).
foreach(chapter ${CHAPTERS})
  if(NOT EXISTS "${SRC_DIR}/tests/${chapter}.cmake")
    message(FATAL_ERROR "tests/${chapter}.cmake is missing")
  endif()
  include("${SRC_DIR}/tests/${chapter}.cmake")
  foreach(file lesson.cu exercise.cu)
    if(NOT EXISTS "${SRC_DIR}/${chapter}/${file}")
      message(FATAL_ERROR "${chapter}/${file} is missing")
    endif()
  endforeach()
  if(NOT SANITIZE)
    cm_lesson(${chapter})
  endif()
endforeach()

include("${SRC_DIR}/tests/messages.cmake")

# make compare (common/compare.py): for every chapter with a
# cupy_original.py, on the CPU: the file compiles, its C side (what the
# driver reads) loads without CuPy, and the compare exits 77 with the CuPy
# line where CuPy is missing (tests/fake_no_cupy holds a cupy that cannot
# be imported, which hides a real one); on a GPU: a quick compare passes
# (skipped, 77, only where CuPy is missing). The driver itself is tested
# with a fake CuPy, chapter and lab (tests/compare_test.py). The sanitizer
# builds skip them: nothing here is their C code.
# Without Python 3.9 they, and the link check below, are one skipped test
# saying so.
if(NOT PYTHON)
  set(PYTHON python3)
endif()
execute_process(COMMAND ${PYTHON} -c
                "import sys; sys.exit(sys.version_info < (3, 9))"
                RESULT_VARIABLE python_rc OUTPUT_QUIET ERROR_QUIET)
if(NOT SANITIZE AND NOT python_rc EQUAL 0)
  add_test(compare.no_python sh -c
           "echo 'no Python 3.9+ (PYTHON=${PYTHON}): compare and link tests \
skipped'; exit 77")
  set_tests_properties(compare.no_python PROPERTIES LABELS cpu
                       SKIP_RETURN_CODE 77)
elseif(NOT SANITIZE)
  # Every relative link and #anchor of every tracked Markdown file leads
  # somewhere (tests/check_links.py), and the checker finds broken ones.
  add_test(docs.links ${PYTHON} "${SRC_DIR}/tests/check_links.py"
           "${SRC_DIR}")
  add_test(docs.links_self_test ${RUN} pass ${PYTHON}
           "${SRC_DIR}/tests/check_links.py" --self-test)
  # Every chapter README at most 400 lines.
  add_test(docs.readme_lengths sh "${SRC_DIR}/tests/readme_lengths.sh"
           "${SRC_DIR}")
  set_tests_properties(docs.links docs.links_self_test docs.readme_lengths
                       PROPERTIES LABELS cpu)
  set(compare_py "${SRC_DIR}/common/compare.py")
  set(cupy_missing "^CuPy not found [(]python3 -c 'import cupy' failed: ")
  string(APPEND cupy_missing ".*[)]; install it with: pip install cupy-cuda13x")
  add_test(compare.driver ${RUN} pass ${PYTHON}
           "${SRC_DIR}/tests/compare_test.py" driver)
  set_tests_properties(compare.driver PROPERTIES LABELS cpu)
  cm_cpu_run(compare.usage_unknown_option exit 2
             "unknown option '--no-such-option'" ${PYTHON} "${compare_py}"
             --no-such-option)
  cm_cpu_run(compare.usage_unknown_chapter exit 2
             "no chapter 'no_such_chapter': it has no cupy_original.py"
             ${PYTHON} "${compare_py}" no_such_chapter "${compare_py}")
  foreach(chapter ${CHAPTERS})
    set(original "${SRC_DIR}/${chapter}/cupy_original.py")
    if(NOT EXISTS "${original}")
      continue()
    endif()
    string(SUBSTRING "${chapter}" 0 2 nn)
    set(compare_args ${PYTHON} "${compare_py}" "${SRC_DIR}/${chapter}"
        "${BIN_DIR}/${chapter}")
    add_test(compare_${nn}.py_compiles ${PYTHON} -m py_compile "${original}")
    set_tests_properties(compare_${nn}.py_compiles PROPERTIES LABELS cpu
      ENVIRONMENT "PYTHONPYCACHEPREFIX=${TEST_BIN_DIR}/pycache")
    add_test(compare_${nn}.c_side ${RUN} pass ${PYTHON}
             "${SRC_DIR}/tests/compare_test.py" c_side "${SRC_DIR}/${chapter}")
    set_tests_properties(compare_${nn}.c_side PROPERTIES LABELS cpu)
    add_test(compare_${nn}.no_cupy ${RUN} exit 77 "${cupy_missing}"
             ${compare_args})
    set_tests_properties(compare_${nn}.no_cupy PROPERTIES LABELS cpu
      ENVIRONMENT "PYTHONPATH=${SRC_DIR}/tests/fake_no_cupy")
    add_test(compare_${nn}.quick ${RUN} pass ${compare_args} --quick)
    set_tests_properties(compare_${nn}.quick PROPERTIES LABELS gpu
                         SKIP_RETURN_CODE 77)
  endforeach()
endif()
