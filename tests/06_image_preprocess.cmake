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
# Without --synthetic the message names the size the user did not set.
cm_usage(${ch} max_pixels_built_in
         "^06_image_preprocess: the built-in image of 641 x 479 is more than --max-pixels 100 "
         --quick --max-pixels 100)
cm_usage(${ch} synthetic_and_image
         "--synthetic makes its own image: give no IMAGE" --synthetic 9x9
         a.png)
cm_usage(${ch} max_pixels_zero "--max-pixels: '0' must be at least 1"
         --max-pixels 0)
cm_usage(${ch} two_images "give one IMAGE: several images are a batch, "
         --out-png x.png a.png b.png)
cm_usage(${ch} batch_option "unknown option '--resize'"
         --resize 8x8 --synthetic 9x9)
cm_usage(${ch} decoder_option "unknown option '--decoder'"
         --decoder gpu a.jpg)
cm_usage(${ch} list_option "unknown option '--list'" --list files.txt)
# --csv, like --out-png and --out-npy, is checked before the GPU: a path
# that cannot be written is one line and exit 1.
cm_csv_opened_first(${ch})

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
# --warmup and --quick said as imgbatch means them, not as the chapters do.
add_test(imgbatch.help_shared "${tool}" --help)
set_tests_properties(imgbatch.help_shared PROPERTIES LABELS cpu
  PASS_REGULAR_EXPRESSION
  "--warmup N +batches decoded, untimed, before the first timed pass \\(default 1\\)\n.*--quick +one pass unless --repeat is given")
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
tool_usage(crop_alone "--resize-short S goes with --crop WxH" --crop 8x8 d)
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
tool_usage(std_uint8 "--mean and --std do nothing with --dtype uint8"
           --dtype uint8 --std 0.5 d)
tool_usage(flip_both "--flip or --no-flip, not both" --flip --no-flip d)
tool_usage(exif_both "--exif or --no-exif, not both" --exif --no-exif d)
tool_usage(backend_choice "--nvjpeg-backend: 'npu' is not one of"
           --nvjpeg-backend npu d)
tool_usage(backend_cpu "--nvjpeg-backend does nothing with --decoder cpu"
           --nvjpeg-backend hybrid --decoder cpu d)
tool_usage(share_text "--hybrid-share: 'most' is not auto or a share"
           --hybrid-share most d)
tool_usage(share_range "--hybrid-share: '1.01' is not auto or a share"
           --hybrid-share 1.01 d)
tool_usage(share_cpu "--hybrid-share does nothing with --decoder cpu"
           --hybrid-share auto --decoder cpu d)
tool_usage(share_hybrid "--hybrid-share .*: not with --nvjpeg-backend hybrid"
           --hybrid-share 0.5 --nvjpeg-backend hybrid d)
tool_usage(share_gpu_hybrid "--hybrid-share .*: not with --nvjpeg-backend gpu-h"
           --hybrid-share 0.5 --nvjpeg-backend gpu-hybrid d)
tool_usage(share_bare "--hybrid-share does nothing with --bare-decode"
           --hybrid-share 0.5 --bare-decode a.jpg b.jpg)
tool_usage(keep_and_npy "--keep-on-gpu writes no tensor"
           --keep-on-gpu --out-npy x.npy a.jpg b.jpg)
tool_usage(bare_and_npy "--bare-decode writes no tensor: drop --out-npy"
           --bare-decode --out-npy x.npy a.jpg b.jpg)
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
foreach(option shuffle drop-last out-labels rank)
  set(args --${option})
  if(option STREQUAL "out-labels")
    set(args --out-labels l.npy --class-folders)
  elseif(option STREQUAL "rank")
    set(args --rank 0 --world-size 2)
  endif()
  tool_usage(bare_${option} "--${option} does nothing with --bare-decode"
             --bare-decode ${args} d)
endforeach()

include("${SRC_DIR}/tests/06_inputs.cmake")

