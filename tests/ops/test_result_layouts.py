"""Strides of results PyTorch allocates itself, against PyTorch: reductions, scans, topk and
the kthvalue family are contiguous whatever the input's layout (so ``.view`` works on them);
sort, argsort and flip keep the input's layout (preserve_format). NumPy lays a reduction of a
permuted array out in the input's memory order instead."""

import pytest

import taimatsu as tm

# a (2, 3, 4) tensor as it is and laid out three other ways
LAYOUTS = {
    "contiguous": lambda t: t,
    "transposed": lambda t: t.transpose(0, 2),
    "permuted": lambda t: t.permute(1, 2, 0),
    "permuted_back": lambda t: t.permute(2, 0, 1),
}

OPS = {
    "sum": lambda t, d, k: t.sum(d, keepdim=k),
    "sum_two_dims": lambda t, d, k: t.sum((d, (d + 1) % 3), keepdim=k),
    "mean": lambda t, d, k: t.mean(d, keepdim=k),
    "nansum": lambda t, d, k: t.nansum(d, keepdim=k),
    "amax": lambda t, d, k: t.amax(d, keepdim=k),
    "amin": lambda t, d, k: t.amin(d, keepdim=k),
    "aminmax": lambda t, d, k: t.aminmax(dim=d, keepdim=k),
    "any": lambda t, d, k: (t > 5).any(d, keepdim=k),
    "all": lambda t, d, k: (t > 5).all(d, keepdim=k),
    "logsumexp": lambda t, d, k: t.logsumexp(d, keepdim=k),
    "count_nonzero": lambda t, d, k: t.count_nonzero(d),
    "max": lambda t, d, k: t.max(d, keepdim=k),
    "kthvalue": lambda t, d, k: t.kthvalue(2, d, keepdim=k),
    "mode": lambda t, d, k: t.mode(d, keepdim=k),
    "nanmedian": lambda t, d, k: t.nanmedian(d, keepdim=k),
    "topk": lambda t, d, k: t.topk(2, dim=d, largest=k),
    "sort": lambda t, d, k: t.sort(dim=d, descending=k),
    "argsort": lambda t, d, k: t.argsort(dim=d, descending=k),
    "cumsum": lambda t, d, k: t.cumsum(d),
    "cumprod": lambda t, d, k: t.cumprod(d),
    "logcumsumexp": lambda t, d, k: t.logcumsumexp(d),
    "cummax": lambda t, d, k: t.cummax(d),
    "cummin": lambda t, d, k: t.cummin(d),
    "flip": lambda t, d, k: t.flip(d),
}


def _strides(r):
    return [x.stride() for x in r] if isinstance(r, tuple) else [r.stride()]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_result_strides_match_pytorch(torch_oracle, op, layout):
    got, want = [], []
    for lib, out in ((tm, got), (torch_oracle, want)):
        base = lib.arange(24.0).view(2, 3, 4).flip(1) * 1.0 + 1
        t = LAYOUTS[layout](base)
        for d in range(3):
            for k in (False, True):
                out.append(_strides(OPS[op](t, d, k)))
    assert got == want


def test_view_of_a_reduction_of_a_permuted_tensor(torch_oracle):
    for lib in (tm, torch_oracle):
        x = lib.ones(2, 5, 5, 3).permute(0, 3, 1, 2)
        assert x.sum(-1).view(-1).shape == (30,)
        assert x.transpose(0, 1).cumsum(0).view(-1).shape == (150,)
        assert lib.ones(2, 3, 4).topk(2, dim=1).values.view(-1).shape == (16,)


def test_flip_of_a_zero_dim_tensor(torch_oracle):
    for lib in (tm, torch_oracle):
        assert lib.tensor(3).flip(0).item() == 3
        assert lib.tensor(3).flip(-1).item() == 3
        with pytest.raises(IndexError, match=r"range of \[-1, 0\], but got 1"):
            lib.tensor(3).flip(1)
