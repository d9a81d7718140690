"""``torch.optim.Adamax``: Adam with the infinity norm."""

from __future__ import annotations

from ..ops.pointwise.comparison import maximum
from .optimizer import (
    Optimizer,
    _check_betas,
    _check_lr,
    _closure_loss,
    _grads_and_state,
    _nonneg,
    _use_grad,
    _value,
)

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax: ``exp_inf = max(beta2 * exp_inf, |g| + eps)``, ``p -= lr / (1 - beta1^t) * m / exp_inf``."""

    def __init__(
        self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
        maximize=False, differentiable=False, capturable=False,
    ) -> None:  # fmt: skip
        _check_lr(lr)
        _nonneg("epsilon", eps)
        _check_betas(betas)
        _nonneg("weight_decay", weight_decay)
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
            "differentiable": differentiable, "capturable": capturable,
        }  # fmt: skip
        super().__init__(params, defaults)

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps, weight_decay = _value(group["lr"]), group["eps"], group["weight_decay"]
            for p, grad, state in _grads_and_state(self, group, "exp_avg", "exp_inf"):
                exp_avg, exp_inf, step_t = state["exp_avg"], state["exp_inf"], state["step"]
                step_t += 1
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                exp_avg.lerp_(grad, 1 - beta1)
                maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
                clr = lr / (1 - beta1 ** step_t.item())
                p.addcdiv_(exp_avg, exp_inf, value=-clr)
        return loss
