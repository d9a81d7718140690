"""``torch.optim.Adadelta``."""

from __future__ import annotations

from .optimizer import (
    Optimizer,
    _check_lr,
    _closure_loss,
    _grads_and_state,
    _nonneg,
    _use_grad,
    _value,
)

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta (Zeiler): ``delta = sqrt(acc_delta + eps) / sqrt(square_avg + eps) * g``."""

    _capturable_message = {
        False: ("params and state_steps", False),
        True: ("params and state_steps", False),
    }  # noqa: RUF012

    def __init__(
        self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
        maximize=False, differentiable=False,
    ) -> None:  # fmt: skip
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _nonneg("epsilon", eps)
        _nonneg("weight_decay", weight_decay)
        defaults = {
            "lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize, "capturable": capturable,
            "foreach": foreach, "differentiable": differentiable,
        }  # fmt: skip
        super().__init__(params, defaults)

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, rho, eps, weight_decay = (
                _value(group["lr"]),
                group["rho"],
                group["eps"],
                group["weight_decay"],
            )
            for p, grad, state in _grads_and_state(self, group, "square_avg", "acc_delta"):
                square_avg, acc_delta = state["square_avg"], state["acc_delta"]
                state["step"] += 1
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
                std = square_avg.add(eps).sqrt_()
                delta = acc_delta.add(eps).sqrt_()
                delta.div_(std).mul_(grad)
                acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
                p.add_(delta, alpha=-lr)
        return loss
