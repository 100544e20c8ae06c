"""06 as the tutorial wrote it: section 2.24.4.2 (read, normalize, flip).

    image = cv2.imread('path_to_image.jpg', cv2.IMREAD_GRAYSCALE)
    image_cp = cp.asarray(image)
    image_normalized = image_cp.astype(cp.float32) / 255.0
    image_flipped = cp.flip(image_normalized, axis=1)

Run: python3 06_image_preprocess/cupy_original.py [--quick] [--json FILE]
     make compare-06        (the C lab and this file, one table)

Where this file differs from the tutorial's text, and why:
- The image is not 'path_to_image.jpg' but a gray PGM file that this file
  writes once into build/compare/06/ (a pattern that depends only on its
  size: 10000 x 10000, or 641 x 479 with --quick, the C lab's sizes). The
  C lab reads the same file, so both sides start from the same pixels. A
  PGM holds its 8-bit pixels as they are: every reader gives the same
  bytes, which a JPEG's decoders need not.
- cv2.imread reads it when OpenCV is installed. Without OpenCV, PIL reads
  it; without PIL either, a few lines of NumPy do (a PGM is a short text
  header and the raw bytes). The output says which one read it.
- cp.flip returns a view. The C lab writes the flipped tensor out
  contiguously, so the "3 kernels" row adds cp.ascontiguousarray, the
  pass that CuPy runs anyway as soon as anything needs contiguous data;
  the tutorial's three lines alone (flip left a view) are a row of their
  own.
- "CuPy, written well" is one cp.ElementwiseKernel over the flipped uint8
  view: it reads each byte once and writes each float once, contiguous,
  as the C lab's fused kernel does.
- Four more rows, on the CuPy side only, measure what sets the time of
  CuPy's elementwise kernels: the same one-kernel step on the unflipped
  image (every read contiguous), and a plain copy y = x as an elementwise
  kernel of 2 bytes (uint8) and of 8 bytes (float32) a pixel, and as one
  cudaMemcpy of the float32 tensor. Kernels that move different bytes in
  the same time are not limited by the bytes they move.

Timing, as the C lab times the same steps: kernels between CUDA events
recorded back to back on one stream (2 warm-up runs, then the median of
10; --quick: 3), round trips on the host clock ending in a synchronize.
Every result is compared exactly with NumPy's float32 x / 255 of the
flipped pixels (the division is correctly rounded on both, so every value
must match to the bit).
"""
import argparse
import csv
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(
    os.path.abspath(__file__)), "..", "common"))
import cupy_env  # noqa: E402  (needs the path above)

cp = np = None              # set by _modules(), once CuPy is known to work

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "build", "compare", "06")
FULL = (10000, 10000)       # width, height: the C lab's built-in size
QUICK = (641, 479)          # its --quick size
WARMUP = 2
REPEAT, QUICK_REPEAT = 10, 3        # the C lab's --repeat and --quick

# Step names, shared with c_rows() (the C lab's CSV names in comments).
S_READ = "read the PGM"             # CuPy side only (the C prints it)
S_VIEW = "tutorial's 3 lines (flip left a view)"
S_NAIVE = "normalize + flip, 3 kernels"         # "naive (3 kernels)"
S_ASTYPE = "  astype(float32)"                  # "astype(float32)"
S_DIVIDE = "  / 255.0"                          # "/ 255.0 (in place)"
S_FLIP = "  flip copy"                          # "flip copy"
S_FUSED = "normalize + flip, 1 kernel"          # "fused (1 kernel)"
S_NOFLIP = "  the same, no flip"                # CuPy side only (and below)
S_COPY_U8 = "  y = x, uint8"
S_COPY_F32 = "  y = x, float32"
S_MEMCPY = "  cudaMemcpy, float32"
S_PAGEABLE = "round trip, pageable"             # "pageable round trip"
S_PINNED = "round trip, pinned"                 # "pinned round trip"


def _modules():
    """cupy and numpy, or one line and exit 77 (cupy_env)."""
    global cp, np
    if cp is None:
        cp, np = cupy_env.require_cupy()
    return cp, np


# ---- the input file: one PGM that both sides read --------------------

def input_path(size):
    return os.path.join(WORK, "input_%dx%d.pgm" % size)


def output_path(side, size, pid):
    """Where the C lab (side "c") or this file ("cupy") writes its tensor
    for agree(): named by a process id, so that two compares at once
    never read each other's files."""
    return os.path.join(WORK, "%s_%d_%dx%d.npy" % ((side, pid) + size))


def pgm_header(size):
    return b"P5\n%d %d\n255\n" % size


