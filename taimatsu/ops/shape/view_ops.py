"""Shape ops that are views: view/reshape, transpose/permute, expand, squeeze/unsqueeze,
select/narrow, diagonal, unfold, as_strided. Views share memory and the version
counter with their base; their VJPs are the adjoint shape op. The shape ops that copy are in
``copies.py``; unbind/split/chunk/tensor_split in ``split.py``."""

from __future__ import annotations

import builtins
import math

import numpy as np

from taimatsu.ops.shape.diagonal import _tangent

from ... import _dtype as D
from ..._layout import contiguous_format
from ..._size import Size
from ..._tensor.core import Tensor, _wrap, _wrapdim
from ...autograd.engine import compose_partial
from ...autograd.forward_ad import _register
from ...autograd.grad_mode import state as _gm
from ...autograd.graph import node_class
from .._dispatch import _fw_state, record, xp_for
from ..arg_types import _is_int as _is_int_arg
from ..arg_types import as_int, integer, one_integer
from .views import make_view


def _dims_arg(args, fn: str = "view", arg: str = "size"):
    """Accept f(2, 3), f((2, 3)), f([2, 3]) and f(torch.Size([2, 3])); ``fn``'s ``arg`` with
    PyTorch's parser errors otherwise (``_size_error``)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list, Size)):
        seq, packed = args[0], True
    else:
        seq, packed = args, False
    for a in seq:  # the common case, plain ints (a bool's type is not int): no conversion
        if a.__class__ is not int:
            break
    else:
        return tuple(seq)
    out = []
    for i, a in enumerate(seq):
        if isinstance(a, Tensor):
            a = a.__index__()
        elif not isinstance(a, (int, np.integer)) or isinstance(a, bool):
            raise _size_error(fn, arg, args, seq, i, packed)
        out.append(int(a))
    return tuple(out)


def _size_error(fn: str, arg: str, args, seq, i: int, packed: bool) -> TypeError:
    """PyTorch's parser text for element ``i`` of an int-list argument that is no int: the
    first decides whether the argument matches at all (one value: "must be tuple of ints";
    several: the varargs form does not apply), a later one fails to unpack. view's dtype
    overload makes its first-element failures the "invalid combination" text."""
    from ..._tensor_arguments import invalid_combination, type_name

    bad = seq[i]
    if i:
        return TypeError(
            f"{fn}(): argument '{arg}' failed to unpack the object at pos {i + 1} with error "
            f'"type must be tuple of ints,but got {type_name(bad)}"'
        )
    if fn == "view":
        got = (
            "tuple of (" + ", ".join(type_name(a) for a in seq) + ")" if packed else type_name(bad)
        )
        text = invalid_combination("view", args, {}) + "\n * (torch.dtype dtype)\n"
        if len(args) == 1:
            text += (
                f"      didn't match because some of the arguments have invalid types: (!{got}!)\n"
            )
        text += " * (tuple of ints size)\n"
        if len(args) == 1:
            text += (
                f"      didn't match because some of the arguments have invalid types: (!{got}!)\n"
            )
        return TypeError(text)
    if packed:
        return TypeError(
            f"{fn}(): argument '{arg}' (position 1) must be tuple of ints, but found element of type "
            f"{type_name(bad)} at pos 0"
        )
    if len(args) > 1:
        return TypeError(f"{fn}() takes 1 positional argument but {len(args)} were given")
    return TypeError(
        f"{fn}(): argument '{arg}' (position 1) must be tuple of ints, not {type_name(bad)}"
    )


def infer_size(shape, numel: int) -> tuple:
    """Resolve one -1 in ``shape`` with PyTorch's errors."""
    infer, known = None, 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {list(shape)}")
        else:
            known *= s
    if infer is not None:
        if known == 0 and numel == 0:
            raise RuntimeError(
                f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                "unspecified dimension size -1 can be any value and is ambiguous"
            )
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = shape[:infer] + (numel // known,) + shape[infer + 1 :]
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


# ---- view / reshape ---------------------------------------------------------------------------------
def _view_vjp(node, g):
    shape = node.in_shape
    if not _gm.enabled and g.__class__ is Tensor:  # no graph of the backward: the view of g
        # that g.reshape would make, without re-checking a shape this node knows to be valid
        data = _nocopy_reshape(g._data, shape)
        if data is not None:
            return (make_view(g, data, _View, lambda t: t.reshape(shape), in_shape=g._data.shape),)
    return (g.reshape(shape),)


_View = node_class("ViewBackward0", _view_vjp)
_UnsafeView = node_class("UnsafeViewBackward0", lambda node, g: (g.reshape(node.in_shape),))


def _nocopy_reshape(data, shape):
    if isinstance(data, np.ndarray):
        try:
            return data.reshape(shape, copy=False)
        except ValueError:
            return None
    v = data.view()
    try:
        v.shape = shape
    except AttributeError:
        return None
    return v


def view(input: Tensor, *shape) -> Tensor:
    if len(shape) == 1 and isinstance(shape[0], D.dtype):
        return view_dtype(input, shape[0])
    shape = infer_size(_dims_arg(shape), input._data.size)
    data = _nocopy_reshape(input._data, shape)
    if data is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans "
            "across two contiguous subspaces). Use .reshape(...) instead."
        )
    return make_view(input, data, _View, lambda t: t.reshape(shape), in_shape=input._data.shape)


