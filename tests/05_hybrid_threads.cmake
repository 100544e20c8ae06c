# 05_hybrid_threads: the shared checks, its own bad inputs, every mode on
# its own, and a spoiled task that must stop the run with exit 1.
cm_chapter(05_hybrid_threads)
cm_usage(05_hybrid_threads n_zero "--n: '0' must be at least 1" --n 0)
cm_usage(05_hybrid_threads tasks_zero "--tasks: '0' must be at least 1"
         --tasks 0)
cm_usage(05_hybrid_threads workers_zero "--workers: '0' must be at least 1"
         --workers 0)
cm_usage(05_hybrid_threads mode_bad "--mode: 'fast' is not one of"
         --mode fast)
cm_usage(05_hybrid_threads workers_without_pipeline
         "^05_hybrid_threads: --workers does nothing unless the pipeline"
         --mode serial --workers 2)
cm_usage(05_hybrid_threads threads_without_pipeline
         "^05_hybrid_threads: --threads does nothing unless the pipeline"
         --mode offload --threads 2)
cm_usage(05_hybrid_threads fail_task_range
         "--fail-task 8: the tasks are 0..7" --fail-task 8)
cm_usage(05_hybrid_threads timeline_missing
         "option '--timeline' needs a value" --timeline)
# Host memory is counted before the GPU is touched: 64 workers of
# 32768 x 32768 float64 need 1.65 TB, refused in one line (not killed by
# the OOM killer), and the --csv opened before leaves nothing behind.
cm_cpu_run(05_hybrid_threads.host_too_small exit 1
           "^05_hybrid_threads: not enough host memory for the task buffers of the largest mode: need "
           "${BIN_DIR}/05_hybrid_threads" --n 32768 --tasks 64 --workers 64)
cm_leaves_nothing(05_hybrid_threads.host_too_small_leaves_no_csv cpu 1
                  "${BIN_DIR}/05_hybrid_threads" --n 32768 --tasks 64
                  --workers 64 --csv r.csv)
cm_gpu(05_hybrid_threads serial --quick --mode serial)
cm_gpu(05_hybrid_threads offload --quick --mode offload)
cm_gpu(05_hybrid_threads pipeline --quick --mode pipeline --workers 3
       --threads 3 --repeat 2)
# Odd sizes: one task, more workers than tasks, a side that is not a
# multiple of anything.
cm_gpu(05_hybrid_threads odd --quick --n 97 --tasks 1 --workers 4)
cm_gpu(05_hybrid_threads files --quick --csv modes.csv
       --timeline timeline.csv)

# --fail-task 2 on the GPU, in each mode: exit 1 and exactly one stderr
# line, naming task 2 and the check that caught it. (run.sh's exit mode
# would count a skip, exit 77, as a failure, so this judges the run.)
foreach(mode serial offload pipeline)
  set(regex "^05_hybrid_threads: task 2 failed in the ${mode} mode: ")
  string(APPEND regex "Freivalds check: row [0-9]+ ")
  add_test(05_hybrid_threads.gpu_fail_task_${mode} sh -c [=[
err=$(mktemp) || exit 1
"$0" --quick --mode "$1" --fail-task 2 >/dev/null 2>"$err"
rc=$?
lines=$(wc -l <"$err")
cat "$err"
grep -Eq "$2" "$err"
found=$?
rm -f "$err"
[ $rc -eq 77 ] && exit 77
[ $rc -eq 1 ] && [ "$lines" -eq 1 ] && [ $found -eq 0 ] && exit 0
echo "expected exit 1 and one stderr line matching '$2';"
echo "got exit $rc and $lines stderr lines"
exit 1
]=] "${BIN_DIR}/05_hybrid_threads" ${mode}
      "${regex}")
  set_tests_properties(05_hybrid_threads.gpu_fail_task_${mode} PROPERTIES
                       LABELS gpu SKIP_RETURN_CODE 77)
endforeach()

# --csv and --timeline are opened before the GPU is touched: a path that
# cannot be written fails at once, one file named twice is refused (its
# rows would interleave), and a run that stops after the open (here
# without a GPU, exit 77) leaves neither file nor a temporary one.
cm_csv_opened_first(05_hybrid_threads --timeline t.csv)
cm_cpu_run(05_hybrid_threads.timeline_unwritable exit 1
           "^05_hybrid_threads: cannot write /nonexistent-dir/t.csv: "
           "${BIN_DIR}/05_hybrid_threads" --quick
           --timeline /nonexistent-dir/t.csv)
cm_usage(05_hybrid_threads csv_timeline_same
         "^05_hybrid_threads: --csv and --timeline name the same file"
         --csv "${TEST_BIN_DIR}/05_same.csv"
         --timeline "${TEST_BIN_DIR}/./05_same.csv")
cm_leaves_nothing(05_hybrid_threads.same_file_leaves_nothing cpu 2
                  "${BIN_DIR}/05_hybrid_threads" --quick --csv x.csv
                  --timeline ./x.csv)
# A failed task stops the run after both files were opened: exit 1, and
# neither file nor a temporary one is left.
cm_leaves_nothing(05_hybrid_threads.gpu_fail_task_leaves_no_csv gpu 1
                  "${BIN_DIR}/05_hybrid_threads" --quick --fail-task 2
                  --csv modes.csv --timeline timeline.csv)
