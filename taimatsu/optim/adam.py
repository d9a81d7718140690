"""``torch.optim.Adam`` and ``torch.optim.AdamW`` (Adam with decoupled weight decay)."""

from __future__ import annotations

from .._tensor.core import Tensor
from ..backend import fused
from ..ops.pointwise.comparison import maximum
from ._foreach import adam_arrays, eligible, flat_group, run_blocks, use_flat, with_grads
from .optimizer import (
    Optimizer,
    _check_betas,
    _check_fused,
    _check_lr,
    _closure_loss,
    _grads_and_state,
    _nonneg,
    _step_tensor,
    _use_grad,
    _value,
    refuse_sparse,
)

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Adam (Kingma & Ba), with PyTorch's options: ``amsgrad``, ``maximize``, L2
    ``weight_decay`` (added to the gradient) or, with ``decoupled_weight_decay=True``, AdamW's
    ``p *= 1 - lr * weight_decay``. State per parameter: ``step`` (0-d tensor), ``exp_avg``,
    ``exp_avg_sq`` and, for amsgrad, ``max_exp_avg_sq``.

    ``foreach=None`` (the default), ``True`` or ``fused=True`` run the multi-tensor path
    (``_foreach.py``: a handful of flat array ops per group and step), ``foreach=False`` or
    ``differentiable=True`` the single-tensor path; all give the same values, those of PyTorch's
    for-loop and foreach paths. Deviation: PyTorch's fused CPU kernel orders a few operations
    differently (its results differ from its other paths in the last ulp); here ``fused=True``
    gives the foreach values, bumping only the ``step`` counters' versions as the fused kernel does."""

    _sparse_name = "Adam"  # AdamW's sparse-gradient error names Adam too, as PyTorch's

    def __init__(
        self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
        foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
        decoupled_weight_decay=False,
    ) -> None:  # fmt: skip
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError(_TENSOR_WITH_FOREACH.format("lr"))
        _check_lr(lr)
        _nonneg("epsilon", eps)
        _check_betas(betas)
        _nonneg("weight_decay", weight_decay)
        betas = _tensor_or_float_betas(betas, foreach, capturable)
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad, "maximize": maximize,
            "foreach": foreach, "capturable": capturable, "differentiable": differentiable, "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }  # fmt: skip
        super().__init__(params, defaults)
        _check_fused(fused, foreach, differentiable)

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            for k, v in (("amsgrad", False), ("maximize", False), ("foreach", None), ("capturable", False),
                         ("differentiable", False), ("decoupled_weight_decay", False), ("fused", None)):  # fmt: skip
                group.setdefault(k, v)

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for i, group in enumerate(self.param_groups):
            if group["foreach"] and isinstance(group["lr"], Tensor) and not group["capturable"]:
                _late_tensor_lr(self, group)
            # (capturable: the single-tensor step, which checks the devices as PyTorch does)
            if group["capturable"] or not (use_flat(group) and self._flat_step(i, group)):
                self._single_step(group)
        return loss

    def _single_step(self, group) -> None:
        """PyTorch's single-tensor ("for-loop") step of one group."""
        moments = _moments(group)
        for p, grad, state in _grads_and_state(self, group, *moments):
            step_t = state["step"]
            step_t += 1
            max_sq = state["max_exp_avg_sq"] if group["amsgrad"] else None
            _update(group, p, grad, state["exp_avg"], state["exp_avg_sq"], max_sq, step_t.item())

    def _flat_step(self, index: int, group) -> bool:
        """The multi-tensor step of one group (``_foreach.py``); False, having changed
        nothing, where it does not apply."""
        params, grads = with_grads(group["params"])
        for g in grads:
            if g.is_sparse:
                refuse_sparse(self, g)
        if not eligible(params, grads):
            return False
        states = [self.state[p] for p in params]
        counters = _step_counters(states)
        if counters is None:  # counters that differ: one step size per parameter
            return False
        fg = flat_group(self, index, params)
        moments = _moments(group)
        exp_avg, exp_avg_sq, *max_sq = [fg.state_buffer(states, name) for name in moments]
        # ``+= 1`` on each: a counter two parameters share counts twice, as in PyTorch's foreach
        for t in counters:
            t._data += 1
            t._vc[0] += 1
        h = _numbers(group, float(counters[0]._data))
        e, sq = exp_avg._data, exp_avg_sq._data
        m = max_sq[0]._data if max_sq else None

        def update(lo, hi, pb, gb, ws):
            adam_arrays(pb, gb, e[lo:hi], sq[lo:hi], None if m is None else m[lo:hi], h, ws)

        run_blocks(fg, grads, update)
        if not group.get("fused"):  # PyTorch's fused kernel leaves the other counters alone
            fg.bump_params(2 if h["decoupled"] and h["weight_decay"] != 0 else 1)
            for name, times in zip(moments, (1, 2, 1)):
                fg.bump(name, times)
        return True


_TENSOR_WITH_FOREACH = "{} as a Tensor is not supported for capturable=False and foreach=True"


