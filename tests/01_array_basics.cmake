# 01_array_basics: the shared checks, its own bad sizes, a GPU run that
# prints the range across several wrapped lines, and its CSV file. (No
# size 01 accepts needs more than 16 GiB of host memory, too little for a
# test to count on the host running out.)
cm_chapter(01_array_basics)
cm_usage(01_array_basics n_zero "--n: '0' must be at least 1" --n 0)
cm_usage(01_array_basics n_huge "--n: '4T' must be at most" --n 4T)
cm_usage(01_array_basics big_text "--big: size 'x' is not a number" --big x)
cm_gpu(01_array_basics long_range --quick --n 100 --big 7)

# --csv is opened before the GPU is touched (tests.cmake says what that
# checks).
cm_csv_opened_first(01_array_basics)
