# 06_image_preprocess: the lab (one image) and its batch tool, imgbatch
# (batch/): the shared checks; their usage errors; bad input files
# (written by test_06_fixtures into a fixture folder), each refused with
# one line naming the file, on the CPU; NumPy reading our .npy; on the GPU
# the lab's two paths on odd sizes and every image layout, and the tool's
# batches, decoders and outputs.
set(ch 06_image_preprocess)
set(bin "${BIN_DIR}/${ch}")
set(tool "${BIN_DIR}/imgbatch")
set(fx "${TEST_BIN_DIR}/06_fixtures")
set(check_npy "${SRC_DIR}/${ch}/check_npy.py")
set(script "${SRC_DIR}/${ch}/tests.sh")
set(tool_sh sh "${SRC_DIR}/${ch}/batch/tests.sh")
cm_chapter(${ch} TAKES_ARGUMENTS)

# The lab takes one image: several, a folder, or a batch option are
# refused, pointing to imgbatch.
cm_usage(${ch} synthetic_text "--synthetic: 'big' is not WIDTHxHEIGHT"
         --synthetic big)
cm_usage(${ch} synthetic_zero "--synthetic: '0x5' is not WIDTHxHEIGHT"
         --synthetic 0x5)
cm_usage(${ch} synthetic_cap "--synthetic: 20000 x 20000 is more than"
         --synthetic 20000x20000)
cm_usage(${ch} max_pixels_zero "--max-pixels: '0' must be at least 1"
         --max-pixels 0)
cm_usage(${ch} two_images "give one IMAGE: several images are a batch, "
         --out-png x.png a.png b.png)
cm_usage(${ch} batch_option "unknown option '--resize'"
         --resize 8x8 --synthetic 9x9)
cm_usage(${ch} decoder_option "unknown option '--decoder'"
         --decoder gpu a.jpg)
cm_usage(${ch} list_option "unknown option '--list'" --list files.txt)

# The lesson (README): a file stb_image cannot read is one stderr line
# naming it, with stb's reason, exit 1; so is an image taller than its
# grid covers, 65535 blocks of 8 rows (524280 rows, which it still takes).
# It looks for the GPU before the file: these run on a GPU.
set(lesson "${BIN_DIR}/${ch}.lesson")
set(tall "${TEST_BIN_DIR}/06_lesson_rows")
add_test(${ch}.gpu_lesson_missing ${RUN} gpu-exit 1 "missing\\.png: ."
         "${lesson}" "${fx}/missing.png")
add_test(${ch}.gpu_lesson_not_image ${RUN} gpu-exit 1 "notimage\\.png: ."
         "${lesson}" "${fx}/notimage.png")
foreach(rows 524280 524281)
  set(file "${tall}_${rows}.pgm")
  if(rows EQUAL 524280)
    set(judge pass)
  else()
    set(judge gpu-exit 1 "_${rows}\\.pgm: too tall")
  endif()
  add_test(${ch}.gpu_lesson_rows_${rows} sh -c
           "printf 'P5 1 ${rows} 255\\n' >\"$0\" && dd if=/dev/zero bs=${rows} count=1 2>/dev/null >>\"$0\" && exec \"$@\""
           "${file}" ${RUN} ${judge} "${lesson}" "${file}")
endforeach()
set_tests_properties(${ch}.gpu_lesson_missing ${ch}.gpu_lesson_not_image
                     ${ch}.gpu_lesson_rows_524280 ${ch}.gpu_lesson_rows_524281
                     PROPERTIES LABELS gpu SKIP_RETURN_CODE 77
                     FIXTURES_REQUIRED images06)

# imgbatch's own usage errors and shared options; tool_usage(SUFFIX REGEX
# ARGS...): exit 2 and one stderr line "imgbatch: REGEX".
function(tool_usage suffix regex)
  cm_cpu_run(imgbatch.usage_${suffix} exit 2 "^imgbatch: ${regex}"
             "${tool}" ${ARGN})
endfunction()
cm_cpu_run(imgbatch.help help "${tool}" --help)
tool_usage(unknown_option "unknown option '--no-such-option'"
           --no-such-option)
tool_usage(missing_value "option '--repeat' needs a value" --repeat)
tool_usage(repeat_zero "--repeat: '0' must be at least 1" --repeat 0 d)
tool_usage(device_negative "--device: '-1' must be at least 0"
           --device -1 d)
tool_usage(no_inputs "give a folder, image files or --list FILE")
tool_usage(list_and_paths "give either --list FILE or image paths"
           --list files.txt a.png)
tool_usage(resize_text "--resize: '8' is not WIDTHxHEIGHT"
           --resize 8 a.png b.png)
tool_usage(max_pixels_zero "--max-pixels: '0' must be at least 1"
           --max-pixels 0 d)
tool_usage(decoder_choice "--decoder: 'fast' is not one of"
           --decoder fast a.jpg b.jpg)
