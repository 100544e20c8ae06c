# Chapter 06's input files (included by 06_image_preprocess.cmake, whose
# functions and folders they use, at this point of it): the fixtures, the
# fuzz seeds and crash inputs, every kind of bad or hostile file refused
# in one line, data sets' bad options, nothing half-written, and .npy
# files NumPy reads.

# The files: good ones in many formats and layouts, and broken ones,
# written once by test_06_fixtures; test_06_images checks loading them.
add_test(${ch}.fixtures "${TEST_BIN_DIR}/test_06_fixtures" --write "${fx}")
set_tests_properties(${ch}.fixtures PROPERTIES LABELS cpu
                     FIXTURES_SETUP images06)
set_tests_properties(test_06_images PROPERTIES FIXTURES_REQUIRED images06
                     ENVIRONMENT "FIXTURES_06=${fx}" SKIP_RETURN_CODE 77)
set_tests_properties(test_06_exif PROPERTIES FIXTURES_REQUIRED images06
                     ENVIRONMENT "FIXTURES_06=${fx}")
# The fuzz targets' seed corpus and every input that once crashed one
# (tests/fuzz/), replayed through the same code in this build.
set_tests_properties(test_06_fuzz PROPERTIES SKIP_RETURN_CODE 77
                     ENVIRONMENT "FUZZ_INPUTS=${SRC_DIR}/tests/fuzz")
# The walk of a JPEG's codes, on those seed files and files made from
# them.
set_tests_properties(test_06_jpeg_walk PROPERTIES SKIP_RETURN_CODE 77
                     ENVIRONMENT "FUZZ_INPUTS=${SRC_DIR}/tests/fuzz")

# bad_input(SUFFIX REGEX ARGS...): the lab exits 1 with one stderr line,
# without a GPU: the image is read and decoded before the device is
# selected. bad_batch(...): the same for imgbatch, whose files are each
# read and checked (header, structure, size) before it.
function(bad_input suffix regex)
  cm_cpu_run(${ch}.bad_${suffix} exit 1 "${regex}" "${bin}" ${ARGN})
  set_tests_properties(${ch}.bad_${suffix} PROPERTIES
                       FIXTURES_REQUIRED images06)
endfunction()
function(bad_batch suffix regex)
  cm_cpu_run(imgbatch.bad_${suffix} exit 1 "^imgbatch: .*${regex}" "${tool}"
             ${ARGN})
  set_tests_properties(imgbatch.bad_${suffix} PROPERTIES
                       FIXTURES_REQUIRED images06)
endfunction()
bad_input(missing "missing.png: cannot open: No such file" "${fx}/missing.png")
bad_input(empty "empty.png: file is empty" "${fx}/empty.png")
bad_input(not_image "notimage.png: not an image" "${fx}/notimage.png")
# Every format stb_image reads, cut in half: refused, naming the format
# (found from the file's structure for PNG, JPEG and HDR, and for every
# format when decoding asks for bytes past the end).
foreach(cut png:PNG jpg:JPEG bmp:BMP gif:GIF tga:TGA psd:PSD hdr:HDR
            pic:PIC pgm:PGM ppm:PPM)
  string(REPLACE ":" ";" cut "${cut}")
  list(GET cut 0 ext)
  list(GET cut 1 format)
  bad_input(truncated_${ext} "truncated.${ext}: truncated ${format}: "
            "${fx}/truncated.${ext}")
endforeach()
bad_input(truncated_raw_tga
          "truncated_raw.tga: truncated TGA: .*, the image at byte 2571 "
          "${fx}/truncated_raw.tga")
bad_input(zero_width "zero_width.png: PNG header says 0 x 23 pixels"
          "${fx}/zero_width.png")
bad_input(corrupt_png "corrupt.png: cannot decode the PNG data: corrupt"
          "${fx}/corrupt.png")
bad_input(huge "huge.png: header says 100000 x 100000 = 10000000000 pixels"
          "${fx}/huge.png")
# Headers on which stb_image 2.27 writes past a table or overflows an
# int: refused by the checks before it (a JPEG after fill bytes is walked
# too; a Huffman segment must be filled by its tables; PGM and PPM header
# numbers are bounded; a BMP's height of -2^31 is refused, and any other
# negative one read as a top-down BMP); the same files for imgbatch below.
set(hostile
    "fill_huffman.jpg|corrupt JPEG: .* at byte 178 has 267 codes, more than 256"
    "dht_tail.jpg|corrupt JPEG: the Huffman tables at byte 6 do not fill .*"
    "wide.pgm|PGM header's width at byte 3 is more than 16777216: too large"
    "deep.ppm|PPM header's maximum value at byte 7 is more than 65535: too"
    "lowest.bmp|BMP header says a height of -2147483648 pixels: too large")
