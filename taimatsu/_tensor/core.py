"""Tensor: a NumPy/CuPy array plus autograd metadata.

The class is deliberately thin: properties that describe the array, the autograd fields,
and methods that are one-line delegates to the op functions in ``taimatsu.ops``.
"""

from __future__ import annotations

import warnings
import weakref

import numpy as np

from .. import _dtype as D
from .._device import cpu
from .._size import Size
from ..autograd import grad_mode
from .conversions import TensorConversions
from .methods import TensorMethods
from .sparse_methods import SparseLayoutMethods

_new = object.__new__
_ndarray = np.ndarray

_SCALAR_OF_GRAD_WARNED = [False]


def _warn_scalar_of_grad_tensor() -> None:
    """PyTorch 2.13 warns once per process when float()/complex() reads a tensor that requires
    grad (int(), .item() and bool() do not warn)."""
    if _SCALAR_OF_GRAD_WARNED[0]:
        return
    _SCALAR_OF_GRAD_WARNED[0] = True
    warnings.warn(
        "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
        "Consider using tensor.detach() first. (Triggered internally at "
        "/__w/pytorch/pytorch/torch/csrc/autograd/generated/python_variable_methods.cpp:822.)",
        UserWarning,
        stacklevel=3,
    )


_GRAD_OF_NONLEAF_MSG = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information. (Triggered internally at "
    "/__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)"
)


def _wrap(data, dtype, device=cpu):
    """Make a Tensor around ``data`` (no copy, no checks): the one constructor ops use."""
    if data.__class__ is not _ndarray and device is cpu:
        data = np.asarray(data)  # NumPy ufuncs turn 0-d results into scalars; keep arrays
    t = _new(Tensor)
    t._data = data
    t._dtype = dtype
    t._device = device
    t._rg = False
    t._grad_fn = None
    t._grad = None
    t._vc = [0]
    t._base = None
    t._storage = None
    t._output_nr = 0
    t._hooks = None
    t._accum = None
    t._fw = None
    if _gm_active.inference and grad_mode.state.inference:
        t.__dict__["_inference"] = True
    return t


_gm_active = grad_mode.active


def zeros_like_meta(shape, dtype, device):
    xp = _backend.cupy() if device.type == "cuda" else np
    return _wrap(xp.zeros(shape, dtype.np), dtype, device)


