"""``torch.optim.Optimizer``: parameter groups, per-parameter state, hooks, state_dict.

Matches PyTorch 2.13: the same ``param_groups`` dicts (every default filled in, including
``foreach``/``fused``/``differentiable`` flags; Adam, AdamW and SGD take a multi-tensor path for
foreach/fused, ``_foreach.py``, the other optimizers accept and ignore them), the same
lazily created ``state`` entries (``step`` is a 0-d float32 tensor, or float64 when that is the
default dtype), and the same ``state_dict`` layout: parameters replaced by integer ids
numbered across groups in order, under the keys ``'state'`` and ``'param_groups'``.

Every optimizer here computes exactly what PyTorch's single-tensor ("for-loop") CPU path
computes, op for op, so float32 trajectories agree to the last few ulps. The update runs under
``no_grad`` with in-place Tensor ops; nothing loops over elements in Python.
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from copy import deepcopy
from itertools import chain
from typing import Any

from .. import _dtype as D
from .._tensor.core import Tensor
from ..autograd import grad_mode
from ..autograd.graph import RemovableHandle
from ..ops.creation import factories as _cr
from ..ops.pointwise.complex import view_as_real

__all__ = [
    "Optimizer",
    "register_optimizer_step_post_hook",
    "register_optimizer_step_pre_hook",
    "required",
]


class _RequiredParameter:
    """Marks a default the user must give (``torch.optim.optimizer.required``)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()

_global_pre_hooks: OrderedDict = OrderedDict()
_global_post_hooks: OrderedDict = OrderedDict()


def register_optimizer_step_pre_hook(hook) -> RemovableHandle:
    """Run ``hook(optimizer, args, kwargs)`` before every optimizer's ``step``."""
    handle = RemovableHandle(_global_pre_hooks)
    _global_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook) -> RemovableHandle:
    """Run ``hook(optimizer, args, kwargs)`` after every optimizer's ``step``."""
    handle = RemovableHandle(_global_post_hooks)
    _global_post_hooks[handle.id] = hook
    return handle


# ---- helpers the optimizers share ------------------------------------------------------------
def _scalar_dtype():
    """dtype of the ``step`` counters: float64 when that is the default dtype, else float32."""
    return D.float64 if D.get_default_dtype() is D.float64 else D.float32


def _step_tensor(value: float = 0.0) -> Tensor:
    return _cr.tensor(float(value), dtype=_scalar_dtype())


def _value(x):
    """A Python number from a 0-d tensor (PyTorch's ``_get_value``), or ``x`` itself."""
    return x.item() if isinstance(x, Tensor) else x


def _check_lr(lr) -> None:
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def _check_betas(betas) -> None:
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")


def _nonneg(name: str, value) -> None:
    if not 0.0 <= value:
        raise ValueError(f"Invalid {name} value: {value}")


def refuse_sparse(optimizer, grad) -> None:
    """PyTorch's error for a sparse gradient given to an optimizer without a sparse path (before
    any state is made); ``_sparse_name`` is the name its message uses (AdamW's says Adam)."""
    if grad.is_sparse:
        name = getattr(optimizer, "_sparse_name", type(optimizer).__name__)
        hint = ", please consider SparseAdam instead" if name == "Adam" else ""
        raise RuntimeError(f"{name} does not support sparse gradients{hint}")


def _grads_and_state(optimizer, group, *moments, extra=()):
    """Yield ``(p, grad, state)`` for each parameter of ``group`` that has a gradient.

    New state gets a ``step`` counter, then ``extra`` (name, 0-d value) pairs, then a zero
    tensor per name in ``moments`` -- PyTorch's key order, which state_dict shows. Under
    ``maximize`` the gradient is negated. With ``capturable=True`` every state is made first,
    then the devices are checked (``check_capturable``), as PyTorch does.
    """
    if group.get("capturable"):
        items = list(_new_state(optimizer, group, moments, extra))
        check_capturable(optimizer, group, [p for p, _ in items])
    else:
        items = _new_state(optimizer, group, moments, extra)
    for p, grad in items:
        state = optimizer.state[p]
        if group["maximize"]:
            grad = -grad
        if p.is_complex():
            p, grad, state = _as_real(p, grad, state)
        yield p, grad, state