tool_usage(resize_short_alone "--resize-short S goes with --crop WxH"
           --resize-short 100 d)
tool_usage(crop_too_big "--crop 120x100 is larger than the short side 100"
           --resize-short 100 --crop 120x100 d)
tool_usage(resize_and_crop "--resize or --resize-short with --crop, not"
           --resize 8x8 --resize-short 10 --crop 8x8 d)
tool_usage(color_choice "--color: 'cmyk' is not one of" --color cmyk d)
tool_usage(dtype_choice "--dtype: 'int8' is not one of" --dtype int8 d)
tool_usage(mean_count "--mean: '1,2': give one value or 3, one per channel"
           --color rgb --mean 1,2 d)
tool_usage(std_zero "--std: '0' is not numbers above 0" --std 0 d)
tool_usage(mean_uint8 "--mean and --std do nothing with --dtype uint8"
           --dtype uint8 --mean 0.5 d)
tool_usage(flip_both "--flip or --no-flip, not both" --flip --no-flip d)
tool_usage(exif_both "--exif or --no-exif, not both" --exif --no-exif d)
tool_usage(backend_choice "--nvjpeg-backend: 'npu' is not one of"
           --nvjpeg-backend npu d)
tool_usage(backend_cpu "--nvjpeg-backend does nothing with --decoder cpu"
           --nvjpeg-backend hybrid --decoder cpu d)
tool_usage(keep_and_npy "--keep-on-gpu writes no tensor"
           --keep-on-gpu --out-npy x.npy a.jpg b.jpg)
tool_usage(bare_cpu "--bare-decode times the GPU decoder"
           --bare-decode --decoder cpu a.jpg b.jpg)
tool_usage(bare_keep "--keep-on-gpu does nothing with --bare-decode"
           --bare-decode --keep-on-gpu a.jpg)
# The data set's options: a seed without the shuffle, a rank without the
# world size or not below it, class folders that are not one folder,
# labels asked of images that have none, the order with --bare-decode.
tool_usage(seed_alone "--seed does nothing without --shuffle" --seed 3 d)
tool_usage(seed_text "--seed: '-1' is not a whole number from 0 to "
           --shuffle --seed -1 d)
tool_usage(seed_too_big "--seed: '18446744073709551616' is not a whole"
           --shuffle --seed 18446744073709551616 d)
tool_usage(rank_alone "--rank R and --world-size W go together" --rank 1 d)
tool_usage(world_alone "--rank R and --world-size W go together"
           --world-size 2 d)
tool_usage(rank_too_big "--rank 2 must be below --world-size 2"
           --rank 2 --world-size 2 d)
tool_usage(world_zero "--world-size: '0' must be at least 1"
           --rank 0 --world-size 0 d)
tool_usage(class_folders_two "--class-folders takes one folder: the one "
           --class-folders d e)
tool_usage(class_folders_list "--class-folders takes one folder"
           --class-folders --list files.txt)
tool_usage(out_labels_none "--out-labels needs labels: give --class-folders"
           --out-labels l.npy d)
tool_usage(out_labels_same "--out-npy and --out-labels name the same file"
           --class-folders --out-labels x.npy --out-npy x.npy d)
tool_usage(check_images_negative "--check-images: '-1' must be at least 0"
           --check-images -1 d)
tool_usage(bare_check_images "--check-images does nothing with --bare-decode"
           --bare-decode --check-images 8 d)
foreach(option shuffle drop-last out-labels)
  set(args --${option})
  if(option STREQUAL "out-labels")
    set(args --out-labels l.npy --class-folders)
  endif()
  tool_usage(bare_${option} "--${option} does nothing with --bare-decode"
             --bare-decode ${args} d)
endforeach()

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

# GPU: the lab's both paths on odd sizes (the fused kernel's groups of 4
# pixels that cross a row end, its 4- and 1-byte loads; the last two
# sizes are big enough for its grid-stride loop to go round on an H200),
# and every file layout.
foreach(size 1x1 1x7 7x1 3x1000 1000x3 1001x1001 4096x1500 3001x2001)
  cm_gpu(${ch} synthetic_${size} --quick --synthetic ${size})
endforeach()
foreach(file gray.png rgb.png rgba.png gray16.png palette.png rgb.jpg
             gray.bmp rgba.bmp top_down.bmp gray.tga rgb.tga gray.pgm
             rgb.ppm gray16.pgm rgb16.ppm gray.gif gray.psd gray.hdr
             gray.pic)
  cm_gpu(${ch} file_${file} --quick "${fx}/${file}")
  set_tests_properties(${ch}.gpu_file_${file} PROPERTIES
                       FIXTURES_REQUIRED images06)
endforeach()