def synthetic_pixels(size, numpy):
    """The test image: a pattern of (x, y) alone, different left and right
    (so a missing flip shows) and from row to row; uint8, (height, width)."""
    width, height = size
    img = numpy.empty((height, width), numpy.uint8)
    x = numpy.arange(width, dtype=numpy.uint32)
    for y0 in range(0, height, 1024):
        y = numpy.arange(y0, min(y0 + 1024, height),
                         dtype=numpy.uint32)[:, None]
        img[y0:y0 + y.shape[0]] = (x * 7 + y * 3 + ((x * y) >> 6)) & 255
    return img


def ensure_input(size, numpy):
    """Writes the PGM of this size unless a whole one is there (written to
    a temporary name, then renamed: never half a file). Returns its path."""
    path = input_path(size)
    header = pgm_header(size)
    try:
        with open(path, "rb") as f:
            if (f.read(len(header)) == header and os.fstat(f.fileno()).st_size
                    == len(header) + size[0] * size[1]):
                return path
    except OSError:
        pass
    pixels = synthetic_pixels(size, numpy).tobytes()
    os.makedirs(WORK, exist_ok=True)
    write_whole(path, lambda f: (f.write(header), f.write(pixels)))
    return path


def write_whole(path, write):
    """write(f) into a temporary name beside path, then rename it to path;
    on any failure the temporary file is removed and the error raised."""
    tmp = "%s.%d.tmp" % (path, os.getpid())
    try:
        with open(tmp, "wb") as f:
            write(f)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise


def read_pgm(path):
    """An 8-bit binary PGM (P5, no comments, maxval 255) as (H, W) uint8."""
    with open(path, "rb") as f:
        data = f.read()
    fields, pos = [], 0
    while len(fields) < 4:          # magic, width, height, maxval
        while pos < len(data) and data[pos:pos + 1].isspace():
            pos += 1
        start = pos
        while pos < len(data) and not data[pos:pos + 1].isspace():
            pos += 1
        if start == pos:
            raise ValueError("%s: not a whole PGM header" % path)
        fields.append(data[start:pos])
    if fields[0] != b"P5" or fields[3] != b"255":
        raise ValueError("%s: not an 8-bit binary PGM" % path)
    width, height = int(fields[1]), int(fields[2])
    pos += 1                        # one whitespace byte, then the pixels
    if len(data) - pos != width * height:
        raise ValueError("%s: %d pixel bytes, expected %d" % (
            path, len(data) - pos, width * height))
    return np.frombuffer(data, np.uint8, width * height, pos).reshape(
        height, width)


def imread_gray(path):
    """(pixels, what read them): cv2.imread as the tutorial does when
    OpenCV is there, else PIL, else read_pgm."""
    try:
        import cv2
    except Exception:           # ImportError, or a library it lacks
        cv2 = None
    if cv2 is not None:
        image = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
        if image is None:       # cv2.imread says nothing else on failure
            raise ValueError("%s: cv2.imread could not read it" % path)
        return image, "cv2.imread"
    try:
        from PIL import Image
    except Exception:
        Image = None
    if Image is not None:
        with Image.open(path) as im:
            return np.array(im.convert("L")), "PIL (no OpenCV)"
    return read_pgm(path), "NumPy (no OpenCV, no PIL)"


# ---- the tutorial -----------------------------------------------------

def _flags(argv):
    """--quick and --json as cupy_env.main reads them."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--json")
    return p.parse_known_args(argv)[0]


def tutorial():
    """Section 2.24.4.2, printing what it prints, on the file the C lab
    reads (the --quick one with --quick)."""
    _modules()
    size = QUICK if _flags(sys.argv[1:]).quick else FULL
    path = ensure_input(size, np)
    image, how = imread_gray(path)
    print("image: %s, read with %s" % (os.path.relpath(path), how))
    image_cp = cp.asarray(image)
    print(image_cp.shape)
    image_normalized = image_cp.astype(cp.float32) / 255.0
    print(image_normalized)
    image_flipped = cp.flip(image_normalized, axis=1)
    print(image_flipped)


# ---- measured: the C lab's steps, in CuPy ------------------------------

def time_gpu(fn, stream, warmup, repeat):
    """Median ms of fn() between CUDA events on stream, the pairs recorded
    back to back as the C lab's cm_time_events does (cupy_env's timer)."""
    return cupy_env.time_events(cp, fn, warmup, repeat, stream=stream)


def time_steps(image_cp, stream, warmup, repeat):
    """The tutorial's steps each between events, in one run: (median ms of
    astype, / 255.0 and the flip copy; the last run's result)."""
    with stream:
        runs = []
        for r in range(-warmup, repeat):
            ev = [cp.cuda.Event() for _ in range(4)]
            ev[0].record(stream)
            a = image_cp.astype(cp.float32)
            ev[1].record(stream)
            b = a / 255.0
            ev[2].record(stream)
            c = cp.ascontiguousarray(cp.flip(b, axis=1))
            ev[3].record(stream)
            if r >= 0:
                runs.append(ev)
        runs[-1][3].synchronize()
        last = c.get(stream=stream)
    return [statistics.median(cp.cuda.get_elapsed_time(ev[k], ev[k + 1])
                              for ev in runs) for k in range(3)], last


