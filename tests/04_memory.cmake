# 04_memory: the shared checks, its own bad inputs, budgets no plan fits,
# a size the host cannot hold, its CSV file, and GPU runs of each part and
# each out-of-core plan at sizes that blocks, panels and tiles do not
# divide.
cm_chapter(04_memory)
cm_usage(04_memory n_zero "--n: '0' must be at least 1" --n 0)
cm_usage(04_memory n_text "--n: size 'big' is not a number" --n big)
cm_usage(04_memory block_zero "--block: '0' must be at least 1" --block 0)
cm_usage(04_memory mem_limit_zero "--mem-limit: '0' must be at least 1"
         --mem-limit 0)
cm_usage(04_memory mem_limit_suffix "--mem-limit: size '1Q' has an unknown"
         --mem-limit 1Q)
cm_usage(04_memory plan_unknown "--plan: 'square' is not one of"
         --plan square)
cm_usage(04_memory streams_zero "--streams: '0' must be at least 1"
         --streams 0)
cm_usage(04_memory streams_many "--streams: '17' must be at most 16"
         --streams 17)
cm_usage(04_memory part_unknown "--part: 'gemm' is not one of" --part gemm)
# An option for a part that does not run is refused, not ignored.
cm_usage(04_memory block_without_blocked
         "^04_memory: --block does nothing unless the blocked part runs"
         --part pool --block 500)
cm_usage(04_memory mem_limit_without_outofcore
         "^04_memory: --mem-limit does nothing unless the out-of-core part"
         --part blocked --mem-limit 256M)
cm_usage(04_memory streams_without_blocked
         "^04_memory: --streams does nothing unless the blocked part runs"
         --part outofcore --streams 2)
cm_usage(04_memory plan_without_outofcore
         "^04_memory: --plan does nothing unless the out-of-core part"
         --part pool --plan tiled)
# n is at most 2^20, which keeps the host bytes of six n x n matrices
# (host_peak_bytes in memory.cu) within size_t.
cm_usage(04_memory n_too_large "--n: '2M' must be at most 1048576" --n 2M)

# A budget below the smallest plan, even in 2 MiB pages, is known before
# the GPU is touched: options that contradict each other, so exit 2 (a bad
# command line) with the bytes given and needed.
cm_cpu_run(04_memory.budget_too_small exit 2
  "--mem-limit 65536 bytes .* below what the out-of-core GEMM needs for \
n = 2001: at least 2097152 bytes .* rounded up to whole 2 MiB pages"
  "${BIN_DIR}/04_memory" --quick --mem-limit 64K)
# Tiles shrink to fit any budget of a page or more, whatever n: n = 1M
# passes the budget check and stops at the host memory that A, B and C
# need (3 x 8 TiB), before the GPU is touched.
cm_cpu_run(04_memory.n_too_large_for_host exit 1
  "^04_memory: not enough host memory for the matrices of the parts \
asked: need 26388279066624 bytes"
  "${BIN_DIR}/04_memory" --part outofcore --n 1M)
# B (32 MB at n = 2001) plus a row panel of A and of C, in 2 MiB pages,
# is over 32 MiB.
cm_cpu_run(04_memory.resident_too_small exit 2
  "below what the out-of-core GEMM needs for n = 2001: at least [0-9]+ \
bytes .* smallest resident-B plan"
  "${BIN_DIR}/04_memory" --quick --plan resident --mem-limit 32M)

# Host memory is checked before the GPU is touched: the blocked part at
# n = 1M holds four 8 TiB matrices on the host. (On a GPU, a size the GPU
# cannot hold gets its own line: see accounting_too_large below.)
cm_cpu_run(04_memory.host_too_small exit 1
  "^04_memory: not enough host memory for the matrices of the parts asked: need \
35184372088832 bytes"
  "${BIN_DIR}/04_memory" --part blocked --n 1M)

# --csv is opened before the GPU is touched (tests.cmake says what that
# checks).
cm_csv_opened_first(04_memory)

# cm04_gpu_sh(SUFFIX SCRIPT ARGS...): a GPU test judged by a shell script
# that gets the program's exit status in $rc and its stderr in $err; exit
# 77 (no GPU) is passed on as skipped.
function(cm04_gpu_sh suffix script)
  add_test(04_memory.gpu_${suffix} sh -c
    "e=/tmp/04_memory.$$.err; out=$(\"$0\" \"$@\" 2>$e); rc=$?; \
err=$(cat $e); rm -f $e; echo \"$err\"; [ $rc -eq 77 ] && exit 77; \
${script}"
    "${BIN_DIR}/04_memory" ${ARGN})
  set_tests_properties(04_memory.gpu_${suffix} PROPERTIES LABELS gpu
                       SKIP_RETURN_CODE 77)