# GPU: imgbatch on the fixture folders (checked in every value by the
# reader threads, one thread in batch_corrupt_skip), with a tensor kept on
# the GPU, and with batches of one image on one stream and on three (the
# buffers' rotation); resized, as RGB, float16 with a mean and std.
function(tool_gpu suffix)
  add_test(imgbatch.gpu_${suffix} ${RUN} pass "${tool}" ${ARGN})
  set_tests_properties(imgbatch.gpu_${suffix} PROPERTIES LABELS gpu
                       SKIP_RETURN_CODE 77 FIXTURES_REQUIRED images06)
endfunction()
tool_gpu(batch_dir "${fx}/batch")
tool_gpu(batch_resize --resize 40x30 --threads 2 --streams 2
         "${fx}/batch_mixed")
tool_gpu(batch_skip_bad --skip-bad "${fx}/batch_bad")
tool_gpu(batch_corrupt_skip --skip-bad --threads 1 "${fx}/batch_corrupt")
tool_gpu(batch_cut_skip --skip-bad "${fx}/batch_cut")
# Every file found bad only when decoded, inside the pipeline.
add_test(imgbatch.gpu_all_undecodable ${tool_sh} all-bad "${tool}"
         "${fx}/batch_undecodable" 2)
set_tests_properties(imgbatch.gpu_all_undecodable PROPERTIES LABELS gpu
                     SKIP_RETURN_CODE 77 FIXTURES_REQUIRED images06)
tool_gpu(batch_list --list "${fx}/list.txt" --resize 16x9 --streams 1)
tool_gpu(batch_keep --keep-on-gpu "${fx}/batch")
tool_gpu(batch_resize_keep --keep-on-gpu --resize 40x30 "${fx}/batch_mixed")
tool_gpu(batch_one_stream --batch-size 1 --streams 1 --repeat 2
         "${fx}/batch")
tool_gpu(batch_three_streams --batch-size 1 --streams 3 --decoder cpu
         "${fx}/batch")
tool_gpu(batch_rgb_half --color rgb --dtype float16 --mean 0.485,0.456,0.406
         --std 0.229,0.224,0.225 --resize 23x17 "${fx}/batch_mixed")
tool_gpu(batch_crop_uint8 --resize-short 20 --crop 16x12 --dtype uint8
         --no-flip "${fx}/batch_mixed")

# GPU, then files: the outputs open as what they claim to be. The PNG the
# lab wrote is read back by the lab; NumPy loads its tensor; a file that
# fails to decode inside imgbatch's pipeline (corrupt, or cut short)
# leaves no partial .npy, or with --skip-bad a .npy whose header counts
# only the good images.
add_test(${ch}.gpu_outputs sh "${script}" outputs "${bin}" "${fx}"
         "${check_npy}")
add_test(imgbatch.gpu_outputs ${tool_sh} outputs "${tool}" "${fx}")
set_tests_properties(${ch}.gpu_outputs imgbatch.gpu_outputs PROPERTIES
                     LABELS gpu SKIP_RETURN_CODE 77
                     FIXTURES_REQUIRED images06)

# The library's example (batch/example.cu): without a GPU it exits 77
# once the folder is checked, and 2 without a folder; on a GPU it loads
# the fixture folder and prints PASS.
cm_cpu_run(imgbatch.example_no_gpu exit 77
           "^imgbatch_example: ${CM_NO_GPU_LINE}"
           "${BIN_DIR}/imgbatch_example" "${fx}/batch")
cm_cpu_run(imgbatch.example_usage exit 2 "^usage: .*imgbatch_example FOLDER"
           "${BIN_DIR}/imgbatch_example")
add_test(imgbatch.gpu_example ${RUN} pass "${BIN_DIR}/imgbatch_example"
         "${fx}/batch_mixed")
set_tests_properties(imgbatch.example_no_gpu imgbatch.gpu_example
                     PROPERTIES FIXTURES_REQUIRED images06)
set_tests_properties(imgbatch.gpu_example PROPERTIES LABELS gpu
                     SKIP_RETURN_CODE 77)

# The library never ends its host process: its objects refer to no
# exit (batch/never_exits.sh, nm). tests/test_06_loader.c, a unit test on
# the CPU (it hides the GPUs itself), checks its statuses without a GPU;
# on a GPU (imgbatch.gpu_loader) allocations of open + next + close
# failing in turn (40 of them spread over all, for each of three ways to
# run; IMGBATCH_TEST_EVERY_ALLOCATION=1: every one), two loaders at once,
# another thread, and a file changed between open and next on every
# decode path.
add_test(imgbatch.library_never_exits sh
         "${SRC_DIR}/${ch}/batch/never_exits.sh"
         "${TEST_BIN_DIR}/../obj/${ch}/batch")
