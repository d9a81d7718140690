"""A one-element value put at a single uint8 mask index is PyTorch's masked_fill_, which refuses
uint8 masks (a RuntimeError, no deprecation warning); other puts go through index_put, which takes
the mask with a deprecation warning."""

from __future__ import annotations

import warnings

import pytest

import taimatsu


def _mask(T):
    return T.tensor([1, 0, 1], dtype=T.uint8)


CASES = {
    "scalar": lambda T, x: x.__setitem__(_mask(T), 5),
    "float_scalar": lambda T, x: x.__setitem__(_mask(T), 2.5),
    "0d_tensor": lambda T, x: x.__setitem__(_mask(T), T.tensor(5.0)),
    "1_element_tensor": lambda T, x: x.__setitem__(_mask(T), T.tensor([5.0])),
    "with_slice": lambda T, x: x.__setitem__((_mask(T), slice(None)), 5),
    "with_ellipsis": lambda T, x: x.__setitem__((Ellipsis, T.tensor([1, 0], dtype=T.uint8)), 5),
    "requires_grad": lambda T, x: x.requires_grad_().clone().__setitem__(_mask(T), 5),
    "index_put_": lambda T, x: x.index_put_((_mask(T),), T.tensor(5.0)),
    "index_put": lambda T, x: T.index_put(x, (_mask(T),), T.tensor(5.0)),
    # index_put itself: accepted
    "rows": lambda T, x: x.__setitem__(_mask(T), T.tensor([[5.0, 6.0], [7.0, 8.0]])),
    "two_indices": lambda T, x: x.__setitem__((_mask(T), T.tensor([0, 1])), 5),
    "index_put_rows": lambda T, x: x.index_put_((_mask(T),), T.tensor([5.0, 6.0])),
    "accumulate": lambda T, x: x.index_put_((_mask(T),), T.tensor(5.0), accumulate=True),
    "bool_mask": lambda T, x: x.__setitem__(_mask(T).bool(), 5),
}


def _outcome(T, case):
    x = T.ones(3, 2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            case(T, x)
            result = x.tolist()
        except RuntimeError as e:
            result = str(e)
    return result, len(w)


@pytest.mark.parametrize("name", sorted(CASES))
def test_uint8_mask_put(torch_oracle, name):
    assert _outcome(taimatsu, CASES[name]) == _outcome(torch_oracle, CASES[name])
