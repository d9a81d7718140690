"""explain(): each case names the true cause (and the line, under trace_origins()).

Every scenario also runs with PyTorch, to check that the tensor's gradient really is missing
there (or present) exactly as the explanation says.
"""

import inspect
import sys
import warnings

import numpy as np
import pytest

import taimatsu
from taimatsu.autograd import op_watch
from taimatsu.autograd.explain import explain, trace_origins

HERE = "test_explain.py"


def _line(fn, marker):
    src, start = inspect.getsourcelines(fn)
    return start + next(i for i, s in enumerate(src) if marker in s)


def _params(lib):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((4, 3)), dtype=lib.float32)
    w1 = lib.tensor(rng.standard_normal((3, 3)), dtype=lib.float32, requires_grad=True)
    w2 = lib.tensor(rng.standard_normal(3), dtype=lib.float32, requires_grad=True)
    return x, w1, w2


def detach_in_path(lib):
    x, w1, w2 = _params(lib)
    h = (x @ w1).relu().detach()  # CUT
    loss = (h * w2).sum()
    loss.backward()
    return w1, loss


def no_grad_block(lib):
    x, w1, w2 = _params(lib)
    with lib.no_grad():
        h = x @ w1  # CUT
    loss = (h * w2).sum()
    loss.backward()
    return w1, loss


def data_attribute(lib):
    x, w1, w2 = _params(lib)
    h = (x @ w1).data  # CUT
    loss = (h * w2).sum()
    loss.backward()
    return w1, loss


def integer_cast(lib):
    x, w1, w2 = _params(lib)
    k = (x @ w1).long()  # CUT
    loss = (k * w2).sum()
    loss.backward()
    return w1, loss


def not_used(lib):
    x, w1, w2 = _params(lib)
    loss = (x.sum(0) * w2).sum()
    loss.backward()
    return w1, loss


def not_leaf(lib):
    x, w1, w2 = _params(lib)
    h = x @ w1
    loss = (h * w2).sum()
    loss.backward()
    return h, loss


def requires_grad_off(lib):
    x, w1, w2 = _params(lib)
    w1.requires_grad_(False)  # CUT
    loss = (x @ w1 * w2).sum()
    loss.backward()
    return w1, loss


def has_grad(lib):
    x, w1, w2 = _params(lib)
    loss = (x @ w1 * w2).sum()
    loss.backward()
    return w1, loss


CASES = [
    (detach_in_path, "cut", "the path from the loss to w1 was cut by .detach() at"),
    (no_grad_block, "cut", "cut by an op under torch.no_grad() at"),
    (data_attribute, "cut", "cut by .data at"),
    (integer_cast, "cut", "cut by .long() at"),
    (not_used, "not_used", "the loss does not depend on w1."),
    (not_leaf, "not_leaf", "h is not a leaf (it was computed by MmBackward0)"),
    (requires_grad_off, "requires_grad_off", "requires_grad was switched off at"),
    (has_grad, "has_grad", "w1 has a gradient"),
]


@pytest.mark.parametrize("program,cause,text", CASES, ids=[c[0].__name__ for c in CASES])
def test_cause_and_line(torch_oracle, program, cause, text):
    t_ref, _ = program(torch_oracle)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # .grad of a non-leaf warns
        assert (t_ref.grad is not None) == (cause == "has_grad")
    with trace_origins():
        t, loss = program(taimatsu)
    name = "h" if cause == "not_leaf" else "w1"
    e = explain(t, loss, name=name)
    assert e.cause == cause
    assert text in str(e)
    if "# CUT" in inspect.getsource(program):
        assert f"{HERE}:{_line(program, '# CUT')}" in str(e)
    assert explain(t, name=name).cause == cause  # the latest backward's loss by default


def test_without_tracing_names_what_it_can_prove():
    t, loss = detach_in_path(taimatsu)
    e = explain(t, loss)
    assert e.cause == "not_used" and "trace_origins()" in e.message
    with trace_origins():  # a new tracing session forgets the previous one's loss
        pass
    assert explain(t).cause == "no_backward"


def test_tensor_itself_detached_or_integer():
    x, w1, _ = _params(taimatsu)
    with trace_origins():
        d = (x @ w1).detach()  # DETACH
        i = (x @ w1).argmax()
    line = _line(test_tensor_itself_detached_or_integer, "# DETACH")
    assert explain(d).message.startswith(
        "d does not require grad: it was cut from the graph by .detach() at"
    )
    assert explain(d).message.endswith(f"{HERE}:{line}.")
    assert explain(i).message.startswith(
        "i does not require grad: it was cut from the graph by argmax() at"
    )
    assert "(its int64 result carries no gradient)" in explain(i).message
    assert explain(taimatsu.arange(3)).cause == "integer"
    plain = taimatsu.ones(2)
    assert explain(plain).cause == "no_requires_grad"


def test_graph_freed_by_an_earlier_backward(torch_oracle):
    def rnn(lib):
        _, w1, w2 = _params(lib)
        h = lib.zeros(3)
        h = (h @ w1 + w2).tanh()
        (h * h).sum().backward()
        w1.grad = None
        h = (h @ w1 + w2).tanh()  # h still holds step 1's freed graph
        loss = (h * h).sum()
        return w1, loss

    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        rnn(torch_oracle)[1].backward()
    w1, loss = rnn(taimatsu)
    e = explain(w1, loss)
    assert e.cause == "freed" and "retain_graph=True" in e.message
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()


def test_grad_reset_after_backward():
    x, w1, w2 = _params(taimatsu)
    loss = (x @ w1 * w2).sum()
    loss.backward()
    w1.grad = None
    assert explain(w1, loss).cause == "reset"


def test_module_and_bad_input():
    taimatsu.manual_seed(0)
    model = taimatsu.nn.Linear(3, 2)
    model.bias.requires_grad_(False)
    loss = model(taimatsu.ones(1, 3)).sum()
    loss.backward()
    text = str(explain(model, loss))
    assert text.splitlines()[0].startswith("weight: weight has a gradient")
    assert text.splitlines()[1].startswith("bias: bias does not require grad")
    with pytest.raises(TypeError, match="expects a Tensor or a Module"):
        explain(3)


def test_off_by_default_and_hook_restored():
    before = sys.getprofile()
    with trace_origins():
        assert sys.getprofile() is op_watch._hook
        with trace_origins():  # nested
            pass
        assert sys.getprofile() is op_watch._hook
    assert sys.getprofile() is before
    x, w1, _ = _params(taimatsu)
    assert "_cuts" not in (x @ w1).detach().__dict__


def test_loss_computed_under_no_grad(torch_oracle):
    def program(lib, keep):
        _, w1, _ = _params(lib)
        keep.append(w1)
        with lib.no_grad():
            loss = (w1 * 2).sum()  # CUT
        loss.backward()

    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        program(torch_oracle, [])
    kept = []
    with (
        trace_origins(),
        pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"),
    ):
        program(taimatsu, kept)
    e = explain(kept[0], name="w1")  # the loss of the failed backward, by default
    line = _line(test_loss_computed_under_no_grad, "# CUT")
    assert e.cause == "cut"
    assert e.message.startswith(
        "the path from the loss to w1 was cut by an op under torch.no_grad() at"
    )
    assert e.message.endswith(f"{HERE}:{line}.")
