/* imgbatch.h - a folder of images into a tensor on the GPU, batch by
 * batch, from C: the batch tool (imgbatch) as a library.
 *
 *   imgbatch_options o;
 *   imgbatch_defaults(&o);                 gray, float32, x / 255
 *   o.folder = "images/";
 *   o.resize_width = o.resize_height = 224;
 *   imgbatch *b;
 *   if (imgbatch_open(&b, &o) != IMGBATCH_OK) {
 *       fprintf(stderr, "%s\n", imgbatch_failure_reason());
 *       return 1;                          b is NULL: nothing to close
 *   }
 *   imgbatch_batch x;
 *   int rc;
 *   while ((rc = imgbatch_next(b, &x)) == 1)   x.data: x.count images
 *       my_kernel<<<grid, block, 0, x.stream>>>(x.data, x.count);
 *   if (rc < 0)                            a file, or the GPU, failed
 *       fprintf(stderr, "%s\n", imgbatch_failure_reason());
 *   imgbatch_close(b);
 *
 * JPEGs are decoded by nvJPEG on the GPU (its hardware decoder where
 * there is one), other images by stb_image on CPU threads; every image
 * is resized, normalized (and flipped, if asked) by one kernel per
 * batch. The library never ends the program and prints only with verbose: every
 * failure, a CUDA or nvJPEG call or memory included, returns a status
 * and leaves one line in imgbatch_failure_reason() (per thread). Each
 * call works on the loader's device and gives the calling thread's
 * current device back as it found it, so a loader may be used from any
 * thread, one thread at a time (two threads must not call one loader at
 * once; two loaders are independent). imgbatch_open reads each file's
 * header from its first 16 KiB (the whole file where the header does
 * not fit in them, or the file is no longer); the rest of a file (a
 * JPEG cut short, say) is checked when a pass first reads it whole, and
 * a file that fails then, or that changed after imgbatch_open checked
 * it (another byte count or frame size), is a bad file. nvJPEG's
 * hardware decoder does not report every corrupt scan: such a file's
 * image is whatever it decoded. The library checks no image it makes:
 * it keeps no rows and compares no batch with a reference. The imgbatch
 * tool does, decoding up to --check-images images again with stb_image
 * and comparing each batch that comes back.
 * Link with the batch tool's objects (06_image_preprocess/extra.mk), or
 * load build/lib/libimgbatch.so, which exports these functions alone.
 */
#ifndef IMGBATCH_H
#define IMGBATCH_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct imgbatch imgbatch;

typedef enum { IMGBATCH_GRAY = 1, IMGBATCH_RGB = 3 } imgbatch_color;
/* float32 and float16: (x / 255 - mean) / std; uint8: x itself. */
typedef enum {
    IMGBATCH_FLOAT32,
    IMGBATCH_FLOAT16,
    IMGBATCH_UINT8
} imgbatch_dtype;
/* Where JPEGs are decoded. AUTO: on the GPU (nvJPEG) where it can, the
 * files nvJPEG cannot take, or every file where nvJPEG does not open, on
 * the CPU (stb_image). GPU: the same, but IMGBATCH_ERR_INPUT in a build
 * without nvJPEG. CPU: every file with stb_image. Other images are
 * always decoded on the CPU. */
typedef enum {
    IMGBATCH_DECODER_AUTO,
    IMGBATCH_DECODER_GPU,
    IMGBATCH_DECODER_CPU
} imgbatch_decoder;
/* nvJPEG's backend: the hardware decoder, else every JPEG through
 * nvJPEG's hybrid path (auto); the hardware or the GPU hybrid one (or
 * fail); or the hybrid path (Huffman decoding on the reader threads, the
 * rest on the GPU). */
typedef enum {
    IMGBATCH_BACKEND_AUTO,
    IMGBATCH_BACKEND_HARDWARE,
    IMGBATCH_BACKEND_GPU_HYBRID,
    IMGBATCH_BACKEND_HYBRID
} imgbatch_backend;

/* imgbatch_options.hybrid_share: adapted as the run goes. */
#define IMGBATCH_SHARE_AUTO (-1.0f)

