"""``torch.optim.NAdam``: Adam with Nesterov momentum and a momentum-decay schedule."""

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

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """NAdam (Dozat) as PyTorch computes it: ``mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay))``
    and a running product ``mu_product`` kept as a 0-d tensor in the state."""

    _capturable_message = {  # noqa: RUF012 (read-only)
        False: ("params, mu_products and state_steps", True),
        True: ("params, mu_products, and state_steps", False),
    }

    _SCALAR_STATE = ("step", "mu_product")  # (see Optimizer._SCALAR_STATE)

    def __init__(
        self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
        decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False, differentiable=False,
    ) -> None:  # fmt: skip
        _check_lr(lr)
        _nonneg("epsilon", eps)
        _check_betas(betas)
        _nonneg("weight_decay", weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize, "foreach": foreach,
            "capturable": capturable, "differentiable": differentiable,
        }  # fmt: skip
        super().__init__(params, defaults)

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps, weight_decay = _value(group["lr"]), group["eps"], group["weight_decay"]
            momentum_decay = group["momentum_decay"]
            for p, grad, state in _grads_and_state(
                self, group, "exp_avg", "exp_avg_sq", extra=(("mu_product", 1.0),)
            ):
                exp_avg, exp_avg_sq, mu_product = (
                    state["exp_avg"],
                    state["exp_avg_sq"],
                    state["mu_product"],
                )
                step_t = state["step"]
                step_t += 1
                step = step_t.item()
                bias_correction2 = 1 - beta2**step
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        p.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(p, alpha=weight_decay)
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                mu_product *= mu  # rounded to the state's dtype, as in PyTorch
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                denom = exp_avg_sq.div(bias_correction2).sqrt().add_(eps)
                mu_prod = mu_product.item()
                mu_product_next = mu_prod * mu_next
                p.addcdiv_(grad, denom, value=(-lr * (1.0 - mu) / (1.0 - mu_prod)))
                p.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))
        return loss
