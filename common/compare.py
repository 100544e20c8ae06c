#!/usr/bin/env python3
"""compare.py - a chapter's C lab and the tutorial's CuPy, on the same GPU,
in one table: what `make compare-NN` and `make compare` run.

    python3 common/compare.py [--quick] [--summary] [--rounds N]
                              CHAPTER BIN [...]
    python3 common/compare.py 02_interop build/bin/02_interop --quick

For each CHAPTER folder (it holds cupy_original.py) this runs the C lab BIN
with the options and --csv file the chapter names (C_ARGS, or
C_QUICK_ARGS with --quick), then `cupy_original.py --json FILE` in a
process of its own, so neither side shares a process, a context or a
memory pool with the other; and again, in turn, N times (3 by default,
at least 3): C, CuPy, C, CuPy, ... so that both sides sample the same
stretches of the machine's time. Then one table: each step, the median
of each side's runs, CuPy / C, its range over the runs, the call
(faster, slower, or no difference when the two sides' ranges overlap),
and what makes the difference; the line that says how both sides time;
the cross-checks of the two sides' results in every run; PASS or FAIL.

With several chapters (`make compare`) each chapter's table comes first,
then a summary, one row per chapter (its HEADLINE step, the same work on
both sides); --summary prints the summary alone. With several chapters
or --summary, a line as each chapter starts ("[2/7] 03_matmul: started,
3 runs a side") and one as it ends (PASS, FAIL or skipped, after how
many seconds, and why when it did not pass). Exit 0 when everything
passed, 1 when a side failed or a check did not hold, 2 for a bad command
line, 77 when CuPy, NumPy or a GPU is missing (one line saying which,
before anything runs).
"""
import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True   # no __pycache__ in the source folders
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cupy_env  # noqa: E402  (needs the path above)

USAGE = ("usage: compare.py [--quick] [--summary] [--rounds N] CHAPTER BIN "
         "[CHAPTER BIN ...]")
# A side that runs longer than this is stopped and counted as failed.
SIDE_TIMEOUT_S = 900
# Each side runs this many times, in turn with the other (--rounds N):
# three is the fewest whose range says anything.
ROUNDS = 3
# What the chapter's cupy_original.py must define for the driver; TIMING
# (how both sides time, one line) is printed under the table when given.
C_SIDE = ("C_ARGS", "C_QUICK_ARGS", "c_rows", "WHY", "HEADLINE", "agree")


class ChapterFailed(Exception):
    """One line saying why a chapter could not be compared; code is the
    exit status it stands for (1, or 77 when a GPU or CuPy is missing)."""

    def __init__(self, line, code=cupy_env.EXIT_FAIL):
        super().__init__(line)
        self.code = code


def usage_error(reason):
    sys.stderr.write("compare.py: %s (%s)\n" % (reason, USAGE))
    sys.exit(cupy_env.EXIT_USAGE)


def parse(argv):
    """Options anywhere; positionals in CHAPTER BIN pairs."""
    quick = summary = False
    rounds = ROUNDS
    words = []
    args = iter(argv)
    for arg in args:
        if arg in ("-h", "--help"):
            print(USAGE)
            print(__doc__.split("\n\n", 2)[2].rstrip())
            sys.exit(0)
        elif arg == "--quick":
            quick = True
        elif arg == "--summary":
            summary = True
        elif arg == "--rounds" or arg.startswith("--rounds="):
            value = arg[len("--rounds="):] if "=" in arg else next(args, None)
            if value is None:
                usage_error("option '--rounds' needs a value")
            if not re.fullmatch(r"[0-9]+", value):
                usage_error("--rounds: '%s' is not a whole number" % value)
            rounds = int(value)
            if rounds < ROUNDS:
                usage_error("--rounds: '%s' must be at least %d"
                            % (value, ROUNDS))
        elif arg.startswith("-"):
            usage_error("unknown option '%s'" % arg)
        else:
            words.append(arg)
    if not words:
        usage_error("no chapter given")
    if len(words) % 2:
        usage_error("chapter '%s' has no lab program after it" % words[-1])
    pairs = list(zip(words[0::2], words[1::2]))
    for folder, program in pairs:
        if not os.path.isfile(os.path.join(folder, "cupy_original.py")):
            usage_error("no chapter '%s': it has no cupy_original.py"
                        % folder)
        if not (os.path.isfile(program) and os.access(program, os.X_OK)):
            usage_error("no lab program '%s' (make builds it)" % program)
    return quick, summary, rounds, pairs


