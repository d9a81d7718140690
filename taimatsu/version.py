"""``torch.version``: which PyTorch this is, for programs that check.

taimatsu follows PyTorch 2.13's behaviour (its test oracle), so ``__version__`` (also
``torch.__version__``) is ``2.13.0`` with taimatsu's own version as the PEP 440 local label,
``2.13.0+taimatsu.0.1.0``: ``torch.__version__ >= "2.0"`` and ``packaging``'s
``Version(torch.__version__).release`` read as PyTorch 2.13's would, and the text still says
which library answers. ``taimatsu`` is taimatsu's own version.

``cuda`` is the CUDA runtime CuPy was built for (``"13.0"``) when CuPy is importable, else None
(a CPU build's value); it is read on first use, so importing taimatsu never imports CuPy.
There is no HIP, ROCm or XPU build (None) and no debug build (False); ``git_version`` is
PyTorch's ``"Unknown"`` (the commit is not recorded in the installed package).
"""

from __future__ import annotations

from .torch_version import TorchVersion

__all__ = ["__version__", "cuda", "debug", "git_version", "hip", "rocm", "xpu"]  # noqa: F822

taimatsu = "0.1.0"
__version__ = TorchVersion(f"2.13.0+taimatsu.{taimatsu}")
debug = False
git_version = "Unknown"
hip = None
rocm = None
xpu = None


def _cupy_cuda() -> str | None:
    try:
        import cupy
    except ImportError:  # not installed, or its CUDA libraries are missing
        return None
    try:
        v = cupy.cuda.runtime.runtimeGetVersion()  # e.g. 13000 for CUDA 13.0
    except cupy.cuda.runtime.CUDARuntimeError:
        return None
    return f"{v // 1000}.{v % 1000 // 10}"


def __getattr__(name: str):
    if name == "cuda":
        value = globals()["cuda"] = _cupy_cuda()
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