def view_dtype(input: Tensor, dtype: D.dtype) -> Tensor:
    """``x.view(dtype)``: the same bytes read as another dtype (never differentiable)."""
    old, new = input._dtype.itemsize, dtype.itemsize
    if new != old:
        from .._dispatch import scalar_name

        what = f"view {scalar_name(input._dtype)} as {scalar_name(dtype)} (different element sizes)"
        if input._data.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 to {what}")
        if input.stride(-1) != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 to {what}, but got {input.stride(-1)}")
        if new > old and input._data.shape[-1] % (new // old):
            raise RuntimeError(
                f"self.size(-1) must be divisible by {new // old} to {what}, but got {input._data.shape[-1]}"
            )
    v = make_view(input, input._data.view(dtype.np))
    v._dtype = dtype
    v._rg = False
    return v


def reshape(input: Tensor, *shape) -> Tensor:
    shape = infer_size(_dims_arg(shape, "reshape", "shape"), input._data.size)
    data = _nocopy_reshape(input._data, shape)
    if data is not None:
        return make_view(input, data, _View, lambda t: t.reshape(shape), in_shape=input._data.shape)
    c = clone(input, memory_format=contiguous_format)
    out = _wrap(c._data.reshape(shape), c._dtype, c._device)
    if c._rg and _gm.enabled:
        record(_UnsafeView, (c,), out, (), in_shape=c._data.shape)
    if c._fw is not None:
        out._fw = c._fw.reshape(shape)
        _register(out)
    return out


def view_as(input: Tensor, other: Tensor) -> Tensor:
    return view(input, other.shape)


def reshape_as(input: Tensor, other: Tensor) -> Tensor:
    return reshape(input, other.shape)


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    if start_dim.__class__ is not int or end_dim.__class__ is not int:
        integer("flatten", "start_dim", 2, start_dim)
        integer("flatten", "end_dim", 3, end_dim)
    nd = input._data.ndim
    if nd == 0:
        return reshape(input, (1,))
    s, e = _wrapdim(start_dim, nd), _wrapdim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shp = input._data.shape
    return reshape(input, shp[:s] + (math.prod(shp[s : e + 1]),) + shp[e + 1 :])


def unflatten(input: Tensor, dim: int, sizes) -> Tensor:
    d = _wrapdim(dim, input._data.ndim)
    shp = input._data.shape
    sizes = tuple(int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    known = math.prod(s for s in sizes if s != -1)
    if (
        sizes.count(-1) == 0
        and known != shp[d]
        or sizes.count(-1) == 1
        and (known == 0 or shp[d] % known)
    ):
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} ({shp[d]}) in the "
            "input tensor"
        )
    sizes = infer_size(sizes, shp[d])
    return view(input, shp[:d] + sizes + shp[d + 1 :])


