"""torch.version and TorchVersion (``torch.__version__``'s type) against PyTorch's."""

import itertools
import operator

import pytest

import taimatsu as tm
from taimatsu.torch_version import TorchVersion

VERSIONS = [
    "2.13.0+cpu", "2.13.0", "2.13", "2.13.1", "2.1", "2.0.0", "1.13.1", "2.13.0a0", "2.13.0a1",
    "2.13.0b2", "2.13.0rc1", "2.13.0.dev20260101", "2.13.0.post1", "2.13.0-1", "2.13.0+cu130",
    "2.13.0+taimatsu.0.1.0", "2.13.0+1.a", "2.13.0+a.1", "1!0.1", "v2.13.0", "2.13.0.dev1+x",
    "2.13.0a0.dev1", "2.13.0.post1.dev2", "parrot", "2.13.0 ", "10.0", "2.13.00",
]  # fmt: skip
OPS = [operator.lt, operator.le, operator.eq, operator.ge, operator.gt, operator.ne]


def _outcome(op, a, b):
    try:
        return op(a, b)
    except Exception as e:  # noqa: BLE001  (the error's type is the outcome compared)
        return type(e).__name__


def test_comparisons_match_pytorchs(torch_oracle):
    from torch.torch_version import TorchVersion as Theirs

    for a, b in itertools.product(VERSIONS, repeat=2):
        for op in OPS:
            mine, theirs = _outcome(op, TorchVersion(a), b), _outcome(op, Theirs(a), b)
            assert mine == theirs, (a, op.__name__, b)


@pytest.mark.parametrize(
    "other", [(2, 13), (2, 13, 0), [2, 14], (1,), (2, "13", "0a0"), 3, 2.5, None]
)
def test_tuples_and_other_types(torch_oracle, other):
    from torch.torch_version import TorchVersion as Theirs

    for op in OPS:
        assert _outcome(op, TorchVersion("2.13.0+cpu"), other) == _outcome(
            op, Theirs("2.13.0+cpu"), other
        )


def test_packaging_versions(torch_oracle):
    from torch._vendor.packaging.version import Version
    from torch.torch_version import TorchVersion as Theirs

    for a, b in itertools.product(VERSIONS[:8], ["2.0", "2.13.0", "2.13.0rc1", "3"]):
        for op in OPS[:5]:
            assert op(TorchVersion(a), Version(b)) == op(Theirs(a), Version(b))


def test_a_version_is_a_string():
    v = TorchVersion("2.13.0+cpu")
    assert isinstance(v, str) and str(v) == "2.13.0+cpu" and repr(v) == "'2.13.0+cpu'"
    assert hash(v) == hash("2.13.0+cpu") and {v: 1}["2.13.0+cpu"] == 1
    assert v.split("+")[0] == "2.13.0" and v.startswith("2.")


def test_torch_version_module():
    assert tm.__version__ is tm.version.__version__
    assert isinstance(tm.__version__, TorchVersion)
    assert tm.__version__ >= "2.0" and tm.__version__ >= (2, 13) and tm.__version__ < (2, 14)
    assert tm.__version__ < "2.13.1" and tm.__version__.startswith("2.13.0+taimatsu.")
    assert (tm.version.hip, tm.version.rocm, tm.version.xpu, tm.version.debug) == (
        None, None, None, False,
    )  # fmt: skip
    assert isinstance(tm.version.git_version, str)
    assert tm.version.cuda is None or tm.version.cuda.count(".") == 1
    assert tm.version.taimatsu in tm.__config__.show()
    with pytest.raises(AttributeError):
        tm.version.nope  # noqa: B018
