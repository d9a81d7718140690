"""Warnings PyTorch attributes to the user's line name that line here too, however many of
taimatsu's frames (Tensor methods, wrappers) lie between; deprecations PyTorch warns about
(``torch.range``, ``F.upsample``, ``x.T`` on a non-matrix) are warned."""

from __future__ import annotations

import warnings

import pytest

import taimatsu


def _sched(T):
    p = T.nn.Parameter(T.randn(2))
    s = T.optim.lr_scheduler.StepLR(T.optim.SGD([p], lr=0.1), 1)
    s.step()  # the scheduler stepped before the optimizer


def _nonleaf_grad(T):
    return (T.randn(2, requires_grad=True) * 2).grad


CALLS = {
    "copy_construct": lambda T: T.tensor(T.randn(3)),
    "softmax_without_dim": lambda T: T.nn.functional.softmax(T.randn(2, 3)),
    "scheduler_order": _sched,
    "nonleaf_grad": _nonleaf_grad,
    "std_method_dof": lambda T: T.tensor([1.0]).std(),
    "var_function_dof": lambda T: T.var(T.tensor([1.0])),
    "out_resized": lambda T: T.add(T.ones(2), 1, out=T.empty(3)),
    "uint8_mask": lambda T: T.ones(3)[T.tensor([1, 0, 1], dtype=T.uint8)],
    "range": lambda T: T.range(0, 3),
    "upsample": lambda T: T.nn.functional.upsample(T.randn(1, 1, 2, 2), scale_factor=2),
    "T_3d": lambda T: T.ones(2, 3, 4).T,
    "T_1d": lambda T: T.ones(2).T,
    "T_0d": lambda T: T.ones(()).T,
}


def _record(T, call, always=False):
    # PyTorch's once-per-process warnings every time (it also appends "Triggered internally at"
    # to other C++ warnings then: only where needed)
    T.set_warn_always(always)
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            call(T)
    finally:
        T.set_warn_always(False)
    return [(x.category, str(x.message), x.filename, x.lineno) for x in w]


@pytest.mark.parametrize("name", sorted(CALLS))
def test_warning_names_the_users_line(torch_oracle, name):
    always = name.startswith("T_")
    ours = _record(taimatsu, CALLS[name], always)
    theirs = _record(torch_oracle, CALLS[name], always)
    assert ours == theirs
    assert ours and all(site == __file__ for _, _, site, _ in ours)


def test_T_on_a_matrix_does_not_warn():
    assert _record(taimatsu, lambda T: T.ones(2, 3).T, True) == []