def ravel(input: Tensor) -> Tensor:
    return view(contiguous(input), (-1,))


def alias(input: Tensor) -> Tensor:
    return make_view(input, input._data.view(), _Alias, lambda t: t)


_Alias = node_class("AliasBackward0", lambda node, g: (g,))


# ---- transpose / permute ---------------------------------------------------------------------------
def _transpose_vjp(node, g):
    return (g.transpose(node.d0, node.d1),)


_Transpose = node_class("TransposeBackward0", _transpose_vjp)
_T = node_class("TBackward0", lambda node, g: (g.t(),))
_Permute = node_class("PermuteBackward0", lambda node, g: (g.permute(node.inverse),))


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    if dim0.__class__ is not int or dim1.__class__ is not int:
        integer("transpose", "dim0", 1, dim0)
        integer("transpose", "dim1", 2, dim1)
    nd = input._data.ndim
    d0, d1 = _wrapdim(dim0, nd), _wrapdim(dim1, nd)
    data = input._data.swapaxes(d0, d1) if nd else input._data.view()
    return make_view(input, data, _Transpose, lambda t: t.transpose(d0, d1), d0=d0, d1=d1)


def swapaxes(input: Tensor, axis0: int, axis1: int) -> Tensor:
    """``torch.swapaxes``: ``transpose`` under NumPy's argument names (a sparse tensor's own
    method runs for a sparse input, as ``torch.transpose``)."""
    return input.transpose(axis0, axis1)


def swapdims(input: Tensor, dim0: int, dim1: int) -> Tensor:
    return input.transpose(dim0, dim1)


def t(input: Tensor) -> Tensor:
    nd = input._data.ndim
    if nd > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
    return make_view(input, input._data.T, _T, lambda x: x.t())


def permute(input: Tensor, *dims) -> Tensor:
    nd = input._data.ndim
    dims = _dims_arg(dims, "permute", "dims")
    if len(dims) != nd:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the length of the "
            f"desired ordering of dimensions i.e. input.dim() = {nd} is not equal to len(dims) = {len(dims)}"
        )
    dims = tuple(_wrapdim(d, nd) for d in dims)
    if len(set(dims)) != nd:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    inverse = tuple(np.argsort(dims).tolist())
    return make_view(
        input, input._data.transpose(dims), _Permute, lambda x: x.permute(dims), inverse=inverse
    )


def _movedim_dims(source, destination) -> tuple:
    """movedim's parser: source and destination both ints (a 0-d integer tensor reads as one) or
    both sequences of ints; PyTorch's invalid-combination TypeError for anything else, '!'
    marking each argument an overload cannot take."""
    args = (source, destination)
    if all(_movedim_int(v) for v in args):
        return [[int(source)], [int(destination)]]
    if all(isinstance(v, (list, tuple)) for v in args):
        return [list(source), list(destination)]
    names = [type(v).__name__ for v in args]

    def marks(fits) -> str:
        return ", ".join(["Tensor"] + [n if fits(v) else f"!{n}!" for n, v in zip(names, args)])

    raise TypeError(
        f"movedim() received an invalid combination of arguments - got (Tensor, {', '.join(names)}), "
        "but expected one of:\n"
        " * (Tensor input, int source, int destination)\n"
        f"      didn't match because some of the arguments have invalid types: ({marks(_movedim_int)})\n"
        " * (Tensor input, tuple of ints source, tuple of ints destination)\n"
        "      didn't match because some of the arguments have invalid types: "
        f"({marks(lambda v: isinstance(v, (list, tuple)))})\n"
    )


def _movedim_int(v) -> bool:
    return (isinstance(v, (int, np.integer)) and not isinstance(v, bool)) or one_integer(v, False)


