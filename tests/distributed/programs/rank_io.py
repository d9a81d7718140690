"""Shared by the rank programs: pick the library (DIST_LIB=torch|taimatsu) and record results."""

from __future__ import annotations

import importlib
import json
import os
import sys


class Session:
    """What the suite's driver hands each part: the library, its ``distributed``, the recorder
    and the part's arguments (``part:arg1+arg2``)."""

    def __init__(self) -> None:
        self.torch = self.dist = self.rec = None
        self.rank = self.n = 0
        self.args: list = []


session = Session()


def library():
    """``torch`` or ``taimatsu`` (as ``torch``), by the DIST_LIB environment variable."""
    return importlib.import_module(os.environ.get("DIST_LIB", "taimatsu"))


def run_parts(torch, parts: str) -> None:
    """On the joined default group: record rank, size and backend, run each
    ``<part>_program.py`` of ``parts`` (``part[:arg+arg],...``) in turn, then leave the group."""
    import runpy
    from pathlib import Path

    dist = torch.distributed
    session.torch, session.dist = torch, dist
    session.rank, session.n = dist.get_rank(), dist.get_world_size()
    session.rec = Recorder(session.rank)
    session.rec["rank_size_backend"] = [session.rank, session.n, dist.get_backend(), dist.is_initialized()]  # fmt: skip
    for spec in parts.split(","):
        name, _, args = spec.partition(":")
        session.args = args.split("+") if args else []
        runpy.run_path(str(Path(__file__).with_name(f"{name}_program.py")))
    dist.barrier()
    dist.destroy_process_group()
    session.rec["initialized after destroy"] = dist.is_initialized()


class Recorder:
    """Collects named results and writes them to ``<out>/rank<r>.json``."""

    def __init__(self, rank: int) -> None:
        self.rank = rank
        self.results: dict = {}

    def __setitem__(self, name: str, value) -> None:
        self.results[name] = encode(value)

    def save(self) -> None:
        with open(os.path.join(sys.argv[1], f"rank{self.rank}.json"), "w") as f:
            json.dump(self.results, f)


def encode(value):
    if hasattr(value, "dtype") and hasattr(value, "tolist"):
        v = value.detach()
        if v.is_complex():
            v = [v.real.tolist(), v.imag.tolist()]
        elif v.dtype in (v.new_zeros(0).float().dtype,) or v.is_floating_point():
            v = v.double().tolist()
        else:
            v = v.tolist()
        return {"dtype": str(value.dtype), "shape": list(value.shape), "values": v}
    if isinstance(value, (list, tuple)):
        return [encode(x) for x in value]
    if isinstance(value, BaseException):
        return {"error": type(value).__name__, "message": str(value)}
    return value
