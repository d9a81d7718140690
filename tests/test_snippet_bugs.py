"""The oracle helpers refuse a broken snippet instead of counting its error as a match."""

import pytest
import views_indexing_helpers
from autograd_oracle import assert_same
from oracle_expr import same
from snippet_bugs import is_test_bug

import taimatsu

BROKEN = [
    "from test_views_indexing import nodes\nout = 1",  # a helper reached through the wrong module
    "out = __import__('test_views_indexing').nodes",
    "out = T.ones(2).grad_fn.name()",  # grad_fn is None: crashes in the test code
    "out = undefined_name",
    "out = None[0]",
    "out = (1, 2).shape",
]


@pytest.mark.parametrize("code", BROKEN)
def test_broken_snippet_fails(torch_oracle, code):
    with pytest.raises(AssertionError, match="test code is broken"):
        views_indexing_helpers.same(code)
    with pytest.raises(AssertionError, match="test code is broken"):
        same(code.replace("out = ", ""), torch_oracle, taimatsu)
    with pytest.raises(AssertionError, match="test code is broken"):
        assert_same(code.replace("T.", "torch."))


def test_statements_after_an_uncaught_error_are_refused(torch_oracle):
    with pytest.raises(AssertionError, match="never run"):
        assert_same("x = torch.ones(2)\nx.view(3)\nprint(x)")


PYTORCH_ERRORS = [
    "out = T.ones(2).view(3)",  # RuntimeError
    "out = T.ones(2).no_such_method",  # AttributeError on a tensor is PyTorch's answer
    "out = T.no_such_function",
    "out = T.add(T.ones(2), 'a')",  # TypeError from PyTorch's argument parser
    "out = T.set_default_tensor_type('bad')",  # ImportError raised inside PyTorch
]


@pytest.mark.parametrize("code", PYTORCH_ERRORS)
def test_pytorch_errors_are_still_compared(torch_oracle, code):
    env = {"T": torch_oracle}
    with pytest.raises(Exception) as info:
        exec(code, env)  # noqa: S102
    assert not is_test_bug(info.value)
