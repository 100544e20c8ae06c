# 02_interop: the shared checks, its own bad sizes, a size the host cannot
# hold, its CSV file, and a CSV-writing run.
cm_chapter(02_interop)
cm_usage(02_interop n_zero "--n: '0' must be at least 1" --n 0)
cm_usage(02_interop n_negative "--n: size '-5' is negative" --n -5)
cm_usage(02_interop n_overflow "--n: size '99999999999999999999' is too large"
         --n 99999999999999999999)
cm_usage(02_interop n_huge "--n: '1025K' must be at most 1048576" --n 1025K)
cm_gpu(02_interop odd_size --quick --n 333 --csv interop.csv)

# --n 1M asks for two 8 TiB arrays: one line, exit 1, before the GPU.
cm_cpu_run(02_interop.host_too_small exit 1
           "^02_interop: not enough host memory for the large array and its copy back: \
need 17592186044416 bytes"
           "${BIN_DIR}/02_interop" --n 1M)

# --csv is opened before the GPU is touched (tests.cmake says what that
# checks).
cm_csv_opened_first(02_interop)

# The lesson's one argument, the array's side N: one that is not a whole
# number from 1 to 40000 is a usage line and exit 2, before the GPU is
# looked for. Plain build only: the sanitizer builds build no lesson.
if(NOT SANITIZE)
  foreach(bad 0 40001 4000x -1)
    cm_cpu_run(02_interop.lesson_side_${bad} exit 2
               "^usage: .* \\[N\\] with 1 <= N <= 40000$"
               "${BIN_DIR}/02_interop.lesson" ${bad})
  endforeach()
  # Both ends of the range are taken: the run goes on to look for the GPU.
  foreach(good 1 40000)
    cm_cpu_run(02_interop.lesson_side_${good} exit 77 "^${CM_NO_GPU_LINE}"
               "${BIN_DIR}/02_interop.lesson" ${good})
  endforeach()
endif()
