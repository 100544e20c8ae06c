"""imgbatch: a folder of images into batches on the GPU, from Python.

    import imgbatch, torch
    with imgbatch.Loader("photos/", resize=224, color="rgb") as loader:
        for batch in loader:
            x = torch.as_tensor(batch, device="cuda")   # a view, no copy
            loss = model(x).sum()                       # ... a step

The loader is libimgbatch.so (06_image_preprocess/batch/imgbatch.h), which
`make` builds, called through ctypes: nothing is compiled at install and
nothing beyond the standard library is imported. Options are the command
line's (`imgbatch --help`) with underscores: resize_short for
--resize-short, and are parsed by the library's own code; the tool's own
(out_npy, check_images, repeat, ...) are not the loader's.

A batch's memory is the loader's: it stays valid until the loader's next
step (the next batch, another pass, close), when the batch object goes
stale: its memory (data_ptr, stream, __cuda_array_interface__) raises
StaleBatchError; its .files and .labels are copies and stay. A tensor made from a batch
(torch.as_tensor) is a view of that memory: consume it in the step (the
GPU work enqueued before the next batch is taken is waited for before the
memory is filled again, on the streams the loader knows, see Loader), or
clone it to keep it.

Errors raise Error subclasses carrying the library's one-line reason and
its status: OptionsError, InputError, NoDeviceError, OutOfMemoryError,
CudaError; LibraryError when libimgbatch.so is missing or of another
layout.
"""

import ctypes
import os
import sys
import weakref

__all__ = ["Loader", "Batch", "Error", "OptionsError", "InputError",
           "NoDeviceError", "OutOfMemoryError", "CudaError",
           "StaleBatchError", "LibraryError", "load_library"]

# imgbatch_status (imgbatch.h).
OK, ERR_OPTIONS, ERR_INPUT, ERR_NO_DEVICE, ERR_MEMORY, ERR_CUDA = range(6)


class Error(Exception):
    """A failure of the loader: .status (imgbatch_status, or None for the
    module's own) and .reason (the library's one line)."""

    def __init__(self, reason, status=None):
        super().__init__(reason)
        self.reason = reason
        self.status = status


class OptionsError(Error, ValueError):
    """Options the library refuses, alone or together."""


class InputError(Error):
    """A file or folder that cannot be used, no whole batch left by
    drop_last, or decoder="gpu" in a build without nvJPEG."""


class NoDeviceError(Error):
    """No usable CUDA device, or nvjpeg_backend="hardware" on a GPU
    without the hardware decoder (the command line's exit 77)."""


class OutOfMemoryError(Error, MemoryError):
    """Not enough host or GPU memory."""


class CudaError(Error):
    """A CUDA or nvJPEG call failed."""


class StaleBatchError(Error):
    """A batch used after the loader's next step."""


class LibraryError(Error, ImportError):
    """libimgbatch.so not found, or built with other struct layouts."""


_BY_STATUS = {ERR_OPTIONS: OptionsError, ERR_INPUT: InputError,
              ERR_NO_DEVICE: NoDeviceError, ERR_MEMORY: OutOfMemoryError,
              ERR_CUDA: CudaError}


# imgbatch.h's structs, field for field; imgbatch_sizeof guards them.
class _Batch(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p),
                ("count", ctypes.c_size_t), ("channels", ctypes.c_size_t),
                ("height", ctypes.c_size_t), ("width", ctypes.c_size_t),
                ("dtype", ctypes.c_int),
                ("bytes", ctypes.c_size_t), ("first", ctypes.c_size_t),
                ("stream", ctypes.c_void_p), ("ready", ctypes.c_void_p),
                ("files", ctypes.POINTER(ctypes.c_char_p)),
                ("host", ctypes.c_void_p),
                ("labels", ctypes.POINTER(ctypes.c_int64))]


class _Info(ctypes.Structure):
    _fields_ = [("images", ctypes.c_size_t),
                ("pass_images", ctypes.c_size_t),
                ("channels", ctypes.c_size_t),
                ("height", ctypes.c_size_t), ("width", ctypes.c_size_t),
                ("dtype", ctypes.c_int),
                ("image_bytes", ctypes.c_size_t),
                ("batch_images", ctypes.c_size_t),
                ("tensor", ctypes.c_void_p),
                ("tensor_bytes", ctypes.c_size_t),
                ("classes", ctypes.c_size_t),
                ("class_names", ctypes.POINTER(ctypes.c_char_p)),
                ("unread", ctypes.c_size_t)]