class Tensor(TensorConversions, TensorMethods, SparseLayoutMethods):
    """``torch.Tensor``. ``Tensor(2, 3)`` / ``Tensor([1, 2])`` are the legacy constructors."""

    __module__ = "taimatsu"  # <class 'taimatsu.Tensor'>, as PyTorch's <class 'torch.Tensor'>

    __slots__ = (
        "_data", "_dtype", "_device", "_rg", "_grad_fn", "_grad", "_vc", "_base", "_storage", "_vv",
        "_output_nr", "_hooks", "_accum", "_fw", "__dict__", "__weakref__",
    )  # fmt: skip
    __array_priority__ = 1000  # NumPy defers binary operators to us
    # PyTorch's attribute: None until a hook is registered (then an OrderedDict in __dict__)
    _post_accumulate_grad_hooks = None

    def __new__(cls, *args, device=None):
        return _creation.legacy_new(cls, D.get_default_dtype(), args, device, typed=False)

    def __init__(self, *args, **kwargs):
        pass

    # ---- metadata --------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size._of(self._data.shape)

    def size(self, dim=None, /, *args, **kwargs):
        shape = self._data.shape
        if args or kwargs:  # dim= by keyword, or too many arguments
            return _size_call(self, dim, args, kwargs)
        if dim is None:
            return Size._of(shape)
        if dim.__class__ is int and -len(shape) <= dim < len(shape):  # (a 0-d tensor: never)
            return shape[dim]
        return shape[_size_dim(dim, len(shape))]

    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return self._data.size

    nelement = numel

    @property
    def dtype(self) -> D.dtype:
        return self._dtype

    @property
    def device(self):
        return self._device

    @property
    def is_cuda(self) -> bool:
        return self._device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        return self._device.type == "cpu"

    @property
    def is_meta(self) -> bool:
        return self._device.type == "meta"

    # taimatsu tensors are dense, strided and on the CPU or a CUDA device
    is_sparse = is_sparse_csr = is_quantized = is_nested = is_mkldnn = False
    is_xpu = is_mps = is_ipu = is_vulkan = is_xla = is_mtia = is_maia = False

    def untyped_storage(self):
        from ..storage import untyped_storage

        return untyped_storage(self)

    def storage(self):
        from ..typed_storage import typed_storage

        return typed_storage(self)

    def set_(self, *args, **kwargs):
        from ..storage import tensor_set_

        return tensor_set_(self, *args, **kwargs)

    def apply_(self, callable):
        from .apply import apply_

        return apply_(self, callable)

    def map_(self, tensor, callable):
        from .apply import map_

        return map_(self, tensor, callable)

    def map2_(self, x, y, callable):
        from .apply import map2_

        return map2_(self, x, y, callable)

    def is_nonzero(self) -> bool:
        from .. import is_nonzero

        return is_nonzero(self)

    def is_distributed(self) -> bool:
        return False

    def const_data_ptr(self) -> int:
        return self.data_ptr()

    @property
    def output_nr(self) -> int:
        """Which output of its grad_fn this tensor is (0 for leaves and single outputs)."""
        return self._output_nr

    def dim_order(self, *, ambiguity_check=False):
        from .._layout import dim_order

        return dim_order(self, ambiguity_check)

    def resize_(self, *size, memory_format=None, **kwargs):
        from ..storage import tensor_resize_

        return tensor_resize_(self, *size, memory_format=memory_format, **kwargs)

    def resize(self, *sizes):
        """Deprecated out-of-place resize: the same elements in the shape ``sizes`` (autograd's
        Resize), with PyTorch's warning."""
        from ..autograd._functions import Resize

        warnings.warn("non-inplace resize is deprecated", stacklevel=2)
        return Resize.apply(self, sizes)

    def resize_as(self, tensor):
        from ..autograd._functions import Resize

        warnings.warn("non-inplace resize_as is deprecated", stacklevel=2)
        return Resize.apply(self, tensor.size())

    def resize_as_(self, *args, memory_format=None, **kwargs):
        from ..storage import tensor_resize_as_

        return tensor_resize_as_(self, *args, memory_format=memory_format, **kwargs)

    def storage_type(self):
        from ..typed_storage import storage_type

        return storage_type(self)

    def is_set_to(self, tensor) -> bool:
        """Same storage, storage offset, sizes and strides (in elements, whatever the dtypes)."""
        from ..ops._dispatch import need_tensor
        from ..storage import same_storage

        need_tensor("is_set_to", tensor, "tensor")
        return (
            same_storage(self, tensor)
            and self.storage_offset() == tensor.storage_offset()
            and self.shape == tensor.shape
            and self.stride() == tensor.stride()
        )

    @property
    def layout(self):
        from .._layout import strided

        return strided

    def get_device(self) -> int:
        return -1 if self._device.type == "cpu" else self._device.index

    def element_size(self) -> int:
        return self._dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self._data.size * self._dtype.itemsize

    def stride(self, dim=None):
        st = tuple(s // self._dtype.itemsize for s in self._data.strides)
        if not self._data.size and not any(st):  # NumPy gives empty arrays zero strides
            st = _contiguous_strides(self._data.shape)
        return st if dim is None else st[_wrapdim(dim, self._data.ndim)]

    def _storage_array(self):
        return self._storage if self._storage is not None else self._data

    def storage_offset(self) -> int:
        return (
            _address(self._data) - _storage_start(self._storage_array())
        ) // self._dtype.itemsize

    def data_ptr(self) -> int:
        return _address(self._data) if self._data.size and self._device.type != "meta" else 0

    def is_contiguous(self, memory_format=None) -> bool:
        name = getattr(memory_format, "name", None)
        if name in ("channels_last", "channels_last_3d"):
            from .._layout import _CHANNELS_LAST, is_contiguous_in

            rank, order = _CHANNELS_LAST[name]
            return self._data.ndim == rank and is_contiguous_in(
                self._data.shape, self.stride(), order
            )
        return _is_contiguous(self._data.shape, self.stride())

    def is_floating_point(self) -> bool:
        return self._dtype.category == D.FLOAT

    def is_complex(self) -> bool:
        return self._dtype.category == D.COMPLEX

    def is_signed(self) -> bool:
        return self._dtype.is_signed

    def is_inference(self) -> bool:
        return self.__dict__.get("_inference", False)

    @property
    def _version(self) -> int:
        if self.__dict__ and self.__dict__.get("_inference"):
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._vc[0]

    def _is_view(self) -> bool:
        return self._base is not None

    def type(self, dtype=None, non_blocking=False, **kwargs):
        """Without arguments, the legacy type string ('torch.FloatTensor'); else a cast."""
        if dtype is None:
            prefix = "torch." if self._device.type == "cpu" else "torch.cuda."
            return prefix + _legacy_name(self._dtype)
        if isinstance(dtype, D.dtype):
            return self.to(dtype)
        # a legacy type names a device too ('torch.cuda.FloatTensor')
        if isinstance(dtype, str):
            dt, cuda = _creation.dtype_from_type_string(dtype), dtype.startswith("torch.cuda.")
        elif isinstance(dtype, type) and hasattr(dtype, "_legacy_dtype"):
            dt, cuda = dtype._legacy_dtype, dtype._device_type == "cuda"
        elif isinstance(dtype, type):
            raise ValueError(f"invalid type: '{dtype.__name__}'")
        else:
            raise TypeError("dtype must be a type, str, or dtype object")
        if not cuda:
            return self.to("cpu", dt)
        from ..backend import cuda_available

        if not cuda_available():
            from ..ops.creation.random import _NO_CUDA_GENERATOR

            raise RuntimeError(_NO_CUDA_GENERATOR.replace("get CUDA generator", "initialize CUDA"))
        return self.to("cuda" if self._device.type != "cuda" else self._device, dt)

    # ---- autograd fields -----------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._rg

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if value and self.grad_fn is None and self._dtype.category < D.FLOAT:
            raise RuntimeError(
                "only Tensors of floating point and complex dtype can require gradients"
            )
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        requires_grad = bool(requires_grad)
        if self.grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to "
                    "use a computed variable in a subgraph that doesn't require differentiation "
                    "use var_no_grad = var.detach()."
                )
            return self
        if requires_grad and self._dtype.category < D.FLOAT:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self.is_inference() and not grad_mode.state.inference:
            raise RuntimeError(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
            )
        self._rg = requires_grad
        return self

    @property
    def grad_fn(self):
        if self._base is None:
            return self._grad_fn
        # A view whose base was modified in place since: its history is re-derived from the base.
        return _views.view_grad_fn(self)

    @grad_fn.setter
    def grad_fn(self, node) -> None:
        self._grad_fn = node

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def grad(self):
        if self._grad is None and self.grad_fn is not None and not self.retains_grad:
            warnings.warn(_GRAD_OF_NONLEAF_MSG, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}"
                )
            if value._dtype is not self._dtype:
                from ..ops._dispatch import scalar_name

                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_CPP_TYPE.get(value._dtype.name, value._dtype.name)}' "
                    f"to a tensor with grad_dtype '{scalar_name(self._dtype)}'. The gradient must match the tensor's "
                    "grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with a "
                    "specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a "
                    "tensor and its gradient may break downstream systems that assume they match."
                )
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value._data.shape)}' to a tensor of size "
                    f"'{list(self._data.shape)}'. Please ensure that the gradient and the tensor are the same size"
                )
        self._grad = value

    @property
    def retains_grad(self) -> bool:
        node = self.grad_fn
        return bool(node is not None and node._retain and self._output_nr in node._retain)

    def retain_grad(self) -> None:
        if self.grad_fn is None:
            if not self._rg:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        node = self.grad_fn
        if node._retain is None:
            node._retain = {}
        node._retain[self._output_nr] = weakref.ref(self)

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; it may return a new one."""
        from ..autograd.graph import _add_hook

        if not self._rg:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is None:
            if self._hooks is None:
                self._hooks = {}
            return _add_hook(self._hooks, hook)
        hooks = self.grad_fn.__dict__.setdefault("_tensor_hooks", {})
        return _add_hook(hooks.setdefault(self._output_nr, {}), hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(tensor)`` after a backward has accumulated this leaf's ``.grad`` (not for
        ``autograd.grad``); the hook returns None (an optimizer step in backward, say)."""
        from collections import OrderedDict

        from ..autograd.graph import _add_hook

        if not self._rg:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        if self._post_accumulate_grad_hooks is None:
            self._post_accumulate_grad_hooks = OrderedDict()
        return _add_hook(self._post_accumulate_grad_hooks, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None:
        from ..autograd import backward

        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    @property
    def data(self) -> Tensor:
        """The same memory without autograd history and with its own version counter."""
        t = _wrap(self._data, self._dtype, self._device)
        t._storage = self._storage
        if self.__dict__ and self.__dict__.get("_inference"):
            t.__dict__["_inference"] = True  # an inference tensor's data is one too
        return t

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            from .._tensor_arguments import type_name

            raise TypeError(f"Variable data has to be a tensor, but got {type_name(value)}")
        if value.is_sparse or value.layout is not self.layout:
            raise RuntimeError(
                "Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` have "
                "incompatible tensor type."
            )
        if self._rg and value._dtype.category < D.FLOAT:
            raise RuntimeError(
                "data set to a tensor that requires gradients must be floating point or complex dtype"
            )
        self._data, self._dtype, self._device = value._data, value._dtype, value._device
        self._storage = value._storage

    def as_subclass(self, cls):
        """A ``cls`` instance viewing this tensor (an alias: same memory, version counter and
        history, grad_fn AliasBackward0), as PyTorch's."""
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError(
                "Creating a Tensor subclass from a class that does not inherit from Tensor is not "
                "possible. Make sure your class inherits from Tensor."
            )
        t = _views_alias(self)
        t.__class__ = cls
        return t

    @staticmethod
    def _make_subclass(cls, data, require_grad: bool = False):
        """A ``cls`` instance sharing ``data``'s memory, with no history (nn.Parameter's way)."""
        from ..nn.parameter import _share

        return _share(cls, data, require_grad)

    def detach(self) -> Tensor:
        """A tensor sharing memory and the version counter, cut from the graph."""
        t = _wrap(self._data, self._dtype, self._device)
        t._vc, t._storage = self._vc, self._storage
        if self.__dict__ and self.__dict__.get("_inference"):
            t.__dict__["_inference"] = True  # detached from an inference tensor: one too
        return t

    def detach_(self) -> Tensor:
        if self._base is not None and self._base._rg:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) "
                "for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and "
                "hence detach_() cannot be called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
            )
        self.grad_fn, self._rg = None, False
        return self

    # ---- conversion to Python / NumPy -----------------------------------------------------
    def item(self):
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        if self._device.type == "meta":
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        if self._device.type != "cpu":
            _backend.raise_pending()
        v = self._data.reshape(()).item() if self._device.type == "cpu" else self._data.item()
        return float(v) if self._dtype is D.bfloat16 else v

    def tolist(self):
        if self._device.type == "meta":
            from .._meta import NO_DATA

            raise NotImplementedError(NO_DATA)
        a = _backend.to_numpy(self._data)
        if self._dtype is D.bfloat16:
            a = a.astype(np.float32)
        return a.tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        if force:
            return _backend.to_numpy(self.detach().resolve_conj()._data)
        if self._rg:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
            )
        if self._device.type != "cpu":
            raise TypeError(
                f"can't convert {self._device} device type tensor to numpy. Use "
                "Tensor.cpu() to copy the tensor to host memory first."
            )
        if self._dtype is D.bfloat16:
            raise TypeError("Got unsupported ScalarType BFloat16")
        return self._data

    def __array__(self, dtype=None):
        # numpy()'s rules, as PyTorch's __array__: a tensor that requires grad, one on a GPU and
        # a bfloat16 one raise. Its signature is PyTorch's, without NumPy 2's copy keyword:
        # np.array(t) warns (DeprecationWarning) and copies, np.asarray(t) shares, as with torch.
        if self._device.type == "meta":
            self.detach().numpy()  # raises PyTorch's error: there is no data
        a = self.numpy()
        if dtype is not None and a.dtype != dtype:
            return a.astype(dtype)
        return a

    def __array_wrap__(self, array):
        # NumPy hands its ufunc results (np.sin(t), ndarray @ t's reflected product) back here:
        # a tensor, 0-d results too, bool as uint8, as PyTorch's. Its one-argument signature is
        # PyTorch's: NumPy 2 warns (DeprecationWarning) and calls it again with the array alone.
        array = np.asarray(array)
        if array.dtype == np.bool_:
            array = array.astype(np.uint8)
        return _creation.from_numpy_array(array)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous"
                if self._data.size
                else "Boolean value of Tensor with no values is ambiguous"
            )
        return bool(self.item())

    def __float__(self) -> float:
        if self._rg and grad_mode.state.enabled:  # silent under no_grad (LBFGS's float(loss))
            _warn_scalar_of_grad_tensor()
        return float(self._scalar("float"))

    def __int__(self) -> int:
        return int(self._scalar("int"))

    def __complex__(self) -> complex:
        if self._rg and grad_mode.state.enabled:
            _warn_scalar_of_grad_tensor()
        return complex(self._scalar("complex"))

    def __index__(self) -> int:
        if self._dtype.category > D.INT or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def _scalar(self, kind):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        v = self.item()
        if isinstance(v, complex) and kind in ("float", "int"):
            # PyTorch's checked conversion: a nonzero imaginary part "overflows" the real type.
            if v.imag != 0:
                target = "double" if kind == "float" else "int64_t"
                raise RuntimeError(f"value cannot be converted to type {target} without overflow")
            v = v.real
        return v

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self, *, tensor_contents=None) -> str:
        return _tensor_repr(self)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        # PyTorch: a plain 0-d tensor formats as its Python number (f"{loss}" prints 0.25).
        if self._data.ndim == 0 and type(self) is Tensor:
            return self.item().__format__(spec)
        return object.__format__(self, spec)  # str(self); a format spec is object's TypeError

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment.  "
                "If you were attempting to deepcopy a module, this may be because of a torch.nn.utils.weight_norm usage, "
                "see https://github.com/pytorch/pytorch/pull/103001"
            )
        if id(self) in memo:
            return memo[id(self)]
        new = _wrap(self._data.copy(), self._dtype, self._device)
        new.__class__ = self.__class__
        new._rg = self._rg
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        new.__dict__.update(self.__dict__)
        memo[id(self)] = new
        return new

    def __reduce_ex__(self, protocol):
        from .. import serialization

        return serialization.reduce_tensor(self, protocol)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        from ..utils import dlpack

        return dlpack.dlpack(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self) -> tuple:
        from ..utils import dlpack

        return dlpack.dlpack_device(self)


