"""``torch.optim.Rprop``: resilient backpropagation."""

from __future__ import annotations

from ..ops.creation import factories as _cr
from .optimizer import (
    Optimizer,
    _as_real,
    _check_lr,
    _closure_loss,
    _step_tensor,
    _use_grad,
    _value,
    check_capturable,
    refuse_sparse,
)

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Rprop: each element's step size grows by ``etaplus`` while the gradient keeps its sign and
    shrinks by ``etaminus`` when it flips (and that element skips the update)."""

    _capturable_message = {
        False: ("params and state_steps", True),
        True: ("params and state_steps", True),
    }  # noqa: RUF012

    def __init__(
        self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
        maximize=False, differentiable=False,
    ) -> None:  # fmt: skip
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {
            "lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach, "maximize": maximize,
            "differentiable": differentiable, "capturable": capturable,
        }  # fmt: skip
        super().__init__(params, defaults)

    def _init_state(self, p, group) -> None:
        state = self.state[p]
        state["step"] = _step_tensor()
        state["prev"] = _cr.zeros_like(p)
        lr = _value(group["lr"])
        state["step_size"] = _cr.full_like(p.grad, complex(lr, lr) if p.is_complex() else lr)

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            if group["capturable"]:  # every state first, then PyTorch's device check
                for p in group["params"]:
                    if p.grad is not None and not self.state[p]:
                        self._init_state(p, group)
                check_capturable(self, group, [p for p in group["params"] if p.grad is not None])
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                refuse_sparse(self, grad)
                state = self.state[p]
                if len(state) == 0:
                    self._init_state(p, group)
                if group["maximize"]:
                    grad = -grad
                prev, step_size = state["prev"], state["step_size"]
                state["step"] += 1
                if p.is_complex():
                    p, grad, views = _as_real(p, grad, {"prev": prev, "step_size": step_size})
                    prev, step_size = views["prev"], views["step_size"]
                sign = grad.mul(prev).sign()
                sign[sign.gt(0)] = etaplus
                sign[sign.lt(0)] = etaminus
                sign[sign.eq(0)] = 1
                step_size.mul_(sign).clamp_(step_size_min, step_size_max)
                grad = grad.clone()
                grad[sign.eq(etaminus)] = 0
                p.addcmul_(grad.sign(), step_size, value=-1)
                prev.copy_(grad)
        return loss