def _new_state(optimizer, group, moments, extra):
    """(p, grad) for each parameter with a gradient, its state made where it has none."""
    for p in group["params"]:
        grad = p.grad
        if grad is None:
            continue
        refuse_sparse(optimizer, grad)
        state = optimizer.state[p]
        if len(state) == 0:
            state["step"] = _step_tensor()
            for name, value in extra:
                state[name] = _step_tensor(value)
            for name in moments:
                state[name] = _cr.zeros_like(p)
        yield p, grad


# Devices PyTorch's capturable steps accept; its message lists 'xla' too in some paths.
_CAPTURABLE_DEVICES = ["cuda", "xpu", "hpu", "privateuseone"]


def check_capturable(optimizer, group, params) -> None:
    """PyTorch's assertion when ``capturable=True`` meets a parameter that is not on an
    accelerator (a CPU parameter): raised at the step, after the state is made. The message
    differs between the single-tensor and the foreach path (``_capturable_message``)."""
    if all(p.device.type in _CAPTURABLE_DEVICES for p in params):
        return
    what, xla = optimizer._capturable_message[bool(group.get("foreach"))]
    devices = _CAPTURABLE_DEVICES + ["xla"] * xla
    raise AssertionError(f"If capturable=True, {what} must be on supported devices: {devices}.")


def _as_real(p, grad, state: dict) -> tuple:
    """A complex parameter, its gradient and its state tensors as real views (``view_as_real``:
    each number a pair of reals), through which PyTorch's optimizers update it: Adam's second
    moment is then the squares of the real and imaginary parts, not ``grad * grad``. The state
    stays complex; the dict returned holds the views (the same 0-d counters)."""
    views = {
        k: view_as_real(v) if isinstance(v, Tensor) and v.is_complex() else v
        for k, v in state.items()
    }
    return view_as_real(p), view_as_real(grad), views


def _check_fused(fused, foreach, differentiable) -> None:
    """PyTorch's constructor checks of optimizers that have a fused implementation."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def _closure_loss(closure):
    """Evaluate ``closure`` with grad enabled (step itself runs under no_grad)."""
    if closure is None:
        return None
    with grad_mode.enable_grad():
        return closure()


def _use_grad(step):
    """Run ``step`` with grad mode off (on for ``differentiable=True``), as PyTorch does."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        prev = grad_mode.state.enabled
        grad_mode.state.enabled = bool(self.defaults.get("differentiable", False))
        try:
            return step(self, *args, **kwargs)
        finally:
            grad_mode.state.enabled = prev

    return wrapper