# C++ type names PyTorch prints in the grad-assignment dtype error.
_CPP_TYPE = {
    "float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>", "int64": "long int",
    "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
}  # fmt: skip


def _wrapdim(dim: int, ndim: int) -> int:
    """Normalise a possibly-negative dim with PyTorch's IndexError."""
    if dim.__class__ is not int:
        dim = _dim_value(dim)
    n = ndim if ndim > 0 else 1
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim + n if dim < 0 else dim


def _dim_value(dim) -> int:
    """A dim given as other than an int: a NumPy integer, or a 0-d integer tensor, is read as
    its value, as PyTorch's argument parser reads it; anything else is the parser's TypeError
    (not the comparison's 'Boolean value of Tensor ... is ambiguous')."""
    if isinstance(dim, Tensor):
        if dim._data.ndim == 0 and dim._dtype.category == D.INT:
            return int(dim._data)
    elif hasattr(dim, "__index__"):
        return dim.__index__()
    import sys

    import taimatsu

    caller = sys._getframe(2).f_code.co_name  # the op that called _wrapdim, if a public one
    public = not caller.startswith("_") and callable(getattr(taimatsu, caller, None))
    where = f"{caller}(): " if public else ""
    raise TypeError(f"{where}argument 'dim' must be int, not {type(dim).__name__}")