set_tests_properties(imgbatch.library_never_exits PROPERTIES LABELS cpu)
# libimgbatch.so, which make builds but for the sanitizer builds, exports
# imgbatch.h's functions and nothing else, and refers to no exit
# (batch/so_check.sh: nm on the linked library; stb_image's assert, the
# one exception, named there).
if(NOT SANITIZE)
  add_test(imgbatch.so_exports sh "${SRC_DIR}/${ch}/batch/so_check.sh"
           "${TEST_BIN_DIR}/../lib/libimgbatch.so"
           "${SRC_DIR}/${ch}/batch/imgbatch.h" "${TEST_BIN_DIR}/../pic")
  set_tests_properties(imgbatch.so_exports PROPERTIES LABELS cpu)
endif()
# The Python module over it (batch/python/imgbatch, tests/imgbatch_py_test.py
# says what each run checks): on the CPU, with site-packages out of the
# path (python3 -S: the standard library alone) and the GPUs hidden, its
# errors and a batch's array interface; the module, its test and the
# training example compile, the README shows the example as it is, and
# the example without PyTorch exits 77. On
# a GPU with PyTorch (else skipped), its tensors against the command
# line's .npy, bit for bit, and the example for two steps.
if(NOT SANITIZE)
  set(py_dir "${SRC_DIR}/${ch}/batch/python")
  set(py_test "${SRC_DIR}/tests/imgbatch_py_test.py")
  set(py_env "IMGBATCH_LIBRARY=${TEST_BIN_DIR}/../lib/libimgbatch.so"
      "PYTHONPYCACHEPREFIX=${TEST_BIN_DIR}/pycache")
  add_test(imgbatch.py_compiles ${PYTHON} -m py_compile
           "${py_dir}/imgbatch/__init__.py" "${py_dir}/train_example.py"
           "${py_test}")
  add_test(imgbatch.py_cpu ${RUN} pass ${PYTHON} -S "${py_test}" cpu
           "${py_dir}" "${fx}")
  add_test(imgbatch.py_readme_example ${RUN} pass ${PYTHON} "${py_test}"
           readme "${py_dir}" "${SRC_DIR}/${ch}/batch/README.md"
           "${py_dir}/train_example.py")
  add_test(imgbatch.py_train_no_torch ${RUN} exit 77
           "^train_example.py: skipped: No module named .torch.$" ${PYTHON} -S
           "${py_dir}/train_example.py" "${fx}/batch")
  set_tests_properties(imgbatch.py_compiles imgbatch.py_cpu
                       imgbatch.py_readme_example
                       imgbatch.py_train_no_torch PROPERTIES LABELS cpu
                       ENVIRONMENT "${py_env};CUDA_VISIBLE_DEVICES=-1")
  set_tests_properties(imgbatch.py_cpu PROPERTIES FIXTURES_REQUIRED images06)
  add_test(imgbatch.gpu_python_npy ${RUN} pass ${PYTHON} "${py_test}" gpu
           "${py_dir}" "${fx}" "${tool}" "${TEST_BIN_DIR}/06_python")
  add_test(imgbatch.gpu_python_train ${RUN} pass ${PYTHON} "${py_test}"
           train "${py_dir}" "${py_dir}/train_example.py" "${tool}"
           "${TEST_BIN_DIR}/06_python_train")
  set_tests_properties(imgbatch.gpu_python_npy imgbatch.gpu_python_train
                       PROPERTIES LABELS gpu SKIP_RETURN_CODE 77
                       ENVIRONMENT "${py_env}" FIXTURES_REQUIRED images06)
endif()
add_test(imgbatch.gpu_loader "${TEST_BIN_DIR}/test_06_loader" gpu)
set_tests_properties(imgbatch.gpu_loader PROPERTIES LABELS gpu
                     SKIP_RETURN_CODE 77 TIMEOUT 600)

# The benchmark corpus (imgbatch --make-corpus, no GPU): its usage errors,
# and the files it writes (batch/corpus_check.sh; tests/test_06_corpus.c
# decodes them).
cm_cpu_run(imgbatch.corpus_help help "${tool}" --make-corpus --help)
foreach(case
    "no_dir|give the folder to write: --make-corpus DIR|"
    "unknown|unknown option '--colour'|d;--colour;red"
    "no_value|option '--count' needs a value|d;--count"
    "count_zero|--count: '0' must be at least 1|d;--count;0"
    "count_text|--count: 'many' is not a whole number|d;--count;many"
    "quality_high|--quality: '101' must be at most 100|d;--quality;101"
    "kind|--kind: 'cmyk' is not one of baseline, progressive|d;--kind;cmyk"
    "size_text|--size: 'vga' is not WIDTHxHEIGHT, imagenet|d;--size;vga"
    "size_zero|--size: '0x5' is not WIDTHxHEIGHT|d;--size;0x5"
    "size_side|--size: '70000x2': JPEG allows at most 65535|d;--size;70000x2"
    "two_dirs|unexpected argument 'e'|d;e"
    "wild_q|--quality does nothing with --kind wild|d;--kind;wild;--quality;8"
    "chroma_kind|--chroma is for --kind wild|d;--chroma;420"
    "chroma_value|--chroma: '411' is not mixed or 420|d;--chroma;411")
  string(REPLACE "|" ";" fields "${case}")
  list(GET fields 0 suffix)
  list(GET fields 1 regex)
  set(args "")
  list(LENGTH fields n)
  if(n GREATER 2)
    list(SUBLIST fields 2 -1 args)
  endif()
  tool_usage(corpus_${suffix} "--make-corpus: ${regex}" --make-corpus
             ${args})