foreach(case ${hostile})
  string(REPLACE "|" ";" case "${case}")
  list(GET case 0 file)
  list(GET case 1 regex)
  string(REPLACE "." "_" suffix "${file}")
  bad_input(${suffix} "${file}: ${regex}" "${fx}/${file}")
endforeach()
bad_input(max_pixels "gray.png: .* more than --max-pixels 100$"
          --max-pixels 100 "${fx}/gray.png")
bad_input(out_folder "cannot write .*x.npy: folder .* does not exist"
          --out-npy "${fx}/no/such/x.npy" "${fx}/gray.png")
bad_input(out_npy_is_folder "cannot write .*06_fixtures: it is a folder, not"
          --out-npy "${fx}" "${fx}/gray.png")
bad_input(out_png_is_folder "cannot write .*06_fixtures: it is a folder, not"
          --out-png "${fx}" "${fx}/gray.png")
bad_input(folder "emptydir: is a folder, not an image file .*imgbatch"
          "${fx}/emptydir")
bad_input(not_regular "/dev/null: is not a regular file" /dev/null)
# A file over the 2 GiB that stb_image counts in an int: refused from its
# size, before it is read (a sparse file, no disk used, removed after).
set(big "${TEST_BIN_DIR}/06_over_2gib.png")
add_test(${ch}.bad_over_2gib sh -c "truncate -s 2147483648 \"$0\" || exit 1
\"$@\"; rc=$?; rm -f \"$0\"; exit $rc" "${big}" ${RUN} exit 1
         "06_over_2gib.png: file is larger than the 2 GiB stb_image can read"
         "${bin}" "${big}")
set_tests_properties(${ch}.bad_over_2gib PROPERTIES LABELS cpu
                     ENVIRONMENT "CUDA_VISIBLE_DEVICES=-1")

bad_batch(missing "missing.png: cannot open: No such file" "${fx}/missing.png")
bad_batch(directory "folder.png: is a folder, not an image file"
          "${fx}/gray.png" "${fx}/folder.png")
bad_batch(empty_dir "emptydir: no image files" "${fx}/emptydir")
bad_batch(empty "empty.png: file is empty" "${fx}/gray.png" "${fx}/empty.png")
bad_batch(not_image "notimage.png: not an image" "${fx}/notimage.png")
bad_batch(truncated_png "truncated.png: truncated PNG: " "${fx}/truncated.png")
bad_batch(huge "huge.png: header says 100000 x 100000" "${fx}/huge.png")
bad_batch(max_pixels "gray.png: .* more than --max-pixels 100$"
          --max-pixels 100 "${fx}/gray.png")
foreach(case ${hostile})
  string(REPLACE "|" ";" case "${case}")
  list(GET case 0 file)
  list(GET case 1 regex)
  string(REPLACE "." "_" suffix "${file}")
  bad_batch(${suffix} "${file}: ${regex}" --decoder cpu "${fx}/${file}")
endforeach()
# A side over the kernel's 32767 (the README's limits): refused like a bad
# file, and with --skip-bad named, left out, the run going on.
bad_batch(side_40000 "side_40000.pgm: 40000 x 1: more than the 32767 pixels "
          --resize 8x8 "${fx}/gray.png" "${fx}/side_40000.pgm")
add_test(imgbatch.skip_side_40000 sh -c "\"$0\" --skip-bad --resize 8x8 \"$1\" \
\"$2\" 2>&1; test $? -eq 77" "${tool}" "${fx}/gray.png" "${fx}/side_40000.pgm")
set_tests_properties(imgbatch.skip_side_40000 PROPERTIES LABELS cpu
  FIXTURES_REQUIRED images06 ENVIRONMENT "CUDA_VISIBLE_DEVICES=-1"
  PASS_REGULAR_EXPRESSION
  "skipped: [^\n]*side_40000.pgm: 40000 x 1: more than the 32767 pixels a side.*batch: 1 images of 2 files \\(1 skipped\\)")
bad_batch(sizes "b.png: 20 x 10, but the batch is 37 x 23 .*--resize"
          "${fx}/batch_mixed")
bad_batch(truncated "batch_bad/b.png: truncated PNG" "${fx}/batch_bad")
bad_batch(list_missing "nolist.txt: cannot open" --list "${fx}/nolist.txt")
bad_batch(list_folder "emptydir: is a folder: --list takes a file of image"
          --list "${fx}/emptydir")
bad_batch(list_nul "list_nul.txt: line 2 holds a NUL byte: --list takes a"
          --list "${fx}/list_nul.txt")
bad_batch(list_long "list_long.txt: line 1 is longer than a path can be"
          --list "${fx}/list_long.txt")
bad_batch(out_folder "cannot write .*x.npy: folder .* does not exist"
          --out-npy "${fx}/no/such/x.npy" "${fx}/batch")
bad_batch(out_npy_is_folder "cannot write .*06_fixtures: it is a folder, not"
          --out-npy "${fx}" "${fx}/batch")
