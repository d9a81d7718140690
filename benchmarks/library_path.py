"""Which taimatsu the benchmarks import: this repository's (the folder above this one), unless
``PYTHONPATH`` names another tree first. A before/after comparison runs one script on two
libraries: ``PYTHONPATH=/tmp/before python benchmarks/bench_training.py`` (the subprocesses the
script starts inherit the variable)."""

from __future__ import annotations

import os
import sys

REPOSITORY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def use_repository_library() -> None:
    """Put the repository on ``sys.path`` after ``PYTHONPATH``'s entries and before the
    installed packages (an editable install points at this repository too)."""
    named = {os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    last = max((i for i, p in enumerate(sys.path) if p and os.path.abspath(p) in named), default=0)
    if REPOSITORY not in sys.path:
        sys.path.insert(last + 1, REPOSITORY)