endfunction()
# ...that must end with exit 1 and one stderr line matching REGEX.
set(CM04_ONE_LINE "[ $rc -eq 1 ] && \
[ $(printf '%s\\n' \"$err\" | wc -l) -eq 1 ] && \
printf '%s\\n' \"$err\" | grep -Eq --")
# x alone at n = 400000 (1.28 TB) is more than a GPU has; the part needs
# no host memory for it, so the GPU's line is the one seen.
cm04_gpu_sh(accounting_too_large
  "${CM04_ONE_LINE} '^04_memory: not enough GPU memory for x: need [0-9]+ bytes .* \
free of'"
  --part accounting --n 400000)
# The same failure with --csv, the file open by then: exit 1, no file left.
cm_leaves_nothing(04_memory.gpu_accounting_too_large_csv gpu 1
                  "${BIN_DIR}/04_memory" --part accounting --n 400000
                  --csv r.csv)
# 3 MiB holds the smallest plan in 2 MiB pages but not in a pool chunk,
# if the pool's chunk is bigger (32 MiB on an H200): then exit 2 naming
# the chunk, before anything is allocated (memcheck stays clean); else
# the run must pass. (CM04_USAGE_LINE: CM04_ONE_LINE with exit 2.)
set(CM04_USAGE_LINE "[ $rc -eq 2 ] && \
[ $(printf '%s\\n' \"$err\" | wc -l) -eq 1 ] && \
printf '%s\\n' \"$err\" | grep -Eq --")
cm04_gpu_sh(budget_below_chunk
  "{ ${CM04_USAGE_LINE} 'at least [0-9]+ bytes .* pool chunks on this GPU'; \
} || { [ $rc -eq 0 ] && printf '%s\\n' \"$out\" | grep -q '^PASS'; }"
  --quick --part outofcore --mem-limit 3M)

# Each part alone, odd sizes, and each out-of-core plan: resident B with
# several panels (n = 2001 in 64 MiB, and n = 1000), tiles in row strips
# (n = 3001 in 64 MiB: B does not fit), tiles with columns too and edge
# tiles (n = 4001 in 32 MiB), all of C in a few tiles on the GPU at once
# (--plan tiled at n = 2001), and the smallest sizes (n = 7: one piece,
# every tile entering and leaving at the same step).
foreach(part accounting blocked outofcore pool)
  cm_gpu(04_memory part_${part} --quick --part ${part})
endforeach()
cm_gpu(04_memory n1 --quick --n 1 --block 1 --streams 2)
cm_gpu(04_memory n7 --quick --n 7 --block 3 --streams 3)
cm_gpu(04_memory n1_tiled --quick --n 1 --part outofcore --plan tiled)
cm_gpu(04_memory n7_tiled --quick --n 7 --part outofcore --plan tiled)
cm_gpu(04_memory resident --quick --part outofcore --plan resident)
cm_gpu(04_memory tiled_one_tile --quick --part outofcore --plan tiled)
cm_gpu(04_memory n3001_strips --quick --n 3001 --part outofcore)
cm_gpu(04_memory n4001_tiles --quick --n 4001 --mem-limit 32M
       --part outofcore)
cm_gpu(04_memory n1000_panels --quick --n 1000
       --mem-limit 64M --part outofcore)
cm_gpu(04_memory csv --quick --csv "${TEST_BIN_DIR}/04_memory_quick.csv")

# cudaMemGetInfo counts the whole GPU, and `make test` runs tests in
# parallel: another test's allocations would move the accounting part's
# numbers. No 04 GPU test shares the GPU with any other test.
set_tests_properties(
  04_memory.gpu_quick 04_memory.gpu_accounting_too_large
  04_memory.gpu_accounting_too_large_csv 04_memory.gpu_budget_below_chunk
  04_memory.gpu_part_accounting 04_memory.gpu_part_blocked
  04_memory.gpu_part_outofcore 04_memory.gpu_part_pool
  04_memory.gpu_n1 04_memory.gpu_n7 04_memory.gpu_n1_tiled
  04_memory.gpu_n7_tiled 04_memory.gpu_resident 04_memory.gpu_tiled_one_tile
  04_memory.gpu_n3001_strips 04_memory.gpu_n4001_tiles
  04_memory.gpu_n1000_panels 04_memory.gpu_csv
  PROPERTIES RUN_SERIAL TRUE)