bad_batch(csv_is_folder "cannot write .*06_fixtures: it is a folder, not"
          --csv "${fx}" "${fx}/batch")
# Every file bad, with --skip-bad: each named, then one line, exit 1 and
# no .npy; before the GPU is touched when the probe refuses them all.
add_test(imgbatch.bad_all_skipped ${tool_sh} all-bad "${tool}"
         "${fx}/batch_all_bad" 3)
set_tests_properties(imgbatch.bad_all_skipped PROPERTIES LABELS cpu
                     ENVIRONMENT "CUDA_VISIBLE_DEVICES=-1"
                     FIXTURES_REQUIRED images06)
cm_cpu_run(imgbatch.no_gpu exit 77 "^imgbatch: ${CM_NO_GPU_LINE}" "${tool}"
           --quick --resize 8x8 "${fx}/batch_mixed")
set_tests_properties(imgbatch.no_gpu PROPERTIES FIXTURES_REQUIRED images06)
# A folder's file of a type not read (batch/notes.txt) is named and
# counted, not dropped in silence.
add_test(imgbatch.unread_named ${tool_sh} unread "${tool}" "${fx}")
set_tests_properties(imgbatch.unread_named PROPERTIES LABELS cpu
                     ENVIRONMENT "CUDA_VISIBLE_DEVICES=-1"
                     FIXTURES_REQUIRED images06)

# Data sets (batch/dataset.c, batch/sampler.c), without a GPU: class
# folders built from the fixtures (batch/tests.sh trees); their class
# line, the files left out, the order lines; each error in one line.
set(trees "${TEST_BIN_DIR}/06_trees")
add_test(imgbatch.dataset_trees ${tool_sh} trees "${fx}" "${trees}")
set_tests_properties(imgbatch.dataset_trees PROPERTIES LABELS cpu
                     FIXTURES_REQUIRED images06 FIXTURES_SETUP trees06)
add_test(imgbatch.dataset ${tool_sh} dataset "${tool}" "${trees}")
set_tests_properties(imgbatch.dataset PROPERTIES LABELS cpu
                     ENVIRONMENT "CUDA_VISIBLE_DEVICES=-1"
                     FIXTURES_REQUIRED trees06)
function(bad_dataset suffix regex)
  cm_cpu_run(imgbatch.bad_${suffix} exit 1 "^imgbatch: .*${regex}" "${tool}"
             ${ARGN})
  set_tests_properties(imgbatch.bad_${suffix} PROPERTIES
                       FIXTURES_REQUIRED "images06;trees06")
endfunction()
bad_dataset(class_no_image
            "no_image/a: class 'a' [(]label 0[)] holds no image imgbatch"
            --class-folders "${trees}/no_image")
bad_dataset(class_none "emptydir: no class folder in it: --class-folders"
            --class-folders "${fx}/emptydir")
bad_dataset(class_not_folder "gray.png: not a folder: --class-folders takes"
            --class-folders "${fx}/gray.png")
bad_dataset(list_mixed "mixed.txt: line 2 has no label, but line 1 has one"
            --list "${trees}/mixed.txt")
bad_dataset(out_labels_unlabelled "--out-labels: .*bare.txt has no labels"
            --out-labels "${trees}/l.npy" --list "${trees}/bare.txt")
# The outputs are complete or absent: a run stopped before the GPU is
# touched, by a class without an image (exit 1) or by no GPU (77), leaves
# no .npy, labels or CSV, not even a temporary file.
foreach(case "bad|1|no_image" "no_gpu|77|cls")
  string(REPLACE "|" ";" case "${case}")
  list(GET case 0 suffix)
  list(GET case 1 rc)
  list(GET case 2 tree)
  cm_leaves_nothing(imgbatch.${suffix}_leaves_no_outputs cpu ${rc} "${tool}"
                    --quick --class-folders "${trees}/${tree}" --out-npy x.npy
                    --out-labels l.npy --csv r.csv)
  set_tests_properties(imgbatch.${suffix}_leaves_no_outputs PROPERTIES
                       FIXTURES_REQUIRED trees06)
endforeach()

# Nothing half-written: a refused input leaves no output, not even a
# temporary file.
add_test(${ch}.bad_leaves_nothing sh "${script}" leaves-nothing "${bin}"
         "${fx}")
set_tests_properties(${ch}.bad_leaves_nothing PROPERTIES LABELS cpu
                     FIXTURES_REQUIRED images06)

# NumPy reads what npy.c writes, byte for byte as numpy.save would write it
# (skipped when NumPy is not installed).
add_test(${ch}.npy_numpy sh "${script}" numpy "${TEST_BIN_DIR}/test_06_npy"
         "${TEST_BIN_DIR}/06_ramp.npy" "${check_npy}")
set_tests_properties(${ch}.npy_numpy PROPERTIES LABELS cpu
                     SKIP_RETURN_CODE 77)
