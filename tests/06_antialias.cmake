# imgbatch --antialias (batch/transform_aa.c, batch/transform_aa.cu):
# included by 06_image_preprocess.cmake, whose functions and folders it
# uses. On the CPU: the option without a resize is a usage error, --help
# says what it is, and batch/pixels_torchvision.py compiles, refuses a
# bad option in one line and, without its modules or a GPU, exits 77
# (tests/test_06_antialias.c checks the resize itself against Pillow).
# On a GPU: every image the CPU decodes (PNG, BMP, and JPEG with --decoder
# cpu) comes back equal, in every value, to the CPU's antialiased
# transform of its planes (the run's "every image back on the host"
# check), tiled and summed directly (a downscale by more than 63), cropped,
# turned upright by EXIF, flipped, in each dtype; GPU-decoded JPEGs pass
# the run's checks against stb_image; and Pillow's pixels on PNG files
# are imgbatch's (pixels_torchvision.py --exact-pil, skipped without
# PyTorch).
tool_usage(antialias_no_resize "--antialias needs a resize: --resize WxH, "
           --antialias d)
tool_usage(antialias_no_crop "--resize-short S goes with --crop WxH"
           --antialias --resize-short 8 d)
string(CONCAT aa_help "the pixels of torchvision's Resize on PIL images "
       "(antialias=True is its default there and on tensors, where its own "
       "kernel is at most 1 level off these). The default here is the plain "
       "bilinear resize, which is faster")
add_test(imgbatch.help_antialias sh -c "\"$0\" --help | grep -qF \"$1\""
         "${tool}" "${aa_help}")
set_tests_properties(imgbatch.help_antialias PROPERTIES LABELS cpu)

set(pixels_tv "${SRC_DIR}/${ch}/batch/pixels_torchvision.py")
if(NOT SANITIZE)
  add_test(imgbatch.pixels_torchvision_compiles python3 -m py_compile
           "${pixels_tv}")
  set_tests_properties(imgbatch.pixels_torchvision_compiles PROPERTIES
    LABELS cpu ENVIRONMENT "PYTHONPYCACHEPREFIX=${TEST_BIN_DIR}/pycache")
  cm_cpu_run(imgbatch.pixels_torchvision_usage exit 2
             "^pixels_torchvision.py: --crop 300 is larger than --short 256"
             python3 "${pixels_tv}" --crop 300 "${SRC_DIR}/${ch}")
  string(CONCAT skip_line "^pixels_torchvision.py: (.* not found: "
         "skipped|imgbatch exited 77: .*no usable CUDA device)")
  cm_cpu_run(imgbatch.pixels_torchvision_skips exit 77 "${skip_line}"
             python3 "${pixels_tv}" --bin "${tool}" "${fx}/batch_mixed")
  set_tests_properties(imgbatch.pixels_torchvision_skips PROPERTIES
                       FIXTURES_REQUIRED images06)
  add_test(imgbatch.gpu_pixels_torchvision_png python3 "${pixels_tv}"
           --bin "${tool}" --short 24 --crop 16 --exact-pil
           "${fx}/batch_mixed")
  set_tests_properties(imgbatch.gpu_pixels_torchvision_png PROPERTIES
    LABELS gpu SKIP_RETURN_CODE 77 FIXTURES_REQUIRED images06
    PASS_REGULAR_EXPRESSION "\nPASS\n"
    ENVIRONMENT "PYTHONPYCACHEPREFIX=${TEST_BIN_DIR}/pycache")
endif()

# aa_gpu(SUFFIX FIXTURE ARGS...): imgbatch --antialias ARGS passes.
function(aa_gpu suffix fixture)
  add_test(imgbatch.gpu_antialias_${suffix} ${RUN} pass "${tool}"
           --antialias ${ARGN})
  set_tests_properties(imgbatch.gpu_antialias_${suffix} PROPERTIES
                       LABELS gpu SKIP_RETURN_CODE 77
                       FIXTURES_REQUIRED ${fixture})
endfunction()
# PNG, BMP and a JPEG (37 x 23, and 20 x 10): down and up, gray and RGB,
# uint8 and a crop.
aa_gpu(png_down images06 --resize 16x9 "${fx}/batch_mixed")
aa_gpu(png_up images06 --resize 50x30 "${fx}/batch_mixed")
aa_gpu(png_crop_rgb images06 --resize-short 20 --crop 16x12 --color rgb
       --dtype uint8 --decoder cpu "${fx}/batch")
# Photographs of 333 to 640 pixels a side, decoded on the CPU: every
# value of every image checked. Cropped in RGB float16 with ImageNet's
# mean and std, flipped; and to 4 x 3, windows of over 128 pixels: the
# direct sum instead of the tiles.
aa_gpu(wild_cpu_crop jpegs06 --decoder cpu --color rgb --dtype float16
       --mean 0.485,0.456,0.406 --std 0.229,0.224,0.225 --resize-short 64
       --crop 56x48 --flip --batch-size 16 "${jpegs}/wild")
aa_gpu(wild_cpu_direct jpegs06 --decoder cpu --resize 4x3 "${jpegs}/wild")
# Decoded where the build can (nvJPEG): the run's checks against
# stb_image's decode, resized the same way.
aa_gpu(wild_auto jpegs06 --color rgb --resize-short 72 --crop 64x64
       "${jpegs}/wild")
# EXIF orientations 1 to 8 (tests.sh exif: turned upright, and as
# stored), every value checked.
add_test(imgbatch.gpu_antialias_exif ${tool_sh} exif "${tool}"
         "${jpegs}/exif" --antialias --decoder cpu --color rgb
         --resize-short 40 --crop 32x24 --flip)
set_tests_properties(imgbatch.gpu_antialias_exif PROPERTIES LABELS gpu
                     SKIP_RETURN_CODE 77 FIXTURES_REQUIRED jpegs06)