def _size_dim(dim, ndim: int, where: str = " (position 1)") -> int:
    """``Tensor.size(dim)``'s checks of ``dim``, with PyTorch's errors (its argument parser's
    TypeError, which names the position of a positional dim; a 0-d tensor has no dimension)."""
    if dim.__class__ is bool or not hasattr(dim, "__index__"):
        raise TypeError(f"size(): argument 'dim'{where} must be int, not {type(dim).__name__}")
    dim = dim.__index__()
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return _wrapdim(dim, ndim)


def _size_call(t, dim, args: tuple, kwargs: dict):
    """``Tensor.size`` called with a keyword or too many arguments: PyTorch's parser's errors."""
    if args:
        raise TypeError(
            f"size() takes from 0 to 1 positional arguments but {1 + len(args)} were given"
        )
    for key in kwargs:
        if key != "dim":
            raise TypeError(f"size() got an unexpected keyword argument '{key}'")
    if dim is not None:
        raise TypeError("size() got multiple values for argument 'dim'")
    dim = kwargs["dim"]
    if dim is None:
        return Size._of(t._data.shape)
    return t._data.shape[_size_dim(dim, t._data.ndim, where="")]


def _legacy_name(dtype) -> str:
    if dtype._legacy is None:
        raise RuntimeError(f"Tensor of dtype {dtype} has no legacy type name")
    return dtype._legacy


