# A cupy that cannot be imported, as on a machine without CuPy: on
# PYTHONPATH it hides a real CuPy, so the no_cupy tests run anywhere.
raise ImportError("No module named 'cupy' (tests/fake_no_cupy)")