_MIRRORED = {"imgbatch_batch": _Batch, "imgbatch_info": _Info}
# imgbatch_dtype: its name and the array interface's typestr.
_DTYPES = [("float32", "<f4"), ("float16", "<f2"), ("uint8", "|u1")]

_HERE = os.path.dirname(os.path.abspath(__file__))
# The repository's root, from 06_image_preprocess/batch/python/imgbatch/.
_ROOT = os.path.normpath(os.path.join(_HERE, *[os.pardir] * 4))
DEFAULT_LIBRARY = os.path.join(_ROOT, "build", "lib", "libimgbatch.so")
_loaded = {}


def _declare(lib):
    p, c_int, c_size = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t
    sigs = {
        "imgbatch_options_new": (p, []),
        "imgbatch_set_option": (c_int, [p, ctypes.c_char_p,
                                        ctypes.c_char_p]),
        "imgbatch_options_free": (None, [p]),
        "imgbatch_open": (c_int, [ctypes.POINTER(p), p]),
        "imgbatch_next": (c_int, [p, ctypes.POINTER(_Batch)]),
        "imgbatch_rewind": (c_int, [p]),
        "imgbatch_get_info": (c_int, [p, ctypes.POINTER(_Info)]),
        "imgbatch_close": (c_int, [p]),
        "imgbatch_read_on": (c_int, [p, p]),
        "imgbatch_failure_reason": (ctypes.c_char_p, []),
        "imgbatch_sizeof": (c_size, [ctypes.c_char_p]),
    }
    for name, (restype, argtypes) in sigs.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = restype, argtypes


def _check_layout(lib, path, mirrored=None):
    """LibraryError unless each mirrored struct has the library's size."""
    for name, struct in (mirrored or _MIRRORED).items():
        built = lib.imgbatch_sizeof(name.encode())
        if built != ctypes.sizeof(struct):
            raise LibraryError(
                "%s: %s is %d bytes there, %d in this module: the library "
                "and the module are of different versions (rebuild with "
                "make, or point IMGBATCH_LIBRARY at the matching one)"
                % (path, name, built, ctypes.sizeof(struct)))


def load_library(path=None):
    """libimgbatch.so, loaded and checked: path, else $IMGBATCH_LIBRARY,
    else the repository's build/lib/libimgbatch.so."""
    path = path or os.environ.get("IMGBATCH_LIBRARY") or DEFAULT_LIBRARY
    path = os.path.abspath(os.fspath(path))
    if path in _loaded:
        return _loaded[path]
    if not os.path.isfile(path):
        raise LibraryError("%s: no such file (make builds it; or set "
                           "IMGBATCH_LIBRARY, or pass library=)" % path)
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise LibraryError("%s: cannot be loaded: %s" % (path, e)) from None
    try:
        _declare(lib)
    except AttributeError as e:
        raise LibraryError("%s: not this module's library: %s"
                           % (path, e)) from None
    _check_layout(lib, path)
    _loaded[path] = lib
    return lib


def _raise(lib, status):
    reason = lib.imgbatch_failure_reason().decode(errors="replace")
    raise _BY_STATUS.get(status, Error)(reason, status)


def _text(value):
    """An option's value as the command line's text."""
    if isinstance(value, (tuple, list)):
        return ",".join(str(v) for v in value)
    return str(value)


