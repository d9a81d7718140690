"""torch.histc against PyTorch: bins computed in the input's dtype (a float32 value near a bin
edge lands where PyTorch's float32 arithmetic puts it), and PyTorch's errors in its order."""

import pytest

import taimatsu as tm


def _both(torch, fn):
    out = []
    for lib in (tm, torch):
        try:
            out.append(fn(lib))
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            out.append((type(e).__name__, str(e)))
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_histc_bins_in_the_input_dtype(torch_oracle, dtype):
    def run(lib):
        lib.manual_seed(0)
        x = lib.randn(10000).to(getattr(lib, dtype))
        edges = lib.tensor([0.7, 0.9, 0.1, 0.3, 1.0, 0.0, 0.55, 0.35], dtype=getattr(lib, dtype))
        return [
            lib.histc(edges, bins=10, min=0, max=1).tolist(),
            lib.histc(edges, bins=7).tolist(),
            lib.histc(x, bins=37, min=-1.3, max=2.1).tolist(),
            lib.histc(lib.tensor([2.0, 2.0]), bins=4).tolist(),
        ]

    mine, theirs = _both(torch_oracle, run)
    assert mine == theirs


@pytest.mark.parametrize(
    "data, kwargs",
    [
        ([1.0, 2.0], {"bins": 0, "min": 3, "max": 1}),
        ([1.0, 2.0], {"bins": -1}),
        ([1.0, 2.0], {"bins": 2, "min": 3, "max": 1}),
        ([1.0, 2.0], {"bins": 2, "min": 1, "max": float("inf")}),
        ([1.0, 2.0], {"bins": 2, "min": float("nan"), "max": 1}),
        ([1.0, float("inf")], {"bins": 2}),
        ([1.0, float("nan")], {"bins": 2}),
        ([1.0, 5.0], {"bins": 2, "min": 1e20, "max": 1e21}),
    ],
)
def test_histc_errors(torch_oracle, data, kwargs):
    mine, theirs = _both(torch_oracle, lambda lib: lib.histc(lib.tensor(data), **kwargs).tolist())
    assert mine == theirs