def load_chapter(folder):
    """The chapter's cupy_original.py as a module, for its C side only;
    it imports CuPy inside functions, so this needs no CuPy."""
    path = os.path.join(folder, "cupy_original.py")
    name = "cupy_original_" + re.sub(r"\W", "_", os.path.basename(
        os.path.normpath(folder)))
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except Exception as err:
        raise ChapterFailed("%s: cannot be imported without running it: %s"
                            % (path, cupy_env._one_line(err)))
    missing = [n for n in C_SIDE if not hasattr(module, n)]
    if missing:
        raise ChapterFailed("%s lacks %s" % (path, ", ".join(missing)))
    return module


def last_line(text):
    lines = [s for s in text.strip().splitlines() if s.strip()]
    return lines[-1].strip() if lines else ""


def run_side(cmd, what):
    """Runs one side; returns its CompletedProcess. A side that cannot
    start or runs too long fails the chapter."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=env,
                              universal_newlines=True,
                              timeout=SIDE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise ChapterFailed("%s ran longer than %d s and was stopped"
                            % (what, SIDE_TIMEOUT_S))
    except OSError as err:
        raise ChapterFailed("%s could not start: %s" % (what, err))


def run_c(module, program, quick, tmp, run):
    """The C lab with --csv, the run-th time; returns (its rows, its
    verdict line)."""
    csv_path = os.path.join(tmp, "c-%d.csv" % run)
    args = list(module.C_QUICK_ARGS if quick else module.C_ARGS)
    proc = run_side([program] + args + ["--csv", csv_path], "the C lab")
    if proc.returncode != 0:
        fail = [s for s in proc.stdout.splitlines() if s.startswith("FAIL")]
        why = last_line(proc.stderr) or (fail[-1] if fail else "")
        raise ChapterFailed("the C lab %s exited %d: %s"
                            % (program, proc.returncode, why),
                            cupy_env.EXIT_NO_DEVICE
                            if proc.returncode == 77 else cupy_env.EXIT_FAIL)
    verdict = [s for s in proc.stdout.splitlines() if s.startswith("PASS")]
    try:
        rows = module.c_rows(csv_path)
    except Exception as err:
        raise ChapterFailed("c_rows() could not read the C lab's CSV: %s"
                            % cupy_env._one_line(err))
    for row in rows:
        if not isinstance(row.get("step"), str) or not isinstance(
                row.get("ms"), (int, float)):
            raise ChapterFailed("c_rows() gave a row without a step and "
                                "ms: %r" % (row,))
    return rows, (verdict[-1] if verdict else "PASS")


def run_cupy(folder, quick, tmp, run):
    """cupy_original.py --json in its own process, the run-th time;
    returns (the document, the error line if its checks failed, else
    None)."""
    json_path = os.path.join(tmp, "cupy-%d.json" % run)
    script = os.path.join(folder, "cupy_original.py")
    cmd = [sys.executable, script, "--json", json_path]
    proc = run_side(cmd + (["--quick"] if quick else []), "the CuPy side")
    if proc.returncode == 77:
        raise ChapterFailed("the CuPy side: %s" % last_line(proc.stderr),
                            cupy_env.EXIT_NO_DEVICE)
    error = None
    if proc.returncode != 0:
        error = "the CuPy side exited %d: %s" % (
            proc.returncode, last_line(proc.stderr) or "no message")
        if proc.returncode != 1 or not os.path.isfile(json_path):
            raise ChapterFailed(error)
    try:
        with open(json_path) as f:
            doc = json.load(f)
        rows = doc["rows"]
        for row in rows:
            if not isinstance(row["step"], str) or not isinstance(
                    row["ms"], (int, float)):
                raise ValueError("a row without a step and ms")
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise ChapterFailed("the CuPy side's --json file is unusable: %s"
                            % cupy_env._one_line(err))
    return doc, error


def driver_version():
    """The NVIDIA driver's version, as nvidia-smi prints it."""
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version",
             "--format=csv,noheader"], stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, universal_newlines=True, timeout=20)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip().splitlines()[0].strip()
    except (OSError, subprocess.TimeoutExpired):
        pass
    try:
        with open("/proc/driver/nvidia/version") as f:
            m = re.search(r"Kernel Module\s+(?:for \S+\s+)?([\d.]+)",
                          f.read())
            if m:
                return m.group(1)
    except OSError:
        pass
    return "unknown"


