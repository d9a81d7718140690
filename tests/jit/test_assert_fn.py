"""``torch._assert`` / ``torch._assert_async`` against PyTorch: accepted condition types, the
exception type and message."""

from __future__ import annotations

import pytest

import taimatsu

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


def outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001  (the exception is what is compared)
        return (type(e).__name__, str(e), e.args)


CONDITIONS = [
    lambda m: False,
    lambda m: True,
    lambda m: 0,
    lambda m: 2.5,
    lambda m: None,
    lambda m: "",
    lambda m: [0],
    lambda m: m.tensor(0),
    lambda m: m.tensor(1),
    lambda m: m.tensor(0.0),
    lambda m: m.tensor([True]),
    lambda m: m.tensor([1, 1]),
    lambda m: m.tensor([]),
]


@pytest.mark.parametrize("make", CONDITIONS)
@pytest.mark.parametrize("message", ["shape mismatch", 3])
def test_assert(make, message):
    assert outcome(lambda: taimatsu._assert(make(taimatsu), message)) == outcome(
        lambda: torch._assert(make(torch), message)
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.tensor(True),
        lambda m: m.tensor(False),
        lambda m: m.tensor(0),
        lambda m: m.tensor(float("nan")),
        lambda m: m.tensor([2.0]),
        lambda m: m.tensor([1, 1]),
        lambda m: m.tensor([]),
        lambda m: True,
        lambda m: 1,
    ],
)
@pytest.mark.parametrize("message", [(), ("custom",), (3,)])
def test_assert_async(make, message):
    assert outcome(lambda: taimatsu._assert_async(make(taimatsu), *message)) == outcome(
        lambda: torch._assert_async(make(torch), *message)
    )
