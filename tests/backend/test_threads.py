"""torch.set_num_threads / get_num_threads drive the BLAS that NumPy loaded."""

import pytest

import taimatsu


def test_set_and_get_num_threads():
    before = taimatsu.get_num_threads()
    try:
        taimatsu.set_num_threads(1)
        assert taimatsu.get_num_threads() == 1
        out = taimatsu.ones(64, 64) @ taimatsu.ones(64, 64)  # BLAS still works single-threaded
        assert out[0, 0].item() == 64
    finally:
        taimatsu.set_num_threads(before)
    assert taimatsu.get_num_threads() == before


@pytest.mark.parametrize(
    "bad, message",
    [
        (0, "expects a positive integer"),
        (-1, "expects a positive integer"),
        (True, "expects an int, but got bool"),
    ],
)
def test_rejects_bad_counts(bad, message):
    with pytest.raises(RuntimeError, match=message):
        taimatsu.set_num_threads(bad)
