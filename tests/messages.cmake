# A long path in a message is shortened to its first and last 80
# characters with "..." between (common/files.h, CM_PATH_FMT), so that
# the reason after it is always there: a missing file 3,900 characters
# deep, and an output 860 deep in a folder that does not exist (the path
# and its folder both in one message), for chapter 03's --csv, 06's lab
# and its batch tool. Each exits 1 with one line ending in the reason.
string(REPEAT "d" 120 part)
string(REPEAT "${part}/" 32 deep)
string(REPEAT "${part}/" 7 mid)
set(long "/nonexistent/${deep}")
set(mid "/nonexistent/${mid}")
set(shown "/nonexistent/d+[.][.][.]d+")
set(enoent "No such file or directory$")
if("03_matmul" IN_LIST CHAPTERS)
  cm_cpu_run(03_matmul.long_path_csv exit 1
             "^03_matmul: cannot write ${shown}/x[.]csv: ${enoent}"
             "${BIN_DIR}/03_matmul" --quick --csv "${mid}x.csv")
  cm_cpu_run(03_matmul.longer_path_csv exit 1
             "^03_matmul: cannot write ${shown}/x[.]csv: path too long$"
             "${BIN_DIR}/03_matmul" --quick --csv "${long}x.csv")
endif()
if("06_image_preprocess" IN_LIST CHAPTERS)
  set(lab "${BIN_DIR}/06_image_preprocess")
  set(fx "${TEST_BIN_DIR}/06_fixtures")
  set(folder_missing "folder ${shown} does not exist$")
  cm_cpu_run(06_image_preprocess.long_path_missing exit 1
    "^06_image_preprocess: ${shown}/x[.]png: cannot open: ${enoent}"
    "${lab}" "${long}x.png")
  cm_cpu_run(06_image_preprocess.long_path_out_npy exit 1
    "^06_image_preprocess: cannot write ${shown}/x[.]npy: ${folder_missing}"
    "${lab}" --out-npy "${mid}x.npy" "${fx}/gray.png")
  cm_cpu_run(imgbatch.long_path_missing exit 1
    "^imgbatch: ${shown}/x[.]png: cannot open: ${enoent}"
    "${BIN_DIR}/imgbatch" "${fx}/gray.png" "${long}x.png")
  cm_cpu_run(imgbatch.long_path_list exit 1
    "^imgbatch: ${shown}/x[.]txt: cannot open: ${enoent}"
    "${BIN_DIR}/imgbatch" --list "${long}x.txt")
  cm_cpu_run(imgbatch.long_path_out_npy exit 1
    "^imgbatch: cannot write ${shown}/x[.]npy: ${folder_missing}"
    "${BIN_DIR}/imgbatch" --out-npy "${mid}x.npy" "${fx}/batch")
  set_tests_properties(06_image_preprocess.long_path_out_npy
                       imgbatch.long_path_missing imgbatch.long_path_out_npy
                       PROPERTIES FIXTURES_REQUIRED images06)
endif()
