"""bench_torchvision.py - torchvision's batched GPU JPEG decode on the same
folders imgbatch decodes, for comparison.

    python3 bench_torchvision.py DIR [DIR...] [--batch N] [--repeat N]
                                 [--warmup N] [--device N]

Each folder's .jpg/.jpeg files (a corpus from `imgbatch --make-corpus`,
or any) are first read into memory as byte tensors (not timed: as
imgbatch does, it starts from files in the page cache). Then
torchvision.io.decode_jpeg(list, device='cuda', mode=ImageReadMode.GRAY)
decodes them in lists of --batch files, to gray (the luma channel) on the
GPU; a pass over the folder is timed from the first call to a
torch.cuda.synchronize() after the last, after --warmup untimed passes
(the first of which gives the images that are checked).
One line per folder: the median pass time over --repeat passes (and the
fastest and slowest) and images/s. The decoded images are checked: every
one has the file's size, and the first image of each batch matches
torchvision's CPU decode (libjpeg) of the same file within 2 gray levels
on every pixel (decoders round the inverse DCT differently, by a level
here and there). A folder that torchvision refuses gets its error on its
line.

Exit status: 0, 1 if a check fails or a folder has no JPEG, 2 usage
error, 77 when PyTorch, torchvision or a CUDA GPU is missing (one line).
"""
import argparse
import os
import statistics
import sys
import time


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit 2."""

    def error(self, message):
        print(f"bench_torchvision.py: {message} (see --help)",
              file=sys.stderr)
        sys.exit(2)


def positive(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number")
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}' must be at least 1")
    return value


def non_negative(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number")
    if value < 0:
        raise argparse.ArgumentTypeError(f"'{text}' must be at least 0")
    return value


def parse(argv):
    p = Parser(description="torchvision's batched GPU JPEG decode (gray) "
               "of whole folders, timed.")
    p.add_argument("dirs", nargs="+", metavar="DIR",
                   help="folders of JPEG files")
    p.add_argument("--batch", type=positive, default=256,
                   help="files per decode_jpeg call (default 256)")
    p.add_argument("--repeat", type=positive, default=5,
                   help="timed passes over each folder (default 5)")
    p.add_argument("--warmup", type=positive, default=1,
                   help="untimed passes first, the first one checked "
                   "(default 1)")
    p.add_argument("--device", type=non_negative, default=0,
                   help="CUDA device (default 0)")
    return p.parse_args(argv)


def jpeg_files(folder):
    names = sorted(n for n in os.listdir(folder)
                   if n.lower().endswith((".jpg", ".jpeg")))
    return [os.path.join(folder, n) for n in names]


def main(argv):
    args = parse(argv)
    # Folders first: a wrong path is found before anything is imported.
    for d in args.dirs:
        if not os.path.isdir(d):
            print(f"bench_torchvision.py: {d}: not a folder", file=sys.stderr)
            return 1
    try:
        import torch
        import torchvision
        from torchvision.io import ImageReadMode, decode_jpeg
    except ImportError as e:
        print(f"PyTorch or torchvision not found ({e}): skipped",
              file=sys.stderr)
        return 77
    if not torch.cuda.is_available():
        print("no usable CUDA device (torch.cuda.is_available() is False): "
              "skipped", file=sys.stderr)
        return 77
    if args.device >= torch.cuda.device_count():
        print(f"no usable CUDA device: --device {args.device}, but "
              f"{torch.cuda.device_count()} device(s)", file=sys.stderr)
        return 77
    device = torch.device("cuda", args.device)
    torch.cuda.set_device(device)
    print(f"torchvision {torchvision.__version__} (PyTorch "
          f"{torch.__version__}) on {torch.cuda.get_device_name(device)}: "
          f"decode_jpeg(device='cuda', mode=GRAY), lists of {args.batch} "
          f"files, median of {args.repeat} passes")
    status = 0
    for folder in args.dirs:
        files = jpeg_files(folder)
        if not files:
            print(f"bench_torchvision.py: {folder}: no .jpg or .jpeg files",
                  file=sys.stderr)
            status = 1
            continue
        data = []
        for f in files:
            with open(f, "rb") as fh:
                data.append(torch.frombuffer(bytearray(fh.read()),
                                             dtype=torch.uint8))
        total_bytes = sum(int(t.numel()) for t in data)
        batches = [data[i:i + args.batch]
                   for i in range(0, len(data), args.batch)]

        def one_pass():
            out = []
            for b in batches:
                out.extend(decode_jpeg(b, mode=ImageReadMode.GRAY,
                                       device=device))
            torch.cuda.synchronize(device)
            return out

        try:
            decoded = one_pass()  # also the first warm-up
        except RuntimeError as e:
            reason = " ".join(str(e).split())[:200]
            print(f"{folder}: {len(files)} files: torchvision refused: "
                  f"{reason}")
            continue
        # Checks: sizes, and the first image of each batch against the CPU.
        bad = []
        for i, img in enumerate(decoded):
            cpu_needed = i % args.batch == 0
            if cpu_needed:
                ref = decode_jpeg(data[i], mode=ImageReadMode.GRAY)
                if tuple(img.shape) != tuple(ref.shape):
                    bad.append(f"{files[i]}: shape {tuple(img.shape)}, CPU "
                               f"{tuple(ref.shape)}")
                    continue
                diff = (img.cpu().int() - ref.int()).abs().max().item()
                if diff > 2:
                    bad.append(f"{files[i]}: differs from the CPU decode by "
                               f"{diff} levels")
            elif img.dim() != 3 or img.shape[0] != 1:
                bad.append(f"{files[i]}: shape {tuple(img.shape)}")
        shape = tuple(decoded[0].shape[1:])
        del decoded
        for _ in range(args.warmup - 1):
            one_pass()
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            one_pass()
            times.append(time.perf_counter() - start)
        med = statistics.median(times)
        sizes = f"{shape[1]} x {shape[0]}" if shape else "?"
        print(f"{folder}: {len(files)} files ({sizes} first, "
              f"{total_bytes / len(files) / 1e3:.1f} kB each): "
              f"{med * 1e3:.1f} ms a pass (min {min(times) * 1e3:.1f}, max "
              f"{max(times) * 1e3:.1f}), {len(files) / med:.0f} images/s"
              f"{', check FAILED' if bad else ', checked ok'}")
        for line in bad[:5]:
            print(f"  {line}")
        if bad:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