typedef struct {
    /* the images: a folder's image files (by name), or files, or a file
     * that lists them (one path a line, or "PATH LABEL" on every line);
     * exactly one of the three */
    const char *folder;
    const char *const *files;
    size_t n_files;
    const char *list;
    /* a data set: with class_folders, folder holds one folder per class,
     * as torchvision's ImageFolder reads it (classes sorted by name, the
     * label of each image its class's index); a list's lines may be
     * "PATH LABEL". Each batch then comes with its images' labels. */
    int class_folders;
    /* each pass's order (sampler.h): shuffle, a new order every pass
     * (epoch e's a function of seed and e; not torch's generator);
     * rank of world_size (0 or 1: one process), the shard that
     * torch.utils.data.DistributedSampler gives that rank, the list
     * padded by repeating its start so that every rank has
     * ceil(N / world_size) images; drop_last: cut instead, floor(N /
     * world_size) each, and a pass's short last batch left out. The
     * first pass is epoch 0; imgbatch_rewind after a pass that began
     * starts the next epoch. */
    int shuffle;
    uint64_t seed;
    int rank, world_size;
    int drop_last;
    /* the tensor: N images of channels x height x width, NCHW */
    imgbatch_color color;
    imgbatch_dtype dtype;
    /* the size: every image resized to resize_width x resize_height, or
     * its short side scaled to resize_short and the centre crop_width x
     * crop_height taken (bilinear, pixel centres aligned, no
     * antialiasing unless antialias); all 0: every image must have the
     * first one's size */
    size_t resize_width, resize_height;
    size_t resize_short, crop_width, crop_height;
    float mean[3], std[3];     /* per channel; std > 0 */
    int flip;                  /* mirror each image left to right */
    int exif;                  /* turn each JPEG upright by its EXIF
                                  orientation first (default 1) */
    /* resize with antialiasing, exactly as Pillow's Image.resize(size,
     * BILINEAR), which torchvision's Resize(antialias=True) does to a
     * PIL image; needs a resize. 0 (default): the plain bilinear
     * resize, faster */
    int antialias;
    /* keep the whole tensor on the GPU when it fits (imgbatch_info says
     * where), so that each batch is a slice of it; else, and by
     * default, batches take turns in a few buffers */
    int keep_whole;
    int copy_to_host;          /* also copy each batch to pinned memory */
    /* the work */
    int skip_bad;              /* leave out (and count) unusable files */
    size_t max_pixels;         /* refuse a file whose header says more */
    size_t batch_size;         /* images a batch; 0: by their size */
    int threads;               /* CPU reader threads; 0: one per core,
                                  at most 16 */
    int streams;               /* batches in flight on the GPU; 0: 2 */
    imgbatch_decoder decoder;
    imgbatch_backend backend;
    /* with the hardware decoder: the share of each batch's JPEGs it
     * takes that go to nvJPEG's hybrid path instead (Huffman decoding on
     * the reader threads, the rest on the GPU), 0 (default: none) to 1;
     * below 0 (IMGBATCH_SHARE_AUTO): adapted batch by batch so that both
     * sides finish together. No effect on a GPU without the hardware
     * decoder, where the hybrid path takes every JPEG already */
    float hybrid_share;
    int device;                /* the CUDA device */
    int verbose;               /* say what it does, on stdout; files
                                  left out on "skipped:" lines, stderr */
} imgbatch_options;

typedef enum {
    IMGBATCH_OK = 0,
    IMGBATCH_ERR_OPTIONS,      /* options that do not go together, or a
                                  NULL argument */
    IMGBATCH_ERR_INPUT,        /* a file or folder that cannot be used,
                                  no whole batch left by drop_last, or
                                  DECODER_GPU without nvJPEG built */
    IMGBATCH_ERR_NO_DEVICE,    /* no usable CUDA device, or
                                  BACKEND_HARDWARE on a GPU without
                                  the hardware decoder */
    IMGBATCH_ERR_MEMORY,       /* not enough host or GPU memory */
    IMGBATCH_ERR_CUDA          /* a CUDA or nvJPEG call failed */
} imgbatch_status;

/* One batch. Its data, host copy, names and labels stay valid until the
 * next call of imgbatch_next, imgbatch_rewind or imgbatch_close; work that
 * reads data must be enqueued on `stream` before that call (the buffer
 * is refilled after it, once that work is done), or be finished by
 * then. With the whole tensor kept (imgbatch_info.tensor), data is its
 * slice and stays until the next pass writes it again. count may be 0:
 * every file of the batch was skipped. */
typedef struct {
    void *data;                /* on the GPU */
    size_t count, channels, height, width;
    imgbatch_dtype dtype;
    size_t bytes;              /* of data */
    size_t first;              /* index of its first image in the tensor,
                                  the pass's order (this epoch's) */
    cudaStream_t stream;       /* its decode and kernel were enqueued here */
    cudaEvent_t ready;         /* recorded after them */
    const char *const *files;  /* count paths, in the tensor's order */
    const void *host;          /* copy_to_host: the same, once ready */
    const int64_t *labels;     /* count labels, host memory, in the
                                  tensor's order; NULL: none */
} imgbatch_batch;