def _size(value):
    """224 -> '224x224', (224, 160) -> '224x160' (width x height)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return "%dx%d" % (value, value)
    if isinstance(value, (tuple, list)) and len(value) == 2:
        return "%sx%s" % tuple(value)
    return str(value)


def _stream_handle(stream):
    """A cudaStream_t as an int, from an int or a stream object."""
    for attr in ("cuda_stream", "ptr", "handle"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    return int(stream)


def _torch_stream(device):
    """PyTorch's current stream on device, if PyTorch is imported and has
    CUDA; else None. (Never imports it.)"""
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_available():
        return None
    return torch.cuda.current_stream(device).cuda_stream


class Batch:
    """One batch on the GPU: shape (count, H, W) gray or (count, 3, H, W)
    RGB, NCHW, C-contiguous; .files in the tensor's order, .first the
    index of its first image in the pass. It exposes
    __cuda_array_interface__ (version 3, with the stream its work was
    enqueued on), so torch.as_tensor(batch, device="cuda") or
    cupy.asarray(batch) view it without a copy, until the loader's next
    step; after it, its memory (data_ptr, stream,
    __cuda_array_interface__) raises StaleBatchError, while .files,
    .labels and the sizes are copies and stay."""

    def __init__(self, owner, step, raw):
        self._owner, self._step = owner, step
        self.count, self.first = raw.count, raw.first
        if raw.channels == 1:
            self.shape = (raw.count, raw.height, raw.width)
        else:
            self.shape = (raw.count, raw.channels, raw.height, raw.width)
        self.dtype, self._typestr = _DTYPES[raw.dtype]
        self.nbytes = raw.bytes
        self._data = raw.data or 0
        self._stream = raw.stream or 0
        self.files = [os.fsdecode(raw.files[i]) for i in range(raw.count)]
        # The files' labels (class folders, or a list with labels), in
        # the tensor's order, copied: a list of ints, or None.
        self.labels = ([raw.labels[i] for i in range(raw.count)]
                       if raw.labels else None)

    def _alive(self):
        if self._owner._step != self._step:
            raise StaleBatchError(
                "this batch (images %d to %d) is gone: the loader took "
                "another step (next batch, another pass or close); clone "
                "what you keep before the next step"
                % (self.first, self.first + self.count - 1))

    @property
    def data_ptr(self):
        """The device address of the batch (valid until the next step)."""
        self._alive()
        return self._data

    @property
    def stream(self):
        """The cudaStream_t (an int) its decode and kernel ran on."""
        self._alive()
        return self._stream

    @property
    def __cuda_array_interface__(self):
        self._alive()
        return {
            "shape": self.shape,
            "typestr": self._typestr,
            # An empty batch (every file skipped) has no data.
            "data": (self._data if self.count else 0, False),
            "strides": None,
            "version": 3,
            # The consumer orders its work after this stream's (CAI v3);
            # 0 would be ambiguous there, and the legacy stream is 1.
            "stream": self._stream or 1,
        }

    def __len__(self):
        return self.count

    def __repr__(self):
        state = "stale" if self._owner._step != self._step else "live"
        return "<imgbatch.Batch %s %s, images %d..., %s>" % (
            self.dtype, self.shape, self.first, state)


class Loader:
    """Batches of images on the GPU, one pass per iteration.

    source: a folder (its image files, by name), a list or tuple of image
    paths, or a text file that lists them (one path a line). The options
    are the command line's: resize (224, (W, H) or "WxH"); resize_short
    with crop; color "gray" or "rgb"; dtype "float32", "float16" or
    "uint8"; mean and std (one value or one per channel); flip (default
    False); exif (default True: each JPEG turned upright by its EXIF
    orientation); antialias (default False: the plain bilinear resize,
    faster; True: exactly Pillow's Image.resize(BILINEAR), torchvision's
    Resize default, antialias=True); skip_bad; max_pixels; batch_size;
    threads; streams; decoder; nvjpeg_backend; hybrid_share (a share of
    the hardware decoder's JPEGs sent to nvJPEG's hybrid path on the
    reader threads, 0 to 1, or "auto"; default 0); keep_on_gpu; device. A
    data set: class_folders (the folder holds a folder per class, as
    torchvision's ImageFolder: each batch's .labels, the loader's
    .classes), shuffle with seed (each pass a new order), rank with
    world_size (DistributedSampler's shard), and drop_last. None leaves
    the library's default.

    read_on: the streams your work reads each batch on. By default, when
    PyTorch is imported, its current stream on the device at each step:
    that stream waits for the batch, and the batch's memory is filled
    again only after the work enqueued there before the next step. Give a
    stream (an int cudaStream_t, or an object with .cuda_stream or .ptr)
    or a list of them to name others; [] for none (then finish your work
    on a batch before the next step, or enqueue it on batch.stream).

    library: the path of libimgbatch.so (else $IMGBATCH_LIBRARY, else the
    repository's build/lib/libimgbatch.so).
    """

    def __init__(self, source, *, batch_size=None, resize=None,
                 resize_short=None, crop=None, color=None, dtype=None,
                 mean=None, std=None, flip=None, exif=None,
                 antialias=False, skip_bad=False,
                 max_pixels=None, decoder=None, nvjpeg_backend=None,
                 hybrid_share=None, threads=None, streams=None,
                 keep_on_gpu=False, device=0,
                 class_folders=False, shuffle=False, seed=None, rank=None,
                 world_size=None, drop_last=False, read_on=None,
                 library=None):
        self._lib = lib = load_library(library)
        self._handle = None
        self._step = 0
        self._passing = False
        self._failed = None
        self.device = device
        self._uses = read_on
        # The command line's order: color and dtype before mean and std.
        settings = []
        if isinstance(source, (list, tuple)):
            settings += [("file", os.fsdecode(p)) for p in source]
        elif os.path.isfile(source):
            settings.append(("list", os.fsdecode(source)))
        else:
            settings.append(("folder", os.fsdecode(source)))
        for name, value, text in (
                ("resize", resize, _size), ("resize-short", resize_short,
                                            _text),
                ("crop", crop, _size), ("color", color, _text),
                ("dtype", dtype, _text), ("mean", mean, _text),
                ("std", std, _text), ("max-pixels", max_pixels, _text),
                ("decoder", decoder, _text),
                ("nvjpeg-backend", nvjpeg_backend, _text),
                ("hybrid-share", hybrid_share, _text),
                ("threads", threads, _text),
                ("batch-size", batch_size, _text),
                ("streams", streams, _text), ("device", device, _text),
                ("seed", seed, _text), ("rank", rank, _text),
                ("world-size", world_size, _text)):
            if value is not None:
                settings.append((name, text(value)))
        if flip is not None:
            settings.append(("flip" if flip else "no-flip", None))
        if exif is not None:
            settings.append(("exif" if exif else "no-exif", None))
        if antialias:
            settings.append(("antialias", None))
        if skip_bad:
            settings.append(("skip-bad", None))
        if keep_on_gpu:
            settings.append(("keep-on-gpu", None))
        for name, on in (("class-folders", class_folders),
                         ("shuffle", shuffle), ("drop-last", drop_last)):
            if on:
                settings.append((name, None))
        options = lib.imgbatch_options_new()
        if not options:
            _raise(lib, ERR_MEMORY)
        try:
            for name, value in settings:
                st = lib.imgbatch_set_option(
                    options, name.encode(),
                    None if value is None else os.fsencode(value))
                if st != OK:
                    _raise(lib, st)
            handle = ctypes.c_void_p()
            st = lib.imgbatch_open(ctypes.byref(handle), options)
            if st != OK:
                _raise(lib, st)
        finally:
            lib.imgbatch_options_free(options)
        self._handle = handle
        # Closed when collected, or at exit, if not before.
        self._finalizer = weakref.finalize(self, lib.imgbatch_close, handle)
        info = _Info()
        st = lib.imgbatch_get_info(handle, ctypes.byref(info))
        if st != OK:
            _raise(lib, st)
        self.images = info.images
        # What one pass hands out: this rank's share, whole batches.
        self.pass_images = info.pass_images
        self.batch_images = info.batch_images
        self.classes = [os.fsdecode(info.class_names[i])
                        for i in range(info.classes)]
        self.unread = info.unread
        self.dtype = _DTYPES[info.dtype][0]
        self.image_shape = ((info.height, info.width) if info.channels == 1
                            else (info.channels, info.height, info.width))

    def __len__(self):
        """Batches a pass (a batch of skipped files counts too)."""
        return -(-self.pass_images // self.batch_images)

    def _live(self):
        if self._handle is None:
            raise Error("the loader is closed")
        if self._failed is not None:
            raise self._failed

    def _uses_now(self):
        if self._uses is None:
            s = _torch_stream(self.device)
            return [] if s is None else [s]
        if isinstance(self._uses, (list, tuple)):
            return [_stream_handle(s) for s in self._uses]
        return [_stream_handle(self._uses)]

    def _next(self):
        lib, raw = self._lib, _Batch()
        self._step += 1  # the batch handed before is stale from here on
        rc = lib.imgbatch_next(self._handle, ctypes.byref(raw))
        if rc < 0:
            reason = lib.imgbatch_failure_reason().decode(errors="replace")
            # The status of the failure that stopped the loader.
            st = lib.imgbatch_rewind(self._handle)
            self._failed = _BY_STATUS.get(st, CudaError)(reason,
                                                         st or ERR_CUDA)
            raise self._failed
        if rc == 0:
            return None
        for s in self._uses_now():
            st = lib.imgbatch_read_on(self._handle, s)
            if st != OK:
                _raise(lib, st)
        return Batch(self, self._step, raw)

    def __iter__(self):
        """One pass over the files; iterating again starts another."""
        self._live()
        if self._passing:
            self._step += 1
            st = self._lib.imgbatch_rewind(self._handle)
            if st != OK:
                _raise(self._lib, st)
        self._passing = True
        return self._batches()

    def _batches(self):
        while True:
            self._live()
            batch = self._next()
            if batch is None:
                return
            yield batch

    def close(self):
        """Waits for the GPU and frees everything; the last batch goes
        stale. Closing twice does nothing."""
        if self._handle is None:
            return
        self._step += 1
        self._handle = None
        st = self._finalizer()
        if st not in (None, OK):
            _raise(self._lib, st)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


# The layouts are checked at import, where the library is found; a
# missing one is named by the first Loader.
if os.path.isfile(os.environ.get("IMGBATCH_LIBRARY") or DEFAULT_LIBRARY):
    load_library()