endforeach()
add_test(imgbatch.corpus_files sh "${SRC_DIR}/${ch}/batch/corpus_check.sh"
         "${tool}")
set_tests_properties(imgbatch.corpus_files PROPERTIES LABELS cpu
                     ENVIRONMENT "CUDA_VISIBLE_DEVICES=-1")

# batch/bench_torchvision.py (torchvision doing what imgbatch does) and
# batch/bench.sh (the benchmark of the README's table): they compile or
# parse, a usage error is one line and exit 2; without PyTorch,
# torchvision or a GPU the first says so in one line and exits 77; the
# second extracts what photographs it finds (none here) and, with no GPU,
# stops with 77 after making its corpora.
if(NOT SANITIZE)
  set(bench_tv "${SRC_DIR}/${ch}/batch/bench_torchvision.py")
  add_test(imgbatch.bench_torchvision_compiles python3 -m py_compile
           "${bench_tv}" "${SRC_DIR}/${ch}/batch/pil_loader.py")
  set_tests_properties(imgbatch.bench_torchvision_compiles PROPERTIES
    LABELS cpu ENVIRONMENT "PYTHONPYCACHEPREFIX=${TEST_BIN_DIR}/pycache")
  cm_cpu_run(imgbatch.bench_torchvision_usage exit 2
             "^bench_torchvision.py: argument --repeat: '0' must be at least"
             python3 "${bench_tv}" --repeat 0 "${SRC_DIR}/${ch}")
  cm_cpu_run(imgbatch.bench_torchvision_crop_alone exit 2
             "^bench_torchvision.py: --resize-short S goes with --crop WxH"
             python3 "${bench_tv}" --resize-short 256 "${SRC_DIR}/${ch}")
  cm_cpu_run(imgbatch.bench_torchvision_no_gpu exit 77 "skipped$"
             python3 "${bench_tv}" "${SRC_DIR}/${ch}")
  set(bench_sh sh "${SRC_DIR}/${ch}/batch/bench.sh")
  cm_cpu_run(imgbatch.bench_usage exit 2 "^bench.sh: give the folder"
             ${bench_sh})
  cm_cpu_run(imgbatch.bench_rounds_usage exit 2
             "^bench.sh: --rounds: '0' is not a whole number above 0"
             ${bench_sh} "${TEST_BIN_DIR}/06_bench_rounds" --rounds 0)
  add_test(imgbatch.bench_photos ${bench_sh} "${TEST_BIN_DIR}/06_bench"
           --photos-only)
  set_tests_properties(imgbatch.bench_photos PROPERTIES LABELS cpu
                       PASS_REGULAR_EXPRESSION "^photographs: ")
  cm_cpu_run(imgbatch.bench_no_gpu exit 77
             "^bench.sh: no usable GPU: the corpora are in" ${bench_sh}
             "${TEST_BIN_DIR}/06_bench_cut" --count 6 --bin "${tool}")
  set_tests_properties(imgbatch.bench_no_gpu PROPERTIES
                       FIXTURES_REQUIRED images06 ENVIRONMENT
                       "CUDA_VISIBLE_DEVICES=-1;BENCH_PHOTOS=${fx}/batch")
  # Its parsing and table, with tests/bench_stand_in.sh standing in for
  # imgbatch (100, 130 and 70 images/s in turn, 10% either side), its
  # bare decode (200) and python3 (50): every column of a row filled from
  # the runs' lines, imgbatch's the median of its three rounds (100) and
  # the spread of all (63-143), its time over the bare decode's the
  # median of 2, 1.54 and 2.86; a torchvision run that ends without its
  # result line fails the benchmark.
  set(stand_in "${SRC_DIR}/tests/bench_stand_in.sh")
  set(stand_in_env "PYTHON=${stand_in};BENCH_PHOTOS=${SRC_DIR}/${ch}/batch")
  add_test(imgbatch.bench_table ${bench_sh} "${TEST_BIN_DIR}/06_bench_table"
           --count 2 --bin "${stand_in}")
  set_tests_properties(imgbatch.bench_table PROPERTIES LABELS cpu
    ENVIRONMENT "${stand_in_env}" PASS_REGULAR_EXPRESSION
    "wild_224 +100 \\(63-143\\) +200 \\(190-210\\) +2.00 +50 \\(40-60\\) @64 +2.00")
  # The DataLoader column (25 images/s from the stand-in) on the crop
  # rows, the 100,000-file row among them (here 3 hard links).
  add_test(imgbatch.bench_table_dataloader ${bench_sh}
           "${TEST_BIN_DIR}/06_bench_table_dl" --count 2 --big-count 3
           --bin "${stand_in}")
  set_tests_properties(imgbatch.bench_table_dataloader PROPERTIES LABELS cpu
    ENVIRONMENT "${stand_in_env}" PASS_REGULAR_EXPRESSION
    "\nwild_100k_crop_rgb_f16 +[0-9]+ \\([0-9]+-[0-9]+\\) .* 25 \\(20-30\\) +[0-9.]+\n")
  add_test(imgbatch.bench_no_result ${bench_sh}
           "${TEST_BIN_DIR}/06_bench_no_result" --count 2 --bin "${stand_in}")
  set_tests_properties(imgbatch.bench_no_result PROPERTIES LABELS cpu
    ENVIRONMENT "${stand_in_env};STAND_IN_NO_RESULT=1"
    PASS_REGULAR_EXPRESSION "\nsame +FAILED\n")