def movedim(input: Tensor, source, destination) -> Tensor:
    nd = input._data.ndim
    src, dst = _movedim_dims(source, destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({src} dims) should contain the same number of "
            f"dims as destination ({dst} dims)"
        )
    wrapped_src = [_wrapdim(s, nd) for s in src]
    wrapped_dst = [_wrapdim(d, nd) for d in dst]
    for name, ds, given in (("source", wrapped_src, src), ("destination", wrapped_dst, dst)):
        if len(set(ds)) != len(ds):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({given})")
    if nd == 0:  # PyTorch returns an alias of a 0-d tensor (AliasBackward0)
        return alias(input)
    src, dst = wrapped_src, wrapped_dst
    order = [d for d in range(nd) if d not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute(input, order)


moveaxis = movedim


def matrices_only(t, name: str, error_name: str, advice: str, line: int, stacklevel=4) -> bool:
    """Whether ``t`` is a matrix or a batch of them, for ``name`` (mT, mH, adjoint, H): a 1-D
    tensor raises PyTorch's error; a 0-D one warns once (PyTorch's deprecation) and is False."""
    n = t._data.ndim
    if n == 1:
        raise RuntimeError(
            f"{error_name} is only supported on matrices or batches of matrices. Got 1-D tensor."
        )
    if n == 0:
        from ..._flags import warn_once

        warn_once(
            name + "_0d",
            f"{name} is deprecated on 0-D tensors. {advice}. (Triggered internally at "
            f"/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:{line}.)",
            stacklevel=stacklevel,
        )
    return n >= 2


def adjoint(input: Tensor) -> Tensor:
    if not adjoint_applies(input):
        return input.conj()
    return transpose(input, -2, -1).conj()


def adjoint_applies(input: Tensor) -> bool:
    return matrices_only(input, "adjoint()", "tensor.adjoint()", "Consider using x.conj()", 4390, 5)


# ---- expand / squeeze / unsqueeze ----------------------------------------------------------------------
_Expand = node_class("ExpandBackward0", lambda node, g: (sum_to(g, node.in_shape),))


def expand(input: Tensor, *sizes) -> Tensor:
    sizes = _dims_arg(sizes, "expand")
    shp = input._data.shape
    if len(sizes) < len(shp):
        raise RuntimeError(
            f"expand({input.type()}{{{list(shp)}}}, size=[{', '.join(map(str, sizes))}]): the number of sizes "
            f"provided ({len(sizes)}) must be greater or equal to the number of dimensions in the tensor ({len(shp)})"
        )
    lead = len(sizes) - len(shp)
    out = [0] * len(sizes)
    for i in range(len(sizes) - 1, -1, -1):  # PyTorch checks from the last dim
        s = sizes[i]
        if i < lead:
            if s < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor ({s}) isn't allowed in a leading, non-existing dimension {i}"
                )
            out[i] = s
            continue
        cur = shp[i - lead]
        if s == -1:
            s = cur
        elif cur != s and cur != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at non-singleton "
                f"dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: {list(shp)}"
            )
        elif s < 0:
            raise RuntimeError("numel: integer multiplication overflow")
        out[i] = s
    out = tuple(out)
    if out == shp:
        data = input._data.view()
    else:
        item = input._data.itemsize
        st = input._data.strides
        strides = [0] * lead + [
            0 if shp[k] == 1 and out[k + lead] != 1 else st[k] for k in range(len(shp))
        ]
        xp = xp_for(input)
        if xp is np:
            data = np.lib.stride_tricks.as_strided(input._data, out, strides, writeable=True)
        else:
            data = xp.lib.stride_tricks.as_strided(input._data, out, strides)
        del item
    return make_view(input, data, _Expand, lambda x: x.expand(out), in_shape=shp)


def expand_as(input: Tensor, other: Tensor) -> Tensor:
    return expand(input, other.shape)


def broadcast_to(input: Tensor, size) -> Tensor:
    return expand(input, size)