def gpu_line(doc, driver):
    return "GPU: %s (driver %s, CUDA runtime %s, CuPy %s)" % (
        doc.get("gpu", "?"), driver, cupy_env.version_text(
            doc.get("cuda", "?")), doc.get("cupy", "?"))


def _sig3(x):
    return "%.0f" % x if x >= 99.95 else "%.1f" % x if x >= 9.995 \
        else "%.2f" % x


def fmt_time(ms):
    """A time in the unit that reads best: 8.10 us, 52.2 ms, 1.20 s."""
    if ms is None:
        return "-"
    if ms < 0.9995:
        return _sig3(ms * 1e3) + " us"
    if ms < 999.5:
        return _sig3(ms) + " ms"
    return _sig3(ms / 1e3) + " s"


def _two_digits(x):
    return "%g" % float("%.2g" % x)


def fmt_ratio(cupy_ms, c_ms):
    """CuPy / C with two significant digits: 3.1x, 0.52x, 150x."""
    if cupy_ms is None or c_ms is None or c_ms <= 0:
        return "-"
    return _two_digits(cupy_ms / c_ms) + "x"


def fmt_range(cupy_runs, c_runs):
    """CuPy / C at its extremes over the runs: CuPy's fastest over C's
    slowest, and CuPy's slowest over C's fastest: 0.95-1.1x."""
    if not cupy_runs or not c_runs or min(c_runs) <= 0:
        return "-"
    return "%s-%sx" % (_two_digits(min(cupy_runs) / max(c_runs)),
                       _two_digits(max(cupy_runs) / min(c_runs)))


def call(cupy_runs, c_runs, side="CuPy"):
    """Which side is faster, said only when every run of one beat every
    run of the other (the two ranges do not overlap), with at least
    ROUNDS runs each; else "no difference". side names the Python side's
    code in that row (NumPy on the CPU)."""
    if not cupy_runs or not c_runs:
        return ""
    if min(len(cupy_runs), len(c_runs)) < ROUNDS:
        return "too few runs"
    if min(cupy_runs) > max(c_runs):
        return side + " slower"
    if max(cupy_runs) < min(c_runs):
        return side + " faster"
    return "no difference"


def median(values):
    return statistics.median(values) if values else None


def by_prefix(table, step):
    """table[step], else the value of the longest key that starts step (a
    step name may end with a size that --quick changes)."""
    if step in table:
        return table[step]
    keys = [k for k in table if step.startswith(k)]
    return table[max(keys, key=len)] if keys else None


def table_text(header, rows):
    """Columns padded to their widest cell; the last one is left as is.
    Columns 0 (and 1 when the first two are text) align left."""
    cells = [header] + rows
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    left = set(i for i, h in enumerate(header)
               if h in ("step", "chapter", "call",
                        "what makes the difference"))
    out = []
    for r in cells:
        parts = [(c.ljust if i in left else c.rjust)(widths[i])
                 for i, c in enumerate(r)]
        out.append("  ".join(parts).rstrip())
    return "\n".join(out)


class Result:
    """One chapter: its table, its checks, its headline row, its status."""

    def __init__(self, name):
        self.name = name
        self.code = 0
        self.error = None
        self.doc = None
        self.lines = []
        self.headline = None


def runs_lines(rounds):
    """What the columns of a table mean, under its GPU line."""
    return ["runs: each side ran %d times, in turn with the other (C, CuPy, "
            "C, ...); CuPy and C: the median of its runs" % rounds,
            "min-max: CuPy / C at the runs' extremes; a side is called "
            "faster only when all its runs beat all the other's"]