def _with_hooks(step):
    """Wrap a class's ``step`` so the global and per-optimizer step hooks run around it. Hooks
    see the call's positional arguments with the optimizer first (``(opt,)`` for ``step()``),
    as PyTorch passes them, and may replace them."""

    @functools.wraps(step)
    def wrapper(*args, **kwargs):
        self = args[0]
        for hook in chain(_global_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(
                        f"{step} must return None or a tuple of (new_args, new_kwargs), but got {result}."
                    )
                args, kwargs = result
        out = step(*args, **kwargs)
        for hook in chain(self._optimizer_step_post_hooks.values(), _global_post_hooks.values()):
            hook(self, args, kwargs)
        return out

    wrapper.hooked = True
    return wrapper


class Optimizer:
    """Base class for all optimizers (``torch.optim.Optimizer``).

    ``params`` is an iterable of tensors, of ``(name, tensor)`` pairs, or of dicts that define
    parameter groups; ``defaults`` fills in the options a group leaves out.
    """

    # capturable=True off an accelerator: what PyTorch's assertion names, and whether its list of
    # devices ends with 'xla', for the single-tensor (False) and the foreach (True) path
    _capturable_message = {
        False: ("params and state_steps", True),
        True: ("params and state_steps", False),
    }

    def __init__(self, params, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        # PyTorch wraps the step of an instance's class with the hooks when the first instance
        # is made, unless the step it finds is wrapped already: a subclass whose step calls
        # super().step() runs the hooks twice once an instance of the parent class exists.
        cls = type(self)
        if not getattr(cls.step, "hooked", False):
            cls.step = _with_hooks(cls.step)
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: OrderedDict = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, "
                f"but got {_typename(params)}"
            )
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)
        self._warned_capturable_if_run_uncaptured = True

    # ---- pickling / printing ---------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in (
            "_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
            "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
            "_optimizer_load_state_dict_post_hooks",
        ):  # fmt: skip
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        s = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"

    # ---- parameter groups ------------------------------------------------------------------
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters (with its own options) to ``param_groups``."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the ordering of tensors in "
                "sets will change between runs. Please use a list instead."
            )
        else:
            params = list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        params = [p[1] if isinstance(p, tuple) else p for p in params]
        param_group["params"] = params
        if names:
            if len(names) != len(params):
                raise ValueError(
                    "all optimizer params should be with/without names. Some param names are missing"
                )
            param_group["param_names"] = names
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(
                    f"optimizer can only optimize Tensors, but one of the params is {_typename(p)}"
                )
            if not self.defaults.get("differentiable", None) and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization parameter {name}"
                )
            param_group.setdefault(name, default)
        if len(params) != len({id(p) for p in params}):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this will cause an "
                "error; see github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )
        seen: set[int] = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                txt = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {txt} to the optimizer"
                )
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's ``.grad``: to None (default) or to zeros in place."""
        for group in self.param_groups:
            for p in group["params"]:
                g = p._grad
                if g is None:
                    continue
                if set_to_none:
                    p._grad = None
                else:
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    g.zero_()

    def step(self, closure=None):
        """Perform one optimization step; ``closure`` re-evaluates the model and returns the loss."""
        raise NotImplementedError

    # ---- hooks -------------------------------------------------------------------------------
    def register_step_pre_hook(self, hook) -> RemovableHandle:
        return _register(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook) -> RemovableHandle:
        return _register(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        return _register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        return _register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        return _register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        return _register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ---- state_dict --------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """``{'state': {id: {...}}, 'param_groups': [{..., 'params': [ids]}]}``.

        Ids number the parameters across groups in order; the state tensors are the live ones
        (not copies), as in PyTorch.
        """
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        ids: dict[int, int] = {}
        start = 0
        packed_groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                ids.setdefault(id(p), i)
            packed["params"] = [ids[id(p)] for p in group["params"]]
            start += len(packed["params"])
            packed_groups.append(packed)
        packed_state = {
            (ids[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()
        }
        state_dict = {"state": packed_state, "param_groups": packed_groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    # Per-parameter counters PyTorch's __setstate__ turns from Python numbers (checkpoints of
    # older versions) into 0-d tensors of the scalar dtype
    _SCALAR_STATE: tuple = ("step",)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a ``state_dict()``: state tensors are cast to each parameter's dtype/device
        (``step`` counters are kept as they are); group options replace the current ones."""
        state_dict = state_dict.copy()
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
            )
        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
            )
        )
        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast_state(param, v)
                for key in type(self)._SCALAR_STATE:  # an older checkpoint's Python numbers
                    value = state[param].get(key)
                    if isinstance(value, (int, float)) and not isinstance(value, bool):
                        state[param][key] = _step_tensor(value)
            else:
                state[k] = v
        new_groups = []
        for group, new in zip(groups, saved_groups):
            new["params"] = group["params"]
            if "param_names" in group and "param_names" not in new:
                new["param_names"] = group["param_names"]
            new_groups.append(new)
        self.__setstate__({"state": state, "param_groups": new_groups})
        if "step" in type(self)._SCALAR_STATE:  # PyTorch's __setstate__ reads each state's step
            for p_state in self.state.values():
                if p_state and "step" not in p_state:  # (another optimizer's state: SGD's)
                    raise KeyError("step")
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)


def _cast_state(param: Tensor, value, key=None):
    """PyTorch's ``_cast``: tensors move to the parameter's dtype (if floating) and device."""
    if isinstance(value, Tensor):
        if key == "step":
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)
    if isinstance(value, dict):
        return {k: _cast_state(param, v, k) for k, v in value.items()}
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
        return type(value)(_cast_state(param, v) for v in value)
    return value


def _register(hooks: OrderedDict, hook, prepend: bool = False) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def _typename(obj) -> str:
    if isinstance(obj, Tensor):
        return obj.type()
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in ("builtins", None) else f"{module}.{name}"