typedef struct {
    size_t images;             /* files that passed the checks */
    size_t pass_images;        /* images a pass hands out (the sampler's
                                  count: this rank's, whole batches) */
    size_t channels, height, width;
    imgbatch_dtype dtype;
    size_t image_bytes;        /* one image of the tensor */
    size_t batch_images;       /* the most a batch holds */
    void *tensor;              /* keep_whole and it fit: the whole */
    size_t tensor_bytes;       /* (pass_images, ...) tensor, else NULL:
                                  each pass writes it in its order */
    size_t classes;            /* class_folders: how many, and their */
    const char *const *class_names;   /* names by label; else 0, NULL */
    size_t unread;             /* files a folder's listing left out: not
                                  an image imgbatch reads, or beside the
                                  class folders (verbose names each) */
} imgbatch_info;

/* Gray, float32, mean 0 and std 1 (x / 255), not flipped (the
 * tutorial's cp.flip is an augmentation, wrong in evaluation: set flip
 * for it), JPEGs turned upright by their EXIF orientation, 16384 x
 * 16384 pixels at most, device 0, world_size 1, the rest 0 (files in
 * turn, not shuffled, seed 0). */
void imgbatch_defaults(imgbatch_options *o);

/* Checks the options and every file (its header, its size: from its
 * first 16 KiB where they hold it), then opens the GPU and its decoders
 * and allocates every buffer. Returns
 * IMGBATCH_OK and *out, or a status with a reason (*out NULL, nothing
 * held). */
imgbatch_status imgbatch_open(imgbatch **out, const imgbatch_options *o);

/* The next batch, enqueued on the GPU: 1, with *batch; 0 when every file
 * has been through (a pass); -1 when a file cannot be used (not
 * skip_bad) or a CUDA call failed: the reason names it, and the loader
 * can only be closed. */
int imgbatch_next(imgbatch *b, imgbatch_batch *batch);

/* Starts another pass over the files (after the last one ends, or to
 * stop this one): the next epoch, if imgbatch_next was called in this
 * one. Returns IMGBATCH_OK, or the status of the failure that stopped
 * the loader. */
imgbatch_status imgbatch_rewind(imgbatch *b);

imgbatch_status imgbatch_get_info(const imgbatch *b, imgbatch_info *info);

/* Waits for the GPU and frees everything, also after a failure. NULL
 * does nothing. Returns IMGBATCH_OK, or IMGBATCH_ERR_CUDA if the GPU
 * failed on the way (everything is freed all the same). */
imgbatch_status imgbatch_close(imgbatch *b);

/* The reason of this thread's last failure, one line. */
const char *imgbatch_failure_reason(void);

/* Work of yours on another stream reads the batch imgbatch_next gave
 * last: `stream` waits for the batch (its event ready), and the batch's
 * buffer is filled again only after the work enqueued on `stream` by the
 * next call of imgbatch_next, imgbatch_rewind or imgbatch_close (an
 * event recorded there then, which the batch's stream waits for). Up to
 * 8 streams a batch. Returns IMGBATCH_OK, or a status with a reason (no
 * batch held, or a CUDA call failed). */
imgbatch_status imgbatch_read_on(imgbatch *b, cudaStream_t stream);

/* Options by name, for a program that does not compile against this
 * header (Python's ctypes): the loader's options under the command
 * line's long names without the dashes ("resize", "crop", "color",
 * "dtype", "mean", ...; not the tool's own, such as "out-npy") and its
 * texts ("224x224", "rgb", "0.485,0.456,0.406"), parsed by the same
 * code, plus "folder", "file" (one image; again for each) and "device".
 * A flag ("flip", "no-flip", "exif", "no-exif", "antialias",
 * "skip-bad", "keep-on-gpu", "class-folders", "shuffle", "drop-last")
 * takes value NULL; mean and std count their values against the color
 * already set. Checks between options are imgbatch_open's. Strings are
 * copied and owned by the options. imgbatch_options_new returns the
 * defaults (NULL: no memory, with a reason); imgbatch_set_option takes
 * only its options and returns IMGBATCH_OK, or IMGBATCH_ERR_OPTIONS with
 * a reason naming the option (IMGBATCH_ERR_MEMORY when a string cannot
 * be copied), the options unchanged; imgbatch_options_free frees them
 * and their strings (NULL does nothing), after imgbatch_open, which
 * keeps what it needs. */
imgbatch_options *imgbatch_options_new(void);
imgbatch_status imgbatch_set_option(imgbatch_options *o, const char *name,
                                    const char *value);
void imgbatch_options_free(imgbatch_options *o);

/* sizeof of "imgbatch_options", "imgbatch_batch" or "imgbatch_info" as
 * this library was built (0 for another name), so that a binding that
 * mirrors a struct can tell it has the layout of another version. */
size_t imgbatch_sizeof(const char *type);

#ifdef __cplusplus
}
#endif

#endif /* IMGBATCH_H */
