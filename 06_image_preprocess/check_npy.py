"""check_npy.py - load a .npy file written by 06_image_preprocess with NumPy.

    python3 check_npy.py FILE [--shape D0,D1,...] [--ramp]

Checks that numpy.load reads it as float32 ('<f4', C order), of the given
shape, with every value in [0, 1]; that numpy.save of the loaded array
gives back the very same bytes (so our header is exactly NumPy's); and,
with --ramp, that it holds i % 256 / 255 as test_06_npy writes it.
Exits 77 (CTest: skipped) when NumPy is not installed.
"""
import io
import sys

try:
    import numpy as np
except ImportError:
    print("numpy is not installed: skipped")
    sys.exit(77)


def main(argv):
    path = argv[1]
    array = np.load(path)
    problems = []
    if array.dtype != np.dtype("<f4"):
        problems.append(f"dtype {array.dtype.str}, expected <f4")
    if not array.flags.c_contiguous:
        problems.append("not C order")
    if "--shape" in argv:
        dims = argv[argv.index("--shape") + 1]
        want = tuple(int(d) for d in dims.split(","))
        if array.shape != want:
            problems.append(f"shape {array.shape}, expected {want}")
    if array.size and not (np.isfinite(array).all() and
                           array.min() >= 0 and array.max() <= 1):
        problems.append("values outside [0, 1]")
    if "--ramp" in argv:
        ramp = (np.arange(array.size) % 256).astype(np.float32)
        ramp /= np.float32(255)
        if not np.array_equal(array.ravel(), ramp):
            problems.append("values differ from i % 256 / 255")
    again = io.BytesIO()
    np.save(again, array)
    with open(path, "rb") as f:
        if f.read() != again.getvalue():
            problems.append("bytes differ from numpy.save of the same array")
    if problems:
        print(f"{path}: " + "; ".join(problems))
        return 1
    print(f"{path}: numpy.load ok, shape {array.shape}, "
          f"dtype {array.dtype.str}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
