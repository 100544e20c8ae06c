#!/usr/bin/env python3
"""01 · Array basics: the tutorial's CuPy code, run, then timed honestly.

Mirrors section 2.24.1.2.2 of the tutorial:

    import cupy as cp
    x = cp.array([1, 2, 3, 4])
    print(x)  # [1 2 3 4]

tutorial() runs it as written. The tutorial times nothing here, so no
"tutorial's timing" is shown. measure() times as the C lab does: CUDA
events, one pair per repetition, queued back to back and read after the
last (cupy_env.time_events, the lab's cm_time_events), median of 10 (3
with --quick, as the lab) after 2 warm-ups:

- x = cp.array([1, 2, 3, 4]): the whole line (the list made a NumPy array,
  device memory from CuPy's pool, the 32-byte copy in), against the lab's
  cudaMemcpy of the same 32 bytes into memory allocated once;
- the same work on both sides, the summary's row: x.set(h_x), the 32
  bytes of a NumPy array made once copied into x, which exists already;
- what print(x) copies back (x.get(), which str(x) calls), against the
  lab's cudaMemcpy back; the printing itself is timed on neither side;
- the lab's big = cp.arange(1000 * 1000).reshape(1000, 1000): CuPy's
  arange against the lab's arange kernel (which writes into memory
  allocated once);
- print(big)'s 8 MB copy back, twice: as print() does it (x.get() makes a
  new NumPy array every call) and, CuPy written well, into one NumPy array
  made once (cp.asnumpy(big, out=...)), which is what the lab does.

Every result is checked against exact values with NumPy. Run it alone
(python3 01_array_basics/cupy_original.py [--quick]) or beside the C lab:
make compare-01.
"""
import csv
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(
    os.path.abspath(__file__)), "..", "common"))
import cupy_env  # noqa: E402

BIG_SIDE = 1000   # the lab's --big: a 1000 x 1000 int64 array, 8 MB
X_BYTES = 4 * 8   # [1, 2, 3, 4] as int64


