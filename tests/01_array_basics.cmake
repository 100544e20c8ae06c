# 01_array_basics: the shared checks, its own bad sizes, a GPU run that
# prints the range across several wrapped lines, and its CSV file. (No
# size 01 accepts needs more than 16 GiB of host memory, too little for a
# test to count on the host running out.)
cm_chapter(01_array_basics)
cm_usage(01_array_basics n_zero "--n: '0' must be at least 1" --n 0)
cm_usage(01_array_basics n_huge "--n: '4T' must be at most" --n 4T)
cm_usage(01_array_basics big_text "--big: size 'x' is not a number" --big x)
cm_gpu(01_array_basics long_range --quick --n 100 --big 7)

# --csv is opened before the GPU is touched: a path that cannot be written
# fails at once, and a run that stops after the open (here without a GPU,
# exit 77) leaves neither the CSV nor its temporary file.
cm_cpu_run(01_array_basics.csv_unwritable exit 1
           "^cannot write /nonexistent-dir/x.csv: "
           "${BIN_DIR}/01_array_basics" --quick --csv /nonexistent-dir/x.csv)
add_test(01_array_basics.no_gpu_leaves_no_csv sh
         "${SRC_DIR}/tests/no_leftovers.sh" 77
         "${BIN_DIR}/01_array_basics" --quick --csv r.csv)
set_tests_properties(01_array_basics.no_gpu_leaves_no_csv PROPERTIES
                     LABELS cpu ENVIRONMENT "CUDA_VISIBLE_DEVICES=-1")
