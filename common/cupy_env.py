"""cupy_env.py - what every NN_topic/cupy_original.py shares: CuPy found
or a clear exit 77, honest timers, and the --quick / --json main.

    sys.path.insert(0, os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "..", "common"))
    import cupy_env
    cp, np = cupy_env.require_cupy()     # or one line on stderr, exit 77
    ms = cupy_env.time_events(cp, lambda: cp.asnumpy(x), warmup=2, repeat=10)
    cupy_env.main(tutorial, measure)     # --quick, --json FILE, exit status

Nothing here imports CuPy or NumPy at module level: a chapter's file and
common/compare.py import this module on machines that have neither.
"""
import argparse
import json
import os
import statistics
import sys
import time

EXIT_FAIL = 1
EXIT_USAGE = 2
EXIT_NO_DEVICE = 77

CUPY_MISSING = ("CuPy not found (python3 -c 'import cupy' failed: %s); "
                "install it with: pip install cupy-cuda13x (or cupy-cuda12x "
                "for a CUDA 12 driver)")


def _one_line(err):
    """An exception as one short line: its first line, or its type."""
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__


def _missing(line):
    sys.stderr.write(line + "\n")
    sys.exit(EXIT_NO_DEVICE)


def require_cupy():
    """Returns (cupy, numpy), or prints one line and exits 77 when CuPy or
    NumPy cannot be imported or no CUDA device can be used."""
    try:
        import cupy as cp
    except Exception as err:   # ImportError, or a CUDA library that fails
        # CuPy imports NumPy first: a missing NumPy is NumPy's line.
        if getattr(err, "name", None) == "numpy":
            _missing("NumPy not found: pip install numpy")
        _missing(CUPY_MISSING % _one_line(err))
    try:
        import numpy as np
    except Exception:
        _missing("NumPy not found: pip install numpy")
    try:
        count = cp.cuda.runtime.getDeviceCount()
    except Exception as err:   # cupy.cuda.runtime.CUDARuntimeError, ...
        _missing("no usable CUDA device: %s" % _one_line(err))
    if count < 1:
        _missing("no usable CUDA device: the CUDA runtime sees no GPU")
    return cp, np