TABLE_HEADER = ["step", "CuPy", "C", "CuPy / C", "min-max", "call",
                "what makes the difference"]


def side_runs(runs, step):
    """The ms of step in each run that has it: (CuPy's, C's)."""
    return ([r["cupy"][step] for r in runs if step in r["cupy"]],
            [r["c"][step] for r in runs if step in r["c"]])


def table_row(runs, step, why, sides=None):
    """sides: the Python side's name for the steps where it is not CuPy
    (a chapter's optional PYTHON_SIDE)."""
    a, b = side_runs(runs, step)
    side = by_prefix(sides or {}, step) or "CuPy"
    return [step, fmt_time(median(a)), fmt_time(median(b)),
            fmt_ratio(median(a), median(b)), fmt_range(a, b),
            call(a, b, side), by_prefix(why, step) or ""]


def run_checks(module, c_verdict, doc, cupy_error, c_rows):
    """One run's checks: [(what, ok, detail)]."""
    cupy_rows = doc["rows"]
    checks = [("the C lab's own checks", True, c_verdict)]
    bad = [r["step"] for r in cupy_rows if not r.get("ok")]
    checks.append(("the CuPy side's own checks (NumPy or exact values)",
                   not bad and cupy_error is None,
                   "%d rows" % len(cupy_rows) if not bad and not cupy_error
                   else cupy_error or "failed: " + ", ".join(bad)))
    try:
        for what, ok, detail in module.agree(cupy_rows, c_rows):
            checks.append((what, bool(ok), str(detail)))
    except Exception as err:
        checks.append(("agree()", False, "raised " + repr(err)))
    return checks


def merged_checks(per_run, rounds):
    """Each check once, in order: ok when it held in every run (with the
    last run's detail), else the first run where it failed."""
    order, seen = [], {}
    for k, checks in enumerate(per_run):
        for what, ok, detail in checks:
            if what not in seen:
                order.append(what)
                seen[what] = []
            seen[what].append((k, ok, detail))
    out = []
    for what in order:
        failed = [(k, d) for k, ok, d in seen[what] if not ok]
        if failed:
            k, detail = failed[0]
            out.append((what, False, "FAILED in run %d of %d%s" % (
                k + 1, rounds, ", " + detail if detail else "")))
        else:
            held = len(seen[what])
            detail = seen[what][-1][2]
            out.append((what, True, "ok in %d of %d runs%s" % (
                held, rounds, ", " + detail if detail else "")))
    return out


def compare_chapter(folder, program, quick, rounds, driver):
    name = os.path.basename(os.path.normpath(folder))
    res = Result(name)
    res.lines.append("%s%s: the C lab (%s) and the tutorial's CuPy "
                     "(%s/cupy_original.py)" % (name, " --quick" if quick
                                                else "", program, folder))
    tmp = tempfile.mkdtemp(prefix="compare-")
    runs = []
    try:
        module = load_chapter(folder)
        # C, CuPy, C, CuPy, ...: each pair a stretch of the same time.
        for k in range(rounds):
            try:
                c_rows, c_verdict = run_c(module, program, quick, tmp, k)
                doc, cupy_error = run_cupy(folder, quick, tmp, k)
            except ChapterFailed as err:
                if k > 0:
                    err.args = ("in run %d of %d, %s" % (k + 1, rounds,
                                                         err),)
                raise
            runs.append({
                "c": dict((r["step"], float(r["ms"])) for r in c_rows),
                "cupy": dict((r["step"], float(r["ms"]))
                             for r in doc["rows"]),
                "checks": run_checks(module, c_verdict, doc, cupy_error,
                                     c_rows),
                "doc": doc, "c_rows": c_rows})
            if cupy_error:      # its own checks failed: no use going on
                break
    except ChapterFailed as err:
        res.code, res.error = err.code, str(err)
        if err.code != cupy_env.EXIT_NO_DEVICE:
            res.lines.append("FAIL: " + res.error)
        return res
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    res.doc = runs[0]["doc"]
    steps = []
    for r in runs:
        steps += [x["step"] for x in r["doc"]["rows"] if x["step"] not in
                  steps]
    for r in runs:
        steps += [x["step"] for x in r["c_rows"] if x["step"] not in steps]
    why = dict(module.WHY)
    sides = dict(getattr(module, "PYTHON_SIDE", {}))
    res.lines.append(gpu_line(res.doc, driver))
    timing = getattr(module, "TIMING", None)
    res.lines.append("timing, both sides: " + timing if timing else
                     "timing: not stated (cupy_original.py has no TIMING)")
    res.lines += runs_lines(rounds)
    res.lines.append(table_text(TABLE_HEADER,
                                [table_row(runs, step, why, sides)
                                 for step in steps]))

    checks = merged_checks([r["checks"] for r in runs], rounds)
    for what, ok, detail in checks:
        res.lines.append("check %s: %s" % (what, detail))
    failed = [what for what, ok, _ in checks if not ok]
    if failed:
        res.code = cupy_env.EXIT_FAIL
        res.error = "check failed: " + failed[0]
        res.lines.append("FAIL: " + res.error)
    else:
        res.lines.append("PASS (%d checks, each in all %d runs)"
                         % (len(checks), rounds))

    head = [s for s in steps if s == module.HEADLINE] or \
        [s for s in steps if s.startswith(module.HEADLINE)]
    if head:
        res.headline = [name] + table_row(runs, head[0], why, sides)
    else:
        res.headline = [name, "%s: not measured" % module.HEADLINE,
                        "-", "-", "-", "-", "", ""]
    return res


