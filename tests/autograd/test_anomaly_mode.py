"""Anomaly mode as PyTorch's: the warning when enabling, the forward traceback of the op whose
backward failed, the NaN error, the in-place hint; and no recording once it is off."""

import sys
import warnings

import pytest

import taimatsu
from taimatsu.autograd import op_watch


def _nan_in_backward(lib):
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    with lib.autograd.detect_anomaly():
        y = (x / x).sum()  # DivBackward0 gives 0/0 for the divisor
        y.backward()


def _modified_saved_tensor(lib):
    with lib.autograd.detect_anomaly(check_nan=False):
        a = lib.ones(2, requires_grad=True)
        b = a.exp()
        b.mul_(2)
        b.sum().backward()


def _graph_made_before_anomaly(lib):
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    y = (x / x).sum()
    with lib.autograd.detect_anomaly():
        y.backward()


def _set_detect_anomaly_call(lib):
    lib.autograd.set_detect_anomaly(True)
    try:
        x = lib.tensor([-1.0, 1.0], requires_grad=True)
        y = x.sqrt() * 0  # sqrt of -1: NaN in SqrtBackward0
        y.sum().backward()
    finally:
        lib.autograd.set_detect_anomaly(False)


def _module_forward(lib):
    lin = lib.nn.Linear(2, 1)
    with lib.autograd.detect_anomaly():
        out = lin(lib.tensor([[1.0, 2.0]])).log() * lib.tensor([[float("nan")]])
        out.sum().backward()


def _custom_function(lib):
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")

    with lib.autograd.detect_anomaly():
        y = Bad.apply(lib.ones(2, requires_grad=True))  # APPLY
        y.sum().backward()


def test_custom_function_traceback(torch_oracle):
    ours = _outcome(taimatsu, _custom_function)
    theirs = _outcome(torch_oracle, _custom_function)
    assert ours[0] == theirs[0] == "Function 'BadBackward' returned nan values in its 0th output."
    report = next(m for m in ours[1] if m.startswith("Error detected in BadBackward. Traceback"))
    assert report.endswith(
        "y = Bad.apply(lib.ones(2, requires_grad=True))  # APPLY\n" + TRIGGER_122
    )


TRIGGER_122 = " (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:122.)"


def _outcome(lib, program):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=RuntimeWarning)
        try:
            program(lib)
            error = None
        except RuntimeError as e:
            error = str(e)
    return error, [str(w.message) for w in caught if w.category is UserWarning]


@pytest.mark.parametrize(
    "program",
    [_nan_in_backward, _modified_saved_tensor, _graph_made_before_anomaly, _set_detect_anomaly_call,
     _module_forward],
    ids=lambda p: p.__name__,
)  # fmt: skip
def test_messages_match_pytorch(torch_oracle, program):
    outcomes = [_outcome(lib, program) for lib in (taimatsu, torch_oracle)]
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] is not None


def test_forward_traceback_names_the_line():
    error, messages = _outcome(taimatsu, _nan_in_backward)
    assert error == "Function 'DivBackward0' returned nan values in its 1th output."
    (report,) = [m for m in messages if m.startswith("Error detected")]
    assert "y = (x / x).sum()  # DivBackward0 gives 0/0" in report
    assert "taimatsu" not in report.split("\n")[-2]  # no frame of taimatsu's own method delegates


def test_state_functions_and_hook_removed():
    assert not taimatsu.is_anomaly_enabled()
    before = sys.getprofile()
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        mode = taimatsu.autograd.detect_anomaly(check_nan=False)
    with mode:
        assert taimatsu.is_anomaly_enabled() and not taimatsu.is_anomaly_check_nan_enabled()
        assert sys.getprofile() is op_watch._hook
    assert sys.getprofile() is before
    assert taimatsu.is_anomaly_check_nan_enabled()
    x = taimatsu.ones(2, requires_grad=True)
    assert "traceback_" not in (x * 2).grad_fn.metadata  # nothing recorded when off


def test_decorator_form():
    with pytest.warns(UserWarning, match="Anomaly Detection"):

        @taimatsu.autograd.detect_anomaly()
        def f(x):
            return (x * 2).grad_fn.metadata.get("traceback_")

    with pytest.warns(UserWarning, match="Anomaly Detection"):
        stack = f(taimatsu.ones(1, requires_grad=True))
    assert stack and "return (x * 2).grad_fn.metadata" in stack[-1]