def version_text(version):
    """13000 -> "13.0": CUDA's integer versions as people write them."""
    try:
        v = int(version)
    except (TypeError, ValueError):
        return str(version)
    return "%d.%d" % (v // 1000, v % 1000 // 10)


def gpu_info(cp):
    """What --json puts beside the rows: the GPU's name, CuPy's version and
    the CUDA runtime version CuPy uses (an int, 13000 for 13.0)."""
    name = cp.cuda.runtime.getDeviceProperties(
        cp.cuda.Device().id)["name"]
    if isinstance(name, bytes):
        name = name.decode("utf-8", "replace")
    return {"gpu": name, "cupy": cp.__version__,
            "cuda": cp.cuda.runtime.runtimeGetVersion()}


def time_events(cp, fn, warmup, repeat):
    """Median ms of fn() between two CUDA events on the current stream,
    after `warmup` untimed calls. The stop event completes only when what
    fn() queued has finished, so an asynchronous copy is timed whole."""
    for _ in range(warmup):
        fn()
    cp.cuda.Device().synchronize()
    samples = []
    for _ in range(max(1, repeat)):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        samples.append(cp.cuda.get_elapsed_time(start, stop))
    return statistics.median(samples)


def time_events_turns(cp, fns, warmup, repeat):
    """time_events for several steps that take turns within each
    repetition (fns[0], fns[1], ..., then again), each between its own
    pair of events: all sample the same stretch of time, so a drift in
    the machine's speed cannot pose as a difference between them. Returns
    the median ms of each, in the order of fns."""
    samples = [[] for _ in fns]
    for i in range(warmup + max(1, repeat)):
        for k, fn in enumerate(fns):
            start, stop = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            if i >= warmup:
                samples[k].append(cp.cuda.get_elapsed_time(start, stop))
    return [statistics.median(s) for s in samples]


def time_host(cp, fn, warmup, repeat):
    """Median ms of fn() on the host clock, after `warmup` untimed calls;
    the device is synchronized before the clock starts and before it is
    read, so work fn() left queued is counted."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(max(1, repeat)):
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        fn()
        cp.cuda.Device().synchronize()
        samples.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(samples)


def size_text(nbytes):
    """Bytes as the C labs print them in step names: 32 B, 8 MB, 800 MB
    (MB = 10^6 bytes), or KiB for binary sizes such as 8192 -> 8 KiB."""
    if nbytes < 1000:
        return "%d B" % nbytes
    if nbytes % 1024 == 0 and nbytes < (1 << 20):
        return "%d KiB" % (nbytes // 1024)
    if nbytes % (1 << 20) == 0:
        return "%d MiB" % (nbytes >> 20)
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if nbytes >= scale:
            value = nbytes / scale
            return ("%.0f %s" if value == int(value) or value >= 100
                    else "%.3g %s") % (value, unit)
    return "%d B" % nbytes


def gbps(nbytes, ms):
    """'9.80 GB/s' (10^9 bytes per second), for a row's unit_rate."""
    return "%.2f GB/s" % (nbytes / (ms * 1e-3) / 1e9) if ms > 0 else "-"


def print_rows(rows, out=sys.stdout):
    """The rows of measure() as a readable table."""
    width = max([len(r["step"]) for r in rows] + [4])
    out.write("%-*s %12s %12s  %s\n" % (width, "step", "median ms", "rate",
                                        "check"))
    for r in rows:
        out.write("%-*s %12.4f %12s  %s\n" % (
            width, r["step"], r["ms"], r.get("unit_rate", ""),
            "ok" if r.get("ok") else "FAILED"))


def main(tutorial, measure, argv=None):
    """The main() every cupy_original.py shares. Without --json: the
    tutorial's snippet, then the honest measurement as a table. With
    --json FILE: only measure(), written to FILE, nothing printed but
    errors. Exit 0 if every row is ok, 1 naming the first that is not,
    77 without CuPy, NumPy or a GPU (checked first)."""
    parser = argparse.ArgumentParser(
        description="The tutorial's CuPy code for this chapter, then the "
                    "same work timed honestly at the C lab's sizes.")
    parser.add_argument("--quick", action="store_true",
                        help="the sizes of the C lab's --quick")
    parser.add_argument("--json", metavar="FILE",
                        help="write the measured rows to FILE, print "
                             "nothing")
    args = parser.parse_args(argv)
    cp, _ = require_cupy()
    prog = os.path.basename(os.path.dirname(os.path.abspath(
        sys.argv[0]))) or "cupy_original.py"
    try:
        if args.json:
            rows = measure(args.quick)
            doc = dict(gpu_info(cp), rows=rows)
            tmp = args.json + ".tmp"
            with open(tmp, "w") as f:
                json.dump(doc, f, indent=1)
            os.replace(tmp, args.json)
        else:
            tutorial()
            info = gpu_info(cp)
            print("\nMeasured honestly (warm-up, then the median), on %s, "
                  "CuPy %s, CUDA runtime %s:" % (info["gpu"], info["cupy"],
                                                version_text(info["cuda"])))
            rows = measure(args.quick)
            print_rows(rows)
    except Exception as err:   # out of memory, a CUDA error: one line
        sys.stderr.write("%s: %s: %s\n" % (prog, type(err).__name__,
                                           _one_line(err)))
        return EXIT_FAIL
    bad = [r["step"] for r in rows if not r.get("ok")]
    if bad:
        sys.stderr.write("check failed: %s\n" % bad[0])
        return EXIT_FAIL
    if not args.json:
        print("PASS (%d rows checked)" % len(rows))
    return 0


def same_checks(cupy_rows, c_rows, what):
    """agree() for steps whose "check" both sides give and which must be
    equal (sizes, exact sums): one (what, ok, detail) for all such steps,
    naming the first that differs."""
    c_check = dict((r["step"], r.get("check")) for r in c_rows)
    pairs = [(r["step"], r.get("check"), c_check.get(r["step"]))
             for r in cupy_rows]
    pairs = [p for p in pairs if p[1] is not None and p[2] is not None]
    bad = [p for p in pairs if p[1] != p[2]]
    if bad:
        return [(what, False, "%s: CuPy %s, C %s" % bad[0])]
    return [(what, bool(pairs), "%d steps both sides time" % len(pairs))]
