# 04_memory: the shared checks, its own bad inputs, budgets no tiling fits,
# and GPU runs of each part at sizes that blocks and tiles do not divide.
cm_chapter(04_memory)
cm_usage(04_memory n_zero "--n: '0' must be at least 1" --n 0)
cm_usage(04_memory n_text "--n: size 'big' is not a number" --n big)
cm_usage(04_memory block_zero "--block: '0' must be at least 1" --block 0)
cm_usage(04_memory mem_limit_zero "--mem-limit: '0' must be at least 1"
         --mem-limit 0)
cm_usage(04_memory mem_limit_suffix "--mem-limit: size '1Q' has an unknown"
         --mem-limit 1Q)
cm_usage(04_memory streams_zero "--streams: '0' must be at least 1"
         --streams 0)
cm_usage(04_memory streams_many "--streams: '17' must be at most 16"
         --streams 17)
cm_usage(04_memory part_unknown "--part: 'gemm' is not one of" --part gemm)

# A budget below the smallest tiling is known before the GPU is touched:
# exit 1 with the bytes given and needed.
cm_cpu_run(04_memory.budget_too_small exit 1
  "--mem-limit 65536 bytes .* below the smallest out-of-core tiling for n = 1001, which needs [0-9]+ bytes"
  "${BIN_DIR}/04_memory" --quick --mem-limit 64K)
cm_cpu_run(04_memory.n_too_large_for_budget exit 1
  "below the smallest out-of-core tiling for n = 1048576"
  "${BIN_DIR}/04_memory" --part outofcore --n 1M)

# cm04_gpu_fails(SUFFIX REGEX ARGS...): on a GPU, ARGS must end with exit 1
# and one stderr line matching REGEX; without a GPU (exit 77) it is skipped.
function(cm04_gpu_fails suffix regex)
  add_test(04_memory.gpu_${suffix} sh -c
    "err=$(\"$0\" \"$@\" 2>&1 >/dev/null); rc=$?; [ $rc -eq 77 ] && exit 77; echo \"$err\"; [ $rc -eq 1 ] && [ $(printf '%s\\n' \"$err\" | wc -l) -eq 1 ] && printf '%s\\n' \"$err\" | grep -Eq -- '${regex}'"
    "${BIN_DIR}/04_memory" ${ARGN})
  set_tests_properties(04_memory.gpu_${suffix} PROPERTIES LABELS gpu
                       SKIP_RETURN_CODE 77)
endfunction()
cm04_gpu_fails(n_too_large "^not enough GPU memory for .*: need [0-9]+ bytes .* free of"
               --part blocked --n 400000)
cm04_gpu_fails(accounting_too_large "^not enough GPU memory for x: need"
               --part accounting --n 400000)

# Each part alone, and odd sizes: n = 1 and 7, blocks that leave an edge,
# budgets that force several tiles and pieces.
foreach(part accounting blocked outofcore pool)
  cm_gpu(04_memory part_${part} --quick --part ${part})
endforeach()
cm_gpu(04_memory n1 --quick --n 1 --block 1 --streams 2)
cm_gpu(04_memory n7 --quick --n 7 --block 3 --streams 3)
cm_gpu(04_memory n515_tight --quick --n 515 --block 100 --mem-limit 2M
       --part outofcore)
cm_gpu(04_memory n1000_one_tile --quick --n 1000 --block 1000
       --mem-limit 64M --part outofcore)
cm_gpu(04_memory csv --quick --csv "${TEST_BIN_DIR}/04_memory_quick.csv")