def broadcast_shapes(*shapes) -> Size:
    """The broadcast of ``shapes`` (ints count as 1-d shapes). A mismatch names the first
    offending shape and the shape broadcast so far, as PyTorch's message does."""
    for s in shapes:
        if not isinstance(s, (int, list, tuple)) or isinstance(s, bool):
            shown = s.item() if isinstance(s, Tensor) and not s.dim() else s
            raise RuntimeError(  # noqa: TRY004  PyTorch's exception type
                f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {shown}"
            )
    shapes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    result = [1] * max((len(s) for s in shapes), default=0)
    for k, shape in enumerate(shapes):
        for i in range(-1, -len(shape) - 1, -1):
            if shape[i] < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            if shape[i] == 1 or shape[i] == result[i]:
                continue
            if result[i] != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {shape[i]} at {i}! Mismatching "
                    f"argument at index {k} had {shape}; but expected shape should be "
                    f"broadcastable to {result}"
                )
            result[i] = shape[i]
    return Size(result)


def broadcast_tensors(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    try:
        shape = broadcast_shapes(*[t.shape for t in tensors])
    except RuntimeError:
        from .._dispatch import broadcast_error

        raise broadcast_error([t._data.shape for t in tensors]) from None
    return tuple(t if t._data.shape == shape else expand(t, shape) for t in tensors)


def _unsqueeze_to(node, g):
    """squeeze's backward (PyTorch's unsqueeze_to): the squeezed dims come back one unsqueeze each
    when a graph is built (UnsqueezeBackward0 nodes, as PyTorch's), else as one reshape view."""
    if g._rg and _gm.enabled:
        for d in node.dims:  # ascending: each lands where it was
            g = g.unsqueeze(d)
        return (g,)
    return (g.reshape(node.in_shape),)


_Squeeze0 = node_class("SqueezeBackward0", _unsqueeze_to)
_Squeeze1 = node_class("SqueezeBackward1", _unsqueeze_to)
_Squeeze2 = node_class("SqueezeBackward2", _unsqueeze_to)
_Unsqueeze = node_class("UnsqueezeBackward0", lambda node, g: (g.squeeze(node.dim),))


def _squeezed(shp, dim) -> tuple:
    """The overload ``squeeze(dim)`` picks (0: every dim, 1: one dim, 2: a list of dims) and the
    dims it removes (ascending)."""
    if dim is None:
        return 0, tuple(i for i, s in enumerate(shp) if s == 1)
    if isinstance(dim, (tuple, list)):
        wrapped = [_wrapdim(d, len(shp)) for d in dim]
        for i, d in enumerate(wrapped):
            if d in wrapped[:i]:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        return 2, tuple(sorted(i for i in wrapped if shp and shp[i] == 1))
    d = _wrapdim(dim, len(shp))
    return 1, ((d,) if shp and shp[d] == 1 else ())


def squeeze(input: Tensor, dim=None) -> Tensor:
    shp = input._data.shape
    overload, dims = _squeezed(shp, dim)
    node = (_Squeeze0, _Squeeze1, _Squeeze2)[overload]
    new = tuple(s for i, s in enumerate(shp) if i not in dims)
    return make_view(
        input, input._data.reshape(new), node, lambda x: x.reshape(new), in_shape=shp, dims=dims
    )


def unsqueeze_array(a, d: int):
    """``a`` with a new axis at ``d``, strided as PyTorch's unsqueeze (never stride 0)."""
    shape, strides = list(a.shape), list(a.strides)
    st = shape[d] * strides[d] if d < len(shape) else a.itemsize
    shape.insert(d, 1)
    strides.insert(d, st)
    if isinstance(a, np.ndarray):
        return np.lib.stride_tricks.as_strided(a, shape, strides, writeable=a.flags.writeable)
    return a.__class__(
        shape, a.dtype, a.data, strides=strides
    )  # cupy.ndarray(shape, dtype, memptr, strides)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    d = _wrapdim(dim, input._data.ndim + 1)
    return make_view(
        input, unsqueeze_array(input._data, d), _Unsqueeze, lambda x: x.unsqueeze(d), dim=d
    )


# ---- in-place view ops: t_, transpose_, squeeze_, unsqueeze_ -----------------------------------------
_T1 = node_class("TBackward1", lambda node, g: (g.t(),))
_Transpose1 = node_class("TransposeBackward1", _transpose_vjp)
_Unsqueeze1 = node_class("UnsqueezeBackward1", lambda node, g: (g.squeeze(node.dim),))
_Squeeze3 = node_class("SqueezeBackward3", _unsqueeze_to)
_Squeeze4 = node_class("SqueezeBackward4", _unsqueeze_to)
_Squeeze5 = node_class("SqueezeBackward5", _unsqueeze_to)


def _restride(self: Tensor, v: Tensor, cls, view_fn, **attrs) -> Tensor:
    """``self`` takes the layout of ``v`` (the same view of it) and records ``cls``."""
    from .._dispatch import check_inplace

    check_inplace(self)
    if self._rg and _gm.enabled:
        record(cls, (self,), self, (), **attrs)  # the edge is taken before self changes
    if _fw_state.level and self._fw is not None:
        self._fw = view_fn(self._fw)
    self._data = v._data
    self._vc[0] += 1
    if self._base is not None:
        self._vv = self._vc[0]
    return self


def t_(self: Tensor) -> Tensor:
    return _restride(self, t(self.detach()), _T1, t)


def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    v = transpose(self.detach(), dim0, dim1)
    d0, d1 = _wrapdim(dim0, self._data.ndim), _wrapdim(dim1, self._data.ndim)
    return _restride(self, v, _Transpose1, lambda x: transpose(x, d0, d1), d0=d0, d1=d1)


def squeeze_(self: Tensor, dim=None) -> Tensor:
    overload, dims = _squeezed(self._data.shape, dim)
    v = squeeze(self.detach(), dim)
    cls = (_Squeeze3, _Squeeze4, _Squeeze5)[overload]
    return _restride(self, v, cls, lambda x: squeeze(x, dim), in_shape=self._data.shape, dims=dims)


def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    d = _wrapdim(dim, self._data.ndim + 1)
    return _restride(
        self, unsqueeze(self.detach(), d), _Unsqueeze1, lambda x: unsqueeze(x, d), dim=d
    )


# ---- select / narrow / unbind / split / chunk / diagonal ---------------------------------------------------
def _embed_vjp(node, g):
    return (node.view_fn(g),)


_EMBED = {}


def embed(g: Tensor, shape, view_fn, name: str) -> Tensor:
    """Zeros of ``shape`` with ``g`` written into ``view_fn(zeros)``: the adjoint of a view.

    Its own VJP is the view itself, so double backward through views works.
    """
    out = _wrap(xp_for(g).zeros(shape, g._data.dtype), g._dtype, g._device)
    view_fn(out.detach())._data[...] = g._data
    if g._rg and _gm.enabled:
        cls = _EMBED.get(name)
        if cls is None:
            cls = _EMBED[name] = node_class(name, _embed_vjp)
        record(cls, (g,), out, (), view_fn=view_fn)
    return out


def _select_vjp(node, g):
    return (embed(g, node.in_shape, node.fn, "SelectBackwardBackward0"),)


def _slice_vjp(node, g):
    return (embed(g, node.in_shape, node.fn, "SliceBackwardBackward0"),)


def _partial_vjp(node, g):
    return compose_partial(g, node.in_shape, node.fn)


_Select = node_class("SelectBackward0", _select_vjp)
_Slice = node_class("SliceBackward0", _slice_vjp)
_Select._partial_vjp = _Slice._partial_vjp = _partial_vjp


def select(input: Tensor, dim: int, index: int) -> Tensor:
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrapdim(dim, nd)
    n = input._data.shape[d]
    index = as_int("select", "index", 3, index)
    if not -n <= index < n:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(input.shape)} at dimension {dim}"
        )
    i = index + n if index < 0 else index
    key = (slice(None),) * d + (i, Ellipsis)  # Ellipsis keeps a 0-d result a view

    def fn(x):
        return select(x, d, i)

    return make_view(input, input._data[key], _Select, fn, in_shape=input._data.shape, fn=fn)


