# 03_matmul: the shared checks, its own bad inputs, every precision alone,
# odd sizes, a CSV run, and a size that cannot fit on the GPU.
cm_chapter(03_matmul)
cm_usage(03_matmul n_zero "--n: '0' must be at least 1" --n 0)
cm_usage(03_matmul n_over_int "--n: '3000000000' must be at most 2147483647"
         --n 3000000000)
cm_usage(03_matmul n_overflow
         "^03_matmul: --n 2000000000: the matrices would need more bytes"
         --n 2000000000)
cm_usage(03_matmul precision_unknown
         "--precision: 'fp16' is not one of fp64\\|fp32\\|tf32\\|bf16\\|all"
         --precision fp16)
cm_usage(03_matmul sweep_takes_no_value "unknown option|doesn't allow"
         --sweep=3)

# Each precision on its own (with fp64, its reference), at odd sizes.
cm_gpu(03_matmul n1 --quick --n 1)
cm_gpu(03_matmul fp32 --n 33 --precision fp32 --repeat 2 --warmup 0)
cm_gpu(03_matmul tf32 --n 100 --precision tf32 --repeat 2)
cm_gpu(03_matmul bf16 --n 129 --precision bf16 --repeat 2)
cm_gpu(03_matmul csv --quick --csv matmul.csv)

# --n 200000 needs 960 GB of GPU memory: one clear line and exit 1. Without
# a GPU the program exits 77 first, which this test passes on as skipped.
add_test(03_matmul.gpu_too_big sh -c
  "\"$0\" --n 200000 >/dev/null 2>&1; [ $? -eq 77 ] && exit 77; exec \"$@\""
  "${BIN_DIR}/03_matmul" ${RUN} exit 1
  "^not enough GPU memory for A, B, C, their copies and cuBLAS: need 960"
  "${BIN_DIR}/03_matmul" --n 200000)
set_tests_properties(03_matmul.gpu_too_big PROPERTIES LABELS gpu
                     SKIP_RETURN_CODE 77)