endif()

# JPEG decode on the GPU (batch/decoder.cu, batch/nvjpeg_decoder.cu): the
# folders of JPEGs the GPU tests read, written by --make-corpus
# (batch/tests.sh corpora), on the CPU.
set(jpegs "${TEST_BIN_DIR}/06_jpegs")
add_test(imgbatch.jpeg_corpora ${tool_sh} corpora "${tool}" "${jpegs}")
set_tests_properties(imgbatch.jpeg_corpora PROPERTIES LABELS cpu
                     FIXTURES_SETUP jpegs06)
# GPU: the wild folder as three class folders; the labels that come with
# each batch against the tensor's images, in turn, shuffled, over three
# ranks padded and cut, and kept on the GPU over shuffled passes
# (batch/tests.sh labels).
add_test(imgbatch.gpu_labels ${tool_sh} labels "${tool}" "${jpegs}"
         "${jpegs}/labels")
set_tests_properties(imgbatch.gpu_labels PROPERTIES LABELS gpu
                     SKIP_RETURN_CODE 77 FIXTURES_REQUIRED jpegs06)
# --antialias, in every build.
include("${SRC_DIR}/tests/06_antialias.cmake")
# A build without nvJPEG (HAVE_NVJPEG empty): --decoder gpu is refused in
# one line, exit 1, before a GPU is looked for; auto decodes every JPEG on
# the CPU. The GPU decode tests below need nvJPEG, so they are registered
# only in a build that has it.
if(NOT HAVE_NVJPEG)
  cm_cpu_run(imgbatch.decoder_gpu_not_built exit 1
             "^imgbatch: GPU JPEG decode not built: .*[(]make nvjpeg fetches"
             "${tool}" --decoder gpu "${jpegs}/baseline")
  set_tests_properties(imgbatch.decoder_gpu_not_built PROPERTIES
                       FIXTURES_REQUIRED jpegs06)
  add_test(imgbatch.gpu_decode_auto_without_nvjpeg ${tool_sh} routed
           "${tool}" 0 0 37 "${jpegs}/mixed")
  set_tests_properties(imgbatch.gpu_decode_auto_without_nvjpeg PROPERTIES
                       LABELS gpu SKIP_RETURN_CODE 77
                       FIXTURES_REQUIRED jpegs06)
  return()
endif()
# What the GPU has: --print-engine, and IMGBATCH_EMULATE_NO_ENGINE=1
# making it say none (tests tests.sh routed and bare adapt to it).
cm_cpu_run(imgbatch.print_engine_no_gpu exit 77 "^imgbatch: ${CM_NO_GPU_LINE}"
           "${tool}" --print-engine)
tool_usage(print_engine_images "--print-engine takes no images"
           --print-engine d)
add_test(imgbatch.gpu_print_engine ${tool_sh} engine "${tool}")
set_tests_properties(imgbatch.gpu_print_engine PROPERTIES LABELS gpu
                     SKIP_RETURN_CODE 77)
# GPU: each kind of file goes where it must, and every image matches
# stb_image's decode by the rules of batch/batch_check.h (PASS). The
# numbers are a GPU's with a JPEG engine; tests.sh routed turns them
# into what one without it does.
# decoded(SUFFIX GPU HYBRID CPU ARGS...): GPU images on the GPU, HYBRID of
# them (progressive JPEGs) by nvJPEG's hybrid path ("any": whichever),
# CPU on the CPU.
function(decoded suffix gpu hybrid cpu)
  add_test(imgbatch.gpu_decode_${suffix} ${tool_sh} routed "${tool}" ${gpu}
           ${hybrid} ${cpu} ${ARGN})
  set_tests_properties(imgbatch.gpu_decode_${suffix} PROPERTIES LABELS gpu
                       SKIP_RETURN_CODE 77 FIXTURES_REQUIRED jpegs06)
