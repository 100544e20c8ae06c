"""pixels_torchvision.py - imgbatch's --antialias pixels against
torchvision's, on the same files: how far apart the two tensors are.

    python3 pixels_torchvision.py DIR [--bin PATH] [--short 256]
        [--crop 224] [--decoder auto|gpu|cpu] [--exact-pil]

DIR's .jpg, .jpeg and .png files, by name, go through

  imgbatch --antialias --color rgb --dtype uint8 --resize-short S
           --crop CxC --no-flip --no-exif --out-npy FILE

and through torchvision's Resize(S, antialias=True) + CenterCrop(C) in
two ways: (a) on the PIL image (Image.open(...).convert("RGB"), the
default path of an ImageFolder pipeline), and (b) on the uint8 tensor
torchvision.io.decode_image decodes on the CPU (mode RGB). For each side
it prints the mean |difference| in levels, the share of values more than
one level apart, the share equal and the largest difference.

PNG files are lossless: both sides start from the same pixels, so the
PIL side should be 0 (imgbatch's resize is Pillow's, bit for bit);
--exact-pil makes that the verdict (the last line PASS, or FAIL and exit
1). JPEG files differ by their decoders too (nvJPEG or stb_image against
libjpeg-turbo).

Exit status: 0, 1 if imgbatch fails or --exact-pil does not hold, 2
usage error, 77 when NumPy, Pillow, PyTorch, torchvision or a usable GPU
is missing (one line).
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BIN = os.path.join(HERE, "..", "..", "build", "bin", "imgbatch")
EXTENSIONS = (".jpg", ".jpeg", ".png")


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit 2."""

    def error(self, message):
        print(f"pixels_torchvision.py: {message} (see --help)",
              file=sys.stderr)
        sys.exit(2)


def at_least_one(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number")
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}' must be at least 1")
    return value


def parse(argv):
    p = Parser(description="imgbatch --antialias against torchvision's "
               "Resize(antialias=True) + CenterCrop, value by value")
    p.add_argument("dir", help="folder of .jpg, .jpeg and .png files")
    p.add_argument("--bin", default=DEFAULT_BIN, help="imgbatch to run")
    p.add_argument("--short", type=at_least_one, default=256,
                   help="Resize(S): the short side (default 256)")
    p.add_argument("--crop", type=at_least_one, default=224,
                   help="CenterCrop(C) (default 224)")
    p.add_argument("--decoder", choices=("auto", "gpu", "cpu"),
                   default="auto", help="imgbatch's --decoder")
    p.add_argument("--exact-pil", action="store_true",
                   help="fail unless every value equals the PIL side's")
    args = p.parse_args(argv)
    if args.crop > args.short:
        p.error(f"--crop {args.crop} is larger than --short {args.short}")
    if not os.path.isdir(args.dir):
        p.error(f"{args.dir}: not a folder")
    return args


def image_files(folder):
    """The folder's files that both sides read, by name (as bytes sort:
    the order of the list imgbatch is given)."""
    names = sorted(n for n in os.listdir(folder)
                   if n.lower().endswith(EXTENSIONS) and
                   os.path.isfile(os.path.join(folder, n)))
    return [os.path.join(folder, n) for n in names]


def imgbatch_command(args, listing, npy):
    return [args.bin, "--list", listing, "--antialias", "--color", "rgb",
            "--dtype", "uint8", "--resize-short", str(args.short), "--crop",
            f"{args.crop}x{args.crop}", "--no-flip", "--no-exif",
            "--decoder", args.decoder, "--repeat", "1", "--warmup", "0",
            "--out-npy", npy]


def compare(np, ours, theirs):
    """(mean |difference|, share more than 1 apart, share equal, most)
    of two uint8 arrays of one shape."""
    d = np.abs(ours.astype(np.int16) - theirs.astype(np.int16))
    n = d.size
    return (float(d.mean()), float((d > 1).sum()) / n,
            float((d == 0).sum()) / n, int(d.max()) if n else 0)


def describe(name, stats, count):
    mean, far, equal, most = stats
    return (f"{name}: {count} images, mean |difference| {mean:.4f} level, "
            f"{100 * far:.3f}% of values more than 1 level apart, "
            f"{100 * equal:.3f}% equal, most {most}")


def main(argv):
    args = parse(argv)
    try:
        import numpy as np
        from PIL import Image
        import torch
        import torchvision
        from torchvision import transforms as T
    except ImportError as e:
        print(f"pixels_torchvision.py: {e.name or e} not found: skipped",
              file=sys.stderr)
        return 77
    files = image_files(args.dir)
    if not files:
        print(f"pixels_torchvision.py: {args.dir}: no .jpg, .jpeg or .png "
              "files", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        listing = os.path.join(tmp, "files.txt")
        npy = os.path.join(tmp, "imgbatch.npy")
        with open(listing, "w") as f:
            f.writelines(path + "\n" for path in files)
        run = subprocess.run(imgbatch_command(args, listing, npy),
                             capture_output=True, text=True)
        if run.returncode != 0:
            line = (run.stderr.strip().splitlines() or ["(no message)"])[-1]
            print(f"pixels_torchvision.py: imgbatch exited "
                  f"{run.returncode}: {line}", file=sys.stderr)
            return 77 if run.returncode == 77 else 1
        ours = np.load(npy)
    want_shape = (len(files), 3, args.crop, args.crop)
    if ours.shape != want_shape or ours.dtype != np.uint8:
        print(f"FAIL: imgbatch's tensor is {ours.dtype} {ours.shape}, "
              f"expected uint8 {want_shape}")
        return 1
    resize = T.Compose([
        T.Resize(args.short, interpolation=T.InterpolationMode.BILINEAR,
                 antialias=True),
        T.CenterCrop(args.crop)])
    with_pil = np.stack([
        np.asarray(resize(Image.open(path).convert("RGB")))
        .transpose(2, 0, 1) for path in files])
    rgb = torchvision.io.ImageReadMode.RGB
    with_tensors = torch.stack([
        resize(torchvision.io.decode_image(torchvision.io.read_file(path),
                                           mode=rgb))
        for path in files]).numpy()
    print(f"imgbatch: {' '.join(imgbatch_command(args, 'LIST', 'FILE'))}")
    print(f"torchvision {torchvision.__version__}, PyTorch "
          f"{torch.__version__}, Pillow {Image.__version__}: "
          f"Resize({args.short}, antialias=True) + "
          f"CenterCrop({args.crop})")
    pil = compare(np, ours, with_pil)
    print(describe("vs PIL images", pil, len(files)))
    print(describe("vs decode_image tensors (CPU)",
                   compare(np, ours, with_tensors), len(files)))
    if args.exact_pil:
        if pil[1] > 0 or pil[2] < 1:
            print(f"FAIL: values differ from the PIL side's, mean "
                  f"|difference| {pil[0]:.4f}, expected 0")
            return 1
        print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
