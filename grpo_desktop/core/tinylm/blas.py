"""One BLAS thread for the tiny model's small matrix products.

Measured on the 2-core machine while other work ran: a (1536 × 64) @ (64 × 192) float32 product
took 7.7 ms with OpenBLAS's default two threads and 0.42 ms with one. The model's products are
all this small, so threads only fight (each other, the GUI thread, other processes). numpy has no
call for it, and ``OPENBLAS_NUM_THREADS`` only counts before numpy loads, so this finds the
OpenBLAS numpy loaded and calls its own ``set_num_threads`` (what threadpoolctl does), best effort:
where numpy uses another BLAS (Accelerate on macOS) nothing changes.
"""

from __future__ import annotations

import ctypes
import functools
import os
import sys
from pathlib import Path

import numpy as np

__all__ = ["use_one_blas_thread"]

_SETTERS = (
    "scipy_openblas_set_num_threads64_",
    "scipy_openblas_set_num_threads",
    "openblas_set_num_threads64_",
    "openblas_set_num_threads",
)


def _candidates() -> list[str]:
    """Paths of loaded (or bundled) OpenBLAS libraries."""
    found: list[str] = []
    maps = Path("/proc/self/maps")
    if maps.exists():
        try:
            for line in maps.read_text().splitlines():
                path = line.split()[-1] if line.split() else ""
                if "openblas" in path.lower() and path not in found:
                    found.append(path)
        except OSError:
            pass
    root = Path(np.__file__).resolve().parent
    for folder in (root.parent / "numpy.libs", root / ".dylibs"):
        if folder.is_dir():
            found.extend(str(p) for p in sorted(folder.iterdir()) if "openblas" in p.name.lower())
    return found


@functools.lru_cache(maxsize=1)
def use_one_blas_thread() -> bool:
    """Ask numpy's OpenBLAS for one thread (process-wide, once); True if it was found."""
    if os.environ.get("GRPO_DESKTOP_BLAS_THREADS") == "default":  # opt out, for measuring
        return False
    for path in _candidates():
        try:
            library = ctypes.CDLL(path, mode=getattr(os, "RTLD_NOLOAD", 0) | ctypes.RTLD_LOCAL)
        except OSError:
            if sys.platform.startswith("linux"):
                continue
            try:
                library = ctypes.CDLL(path)
            except OSError:
                continue
        for name in _SETTERS:
            setter = getattr(library, name, None)
            if setter is not None:
                setter.argtypes = [ctypes.c_int]
                setter(1)
                return True
    return False
