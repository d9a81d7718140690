"""The version comparison PyTorch makes before using tensorboard."""

from __future__ import annotations

import re


def older_than(version: str, minimum: tuple[int, ...]) -> bool:
    """``"1.14.0" < (1, 15)``: compares the leading numeric release parts ("2.21.0rc1" -> 2, 21, 0)."""
    parts = tuple(int(p) for p in re.findall(r"\d+", version.split("+")[0])[: len(minimum)])
    return parts < minimum
