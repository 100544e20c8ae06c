# 03_matmul: the shared checks, its own bad inputs, every precision alone,
# odd sizes, a CSV run, a size the host cannot hold, and its CSV file.
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
# Above n = 4096 the main run checks C by Freivalds' test, not the CPU.
cm_gpu(03_matmul freivalds --n 4097 --precision all --repeat 2 --warmup 1)

# Host memory is checked before the GPU is touched, so a size the host
# cannot hold fails the same way with or without a GPU: --n 1000000 asks
# for 24 TB (A, B and C alone; C is checked by Freivalds' test, whose six
# vectors add 48 MB). (This size also needs more GPU memory than
# any GPU has, but the host check comes first: the GPU's "not enough GPU
# memory" line is reached only on a host with more memory than the GPU.)
cm_cpu_run(03_matmul.host_too_small exit 1
  "^03_matmul: not enough host memory for A, B, C and Freivalds' test: need \
24000048000000 bytes"
  "${BIN_DIR}/03_matmul" --n 1000000)

# --csv is opened before the GPU is touched (tests.cmake says what that
# checks).
cm_csv_opened_first(03_matmul)
