/* 06_image_preprocess/exercise.cu - make this program print PASS.
 * It is lesson.cu with the lines a CuPy user never writes broken, marked
 * FIXME 1 to FIXME 5: the kernel's two jobs, what cp.asarray does, how
 * many blocks the launch needs for an image whose sides are not multiples
 * of the block, and how many bytes come back. The FAIL line names the
 * first wrong pixel (a nan: no thread wrote it; a 0: a zero byte was read,
 * or it never came back); lesson.cu is the solution. Build and run:
 *   nvcc -O2 -I/usr/include/stb -o exercise exercise.cu
 *   ./exercise [IMAGE]   (no IMAGE: the test image, on which every FIXME
 *                         fails; sides that are multiples of 32 and 8
 *                         would hide FIXME 4)
 */
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

/* stb_image holds its code in the header: this define compiles it here,
   with two of its warnings (unread variables, fall-throughs) silenced. */
#pragma nv_diag_suppress 550
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>
#pragma GCC diagnostic pop
#pragma nv_diag_default 550

/* Every CUDA call returns a status; we stop at the first failure and say
   which call failed, where, and why. Never compiled out. */
#define CUDA_CHECK(call)                                                  \
    do {                                                                  \
        cudaError_t err_ = (call);                                        \
        if (err_ != cudaSuccess) {                                        \
            fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__,       \
                    __LINE__, #call, cudaGetErrorName(err_),              \
                    cudaGetErrorString(err_));                            \
            exit(1);                                                      \
        }                                                                 \
    } while (0)

/* A block of 32 x 8 threads covers 32 columns of 8 rows; the test image
   is a multiple of neither, so the last blocks hang over its edges. */
#define BLOCK_X 32
#define BLOCK_Y 8
#define TEST_WIDTH 1001
#define TEST_HEIGHT 701
static unsigned char h_test[TEST_WIDTH * TEST_HEIGHT];

/* astype(float32) / 255.0 and flip(axis=1) in one pass, one thread per
   pixel: thread (x, y) reads byte (x, y) once and writes its float once,
   into the mirrored column. (CuPy's steps make two float32 arrays.) */
__global__ void normalize_flip(float *out, const unsigned char *in,
                               int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)  /* past the edge: no pixel here */
        return;
    size_t row = (size_t)y * width;
    size_t dst = row + x;  /* FIXME 1: where pixel x lands */
    out[dst] = in[row + x];  /* FIXME 2: astype(float32) / 255.0 */
}

int main(int argc, char **argv)
{
    if (argc > 2) {
        fprintf(stderr, "usage: %s [IMAGE]\n", argv[0]);
        return 2;
    }
    int device_count = 0, driver_version = 0;
    cudaError_t count_err = cudaGetDeviceCount(&device_count);
    if (count_err != cudaSuccess || device_count == 0) { /* exit 77: skip */
        (void)cudaDriverGetVersion(&driver_version);  /* 0: no driver */
        fprintf(stderr, "no usable CUDA device: %s\n", driver_version == 0
                ? "no NVIDIA driver or GPU found" : count_err != cudaSuccess
                ? cudaGetErrorString(count_err) : "none found");
        return 77;
    }
    /* image = cv2.imread(path, cv2.IMREAD_GRAYSCALE). Asked for 1 channel,
       stb keeps a JPEG's luma (Y) as OpenCV does, and makes colour PNG or
       BMP pixels (77 r + 150 g + 29 b) >> 8: never above, at most one level
       below OpenCV's rounded 0.299 r + 0.587 g + 0.114 b. */
    int width = TEST_WIDTH, height = TEST_HEIGHT, channels = 1;
    unsigned char *h_in;
    if (argc == 2) {
        h_in = stbi_load(argv[1], &width, &height, &channels, 1);
        if (!h_in || height > 65535 * BLOCK_Y) {  /* grid.y <= 65535 */
            fprintf(stderr, "%s: %s\n", argv[1], h_in ? "too tall: more "
                    "than 65535 blocks of rows" : stbi_failure_reason());
            return 1;
        }
        printf("image: %s, %d channel(s) read as gray\n", argv[1], channels);
    } else {
        /* Every byte value occurs; dark on the left, so a flip shows. */
        h_in = h_test;
        for (int y = 0; y < height; y++)
            for (int x = 0; x < width; x++)
                h_in[(size_t)y * width + x] = (x * 256 / width + y) % 256;
        printf("image: none given; a %d x %d ramp made here\n", width, height);
    }
    size_t n = (size_t)width * height, out_bytes = n * sizeof(float);

    /* image_cp = cp.asarray(image): the bytes to the GPU. d_out starts as
       NaN bytes (0xff), so a pixel no thread writes cannot pass. */
    unsigned char *d_in;
    float *d_out;
    CUDA_CHECK(cudaMalloc(&d_in, n));
    CUDA_CHECK(cudaMalloc(&d_out, out_bytes));
    CUDA_CHECK(cudaMemset(d_in, 0, n));  /* FIXME 3: cp.asarray(image) */
    CUDA_CHECK(cudaMemset(d_out, 0xff, out_bytes));

    /* image_normalized = image_cp.astype(cp.float32) / 255.0
       image_flipped = cp.flip(image_normalized, axis=1): one kernel, on
       enough blocks to cover every pixel (FIXME 4). */
    dim3 block(BLOCK_X, BLOCK_Y);
    dim3 grid(width / BLOCK_X,    /* FIXME 4: every column */
              height / BLOCK_Y);  /* FIXME 4: every row */
    normalize_flip<<<grid, block>>>(d_out, d_in, width, height);
    CUDA_CHECK(cudaGetLastError());
    /* The result back, into zeroed memory; cudaMemcpy waits for the kernel. */
    float *h_out = (float *)calloc(n, sizeof(float));
    if (h_out == NULL) {
        fprintf(stderr, "cannot allocate %zu bytes\n", out_bytes);
        return 1;
    }
    CUDA_CHECK(cudaMemcpy(h_out, d_out, n,      /* FIXME 5: all of it? */
                          cudaMemcpyDeviceToHost));
    printf("shape (%d, %d), grid %u x %u blocks of %d x %d threads\n",
           height, width, grid.x, grid.y, BLOCK_X, BLOCK_Y);
    printf("row 0: in %d ... %d, out %.6f ... %.6f\n", h_in[0],
           h_in[width - 1], h_out[0], h_out[width - 1]);

    /* The CPU does the same float32 division. IEEE division is correctly
       rounded on both sides, so every value must match to the bit. */
    size_t i;
    float want = 0;
    for (i = 0; i < n; i++) {
        size_t y = i / width, x = i % width;
        want = h_in[y * width + (width - 1 - x)] / 255.0f;
        if (h_out[i] != want)  /* true for NaN too */
            break;
    }
    if (i < n)
        printf("FAIL: out[%zu][%zu], got %.9g, expected %.9g (exact)\n",
               i / width, i % width, h_out[i], want);
    else
        printf("PASS\n");
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    free(h_out);
    if (argc == 2)
        stbi_image_free(h_in);
    return i < n ? 1 : 0;
}
