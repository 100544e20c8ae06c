# 07_bandwidth: the shared checks, its own bad inputs, sizes that do not
# fit the host, GPU runs of every part, of the sweep, of --all-gpus and of
# --p2p, and the PNG that `make plot-07` draws from a CSV (skipped where
# gnuplot is missing).
cm_chapter(07_bandwidth)
cm_usage(07_bandwidth n_zero "--n: '0' must be at least 1" --n 0)
cm_usage(07_bandwidth arrays_text "--arrays: size 'many' is not a number"
         --arrays many)
cm_usage(07_bandwidth array_bytes_odd
         "^07_bandwidth: --array-bytes must be a multiple of 8"
         --array-bytes 12)
cm_usage(07_bandwidth streams_many "--streams: '33' must be at most 32"
         --streams 33)
cm_usage(07_bandwidth work_zero "--work: '0' must be at least 1" --work 0)
# An option that does nothing in the mode asked is refused, even when it
# repeats the default.
cm_usage(07_bandwidth min_without_sweep
         "^07_bandwidth: --min does nothing without --sweep" --min 1M)
cm_usage(07_bandwidth max_default_without_sweep
         "^07_bandwidth: --max does nothing without --sweep" --max 1G)
cm_usage(07_bandwidth n_with_sweep
         "^07_bandwidth: --n does nothing with --sweep" --sweep --n 5000)
cm_usage(07_bandwidth arrays_with_sweep
         "^07_bandwidth: --arrays does nothing with --sweep" --arrays 5
         --sweep)
# --all-gpus and --p2p refuse what they would ignore, shared options
# included, and each other, before they look for a GPU.
cm_usage(07_bandwidth n_with_all_gpus
         "^07_bandwidth: --n does nothing with --all-gpus" --all-gpus
         --n 5000)
cm_usage(07_bandwidth array_bytes_with_all_gpus
         "^07_bandwidth: --array-bytes does nothing with --all-gpus"
         --all-gpus --array-bytes 12)
cm_usage(07_bandwidth max_with_p2p
         "^07_bandwidth: --max does nothing with --p2p" --p2p --max 1G)
cm_usage(07_bandwidth sweep_with_p2p
         "^07_bandwidth: --sweep does nothing with --p2p" --sweep --p2p)
cm_usage(07_bandwidth p2p_with_all_gpus
         "^07_bandwidth: --p2p does nothing with --all-gpus" --p2p
         --all-gpus)
cm_usage(07_bandwidth csv_with_all_gpus
         "^07_bandwidth: --csv does nothing with --all-gpus" --all-gpus
         --csv r.csv)
cm_usage(07_bandwidth device_with_p2p
         "^07_bandwidth: --device does nothing with --p2p" --p2p
         --device 1)
foreach(mode all-gpus p2p)
  string(REPLACE "-" "_" suffix ${mode})
  cm_cpu_run(07_bandwidth.${suffix}_no_gpu exit 77
             "^07_bandwidth: ${CM_NO_GPU_LINE}" "${BIN_DIR}/07_bandwidth"
             --quick --${mode})
endforeach()
# --help prints size defaults as they are typed.
add_test(07_bandwidth.help_sizes "${BIN_DIR}/07_bandwidth" --help)
set_tests_properties(07_bandwidth.help_sizes PROPERTIES LABELS cpu
  PASS_REGULAR_EXPRESSION "--array-bytes SIZE[^\n]*\\(default 8K\\)\n[^@]*--max SIZE[^\n]*\\(default 1G\\)")
cm_usage(07_bandwidth min_above_max
         "^07_bandwidth: --min must not be larger than --max" --sweep
         --min 2M --max 1M)
cm_usage(07_bandwidth max_huge "--max: '2T' must be at most" --sweep
         --max 2T)
cm_cpu_run(07_bandwidth.host_too_small exit 1
           "^07_bandwidth: not enough host memory for the arrays of this chapter: need "
           "${BIN_DIR}/07_bandwidth" --n 1000000)
cm_cpu_run(07_bandwidth.sweep_host_too_small exit 1
           "^07_bandwidth: not enough host memory for the sweep's four host buffers: need "
           "${BIN_DIR}/07_bandwidth" --sweep --max 1T)
cm_csv_opened_first(07_bandwidth)
# --csv is opened before the host memory check and the GPU: a run that
# stops after the open, for want of host memory (exit 1) or of a GPU
# (exit 77), leaves neither the CSV nor its temporary file.
function(cm07_leaves_no_csv name rc)
  cm_leaves_nothing(07_bandwidth.${name}_leaves_no_csv cpu ${rc}
                    "${BIN_DIR}/07_bandwidth" ${ARGN} --csv r.csv)
endfunction()
cm07_leaves_no_csv(host_too_small 1 --n 1000000)
cm07_leaves_no_csv(sweep_host_too_small 1 --sweep --max 1T)
cm07_leaves_no_csv(sweep_no_gpu 77 --quick --sweep)
cm_gpu(07_bandwidth odd_sizes --quick --n 333 --arrays 7 --array-bytes 24
       --chunks 5 --streams 3 --work 3 --csv bandwidth.csv)
cm_gpu(07_bandwidth one_stream --quick --chunks 1 --streams 1 --repeat 1
       --warmup 0)
cm_gpu(07_bandwidth tiny --quick --n 2 --arrays 1 --array-bytes 8)
cm_gpu(07_bandwidth sweep --quick --sweep --min 1001 --max 300000
       --csv sweep.csv)
# Every GPU of the machine; on a machine with one GPU, that one alone and
# a copy within it (nothing to run at once, nothing to pair).
cm_gpu(07_bandwidth all_gpus --quick --all-gpus)
cm_gpu(07_bandwidth all_gpus_one_run --quick --all-gpus --repeat 1
       --warmup 0)
cm_gpu(07_bandwidth p2p --quick --p2p)

add_test(07_bandwidth.plot sh "${SRC_DIR}/07_bandwidth/test_plot.sh"
         "${SRC_DIR}")
set_tests_properties(07_bandwidth.plot PROPERTIES LABELS cpu
                     SKIP_RETURN_CODE 77)