def _tensor_or_float_betas(betas, foreach, capturable) -> tuple:
    """PyTorch's checks of ``betas``: both floats or both 1-element tensors (kept as 0-d
    tensors in the group; the step reads their values)."""
    both_float = isinstance(betas[0], float) and isinstance(betas[1], float)
    if not (both_float or isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor)):
        raise ValueError("betas must be either both floats or both Tensors")
    if both_float:
        return tuple(betas)
    for i, b in enumerate(betas):
        if foreach and not capturable:
            raise ValueError(_TENSOR_WITH_FOREACH.format(f"betas[{i}]"))
        if b.numel() != 1:
            raise ValueError(f"Tensor betas[{i}] must be 1-element")
    return tuple(b.squeeze() if b.dim() else b for b in betas)


def _late_tensor_lr(optimizer, group) -> None:
    """A tensor lr set on a foreach group after construction: PyTorch's error at the step, once
    the first parameter with a gradient has its state."""
    for p in group["params"]:
        if p.grad is not None:
            next(
                _grads_and_state(
                    optimizer, {**group, "params": [p], "capturable": False}, *_moments(group)
                )
            )
            raise RuntimeError(_TENSOR_WITH_FOREACH.format("lr"))


def _moments(group) -> tuple:
    if group["amsgrad"]:
        return ("exp_avg", "exp_avg_sq", "max_exp_avg_sq")
    return ("exp_avg", "exp_avg_sq")


def _numbers(group, step: float) -> dict:
    """The numbers of one Adam update of ``group`` at ``step``, for ``adam_arrays``."""
    # Python floats: a NumPy float64 scalar would make float32 array arithmetic float64.
    beta1, beta2 = (float(_value(b)) for b in group["betas"])
    lr, eps, wd = float(_value(group["lr"])), float(group["eps"]), float(group["weight_decay"])
    return {
        "lr": lr, "beta1": beta1, "beta2": beta2, "eps": eps, "maximize": group["maximize"],
        "weight_decay": wd, "decoupled": group["decoupled_weight_decay"],
        "step_size": lr / (1 - beta1**step), "bias_correction2_sqrt": (1 - beta2**step) ** 0.5,
    }  # fmt: skip


def _update(group, p, grad, exp_avg, exp_avg_sq, max_sq, step: float) -> bool:
    """One Adam update of ``p`` (a parameter, or a group's parameters end to end) at ``step``,
    in place; True when ``p`` was also decayed in place (AdamW's weight decay)."""
    if p._device.type == "cuda":
        extra = () if max_sq is None else (max_sq,)
        arrays = [t._data for t in (p, grad, exp_avg, exp_avg_sq, *extra)]
        if fused.fusable(*arrays, differentiable=group["differentiable"]):
            return _update_fused(group, p, grad, exp_avg, exp_avg_sq, max_sq, step)
    beta1, beta2 = (_value(b) for b in group["betas"])
    lr, eps, weight_decay = _value(group["lr"]), group["eps"], group["weight_decay"]
    decayed = False
    if weight_decay != 0:
        if group["decoupled_weight_decay"]:
            p.mul_(1 - lr * weight_decay)
            decayed = True
        else:
            grad = grad.add(p, alpha=weight_decay)
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    step_size = lr / (1 - beta1**step)
    bias_correction2_sqrt = (1 - beta2**step) ** 0.5
    if max_sq is not None:
        maximum(max_sq, exp_avg_sq, out=max_sq)
        denom = (max_sq.sqrt() / bias_correction2_sqrt).add_(eps)
    else:
        denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
    p.addcdiv_(exp_avg, denom, value=-step_size)
    return decayed


def _step_counters(states):
    """The parameters' ``step`` counters (0-d tensors, made where a state is new); None, having
    changed nothing, where their counts differ or a counter is not a 0-d tensor."""
    counts = set()
    for s in states:
        if not s:
            counts.add(0.0)
            continue
        t = s.get("step")
        if not isinstance(t, Tensor) or t._data.ndim != 0:
            return None
        counts.add(float(t._data))
    if len(counts) != 1:
        return None
    for s in states:
        if not s:
            s["step"] = _step_tensor()
    return [s["step"] for s in states]


class AdamW(Adam):
    """AdamW (Loshchilov & Hutter): Adam with ``decoupled_weight_decay=True``, default 1e-2."""

    def __init__(
        self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
        maximize=False, foreach=None, capturable=False, differentiable=False, fused=None,
    ) -> None:  # fmt: skip
        super().__init__(
            params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
            capturable=capturable, differentiable=differentiable, fused=fused, decoupled_weight_decay=True,
        )  # fmt: skip

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True


def _update_fused(group, p, grad, exp_avg, exp_avg_sq, max_sq, step: float) -> bool:
    """``_update`` on CUDA tensors as one fused kernel (backend/fused.py), with the version
    counters the Tensor ops would leave."""
    from ..backend import cupy_on

    h = _numbers(group, step)
    cp = cupy_on(p._device)
    fused.adam_update(cp, p._data, grad._data, exp_avg._data, exp_avg_sq._data,
                      None if max_sq is None else max_sq._data, h)  # fmt: skip
    decayed = h["decoupled"] and h["weight_decay"] != 0
    for t, times in ((p, 2 if decayed else 1), (exp_avg, 1), (exp_avg_sq, 2), (max_sq, 1)):
        if t is not None:
            t._vc[0] += times
    return decayed