def slice_dim(input: Tensor, dim: int, start, stop, step: int = 1) -> Tensor:
    """``input[..., start:stop:step, ...]`` along one dim (SliceBackward0)."""
    d = _wrapdim(dim, input._data.ndim)
    if step <= 0:
        raise ValueError("step must be greater than zero")
    key = (slice(None),) * d + (slice(start, stop, step),)

    def fn(x):
        return slice_dim(x, d, start, stop, step)

    return make_view(input, input._data[key], _Slice, fn, in_shape=input._data.shape, fn=fn)


def _index_int(v) -> bool:
    """An int argument as the parser reads it through ``__index__``: an int (never a bool), or
    an integer (or bool) tensor of one element."""
    return one_integer(v) if isinstance(v, Tensor) else _is_int_arg(v) and not isinstance(v, bool)


def _narrow_mismatch(*args) -> str:
    """PyTorch's text for narrow's arguments matching neither overload: each overload with the
    arguments its type check refuses marked (an int parameter marks anything but a plain int,
    a tensor included)."""

    def shown(v, want) -> str:
        name = type(v).__name__
        ok = (
            isinstance(v, Tensor)
            if want is Tensor
            else _is_int_arg(v) and not isinstance(v, (bool, Tensor))
        )
        return name if ok else f"!{name}!"

    got = ", ".join(type(v).__name__ for v in args)
    lines = [
        f"narrow() received an invalid combination of arguments - got ({got}), but expected one of:"
    ]
    for kind, start in (("Tensor", Tensor), ("int", int)):
        marks = ", ".join(shown(v, w) for v, w in zip(args, (int, start, int)))
        lines.append(f" * (int dim, {kind} start, int length)")
        lines.append(
            f"      didn't match because some of the arguments have invalid types: ({marks})"
        )
    return "\n".join(lines) + "\n"


