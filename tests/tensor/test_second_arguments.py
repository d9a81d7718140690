"""A non-Tensor where a function's second argument, a tensor (or a number), belongs: PyTorch's
parser TypeError word for word, for the namespace function and the Tensor method alike
(taimatsu/_tensor_arguments.py), never an internal error or a silent result."""

import warnings

import numpy as np
import pytest

import taimatsu as tm
from taimatsu import _tensor_arguments as ta

NAMES = sorted(ta._SECOND_TENSOR.keys() | ta._SECOND_COMBINATION)
# smm takes a sparse first argument; every other function gets a 1-D float tensor, which its own
# shape and dtype checks would refuse: the parser's type check on the second argument comes first
FIRST = {"smm": lambda T: T.ones(2, 2).to_sparse()}
BAD = [np.ones(3), None, [1.0, 2.0, 3.0], "a", 2.0]


def _outcome(call):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()
    except Exception as e:  # noqa: BLE001 - the type and text are what is compared
        return type(e).__name__, str(e).split("\n")[0]
    return None


def _compare(torch, make, name, method):
    mismatches = []
    for bad in BAD:
        if method:
            theirs = _outcome(lambda bad=bad: getattr(make(torch), name)(bad))
            mine = _outcome(lambda bad=bad: getattr(make(tm), name)(bad))
        else:
            theirs = _outcome(lambda bad=bad: getattr(torch, name)(make(torch), bad))
            mine = _outcome(lambda bad=bad: getattr(tm, name)(make(tm), bad))
        parser = theirs is not None and (
            "must be Tensor" in theirs[1] or "combination" in theirs[1]
        )
        if parser and mine != theirs:
            mismatches.append((type(bad).__name__, theirs, mine))
    return mismatches


@pytest.mark.parametrize("name", NAMES)
def test_function_second_argument(torch_oracle, name):
    if not hasattr(torch_oracle, name) or not hasattr(tm, name):
        pytest.skip("a method only")
    assert not _compare(torch_oracle, FIRST.get(name, lambda T: T.ones(3)), name, method=False)


@pytest.mark.parametrize("name", NAMES)
def test_method_argument(torch_oracle, name):
    if not hasattr(torch_oracle.Tensor, name) or not hasattr(tm.Tensor, name):
        pytest.skip("a function only")
    assert not _compare(torch_oracle, FIRST.get(name, lambda T: T.ones(3)), name, method=True)


CASES = {
    "keyword": lambda T: T.add(T.ones(3), other=[1.0]),
    "keyword combination": lambda T: T.ones(3).eq(other=[1]),
    "number first": lambda T: T.add(2, T.ones(3)),
    "ndarray first": lambda T: T.add(np.ones(3), T.ones(3)),
    "None first": lambda T: T.mul(None, T.ones(3)),
    "where two": lambda T: T.where(T.ones(3) > 0, T.ones(3)),
    "where None": lambda T: T.where(T.ones(3), None),
    "where ndarray third": lambda T: T.where(T.ones(3) > 0, T.ones(3), np.ones(3)),
    "where ndarray condition": lambda T: T.where(np.ones(3), T.ones(3), T.ones(3)),
    "where one": lambda T: T.where(T.tensor([0.0, 1.0])),
    "searchsorted ndarray": lambda T: T.searchsorted(T.ones(3), np.ones(3)),
    "searchsorted number": lambda T: T.searchsorted(T.arange(3.0), 1.5),
    "bucketize ndarray input": lambda T: T.bucketize(np.ones(3), T.ones(3)),
    "bucketize number boundaries": lambda T: T.bucketize(T.ones(3), 2.0),
    "isin ndarray": lambda T: T.isin(T.ones(3), np.ones(3)),
    "isin number": lambda T: T.isin(T.ones(3), 1.0),
    "take ndarray": lambda T: T.take(T.ones(3), np.ones(3)),
    "take first": lambda T: T.take(None, T.ones(3)),
    "cdist": lambda T: T.cdist(T.ones(3), np.ones(3)),
    "cdist keyword": lambda T: T.cdist(T.ones(3), x2=None),
    "polar": lambda T: T.polar(T.ones(3), None),
    "complex keyword": lambda T: T.complex(T.ones(3), imag=2.0),
    "cosine_similarity": lambda T: T.cosine_similarity(T.ones(3), np.ones(3)),
    "view_as ndarray": lambda T: T.ones(3).view_as(np.ones(3)),
    "expand_as ndarray": lambda T: T.ones(3).expand_as(np.ones(3)),
    "reshape_as ndarray": lambda T: T.ones(3).reshape_as(np.ones(3)),
    "cartesian_prod element": lambda T: T.cartesian_prod(T.ones(2), T.ones(2), None),
    "block_diag element": lambda T: T.block_diag(T.ones(2), np.ones(2)),
    "exp ndarray": lambda T: T.exp(np.ones(3)),
    "maximum x1 x2": lambda T: T.maximum(x1=T.ones(3), x2=T.zeros(3)),
    "method x2": lambda T: T.ones(3).add(x2=T.ones(3)),
    "cdist x2 keyword": lambda T: T.cdist(x1=T.ones(2, 3), x2=T.ones(2, 3)),
    "in-place combination": lambda T: T.ones(3).lt_([1]),
    "Parameter method": lambda T: T.nn.Parameter(T.ones(2, 2)).mm(np.ones((2, 2))),
    # functions with an out= wrapper are guarded too (their parameters read through __wrapped__)
    "softmax axis": lambda T: T.softmax(T.arange(6.0).reshape(2, 3), axis=1),
    "log_softmax ndarray": lambda T: T.log_softmax(np.ones(3), 0),
    "take keyword": lambda T: T.take(T.ones(3), index=None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_argument_cases(torch_oracle, case):
    call = CASES[case]
    theirs = _outcome(lambda: call(torch_oracle))
    mine = _outcome(lambda: call(tm))
    assert mine == theirs
    if theirs is None:
        np.testing.assert_allclose(
            np.asarray(call(tm), dtype=float), np.asarray(call(torch_oracle), dtype=float)
        )


@pytest.mark.parametrize(
    "call", ["x.sum(foo=1)", "x.add()", "x.view_as()", "x.mean(1, 2, 3, 4)", "x.reshape_as()"]
)
def test_method_errors_name_the_method_not_a_mixin(torch_oracle, call):
    # Python names a function by its __qualname__ in binding errors: "Tensor.sum()", as
    # PyTorch's Python-level methods ("Tensor.backward() got ..."), never taimatsu's mixin
    # classes ("StructureMethods.sum()"); PyTorch's C methods say "sum()"
    name = call[2 : call.index("(")]
    with pytest.raises(TypeError) as info:
        eval(call, {"x": tm.ones(3)})
    assert str(info.value).startswith(f"Tensor.{name}()")
    with pytest.raises(TypeError) as info:
        eval(call, {"x": torch_oracle.ones(3)})
    assert str(info.value).startswith(f"{name}()")


@pytest.mark.parametrize(
    "name", ["add", "sum", "view_as", "exp", "backward", "numpy", "to", "masked_fill"]
)
def test_tensor_methods_pickle(torch_oracle, name):
    import pickle

    for T in (tm, torch_oracle):
        fn = getattr(T.Tensor, name)
        assert pickle.loads(pickle.dumps(fn)) is fn