endfunction()
decoded(baseline 24 0 0 --decoder gpu "${jpegs}/baseline")
decoded(progressive 12 12 0 --decoder gpu "${jpegs}/progressive")
decoded(gray 12 0 0 --decoder gpu "${jpegs}/gray")
decoded(odd_size 12 0 0 --decoder gpu "${jpegs}/odd")
# 37 files in batches of 8: a short last batch, 9 progressive among them.
decoded(mixed 37 9 0 --batch-size 8 "${jpegs}/mixed")
decoded(mixed_kept 37 9 0 --batch-size 8 --keep-on-gpu --streams 3
        "${jpegs}/mixed")
decoded(mixed_npy 37 9 0 --decoder gpu --batch-size 5 --threads 3
        "${jpegs}/mixed" --out-npy "${jpegs}/mixed.npy")
decoded(cpu_kept 0 0 37 --decoder cpu --keep-on-gpu "${jpegs}/mixed")
decoded(cpu_back 0 0 37 --decoder cpu "${jpegs}/mixed")
# A wild folder: every size, chroma, restart markers, Exif, gray files;
# all on the GPU, resized, cropped, as RGB, kept whole, in small batches;
# and through each nvJPEG backend a GPU without the hardware decoder
# would take (its hybrid ones, forced here).
set(wild "${jpegs}/wild")
decoded(wild_resize 40 any 0 --decoder gpu --resize 64x48 --batch-size 16
        "${wild}")
decoded(wild_crop_kept 40 any 0 --resize-short 56 --crop 48x40
        --keep-on-gpu --batch-size 7 --streams 3 "${wild}")
decoded(wild_rgb 40 any 0 --color rgb --dtype float16 --resize 64x48
        --mean 0.485,0.456,0.406 --std 0.229,0.224,0.225 "${wild}")
decoded(wild_rgb_back 40 any 0 --color rgb --dtype uint8 --no-flip
        --resize-short 50 --crop 40x40 --batch-size 9 "${wild}")
decoded(wild_hardware 40 any 0 --nvjpeg-backend hardware --resize 64x48
        "${wild}")
decoded(wild_gpu_hybrid 40 0 0 --nvjpeg-backend gpu-hybrid --resize 64x48
        --batch-size 64 "${wild}")
decoded(wild_hybrid 40 40 0 --nvjpeg-backend hybrid --resize 64x48
        "${wild}")
decoded(wild_cpu 0 0 40 --decoder cpu --color rgb --resize 64x48 "${wild}")
add_test(imgbatch.gpu_decode_bare ${tool_sh} bare "${tool}"
         --batch-size 10 "${jpegs}/mixed")
add_test(imgbatch.gpu_decode_bare_wild ${tool_sh} bare "${tool}"
         --resize 64x48 --color rgb "${wild}")
add_test(imgbatch.gpu_decode_repeatable ${tool_sh} repeatable "${tool}"
         "${jpegs}/baseline" "${jpegs}/repeat")
# The check sees local damage: one image's output spoiled in a 16 x 16
# block by 50 levels (IMGBATCH_TEST_GARBLE, the check's test hook) fails
# naming its file: in RGB at 224 x 224, where each channel's mean stays
# within its bound and only the luma's per-pixel bound sees it, and gray.
add_test(imgbatch.gpu_check_garbled_rgb ${tool_sh} garbled "${tool}"
         img_00007.jpg 7 --color rgb --dtype float16 --resize 224x224
         "${wild}")
add_test(imgbatch.gpu_check_garbled_gray ${tool_sh} garbled "${tool}"
         img_00003.jpg 3 --dtype uint8 --resize 64x48 "${wild}")
# --check-images 2 of the 40: the first and the last image only; a
# garbled last one fails, a garbled middle one is not seen (and the
# check line says 2 of 40).
add_test(imgbatch.gpu_check_bounded_last ${tool_sh} garbled "${tool}"
         img_00039.jpg 39 --check-images 2 --dtype uint8 --resize 64x48
         "${wild}")
add_test(imgbatch.gpu_check_bounded_unseen ${tool_sh} unpicked "${tool}"
         20 "check: 2 of 40 images" --check-images 2 --dtype uint8
         --resize 64x48 "${wild}")
# The tensor's file: its type and shape in the header, its size.
add_test(imgbatch.gpu_npy_gray_f32 ${tool_sh} npy "${tool}"
         "${jpegs}/wild_f32.npy" "<f4" "(40, 48, 64)" --resize 64x48
         "${wild}")
add_test(imgbatch.gpu_npy_rgb_f16 ${tool_sh} npy "${tool}"
         "${jpegs}/wild_f16.npy" "<f2" "(40, 3, 48, 64)" --resize 64x48
         --color rgb --dtype float16 --mean 0.5 --std 0.25 "${wild}")
add_test(imgbatch.gpu_npy_u8_crop ${tool_sh} npy "${tool}"
         "${jpegs}/wild_u8.npy" "|u1" "(40, 3, 32, 40)" --color rgb
         --dtype uint8 --resize-short 48 --crop 40x32 "${wild}")
