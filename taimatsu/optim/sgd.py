"""``torch.optim.SGD``: stochastic gradient descent with momentum, dampening, Nesterov."""

from __future__ import annotations

from .. import _dtype as D
from ..backend import fused
from . import _foreach
from ._foreach import eligible, flat_group, run_blocks, sgd_arrays, use_flat, with_grads
from .optimizer import Optimizer, _check_fused, _check_lr, _closure_loss, _nonneg, _use_grad, _value

__all__ = ["SGD"]


class SGD(Optimizer):
    """SGD as in PyTorch: ``buf = momentum * buf + (1 - dampening) * g`` (the first step sets
    ``buf = g``), Nesterov uses ``g + momentum * buf``, and ``p -= lr * update``.

    ``foreach=None`` (the default), ``True`` or ``fused=True`` run the multi-tensor path
    (``_foreach.py``), ``foreach=False`` or ``differentiable=True`` the single-tensor path: the
    same values either way. ``fused=True`` leaves version counters alone, as PyTorch's fused
    kernel does."""

    _SCALAR_STATE = ()  # no step counter in its state (see Optimizer._SCALAR_STATE)

    def __init__(
        self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
        maximize=False, foreach=None, differentiable=False, fused=None,
    ) -> None:  # fmt: skip
        _check_lr(lr)
        _nonneg("momentum", momentum)
        _nonneg("weight_decay", weight_decay)
        defaults = {
            "lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay, "nesterov": nesterov,
            "maximize": maximize, "foreach": foreach, "differentiable": differentiable, "fused": fused,
        }  # fmt: skip
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        _check_fused(fused, foreach, differentiable)

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            for k, v in (
                ("nesterov", False),
                ("maximize", False),
                ("foreach", None),
                ("differentiable", False),
                ("fused", False),
            ):
                group.setdefault(k, v)

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for i, group in enumerate(self.param_groups):
            if not (use_flat(group) and self._flat_step(i, group)):
                for p in group["params"]:
                    if p.grad is not None and not self._fused_step(group, p):
                        p.add_(
                            self._direction(group, p, p.grad, self.state),
                            alpha=-_value(group["lr"]),
                        )
        return loss

    def _fused_step(self, group, p) -> bool:
        """A CUDA parameter with a momentum buffer takes one fused kernel (backend/fused.py)
        for ``_direction`` and the update, bumping the versions the Tensor ops would; False
        (nothing done) elsewhere."""
        if p._device.type != "cuda" or group["momentum"] == 0:
            return False
        buf = self.state[p].get("momentum_buffer")
        if buf is None or not fused.fusable(
            p._data, p.grad._data, buf._data, differentiable=group["differentiable"]
        ):
            return False
        from ..backend import cupy_on

        cp = cupy_on(p._device)
        g = -p.grad._data if group["maximize"] else p.grad._data
        h = {k: group[k] for k in ("weight_decay", "momentum", "dampening", "nesterov")}
        fused.sgd_momentum_update(cp, p._data, g, buf._data, dict(h, lr=_value(group["lr"])))
        p._vc[0] += 1
        buf._vc[0] += 2
        return True

    def _direction(self, group, p, grad, state_of):
        """The update direction for ``p`` (a parameter, or a group's parameters end to end):
        the gradient with weight decay and momentum applied, the momentum buffer updated."""
        momentum, dampening = group["momentum"], group["dampening"]
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        if momentum == 0:
            return grad
        state = state_of[p]
        buf = state.get("momentum_buffer")
        if buf is None:
            buf = state["momentum_buffer"] = grad.detach().clone()
        else:
            buf.mul_(_foreach_scalar(group, buf, momentum)).add_(grad, alpha=1 - dampening)
        return grad.add(buf, alpha=momentum) if group["nesterov"] else buf

    def _flat_step(self, index: int, group) -> bool:
        """The multi-tensor step of one group (``_foreach.py``); False, having changed
        nothing, where it does not apply."""
        params, grads = with_grads(group["params"])
        if not eligible(params, grads):
            return False
        momentum = group["momentum"]
        states = [self.state[p] for p in params] if momentum != 0 else []
        have = {s.get("momentum_buffer") is not None for s in states}
        if len(have) > 1:  # some buffers still to create: the per-parameter path
            return False
        fg = flat_group(self, index, params)
        buf = fg.state_buffer(states, "momentum_buffer")._data if states else None
        h = {
            "lr": _value(group["lr"]), "momentum": momentum, "dampening": group["dampening"],
            "weight_decay": group["weight_decay"], "nesterov": group["nesterov"],
            "maximize": group["maximize"], "first": have == {False},
        }  # fmt: skip

        def update(lo, hi, pb, gb, ws):
            sgd_arrays(pb, gb, None if buf is None else buf[lo:hi], h, ws)

        run_blocks(fg, grads, update, 2 * _foreach.BLOCK)  # see _foreach.BLOCK
        if not group.get("fused"):  # PyTorch's fused kernel leaves version counters alone
            fg.bump_params(1)
            if have == {True}:
                fg.bump("momentum_buffer", 2)
        return True


def _foreach_scalar(group, t, value: float) -> float:
    """``value`` as the multi-tensor path (``foreach=True``) multiplies ``t`` by it: PyTorch's
    ``_foreach_mul_`` rounds the scalar to a float16/bfloat16 tensor's type first (``mul_``
    keeps it in float32)."""
    if group["foreach"] and t._dtype in (D.float16, D.bfloat16):
        return float(D.half_scalar(value, t._dtype).astype(t._dtype.np))
    return value
