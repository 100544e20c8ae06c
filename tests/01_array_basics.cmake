# 01_array_basics: the shared checks, its own bad sizes, and a GPU run that
# prints the range across several wrapped lines.
cm_chapter(01_array_basics)
cm_usage(01_array_basics n_zero "--n: '0' must be at least 1" --n 0)
cm_usage(01_array_basics n_huge "--n: '4T' must be at most" --n 4T)
cm_usage(01_array_basics big_text "--big: size 'x' is not a number" --big x)
cm_gpu(01_array_basics long_range --quick --n 100 --big 7)
