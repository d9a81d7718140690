"""``nn.Parameter`` (and ``nn.Buffer``): tensors a Module registers by attribute assignment."""

from __future__ import annotations

from .._layout import strided as _strided
from .._tensor.core import Tensor, _wrap
from ..ops.creation import factories as _creation


def _share(cls, data, requires_grad: bool):
    """A new ``cls`` tensor viewing ``data``'s memory, with no history (``_make_subclass``)."""
    if data is None:
        data = _creation.empty(0)
    if not isinstance(data, Tensor):
        # PyTorch calls data.detach() first: anything else fails there, with Python's own
        # AttributeError ('numpy.ndarray' object has no attribute 'detach')
        data.detach  # noqa: B018
        raise TypeError(f"Parameter.__new__ expected a Tensor but got {type(data).__name__}")
    if data.is_sparse or data.layout is not _strided:  # a sparse parameter (its payload shared)
        from .._tensor.sparse import make_sparse

        t = make_sparse(data._data, data._dtype, data._device)
        t.__class__ = _sparse_class(cls)
    else:
        t = _wrap(data._data, data._dtype, data._device)
        t._storage = data._storage
        t.__class__ = cls
    if requires_grad:
        if not (t.is_floating_point() or t.is_complex()):
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        t._rg = True
    return t


_SPARSE_CLASSES: dict = {}


def _sparse_class(cls) -> type:
    """``cls`` (Parameter, Buffer or a subclass) for sparse data: a class deriving from both
    ``cls`` and the sparse tensor class, under ``cls``'s name (``type(p)`` prints Parameter)."""
    from .._tensor.sparse import SparseTensor

    if cls is Tensor:  # (a buffer: a plain sparse tensor)
        return SparseTensor
    sc = _SPARSE_CLASSES.get(cls)
    if sc is None:
        sc = _SPARSE_CLASSES[cls] = type(cls.__name__, (cls, SparseTensor), {"__slots__": ()})
        sc.__qualname__, sc.__module__ = cls.__qualname__, cls.__module__
    return sc


class Parameter(Tensor):
    """A Tensor that is a module parameter: ``requires_grad=True`` by default, and assigning
    one to a Module attribute registers it. Shares memory with the tensor it wraps."""

    def __new__(cls, data=None, requires_grad: bool = True):
        return _share(cls, data, requires_grad)

    def __repr__(self, *, tensor_contents=None) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        # a new Parameter of the data, without .grad (PyTorch's Parameter.__deepcopy__ drops it;
        # a plain tensor's deepcopy keeps it)
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self.detach(), self.requires_grad))


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)


class Buffer(Tensor):
    """``nn.Buffer``: assigning one to a Module attribute registers it as a buffer."""

    def __new__(cls, data=None, *, persistent: bool = True):
        t = _share(Tensor, data, False)
        t.__dict__["persistent"] = persistent
        t.__class__ = cls if t.__class__ is Tensor else _sparse_class(cls)
        return t


_SHAPE_ERROR = (
    "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
    "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call `forward` to "
    "initialize the parameters before accessing their attributes."
)


class UninitializedTensorMixin:
    """A parameter or buffer of a lazy module whose shape is not known yet: ``materialize(shape)``
    gives it memory (uninitialised, like ``torch.empty``) and turns it into ``cls_to_become``
    in place, so every reference to it sees the change."""

    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None) -> None:
        device = self._device if device is None else device
        dtype = self._dtype if dtype is None else dtype
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        self.data = _creation.empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(_SHAPE_ERROR)

    def size(self, dim=None):
        raise RuntimeError(_SHAPE_ERROR)

    def numel(self):
        raise RuntimeError(_SHAPE_ERROR)

    def __repr__(self, *, tensor_contents=None) -> str:
        return f"<{self.__class__.__name__}>"

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self._device, self._dtype)
        return memo[id(self)]

    def __reduce_ex__(self, protocol):
        return (type(self), (self.requires_grad,))


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """``nn.parameter.UninitializedParameter``: becomes a ``Parameter`` when materialized."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        return _share(cls, _creation.empty(0, device=device, dtype=dtype), requires_grad)


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """``nn.parameter.UninitializedBuffer``: becomes a plain ``Tensor`` when materialized."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None, persistent: bool = True):
        t = _share(cls, _creation.empty(0, device=device, dtype=dtype), requires_grad)
        t.__dict__["persistent"] = persistent
        return t


def is_lazy(param) -> bool:
    """Whether ``param`` is an uninitialized parameter or buffer of a lazy module."""
    return isinstance(param, UninitializedTensorMixin)