def narrow(input: Tensor, dim: int, start, length: int) -> Tensor:
    ints = _is_int_arg(dim) and not isinstance(dim, bool) and _index_int(length)
    if ints and isinstance(start, Tensor):
        # PyTorch's overload for a tensor start takes an integer one without dims
        if start._data.ndim or start._dtype.category != D.INT:
            raise RuntimeError("start must be an 0-dim integral Tensor.")
    elif not (ints and _index_int(start)):
        raise TypeError(_narrow_mismatch(dim, start, length))
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim, start, length = int(dim), int(start), int(length)
    d = _wrapdim(dim, nd)
    n = input._data.shape[d]
    if not -n <= start <= n:
        raise IndexError(
            f"start out of range (expected to be in range of [{-n}, {n}], but got {start})"
        )
    if start < 0:
        start += n
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return slice_dim(input, d, start, start + length)


def _diagonal_vjp(node, g):
    return (embed(g, node.in_shape, node.fn, "DiagonalBackwardBackward0"),)


_Diagonal = node_class("DiagonalBackward0", _diagonal_vjp)
_Diagonal._partial_vjp = _partial_vjp


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    offset = as_int("diagonal", "offset", 2, offset, any_dims=False)
    nd = input._data.ndim
    d1, d2 = _wrapdim(dim1, nd), _wrapdim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    a = input._data
    n1, n2 = a.shape[d1], a.shape[d2]
    length = builtins.max(
        0, builtins.min(n1 + builtins.min(offset, 0), n2 - builtins.max(offset, 0))
    )
    start = (-offset if offset < 0 else 0) * a.strides[d1] + (max(0, offset)) * a.strides[d2]
    shape = tuple(s for i, s in enumerate(a.shape) if i not in (d1, d2)) + (length,)
    strides = tuple(s for i, s in enumerate(a.strides) if i not in (d1, d2)) + (
        a.strides[d1] + a.strides[d2],
    )
    if length == 0:
        start = 0
    xp = xp_for(input)
    if xp is np:
        data = np.lib.stride_tricks.as_strided(_shift(a, start), shape, strides, writeable=True)
    else:
        data = xp.lib.stride_tricks.as_strided(_shift(a, start), shape, strides)

    def fn(x):
        return diagonal(x, offset, d1, d2)

    return make_view(input, data, _Diagonal, fn, in_shape=a.shape, fn=fn)