def time_host(fn, warmup, repeat):
    """Median ms of fn() on the host clock; fn() ends in a synchronize."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(samples)


def checksum(tensor):
    """The sum of a host tensor in float64, NumPy's pairwise order: the
    same bits for the same tensor, on either side."""
    return float(np.sum(tensor, dtype=np.float64))


def _row(step, ms, nbytes, ok, check=None):
    row = {"step": step, "ms": float(ms), "ok": bool(ok)}
    if nbytes:
        row["unit_rate"] = cupy_env.gbps(nbytes, ms)
    if check is not None:
        row["check"] = check
    return row


def measure(quick):
    _modules()
    import cupyx
    size = QUICK if quick else FULL
    width, height = size
    pixels = width * height
    repeat = QUICK_REPEAT if quick else REPEAT
    path = ensure_input(size, np)
    rows = []

    # cv2.imread (or what stands in for it), checked against the pattern.
    image, how = imread_gray(path)
    ms = time_host(lambda: imread_gray(path), 1, min(repeat, 5))
    rows.append(_row("%s: %s" % (S_READ, how), ms, pixels, np.array_equal(
        image, synthetic_pixels(size, np))))
    ref = np.flip(image, axis=1).astype(np.float32) / np.float32(255.0)

    # One kernel, as a CuPy user who cares writes it: reads the flipped
    # uint8 view (a negative column stride), writes contiguous float32.
    # x / 255.0f is a correctly rounded float division, as in NumPy.
    normalize = cp.ElementwiseKernel(
        "uint8 pixel", "float32 value", "value = pixel / 255.0f",
        "normalize_flipped")
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        image_cp = cp.asarray(image)
        out = cp.empty((height, width), cp.float32)
        stream.synchronize()

    def view():         # the tutorial's lines as they stand
        n = image_cp.astype(cp.float32) / 255.0
        return cp.flip(n, axis=1)

    def naive():        # ... and the flipped tensor made contiguous
        return cp.ascontiguousarray(view())

    def fused():
        normalize(cp.flip(image_cp, axis=1), out)
        return out

    fused_host = None
    for step, fn, per_pixel in ((S_VIEW, view, 13), (S_NAIVE, naive, 21),
                                (S_FUSED, fused, 5)):
        with stream:
            out.fill(float("nan"))      # a kernel that wrote nothing fails
            host = fn().get(stream=stream)
        ms = time_gpu(fn, stream, WARMUP, repeat)
        check = None
        if fn is fused:
            fused_host, check = host, checksum(host)
        rows.append(_row(step, ms, per_pixel * pixels,
                         np.array_equal(host, ref), check))
        if fn is fused and _flags(sys.argv[1:]).json:
            # The driver's run: the tensor, for agree() to compare.
            rows[-1]["tensor"] = output_path("cupy", size, os.getpid())
            save_npy(rows[-1]["tensor"], fused_host)
        if fn is naive:             # where its time goes, step by step
            steps, last = time_steps(image_cp, stream, WARMUP, repeat)
            ok = np.array_equal(last, ref)
            for name, ms, per in zip((S_ASTYPE, S_DIVIDE, S_FLIP), steps,
                                     (5, 8, 8)):
                rows.append(_row(name, ms, per * pixels, ok))

    rows += probes(image, ref, image_cp, out, normalize, stream, repeat)

    # Round trips: the image in, the kernel, the tensor out, on the host
    # clock. Pageable: the image as the reader returned it, cp.asarray as
    # the tutorial has it, into a NumPy array made once (as the C lab's).
    # Pinned: cupyx.empty_pinned buffers, both copies queued on the stream.
    page_out = np.full((height, width), np.nan, np.float32)
    pin_in = cupyx.empty_pinned((height, width), np.uint8)
    pin_in[...] = image
    pin_out = cupyx.empty_pinned((height, width), np.float32)
    pin_out.fill(np.nan)
    with stream:
        d_in = cp.empty((height, width), cp.uint8)

    def pageable():
        with stream:
            x = cp.asarray(image)
            normalize(cp.flip(x, axis=1), out)
            out.get(stream=stream, out=page_out)    # waits for the stream

    def pinned():
        with stream:
            d_in.set(pin_in, stream=stream)         # queued, returns
            normalize(cp.flip(d_in, axis=1), out)
            out.get(stream=stream, out=pin_out)     # waits for the stream

    for step, fn, host in ((S_PAGEABLE, pageable, page_out),
                           (S_PINNED, pinned, pin_out)):
        ms = time_host(fn, WARMUP, repeat)
        rows.append(_row(step, ms, 5 * pixels, np.array_equal(host, ref),
                         checksum(host)))
    return rows


def probes(image, ref, image_cp, out, normalize, stream, repeat):
    """Rows that tell what sets an elementwise kernel's time in CuPy (the
    C lab has none of them): the one-kernel step without the flip's
    negative stride, and copies of 2 and 8 bytes a pixel, elementwise
    and as one cudaMemcpy. Each result checked against NumPy."""
    pixels = image.size
    copy_u8 = cp.ElementwiseKernel("uint8 x", "uint8 y", "y = x", "copy_u8")
    copy_f32 = cp.ElementwiseKernel("float32 x", "float32 y", "y = x",
                                    "copy_f32")
    with stream:
        u8 = cp.empty_like(image_cp)
        src = cp.asarray(ref)
        f32 = cp.empty_like(src)
        stream.synchronize()
    unflipped = image.astype(np.float32) / np.float32(255.0)

    def noflip():
        normalize(image_cp, out)

    def copy8():
        copy_u8(image_cp, u8)

    def copy32():
        copy_f32(src, f32)

    def memcpy():
        f32.data.copy_from_device_async(src.data, src.nbytes, stream)

    rows = []
    for step, fn, dest, per_pixel, want in (
            (S_NOFLIP, noflip, out, 5, unflipped),
            (S_COPY_U8, copy8, u8, 2, image),
            (S_COPY_F32, copy32, f32, 8, ref),
            (S_MEMCPY, memcpy, f32, 8, ref)):
        with stream:
            dest.fill(0)        # a step that wrote nothing fails
            fn()
            host = dest.get(stream=stream)
        ms = time_gpu(fn, stream, WARMUP, repeat)
        rows.append(_row(step, ms, per_pixel * pixels,
                         np.array_equal(host, want)))
    return rows


def save_npy(path, array):
    """For agree(): this side's tensor, written whole or not at all."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_whole(path, lambda f: np.save(f, array))


