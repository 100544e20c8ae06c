# 01_array_basics: the shared checks, its own bad sizes, a GPU run that
# prints the range across several wrapped lines, and its CSV file. (No
# size 01 accepts needs more than 16 GiB of host memory, too little for a
# test to count on the host running out.)
cm_chapter(01_array_basics)
cm_usage(01_array_basics n_zero "--n: '0' must be at least 1" --n 0)
cm_usage(01_array_basics n_huge "--n: '4T' must be at most" --n 4T)
cm_usage(01_array_basics big_text "--big: size 'x' is not a number" --big x)
cm_usage(01_array_basics big_zero "--big: '0' must be at least 1" --big 0)
cm_usage(01_array_basics big_huge "--big: '32769' must be at most 32768"
         --big 32769)
cm_gpu(01_array_basics long_range --quick --n 100 --big 7)

# --csv is opened before the GPU is touched (tests.cmake says what that
# checks).
cm_csv_opened_first(01_array_basics)

# The lesson's --bad-launch, as its README tells it: cudaGetLastError()
# names the bad launch's error, then says cudaSuccess (the first call
# cleared it), and the kernel launched after it still works (PASS). Plain
# build only: the sanitizer builds build no lesson.
if(NOT SANITIZE)
  add_test(01_array_basics.gpu_lesson_bad_launch sh -c [=[
out=$("$1" --bad-launch); rc=$?
[ $rc -eq 77 ] && exit 77
printf '%s\n' "$out"
want='^bad launch <<<1, 2048>>>: cudaGetLastError\(\) = cudaError[A-Za-z]+, then cudaSuccess$'
[ $rc -eq 0 ] && printf '%s\n' "$out" | grep -Eq "$want" &&
  printf '%s\n' "$out" | grep -q '^PASS$' && exit 0
echo "expected exit 0, the bad launch caught then cleared, and PASS; got exit $rc"
exit 1
]=] sh "${BIN_DIR}/01_array_basics.lesson")
  set_tests_properties(01_array_basics.gpu_lesson_bad_launch PROPERTIES
                       LABELS gpu SKIP_RETURN_CODE 77)
endif()

# Its only argument is --bad-launch: anything else is a usage line and
# exit 2, before the GPU is looked for.
if(NOT SANITIZE)
  cm_cpu_run(01_array_basics.lesson_unknown_argument exit 2
             "^usage: .* \\[--bad-launch\\]$"
             "${BIN_DIR}/01_array_basics.lesson" --bad-lunch)
endif()
