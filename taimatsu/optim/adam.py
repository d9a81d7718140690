"""``torch.optim.Adam`` and ``torch.optim.AdamW`` (Adam with decoupled weight decay)."""

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

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Adam (Kingma & Ba), with PyTorch's options: ``amsgrad``, ``maximize``, L2
    ``weight_decay`` (added to the gradient) or, with ``decoupled_weight_decay=True``, AdamW's
    ``p *= 1 - lr * weight_decay``. State per parameter: ``step`` (0-d tensor), ``exp_avg``,
    ``exp_avg_sq`` and, for amsgrad, ``max_exp_avg_sq``."""

    def __init__(
        self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
        foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
        decoupled_weight_decay=False,
    ) -> None:  # fmt: skip
        _check_lr(lr)
        _nonneg("epsilon", eps)
        _check_betas(betas)
        _nonneg("weight_decay", weight_decay)
        betas = tuple(_value(b) for b in betas)
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad, "maximize": maximize,
            "foreach": foreach, "capturable": capturable, "differentiable": differentiable, "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }  # fmt: skip
        super().__init__(params, defaults)

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            for k, v in (("amsgrad", False), ("maximize", False), ("foreach", None), ("capturable", False),
                         ("differentiable", False), ("decoupled_weight_decay", False), ("fused", None)):  # fmt: skip
                group.setdefault(k, v)

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps, weight_decay = _value(group["lr"]), group["eps"], group["weight_decay"]
            amsgrad = group["amsgrad"]
            moments = (
                ("exp_avg", "exp_avg_sq", "max_exp_avg_sq")
                if amsgrad
                else ("exp_avg", "exp_avg_sq")
            )
            for p, grad, state in _grads_and_state(self, group, *moments):
                exp_avg, exp_avg_sq, step_t = state["exp_avg"], state["exp_avg_sq"], state["step"]
                step_t += 1
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        p.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(p, alpha=weight_decay)
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                step = step_t.item()
                step_size = lr / (1 - beta1**step)
                bias_correction2_sqrt = (1 - beta2**step) ** 0.5
                if amsgrad:
                    max_sq = state["max_exp_avg_sq"]
                    maximum(max_sq, exp_avg_sq, out=max_sq)
                    denom = (max_sq.sqrt() / bias_correction2_sqrt).add_(eps)
                else:
                    denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
                p.addcdiv_(exp_avg, denom, value=-step_size)
        return loss


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
