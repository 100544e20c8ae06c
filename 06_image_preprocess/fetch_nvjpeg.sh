#!/bin/sh
# fetch_nvjpeg.sh DEST NVCC [WHEEL] - what `make nvjpeg` runs: puts
# nvJPEG's header and library in DEST/include and DEST/lib, from PyPI's
# wheel, for a CUDA toolkit that lacks them (nvJPEG is part of the full
# CUDA Toolkit, but not of every install). WHEEL (name==version) is by
# default the one for NVCC's major version: nvidia-nvjpeg==13.0.* for
# CUDA 13, nvidia-nvjpeg-cu12==12.0.* for CUDA 12, the first minor
# release of the major, so code compiled against it uses nothing that a
# later toolkit of the same major lacks. The wheel ships the library as
# libnvjpeg.so.13 (.12) only; the Makefile links that file by name.
# DEST/complete names the wheel unpacked; a second run with the same
# wheel does nothing.
set -eu
[ $# -ge 2 ] && [ $# -le 3 ] || {
    echo "usage: fetch_nvjpeg.sh DEST NVCC [WHEEL]" >&2; exit 2; }
dest=$1 nvcc=$2 wheel=${3:-}
if [ -z "$wheel" ]; then
    major=$("$nvcc" --version 2>/dev/null |
            sed -n 's/.*release \([0-9][0-9]*\)\..*/\1/p')
    case $major in
    12) wheel='nvidia-nvjpeg-cu12==12.0.*' ;;
    13) wheel='nvidia-nvjpeg==13.0.*' ;;
    *) echo "fetch_nvjpeg: no nvJPEG wheel known for CUDA '$major'" \
            "($nvcc); give NVJPEG_WHEEL=name==version" >&2
       exit 1 ;;
    esac
fi
if [ -f "$dest/complete" ] && [ "$(cat "$dest/complete")" = "$wheel" ]
then
    echo "nvJPEG: $wheel already in $dest"
    exit 0
fi
command -v python3 >/dev/null 2>&1 || {
    echo "fetch_nvjpeg: python3 not found (for pip)" >&2; exit 1; }
rm -rf "$dest"
mkdir -p "$dest/wheel"
echo "nvJPEG: pip download $wheel"
PIP_DISABLE_PIP_VERSION_CHECK=1 python3 -m pip download --no-deps \
    --no-cache-dir --quiet --dest "$dest/wheel" "$wheel" || {
    echo "fetch_nvjpeg: pip download $wheel failed" >&2; exit 1; }
# A wheel is a zip: nvidia/<dir>/include/nvjpeg.h and
# nvidia/<dir>/lib/libnvjpeg.so.N are all we keep.
python3 - "$dest/wheel" "$dest" <<'PY' || exit 1
import os, sys, zipfile
wheels, dest = sys.argv[1], sys.argv[2]
found = set()
for name in sorted(os.listdir(wheels)):
    with zipfile.ZipFile(os.path.join(wheels, name)) as z:
        for m in z.infolist():
            parts = m.filename.split("/")
            if len(parts) != 4 or parts[0] != "nvidia":
                continue
            if parts[2:] == ["include", "nvjpeg.h"]:
                sub = "include"
            elif parts[2] == "lib" and parts[3].startswith("libnvjpeg.so"):
                sub = "lib"
            else:
                continue
            out = os.path.join(dest, sub, parts[3])
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with z.open(m) as src, open(out + ".tmp", "wb") as dst:
                dst.write(src.read())
            os.replace(out + ".tmp", out)
            found.add(sub)
if found != {"include", "lib"}:
    sys.exit("fetch_nvjpeg: the wheel holds no nvjpeg.h or libnvjpeg.so")
PY
rm -rf "$dest/wheel"
echo "$wheel" >"$dest/complete"
echo "nvJPEG: $wheel unpacked:" "$dest"/include/nvjpeg.h "$dest"/lib/*
