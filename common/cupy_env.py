"""cupy_env.py - what every NN_topic/cupy_original.py shares: CuPy found
or a clear exit 77, timers that time a step as the C labs do, the CPU
count the labs use, and the --quick / --json main.

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
import re
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


def time_events(cp, fn, warmup, repeat, stream=None):
    """common/timing_cuda.c's cm_time_events in CuPy: the median ms of fn()
    between two CUDA events on `stream` (default: the current stream; fn()
    runs with it current), after `warmup` untimed calls. One event pair
    per repetition, all queued back to back and read after the last: the
    host never waits between repetitions, as the labs' GPU steps are
    timed. A stop event completes only when what fn() queued before it
    has finished, so an asynchronous copy is timed whole."""
    if stream is None:
        stream = cp.cuda.get_current_stream()
    with stream:
        for _ in range(warmup):
            fn()
        stream.synchronize()
        pairs = [(cp.cuda.Event(), cp.cuda.Event())
                 for _ in range(max(1, repeat))]
        for start, stop in pairs:
            start.record(stream)
            fn()
            stop.record(stream)
        pairs[-1][1].synchronize()
    return statistics.median(cp.cuda.get_elapsed_time(start, stop)
                             for start, stop in pairs)


def time_events_turns(cp, fns, warmup, repeat):
    """For labs that time copies in turns, each waited for (02's H2D and
    D2H, 07's pageable copies): fns[0], fns[1], ... then again, each call
    between its own pair of events on the current stream, and the stop
    event waited for before the next call (cm_timer_start, region,
    cm_timer_stop). All steps sample the same stretch of time, so a
    drift in the machine's speed cannot pose as a difference between
    them. Returns the median ms of each, in the order of fns."""
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
    """common/timing.c's cm_time_host in CuPy: the median ms of fn() on the
    host clock, after `warmup` untimed calls. As there, fn() must finish
    its own work before it returns (cp.asnumpy does; else a synchronize):
    the clock stops when it returns. The device is synchronized before
    each clock starts, so no earlier work is counted."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(max(1, repeat)):
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        fn()
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


def cpu_quota_v2(cpu_max):
    """common/cpus.c's cm_cpu_quota_v2: the CPUs cgroup v2's cpu.max text
    allows ("200000 100000" -> 2, rounded up, at least 1), 0 for no limit
    ("max 100000"), -1 for text it cannot read."""
    fields = (cpu_max or "").split()
    if len(fields) != 2 or not _whole(fields[1]) or int(fields[1]) <= 0:
        return -1
    if fields[0] == "max":
        return 0
    return _quota_cpus(fields[0], int(fields[1]))


def cpu_quota_v1(cfs_quota_us, cfs_period_us):
    """cm_cpu_quota_v1: the same from cgroup v1's two files ("-1": none)."""
    quota, period = (cfs_quota_us or "").split(), (cfs_period_us or "").split()
    if len(quota) != 1 or len(period) != 1 or not _whole(period[0]):
        return -1
    if quota[0] == "-1":
        return 0
    return _quota_cpus(quota[0], int(period[0]))


def _whole(text):
    return re.fullmatch(r"[+-]?[0-9]+", text) is not None


def _quota_cpus(quota_text, period):
    if not _whole(quota_text) or int(quota_text) <= 0 or period <= 0 or \
            int(quota_text) >= 2 ** 63:
        return -1
    return min(-(-int(quota_text) // period), 2 ** 31 - 1)


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def cgroup_cpu_limit(proc_cgroup, v2_root, v1_root):
    """cm_cgroup_cpu_limit: the smallest CPU quota of our cgroup and those
    above it, in CPUs, 0 if none has one; proc_cgroup is
    /proc/self/cgroup's path, the roots where the v2 hierarchy and v1's
    cpu controller are mounted."""
    text = _read(proc_cgroup) or ""
    best = 0
    for v2, root in ((True, v2_root), (False, v1_root)):
        path = None
        for line in text.splitlines():
            parts = line.split(":", 2)
            if len(parts) < 3:
                continue
            if (parts[0] == "0" and parts[1] == "") if v2 else \
                    "cpu" in parts[1].split(","):
                path = parts[2].rstrip("/")
                break
        if path is None or root is None:
            continue
        while True:
            folder = root + path
            if v2:
                cpus = cpu_quota_v2(_read(folder + "/cpu.max"))
            else:
                quota = _read(folder + "/cpu.cfs_quota_us")
                period = _read(folder + "/cpu.cfs_period_us")
                cpus = cpu_quota_v1(quota, period) \
                    if quota is not None and period is not None else 0
            if cpus > 0 and (best == 0 or cpus < best):
                best = cpus
            if not path:
                break
            path = path[:path.rfind("/")] if "/" in path else ""
    return best


def cpu_count():
    """common/cpus.c's cm_cpu_count: the CPUs in this process's affinity
    mask, lowered to its cgroup's CPU quota where there is one, so that a
    chapter's CuPy side starts as many threads as its lab."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    quota = cgroup_cpu_limit("/proc/self/cgroup", "/sys/fs/cgroup",
                             "/sys/fs/cgroup/cpu")
    return quota if 0 < quota < cpus else max(1, cpus)


def print_rows(rows, out=sys.stdout):
    """The rows of measure() as a readable table."""
    width = max([len(r["step"]) for r in rows] + [4])
    out.write("%-*s %12s %16s  %s\n" % (width, "step", "median ms", "rate",
                                        "check"))
    for r in rows:
        detail = r.get("detail")
        out.write("%-*s %12.4f %16s  %s%s\n" % (
            width, r["step"], r["ms"], r.get("unit_rate", ""),
            "ok" if r.get("ok") else "FAILED",
            ": " + detail if detail else ""))


def main(tutorial, measure, argv=None):
    """The main() every cupy_original.py shares. Without --json: the
    tutorial's snippet, then the honest measurement as a table. With
    --json FILE: only measure(), written to FILE, nothing printed but
    errors. Exit 0 if every row is ok, 1 naming the first that is not
    (or the tutorial's own check, when tutorial() returns False), 77
    without CuPy, NumPy or a GPU (checked first)."""
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
    tutorial_ok = True
    try:
        if args.json:
            rows = measure(args.quick)
            doc = dict(gpu_info(cp), rows=rows)
            tmp = args.json + ".tmp"
            with open(tmp, "w") as f:
                json.dump(doc, f, indent=1)
            os.replace(tmp, args.json)
        else:
            tutorial_ok = tutorial() is not False
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
    if not tutorial_ok:
        bad.insert(0, "the tutorial's own check")
    if bad:
        sys.stderr.write("%s: check failed: %s\n" % (prog, bad[0]))
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
