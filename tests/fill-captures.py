#!/usr/bin/env python3
"""Fills the README output blocks from a tests/gpu-check.sh run.

    tests/fill-captures.py DIR      (DIR holds captures/ from gpu-check.sh,
                                     or gpu-check.tgz)

Each "<!-- capture: CMD -->" line in a README is followed by one line naming
the GPU, driver and date, and a fenced block holding "$ CMD" and what CMD
printed, exactly. Both are rewritten from the capture files, never by hand.
"""
import os
import re
import sys
import tarfile
import tempfile

MARKER = re.compile(r"^<!-- capture: (.*) -->$")


def load(root):
    if os.path.isfile(os.path.join(root, "gpu-check.tgz")):
        tmp = tempfile.mkdtemp()
        with tarfile.open(os.path.join(root, "gpu-check.tgz")) as tar:
            tar.extractall(tmp, filter="data")
        root = tmp
    cap = os.path.join(root, "captures")
    gpu = open(os.path.join(cap, "gpu.txt")).read().split("\n")
    name, driver = [s.strip() for s in gpu[0].split(",")]
    header = "Output on an %s (driver %s), %s:" % (name, driver, gpu[1])
    runs = {}
    for line in open(os.path.join(cap, "index.tsv")):
        ident, readme, cmd, rc = line.rstrip("\n").split("\t")
        text = open(os.path.join(cap, ident + ".txt")).read().rstrip("\n")
        runs.setdefault(readme, []).append((cmd, rc, text))
    return header, runs


def fill(readme, header, captures):
    """Rewrites the block under each marker that has a capture (the
    captures of one README, in order; CAPTURE_ONLY may have left some
    markers without one, whose blocks stay as they are)."""
    lines = open(readme).read().split("\n")
    left = list(captures)
    out, i, filled = [], 0, 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        out.append(lines[i])
        i += 1
        if not m:
            continue
        if not left or left[0][0] != m.group(1):
            if any(c[0] == m.group(1) for c in left):
                sys.exit("%s: capture for '%s' out of order" %
                         (readme, m.group(1)))
            continue
        cmd, rc, text = left.pop(0)
        filled += 1
        if rc != "0":
            print("warning: %s: '%s' exited %s" % (readme, cmd, rc))
        if i < len(lines) and lines[i].startswith("Output on "):
            i += 1
        if i < len(lines) and lines[i].startswith("```"):
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                i += 1
            i += 1
        out += [header, "```", "$ " + cmd, text, "```"]
    if left:
        sys.exit("%s: no marker for the capture of '%s'" % (readme,
                                                            left[0][0]))
    open(readme, "w").write("\n".join(out))
    print("%s: %d block(s) filled" % (readme, filled))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    header, runs = load(sys.argv[1])
    for readme, captures in sorted(runs.items()):
        fill(readme, header, captures)


if __name__ == "__main__":
    main()