def _address(a) -> int:
    if isinstance(a, np.ndarray):
        return a.__array_interface__["data"][0]
    return a.data.ptr


def _storage_start(a) -> int:
    """Lowest address a storage array spans (strides may be negative in NumPy views)."""
    addr = _address(a)
    for n, s in zip(a.shape, a.strides):
        if s < 0 and n > 0:
            addr += (n - 1) * s
    return addr


def _contiguous_strides(shape) -> tuple:
    st, acc = [], 1
    for n in reversed(shape):
        st.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(st))


def _is_contiguous(shape, strides) -> bool:
    if 0 in shape:  # PyTorch: an empty tensor is contiguous whatever its strides
        return True
    expected = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n == 1:
            continue
        if n == 0:
            return True
        if s != expected:
            return False
        expected *= n
    return True


def _tensor_repr(t: Tensor) -> str:
    tail = ()
    if t.grad_fn is not None:
        tail = (f"grad_fn=<{type(t.grad_fn).__name__}>",)  # name() may be "torch::autograd::..."
    elif t._rg:
        tail = ("requires_grad=True",)
    if t._fw is not None:
        from ..autograd.forward_ad import state as _fw_level

        if _fw_level.level:  # a dual tensor shows its tangent (unpack_dual's), as PyTorch's
            tail = (*tail, f"tangent={_tensor_repr(t._fw)}")
    if t._device.type == "meta":
        from .._meta import meta_repr

        return meta_repr(t._data.shape, t._dtype.name, D.get_default_dtype().name, tail)
    data = _backend.to_numpy(t._data)
    device = None if t._device.type == "cpu" else str(t._device)
    cls = type(t)
    # a user's subclass prints its own name (``MyTensor([1., 2.])``), as PyTorch's repr does
    user = (
        cls is not Tensor and not cls.__module__.startswith("taimatsu") and not _is_parameter(cls)
    )
    return _tensor_str.format_tensor(
        data, t._dtype.name, default_dtype_name=D.get_default_dtype().name, device=device,
        tail=tail, prefix=cls.__name__ + "(" if user else "tensor(",
    )  # fmt: skip


def _is_parameter(cls) -> bool:
    return any(
        c.__name__ == "Parameter" and c.__module__.startswith("taimatsu") for c in cls.__mro__
    )


# Imported last: these modules import Tensor from here.
from .. import backend as _backend  # noqa: E402
from ..ops.creation import factories as _creation  # noqa: E402
from ..ops.shape import views as _views  # noqa: E402
from ..ops.shape.view_ops import alias as _views_alias  # noqa: E402
from . import conversions as _tensor_conversions  # noqa: E402
from . import methods as _tensor_methods
from . import printing as _tensor_str

_tensor_methods._bind()
_tensor_conversions._bind()