def summary_lines(results, driver, rounds):
    docs = [r.doc for r in results if r.doc]
    lines = ["Summary: one row per chapter, its headline step: the same "
             "work on both sides, timed the same way (each chapter's table "
             "says how); CuPy / C above 1 means CuPy took longer"]
    lines.append(gpu_line(docs[0], driver) if docs else "GPU: -")
    lines += runs_lines(rounds)
    rows = [r.headline or [r.name, "FAILED: " + (r.error or "?"), "-", "-",
                           "-", "-", "", ""] for r in results]
    lines.append(table_text(["chapter"] + TABLE_HEADER, rows))
    return lines


def progress_word(code):
    """The word a chapter's end line gives for its exit status."""
    if code == 0:
        return "PASS"
    return "skipped" if code == cupy_env.EXIT_NO_DEVICE else "FAIL"


def main(argv):
    quick, summary, rounds, pairs = parse(argv)
    cupy_env.require_cupy()   # exits 77 with its line when missing
    driver = driver_version()
    results = []
    # A chapter takes a minute or more: with several, or with --summary
    # (which holds the tables back), a line as each starts and ends says
    # how far the run has got.
    progress = len(pairs) > 1 or summary
    for k, (folder, program) in enumerate(pairs):
        tag = "[%d/%d] %s" % (k + 1, len(pairs),
                              os.path.basename(os.path.normpath(folder)))
        if progress:
            print("%s: started, %d runs a side" % (tag, rounds), flush=True)
        start = time.monotonic()
        res = compare_chapter(folder, program, quick, rounds, driver)
        results.append(res)
        if res.code == cupy_env.EXIT_NO_DEVICE:   # one line, as the labs
            sys.stderr.write("%s: %s\n" % (res.name, res.error))
            sys.stderr.flush()
        elif not summary:
            print(("\n" if len(results) > 1 else "") +
                  "\n".join(res.lines), flush=True)
        if progress:
            print("%s: %s after %.0f s%s" % (
                tag, progress_word(res.code), time.monotonic() - start,
                ": " + res.error if res.code else ""), flush=True)
    codes = [r.code for r in results]
    if len(pairs) > 1 or summary:
        print(("" if summary else "\n") +
              "\n".join(summary_lines(results, driver, rounds)))
        failed = [r.name for r in results if r.code]
        print("FAIL: %s" % ", ".join(failed) if failed else
              "PASS (%d chapters)" % len(results))
    if cupy_env.EXIT_FAIL in codes:
        return cupy_env.EXIT_FAIL
    if codes and all(c == cupy_env.EXIT_NO_DEVICE for c in codes):
        return cupy_env.EXIT_NO_DEVICE
    return cupy_env.EXIT_FAIL if any(codes) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