# For make compare-06: how the C lab reports the same steps
# Both sides read input_WxH.pgm (written on import, below, before the
# driver runs the C lab) and write their tensors beside it for agree():
# the C lab's named by the driver's process id (it imports this file),
# this side's by its own, in the fused row's "tensor".
C_ARGS = ["--out-npy", output_path("c", FULL, os.getpid()),
          input_path(FULL)]
C_QUICK_ARGS = ["--quick", "--out-npy", output_path("c", QUICK, os.getpid()),
                input_path(QUICK)]

C_STEPS = {"naive (3 kernels)": S_NAIVE, "astype(float32)": S_ASTYPE,
           "/ 255.0 (in place)": S_DIVIDE, "flip copy": S_FLIP,
           "fused (1 kernel)": S_FUSED, "pageable round trip": S_PAGEABLE,
           "pinned round trip": S_PINNED}


def _size_of(pixels):
    """FULL or QUICK, from a pixel count; None if neither."""
    for size in (FULL, QUICK):
        if size[0] * size[1] == pixels:
            return size
    return None


def c_rows(csv_path):
    """The C lab's CSV rows under this file's step names; the fused row
    carries the checksum of the tensor the C lab wrote (--out-npy)."""
    rows = []
    with open(csv_path, newline="") as f:
        for r in csv.DictReader(f):
            step = C_STEPS.get(r["step"])
            if step is None:
                continue
            row = {"step": step, "ms": float(r["ms_median"])}
            if step == S_FUSED:     # 5 bytes moved per pixel
                row["size"] = _size_of(int(round(float(r["bytes"]) / 5)))
                if row["size"]:
                    import numpy
                    path = output_path("c", row["size"], os.getpid())
                    if os.path.isfile(path):
                        row["check"] = float(numpy.sum(numpy.load(
                            path, mmap_mode="r"), dtype=numpy.float64))
            rows.append(row)
    return rows


