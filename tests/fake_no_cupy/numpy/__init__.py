# A numpy that imports but has nothing in it: a cupy_original.py may
# import NumPy at its top, but must not use it before measure() runs.
def __getattr__(name):
    raise ImportError("numpy.%s used at import time (tests/fake_no_cupy)"
                      % name)