# The GPU decoder's tensor against the CPU decoder's, level by level.
add_test(imgbatch.gpu_vs_cpu_gray ${tool_sh} gpu-vs-cpu "${tool}"
         "${jpegs}/versus_gray" gray --resize 64x48 "${wild}")
add_test(imgbatch.gpu_vs_cpu_gray_same ${tool_sh} gpu-vs-cpu "${tool}"
         "${jpegs}/versus_same" gray "${jpegs}/odd")
add_test(imgbatch.gpu_vs_cpu_crop ${tool_sh} gpu-vs-cpu "${tool}"
         "${jpegs}/versus_crop" gray --resize-short 56 --crop 48x40
         "${wild}")
add_test(imgbatch.gpu_vs_cpu_rgb ${tool_sh} gpu-vs-cpu "${tool}"
         "${jpegs}/versus_rgb" rgb --color rgb --resize 64x48 "${wild}")
# Bad files in the middle of GPU batches: scan data of garbage (the
# structure whole, so only a decoder finds it) and a file cut in half,
# among restart markers, Exif, gray, 4:2:2 and 4:4:4 files: named and
# skipped with --skip-bad, the run stopped naming one without.
add_test(imgbatch.gpu_bad_files ${tool_sh} bad "${tool}"
         "${jpegs}/wild_bad" img_00017.jpg img_00010.jpg)
add_test(imgbatch.gpu_bad_garbage ${tool_sh} bad "${tool}"
         "${jpegs}/wild_garbage" img_00010.jpg)
add_test(imgbatch.gpu_bad_garbage_one_thread ${RUN} pass "${tool}"
         --skip-bad --threads 1 --batch-size 5 --resize 64x48
         "${jpegs}/wild_garbage")
# A file the check finds decoded apart from stb_image while nvJPEG said
# nothing (a corrupt scan the hardware decoder takes): the check's test
# hook IMGBATCH_TEST_GARBLE spoils its image as such a decode would.
# Skipped with --skip-bad (the run's checks then of the images kept),
# the run stopped naming it without; alone in its folder, no usable
# image.
add_test(imgbatch.gpu_bad_decoded_apart ${tool_sh} bad "${tool}"
         "${jpegs}/wild_small" img_00004.jpg)
set_tests_properties(imgbatch.gpu_bad_decoded_apart PROPERTIES
                     ENVIRONMENT IMGBATCH_TEST_GARBLE=4)
add_test(imgbatch.gpu_all_decoded_apart ${tool_sh} all-bad "${tool}"
         "${jpegs}/one_wild" 1)
set_tests_properties(imgbatch.gpu_all_decoded_apart PROPERTIES
                     ENVIRONMENT IMGBATCH_TEST_GARBLE=0)
# EXIF orientations 1 to 8: the kernel turns each image upright as the
# CPU's transform does (the run's checks), in RGB with a crop and in gray
# resized; the GPU decoder's tensor against the CPU decoder's.
add_test(imgbatch.gpu_exif_rgb_crop ${tool_sh} exif "${tool}" "${jpegs}/exif"
         --color rgb --resize-short 40 --crop 32x24)
add_test(imgbatch.gpu_exif_gray ${tool_sh} exif "${tool}" "${jpegs}/exif"
         --resize 48x40 --flip)
add_test(imgbatch.gpu_vs_cpu_exif ${tool_sh} gpu-vs-cpu "${tool}"
         "${jpegs}/versus_exif" rgb --color rgb --resize 64x48
         "${jpegs}/exif")
set_tests_properties(imgbatch.gpu_decode_bare imgbatch.gpu_decode_bare_wild
                     imgbatch.gpu_decode_repeatable imgbatch.gpu_npy_gray_f32
                     imgbatch.gpu_npy_rgb_f16 imgbatch.gpu_npy_u8_crop
                     imgbatch.gpu_vs_cpu_gray imgbatch.gpu_vs_cpu_gray_same
                     imgbatch.gpu_vs_cpu_crop imgbatch.gpu_vs_cpu_rgb
                     imgbatch.gpu_bad_files imgbatch.gpu_bad_garbage
                     imgbatch.gpu_bad_garbage_one_thread
                     imgbatch.gpu_bad_decoded_apart
                     imgbatch.gpu_all_decoded_apart
                     imgbatch.gpu_exif_rgb_crop imgbatch.gpu_exif_gray
                     imgbatch.gpu_vs_cpu_exif
                     imgbatch.gpu_check_garbled_rgb
                     imgbatch.gpu_check_garbled_gray
                     imgbatch.gpu_check_bounded_last
                     imgbatch.gpu_check_bounded_unseen
                     PROPERTIES LABELS gpu SKIP_RETURN_CODE 77
                     FIXTURES_REQUIRED jpegs06)