WHY = {
    S_READ: "CuPy side only: the file read into a NumPy array",
    S_VIEW: "CuPy side only: astype and / 255.0, 13 B/pixel; the flip "
            "stays a view",
    S_NAIVE: "3 kernels, 21 B/pixel on both sides; CuPy allocates its "
             "temporaries from its pool",
    S_ASTYPE: "one thread per element, 1 B read and 4 written, both sides",
    S_DIVIDE: "4 B read and 4 written; CuPy writes a new array, C in place",
    S_FLIP: "4 B read and 4 written, both sides",
    S_FUSED: "1 kernel, 5 B/pixel: C tiles each warp's stores as float4; "
             "CuPy one thread per element",
    S_NOFLIP: "CuPy side only: the row above on the unflipped image, "
              "every read contiguous",
    S_COPY_U8: "CuPy side only: an elementwise copy, 2 B/pixel",
    S_COPY_F32: "CuPy side only: an elementwise copy, 8 B/pixel",
    S_MEMCPY: "CuPy side only: the same 8 B/pixel as one cudaMemcpy",
    S_PAGEABLE: "pageable host arrays: each copy staged through a pinned "
                "buffer (CuPy's own for the image in, else the driver's)",
    S_PINNED: "pinned buffers: the copies run at PCIe speed, both sides",
}

HEADLINE = S_FUSED
TIMING = ("CUDA events, one pair per repetition, queued back to back and "
          "read after the last (cm_time_events, cupy_env.time_events); the "
          "round trips on the host clock")

ULP_TOLERANCE = 4 * 2.0 ** -24      # 4 units in the last place in [0.5, 1)


def agree(cupy_rows, c_rows):
    """The two tensors, computed from the same file, element by element;
    then their checksums. Both files are removed afterwards (400 MB each
    at full size)."""
    import numpy
    fused = [r for r in c_rows if r["step"] == S_FUSED]
    size = fused[0].get("size") if fused else None
    mine = [r for r in cupy_rows if r["step"] == S_FUSED]
    paths = [output_path("c", size, os.getpid()) if size else None,
             mine[0].get("tensor") if mine else None]
    try:
        return _compare_tensors(numpy, size, paths, fused, mine)
    finally:
        for p in paths:
            if p and os.path.isfile(p):
                os.remove(p)


def _compare_tensors(numpy, size, paths, fused, mine):
    if size is None:
        return [("C and CuPy tensors", False,
                 "the C lab's CSV names no image of a known size")]
    for p, side in zip(paths, ("the C lab", "the CuPy side")):
        if not p or not os.path.isfile(p):
            return [("C and CuPy tensors", False,
                     "%s wrote no tensor" % side)]
    c_out = numpy.load(paths[0], mmap_mode="r")
    cupy_out = numpy.load(paths[1], mmap_mode="r")
    width, height = size
    what = "C and CuPy tensors of %s" % os.path.basename(input_path(size))
    if (c_out.shape != (height, width) or cupy_out.shape != c_out.shape or
            c_out.dtype != numpy.float32 or cupy_out.dtype != numpy.float32):
        return [(what, False, "shapes %s and %s, dtypes %s and %s" % (
            c_out.shape, cupy_out.shape, c_out.dtype, cupy_out.dtype))]
    worst, same = 0.0, 0
    for y0 in range(0, height, 512):        # in bands: no 400 MB temporary
        a = numpy.asarray(c_out[y0:y0 + 512], numpy.float64)
        b = numpy.asarray(cupy_out[y0:y0 + 512], numpy.float64)
        diff = numpy.abs(a - b)
        if numpy.isnan(diff).any():
            worst = float("nan")
            break
        worst = max(worst, float(numpy.max(diff)))
        same += int(numpy.count_nonzero(a == b))
    checks = [(what, worst <= ULP_TOLERANCE,
               "max |C - CuPy| %.3g (tolerance %.3g), %d of %d elements "
               "identical" % (worst, ULP_TOLERANCE, same, width * height))]
    a, b = fused[0].get("check"), mine[0].get("check")
    if a is not None and b is not None:
        checks.append(("checksums of the tensors", a == b,
                       "C %.17g, CuPy %.17g" % (a, b)))
    return checks


def _prepare_for_driver():
    """Imported (by common/compare.py), this file writes the input files
    before the driver runs the C lab on one. Where NumPy cannot be used
    there is nothing to prepare (the driver stops first there)."""
    try:
        import numpy
        for size in (QUICK, FULL):
            ensure_input(size, numpy)
    except ImportError:
        pass


if __name__ == "__main__":
    sys.exit(cupy_env.main(tutorial, measure))
else:
    _prepare_for_driver()