def _shift(a, nbytes: int):
    """A view of ``a`` whose data pointer is moved forward by ``nbytes``."""
    if nbytes == 0 or a.size == 0:
        return a
    flat = (
        np.lib.stride_tricks.as_strided(
            a, (nbytes // a.itemsize + 1,), (a.itemsize,), writeable=True
        )
        if isinstance(a, np.ndarray)
        else None
    )
    if flat is None:
        import cupy

        flat = cupy.lib.stride_tricks.as_strided(a, (nbytes // a.itemsize + 1,), (a.itemsize,))
    return flat[nbytes // a.itemsize :]


def sum_to(g: Tensor, shape) -> Tensor:
    """Sum ``g`` down to ``shape`` (the adjoint of broadcasting)."""
    shape = tuple(shape)
    gs = g._data.shape
    if gs == shape:
        return g
    lead = len(gs) - len(shape)
    dims = tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and gs[i + lead] != 1
    )
    r = g.sum(dims, keepdim=True) if dims else g
    return r.view(shape) if r._data.shape != shape else r


# reshape falls back to a copy (imported last: copies.py builds on the views above).
from .copies import clone, contiguous


def _unfold_vjp(node, g):
    return (_unfold_backward(g, node.in_shape, node.dim, node.size, node.step),)


_Unfold = node_class("UnfoldBackward0", _unfold_vjp)


_UnfoldBackward = node_class(
    "UnfoldBackwardBackward0", lambda node, g: (g.unfold(node.dim, node.size, node.step),)
)


def _unfold_backward(g: Tensor, in_shape, dim, size, step) -> Tensor:
    """The adjoint of unfold: each window's gradient added back where the window came from."""
    xp = xp_for(g)
    if not in_shape:  # a 0-d input unfolds to one window of one element
        out = g._data.reshape(()).copy()
    else:
        out = xp.zeros(in_shape, g._data.dtype)
        n = g._data.shape[dim]
        o = xp.moveaxis(out, dim, -1)
        gd = xp.moveaxis(g._data, dim, -2)  # (..., n, size)
        for k in range(size):
            o[..., k : k + step * (n - 1) + 1 : step] += gd[..., k]
    r = _wrap(out, g._dtype, g._device)
    if g._rg and _gm.enabled:
        record(_UnfoldBackward, (g,), r, (), dim=dim, size=size, step=step)
    _tangent(r, (g,), lambda t: _unfold_backward(t, in_shape, dim, size, step))
    return r


def unfold(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    size, step = (
        as_int("unfold", "size", 2, size, any_dims=False),
        as_int("unfold", "step", 3, step, any_dims=False),
    )
    a = input._data
    nd = a.ndim
    d = _wrapdim(dimension, builtins.max(nd, 1))
    length = a.shape[d] if nd else 1
    if size > length:
        raise RuntimeError(
            f"maximum size for tensor at dimension {d} is {length} but size is {size}"
        )
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if nd == 0:
        data = a.reshape(1)
        shape, strides = (1,), (a.itemsize,)
    else:
        shape = a.shape[:d] + ((length - size) // step + 1,) + a.shape[d + 1 :] + (size,)
        strides = a.strides[:d] + (a.strides[d] * step,) + a.strides[d + 1 :] + (a.strides[d],)
        data = a
    xp = xp_for(input)
    if xp is np:
        v = np.lib.stride_tricks.as_strided(data, shape, strides, writeable=True)
    else:
        v = xp.lib.stride_tricks.as_strided(data, shape, strides)
    return make_view(input, v, _Unfold, lambda t: t.unfold(d, size, step),
                     in_shape=a.shape, dim=d, size=size, step=step)  # fmt: skip