def step_names(big_bytes):
    return {
        "x": "x = cp.array([1, 2, 3, 4])",
        "x_set": "x.set(h_x): copy %s into x" % cupy_env.size_text(X_BYTES),
        "print_x": "print(x): copy %s back" % cupy_env.size_text(X_BYTES),
        "arange": "big = cp.arange(%d)" % (big_bytes // 8),
        "print_big": "print(big): copy %s back, new array"
                     % cupy_env.size_text(big_bytes),
        "print_big_out": "print(big): copy %s back, into one array"
                         % cupy_env.size_text(big_bytes),
    }


def tutorial():
    import cupy as cp

    # Create a CuPy array
    x = cp.array([1, 2, 3, 4])  # create a CuPy array
    print(x)  # prints: [1 2 3 4]


def measure(quick):
    cp, np = cupy_env.require_cupy()
    warmup, repeat = 2, (3 if quick else 10)
    n = BIG_SIDE * BIG_SIDE
    names = step_names(n * 8)
    rows = []

    def row(key, ms, ok, check, nbytes=None):
        r = {"step": names[key], "ms": ms, "ok": bool(ok), "check": check}
        if nbytes and nbytes >= 1000000:
            r["unit_rate"] = cupy_env.gbps(nbytes, ms)
        rows.append(r)

    ms = cupy_env.time_events(cp, lambda: cp.array([1, 2, 3, 4]), warmup,
                              repeat)
    x = cp.array([1, 2, 3, 4])
    expect_x = np.array([1, 2, 3, 4], dtype=np.int64)
    back = x.get()
    row("x", ms, x.dtype == np.int64 and np.array_equal(back, expect_x),
        int(x.nbytes))

    # Like for like: the lab copies into x's memory, allocated once,
    # from a host array that exists already.
    h_x = np.array([1, 2, 3, 4])
    ms = cupy_env.time_events(cp, lambda: x.set(h_x), warmup, repeat)
    x.fill(0)   # so the check below sees what the copy wrote
    x.set(h_x)
    row("x_set", ms, np.array_equal(x.get(), expect_x), int(x.nbytes))

    ms = cupy_env.time_events(cp, x.get, warmup, repeat)
    row("print_x", ms, np.array_equal(x.get(), expect_x), int(x.nbytes))

    def make_big():
        return cp.arange(n).reshape(BIG_SIDE, BIG_SIDE)
    ms = cupy_env.time_events(cp, make_big, warmup, repeat)
    big = make_big()
    expect_big = np.arange(n, dtype=np.int64).reshape(BIG_SIDE, BIG_SIDE)
    got = big.get()
    row("arange", ms, big.dtype == np.int64 and np.array_equal(
        got, expect_big), int(big.nbytes), big.nbytes)

    ms = cupy_env.time_events(cp, big.get, warmup, repeat)
    row("print_big", ms, np.array_equal(big.get(), expect_big),
        int(big.nbytes), big.nbytes)

    h_big = np.empty_like(expect_big)
    ms = cupy_env.time_events(cp, lambda: cp.asnumpy(big, out=h_big),
                              warmup, repeat)
    h_big[...] = -1   # so the check below sees what the copy wrote
    cp.asnumpy(big, out=h_big)
    row("print_big_out", ms, np.array_equal(h_big, expect_big),
        int(big.nbytes), big.nbytes)
    return rows


# For make compare-01: how the C lab reports the same steps.
# Its --csv rows: step,bytes,ms_median,ms_min,gb_per_s (CUDA events).
C_ARGS = []
C_QUICK_ARGS = ["--quick"]
_C_STEPS = {"cp.array(x) H2D": ["x", "x_set"], "print(x) D2H": ["print_x"],
            "cp.arange(big) kernel": ["arange"],
            "print(big) D2H": ["print_big", "print_big_out"]}


def c_rows(csv_path):
    with open(csv_path, newline="") as f:
        lab = list(csv.DictReader(f))
    big = [r for r in lab if r["step"] == "print(big) D2H"]
    names = step_names(int(big[0]["bytes"]) if big else BIG_SIDE ** 2 * 8)
    rows = []
    for r in lab:
        # One C copy stands beside both of CuPy's ways to make x and to
        # copy big back.
        for key in _C_STEPS.get(r["step"], []):
            rows.append({"step": names[key], "ms": float(r["ms_median"]),
                         "check": int(r["bytes"])})
    return rows


_NAMES = step_names(BIG_SIDE ** 2 * 8)
WHY = {
    _NAMES["x"]: "list to NumPy, pool allocation, Python call vs one "
                 "cudaMemcpy",
    _NAMES["x_set"]: "the same 32 B: CuPy queues cudaMemcpyAsync (plus a "
                     "Python call), C's cudaMemcpy waits for the GPU first",
    _NAMES["print_x"]: "a new NumPy array and a Python call vs one "
                       "cudaMemcpy",
    _NAMES["arange"]: "pool allocation and a Python kernel launch vs one "
                      "kernel launch",
    _NAMES["print_big"]: "a new NumPy array each call vs one host buffer "
                         "reused",
    _NAMES["print_big_out"]: "the same copy into one reused host buffer",
}
HEADLINE = _NAMES["x_set"]
TIMING = ("CUDA events, one pair per repetition, queued back to back and "
          "read after the last (cm_time_events, cupy_env.time_events)")


def agree(cupy_rows, c_rows):
    # Both sides check their values exactly (the lab against its host
    # data, this file with NumPy); what they can compare with each other
    # is what each array is: the same bytes (int64, the same element
    # counts) for each step both sides time.
    return cupy_env.same_checks(cupy_rows, c_rows, "the same bytes")


if __name__ == "__main__":
    sys.exit(cupy_env.main(tutorial, measure))