# GPU: the lab's both paths on odd sizes (the fused kernel's groups of 4
# pixels that cross a row end, its 4- and 1-byte loads, rows narrower and
# wider than its tile of 512 floats; the last two sizes take hundreds of
# its blocks), and every file layout.
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
# A batch never holds more than a pass (README, --batch-size): the
# folder's 4 images in one batch of 4, asked for 64 or by default.
foreach(size 64 0)
  add_test(imgbatch.gpu_batch_capped_${size} ${tool_sh} says "${tool}"
           "batches of 4 images$" --batch-size ${size} "${fx}/batch")
  set_tests_properties(imgbatch.gpu_batch_capped_${size} PROPERTIES
                       LABELS gpu SKIP_RETURN_CODE 77
                       FIXTURES_REQUIRED images06)
endforeach()
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

include("${SRC_DIR}/tests/06_library.cmake")

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
# GPU: --keep-on-gpu where the whole tensor does not fit (the planner's
# test hook leaves 200,000 bytes): batch buffers in turn, checked as
# ever; where not even they fit, one line and exit 1 (batch/tests.sh
# room).
add_test(imgbatch.gpu_keep_room ${tool_sh} room "${tool}" --batch-size 2
         --resize 64x48 "${jpegs}/mixed")
set_tests_properties(imgbatch.gpu_keep_room PROPERTIES LABELS gpu
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
# The split (--hybrid-share): half of each batch of 8 baseline files to
# the hybrid path, 4 of every 8 exactly (on a GPU without the hardware
# decoder, every file goes there anyway); adapted on the wild folder, in
# RGB, its checks all passing whichever way each file went.
decoded(split_half 24 12 0 --hybrid-share 0.5 --batch-size 8
        "${jpegs}/baseline")
decoded(wild_split_auto 40 any 0 --hybrid-share auto --color rgb
        --dtype float16 --resize 64x48 --batch-size 8 "${wild}")
decoded(wild_split_all 40 any 0 --hybrid-share 1 --resize-short 56
        --crop 48x40 --keep-on-gpu "${wild}")
# Without the hardware decoder (emulated) the split does nothing, in one
# line, and every file goes where such a GPU sends it.
decoded(split_no_engine 24 0 0 --hybrid-share 0.5 --resize 64x48
        "${jpegs}/baseline")
set_tests_properties(imgbatch.gpu_decode_split_no_engine PROPERTIES
                     ENVIRONMENT "IMGBATCH_EMULATE_NO_ENGINE=1")
add_test(imgbatch.gpu_decode_bare ${tool_sh} bare "${tool}"
         --batch-size 10 "${jpegs}/mixed")
add_test(imgbatch.gpu_decode_bare_wild ${tool_sh} bare "${tool}"
         --resize 64x48 --color rgb "${wild}")
add_test(imgbatch.gpu_decode_repeatable ${tool_sh} repeatable "${tool}"
         "${jpegs}/baseline" "${jpegs}/repeat")
# A fixed share sends the same files the same way in every run.
add_test(imgbatch.gpu_decode_repeatable_split ${tool_sh} repeatable
         "${tool}" "${wild}" "${jpegs}/repeat_split" --hybrid-share 0.5
         --color rgb --resize 64x48 --batch-size 8)
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
# The JPEG engines' tensor against the hybrid path's (--hybrid-share 0
# and 1): the same rules, whichever way the split sends a file; at each
# file's own size, so the decodes themselves meet.
add_test(imgbatch.gpu_engines_vs_hybrid_gray ${tool_sh} engines-vs-hybrid
         "${tool}" "${jpegs}/versus_split_gray" gray "${jpegs}/odd")
add_test(imgbatch.gpu_engines_vs_hybrid_rgb ${tool_sh} engines-vs-hybrid
         "${tool}" "${jpegs}/versus_split_rgb" rgb --color rgb
         --resize 64x48 "${wild}")
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
                     imgbatch.gpu_decode_repeatable
                     imgbatch.gpu_decode_repeatable_split
                     imgbatch.gpu_npy_gray_f32
                     imgbatch.gpu_npy_rgb_f16 imgbatch.gpu_npy_u8_crop
                     imgbatch.gpu_vs_cpu_gray imgbatch.gpu_vs_cpu_gray_same
                     imgbatch.gpu_vs_cpu_crop imgbatch.gpu_vs_cpu_rgb
                     imgbatch.gpu_engines_vs_hybrid_gray
                     imgbatch.gpu_engines_vs_hybrid_rgb
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
