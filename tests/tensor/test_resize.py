"""Tensor.resize_ / resize_as_ against PyTorch: shapes, strides, storage offsets, the values the
storage keeps, version counters and errors."""

import pytest

import taimatsu as tm


def _run(lib, program):
    """``program(lib)`` -> a list of observations, or the error's type and message."""
    try:
        return program(lib)
    except (RuntimeError, TypeError) as e:
        return [type(e).__name__, str(e)]


def _facts(t, values=True):
    head = [tuple(t.shape), t.stride(), t.storage_offset(), t._version]
    return head + ([t.tolist()] if values else [])


def _shrunk_view_writes(T):
    base = T.zeros(4)
    return [base[1:3].resize_(1).fill_(5.0).tolist(), base.tolist()]


PROGRAMS = {
    "shrink": lambda T: _facts(T.arange(6.0).resize_(2, 2)),
    "same shape keeps strides": lambda T: _facts(T.ones(2, 3).t().resize_(3, 2)),
    "new shape of a transpose": lambda T: _facts(T.arange(6.0).view(2, 3).t().resize_(2, 3)),
    "tuple, list, Size, keyword, 0-d tensor": lambda T: (
        [tuple(T.ones(3).resize_(s).shape) for s in ((2, 2), [4], T.Size([1, 2]))]
        + [tuple(T.ones(3).resize_(size=(2,)).shape), tuple(T.ones(3).resize_(T.tensor(2)).shape)]
    ),
    "view in the middle": lambda T: [
        _facts(T.arange(16.0).view(4, 4)[1:3, 1:3].resize_(2, 2)),
        _facts(T.arange(16.0).view(4, 4)[1:3, 1:3].resize_(3)),
    ],
    "grow keeps the old values": lambda T: [
        _facts(T.arange(4.0).resize_(6), values=False),
        T.arange(4.0).resize_(6)[:4].tolist(),
        T.arange(10.0)[2:5].resize_(20).untyped_storage().nbytes(),
    ],
    "empty": lambda T: [
        _facts(T.ones(0).resize_(2, 0)),
        T.ones(10).resize_(0).untyped_storage().nbytes(),
        tuple(T.ones(0).resize_(5).shape),
    ],
    "channels_last": lambda T: [
        _facts(T.ones(2, 3, 4, 5).resize_(2, 3, 4, 5, memory_format=T.channels_last), False),
        _facts(T.ones(3).resize_(1, 2, 3, 4, memory_format=T.channels_last), False),
        _facts(T.ones(3).resize_(1, 2, 1, 3, 4, memory_format=T.channels_last_3d), False),
        _facts(T.ones(3).resize_(2, memory_format=T.contiguous_format), False),
    ],
    "resize_as_": lambda T: [
        _facts(T.ones(3).resize_as_(T.zeros(2, 5)), False),
        _facts(
            T.ones(2, 3, 4, 5).resize_as_(T.zeros(1, 3, 4, 5), memory_format=T.channels_last), False
        ),
    ],
    "a view's writes after shrinking reach its base": lambda T: _shrunk_view_writes(T),
    "requires grad": lambda T: T.ones(3, requires_grad=True).resize_(2),
    "requires grad, same shape": lambda T: T.ones(3, requires_grad=True).resize_(3),
    "non-leaf": lambda T: (T.ones(3, requires_grad=True) * 2).resize_(2),
    "negative": lambda T: T.ones(3).resize_(2, -1),
    "overflow": lambda T: T.ones(3).resize_(2**62, 4),
    "float": lambda T: T.ones(3).resize_(2.5),
    "float in sizes": lambda T: T.ones(3).resize_(2, 2.5),
    "string": lambda T: T.ones(3).resize_("a"),
    "nothing": lambda T: T.ones(3).resize_(),
    "preserve_format": lambda T: T.ones(3).resize_(2, memory_format=T.preserve_format),
    "channels_last rank": lambda T: T.ones(3).resize_(2, 3, memory_format=T.channels_last),
    "memory_format type": lambda T: T.ones(3).resize_(2, memory_format=1),
    "template type": lambda T: T.ones(3).resize_as_(3),
    "memory_format by position": lambda T: T.ones(3).resize_as_(T.ones(2), T.channels_last),
    "no template": lambda T: T.ones(3).resize_as_(),
    "template by keyword": lambda T: _facts(T.ones(3).resize_as_(the_template=T.ones(2))),
    "unknown keyword": lambda T: T.ones(3).resize_as_(T.ones(2), foo=1),
    "unknown keyword of resize_": lambda T: T.ones(3).resize_(2, foo=1),
    "torch.resize_as_": lambda T: _facts(T.resize_as_(T.ones(3), T.ones(2, 2)), False),
    "torch.resize_as_ memory_format": lambda T: _facts(
        T.resize_as_(T.ones(3), T.ones(1, 2, 2, 2), memory_format=T.channels_last), False
    ),
    "legacy_contiguous_format": lambda T: [
        repr(T.legacy_contiguous_format),
        T.legacy_contiguous_format == T.contiguous_format,
        T.ones(2, 3, 4, 5).contiguous(memory_format=T.legacy_contiguous_format).stride(),
    ],
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_resize_matches_pytorch(torch_oracle, name):
    program = PROGRAMS[name]
    assert _run(tm, program) == _run(torch_oracle, program)


def test_shared_memory_is_not_resizable():
    # PyTorch's message (compared by hand: PyTorch itself crashes on this under pytest's
    # file-system sharing strategy, so it is not run as an oracle here)
    t = tm.ones(3).share_memory_()
    with pytest.raises(RuntimeError, match="^Trying to resize storage that is not resizable$"):
        t.resize_(10)
    assert t.resize_(2).tolist() == [1.0, 1.0]  # shrinking within the storage is fine


def test_grown_tensor_leaves_other_views_on_the_old_memory():
    # The documented difference: PyTorch grows the shared storage (the base would see the
    # view's writes); here the grown tensor moves to memory of its own.
    base = tm.zeros(4)
    view = base[1:3]
    view.resize_(5).fill_(7.0)
    assert view.tolist() == [7.0] * 5 and base.tolist() == [0.0] * 4
    assert view._base is None and view.storage_offset() == 1


def _out_of_place_program(T):
    """The deprecated out-of-place Tensor.resize / resize_as (autograd's Resize): a reshape that
    keeps the number of elements, with PyTorch's warning, node and error."""
    import warnings

    out = []
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        x = T.arange(6.0)
        r = x.resize(2, 3)
        out += [r.tolist(), r._base is x, x.resize_as(T.ones(3, 2)).shape == (3, 2)]
        y = T.ones(2, requires_grad=True)
        z = y.resize(1, 2)
        z.sum().backward()
        out += [type(z.grad_fn).__name__, y.grad.tolist()]
        out.append(T.arange(6.0).view(2, 3).t().resize(6).tolist())
        try:
            x.resize(4)
        except RuntimeError as e:
            out.append(str(e))
    out.append(sorted({str(m.message) for m in w}))
    return out


def test_out_of_place_resize(torch_oracle):
    assert _out_of_place_program(tm) == _out_of_place_program(torch_oracle)
