"""``torch.optim.RAdam``: Adam with a rectified adaptive learning rate."""

from __future__ import annotations

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

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """RAdam (Liu et al.): while the variance estimate is unreliable (``rho_t <= 5``) the step
    is plain bias-corrected momentum; afterwards it is rectified Adam."""

    def __init__(
        self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False, *,
        foreach=None, maximize=False, capturable=False, differentiable=False,
    ) -> None:  # fmt: skip
        _check_lr(lr)
        _nonneg("epsilon", eps)
        _check_betas(betas)
        _nonneg("weight_decay", weight_decay)
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "maximize": maximize, "foreach": foreach,
            "capturable": capturable, "decoupled_weight_decay": decoupled_weight_decay, "differentiable": differentiable,
        }  # fmt: skip
        super().__init__(params, defaults)

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps, weight_decay = _value(group["lr"]), group["eps"], group["weight_decay"]
            rho_inf = 2 / (1 - beta2) - 1
            for p, grad, state in _grads_and_state(self, group, "exp_avg", "exp_avg_sq"):
                exp_avg, exp_avg_sq, step_t = state["exp_avg"], state["exp_avg_sq"], state["step"]
                step_t += 1
                step = step_t.item()
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        p.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(p, alpha=weight_decay)
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                corrected = exp_avg / bias_correction1
                rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
                if rho_t > 5.0:
                    rect = (
                        (rho_t - 4)
                        * (rho_t - 2)
                        * rho_inf
                        / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
                    ) ** 0.5
                    adaptive_lr = (bias_correction2**0.5) / exp_avg_sq.sqrt().add_(eps)
                    p.add_(corrected * lr * adaptive_lr * rect, alpha=-1.0)
                else:
                    p.add_(corrected * lr, alpha=-1.0)
        return loss
