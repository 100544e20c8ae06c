# 02_interop: the shared checks, its own bad sizes, and a CSV-writing run.
cm_chapter(02_interop)
cm_usage(02_interop n_zero "--n: '0' must be at least 1" --n 0)
cm_usage(02_interop n_negative "--n: size '-5' is negative" --n -5)
cm_usage(02_interop n_overflow "--n: size '99999999999999999999' is too large"
         --n 99999999999999999999)
cm_gpu(02_interop odd_size --quick --n 333 --csv interop.csv)
