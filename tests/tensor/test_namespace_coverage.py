"""PyTorch's public names that taimatsu lacks, per namespace (``dir(torch)``, ``torch.Tensor``,
``torch.nn.functional``, ``torch.masked``, ``torch.functional``, ``torch.types``, ``torch.linalg``,
``torch.fft``, ``torch.special``), against the checked-in list of deliberate omissions in
namespace_omissions.py. Fails when a new gap appears (a name neither present nor listed) and when a
listed gap is closed (so the list stays true). Prints the coverage figure.
tests/ops/test_op_coverage.py checks issue #3's op list against the op database instead."""

from __future__ import annotations

import types

import pytest
from namespace_omissions import OMITTED

torch = pytest.importorskip("torch")


def _namespaces() -> dict:
    import taimatsu.nn.functional

    return {
        "torch": (torch, taimatsu),
        "Tensor": (torch.Tensor, taimatsu.Tensor),
        "nn.functional": (torch.nn.functional, taimatsu.nn.functional),
        "masked": (torch.masked, taimatsu.masked),
        "functional": (torch.functional, taimatsu.functional),
        "types": (torch.types, taimatsu.types),
        "linalg": (torch.linalg, taimatsu.linalg),
        "fft": (torch.fft, taimatsu.fft),
        "special": (torch.special, taimatsu.special),
    }


def _is_api(namespace, value) -> bool:
    """Leaves out what a namespace holds without offering it: other libraries' modules (torch.os),
    typing helpers, docstring templates (dicts and strings) and the Tensor class re-imported."""
    if isinstance(value, types.ModuleType):
        return value.__name__.startswith("torch.")
    if isinstance(value, (str, dict)) or getattr(value, "__module__", None) in (
        "typing",
        "collections.abc",
    ):
        return False
    return not (namespace is not torch and namespace is not torch.Tensor and value is torch.Tensor)


def public_names(namespace) -> list[str]:
    return [
        n
        for n in dir(namespace)
        if not n.startswith("_")
        and n != "TYPE_CHECKING"
        and _is_api(namespace, getattr(namespace, n))
    ]


def _omitted(key: str) -> set[str]:
    return {n for names in OMITTED[key].values() for n in names.split()}


@pytest.mark.parametrize("key", list(OMITTED))
def test_gaps_are_the_listed_ones(key, capsys):
    theirs, ours = _namespaces()[key]
    names = public_names(theirs)
    missing = {n for n in names if not hasattr(ours, n)}
    listed = _omitted(key)
    todo = {n for r, ns in OMITTED[key].items() if "not implemented yet" in r for n in ns.split()}
    covered = len(names) - len(missing)
    with capsys.disabled():
        print(
            f"\n{key}: {covered}/{len(names)} of PyTorch's public names ({100 * covered / len(names):.0f}%); "
            f"of the {len(missing)} missing, {len(todo & missing)} are marked 'not implemented yet', "
            f"{len(missing - todo)} are out of scope"
        )
    new = sorted(missing - listed)
    closed = sorted(listed - missing)
    assert not new, f"{key}: new gaps, implement them or list them with a reason: {' '.join(new)}"
    assert not closed, (
        f"{key}: listed but now present (or gone from PyTorch), unlist: {' '.join(closed)}"
    )


def test_every_omission_has_one_reason():
    for key, reasons in OMITTED.items():
        seen: dict[str, str] = {}
        for reason, names in reasons.items():
            for n in names.split():
                assert n not in seen, (
                    f"{key}.{n} listed under two reasons: {seen[n]!r} and {reason!r}"
                )
                seen[n] = reason
