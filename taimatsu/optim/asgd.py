"""``torch.optim.ASGD``: averaged stochastic gradient descent."""

from __future__ import annotations

from ..ops.creation import factories as _cr
from .optimizer import (
    Optimizer,
    _check_lr,
    _closure_loss,
    _grads_and_state,
    _nonneg,
    _use_grad,
    _value,
)

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """ASGD (Polyak & Juditsky). State: ``step``, ``eta`` (the decayed step size), ``mu`` (the
    averaging weight), all 0-d tensors, and ``ax``, the running average of the parameter."""

    _capturable_message = {  # noqa: RUF012 (read-only)
        False: ("params, mus, etas, and state_steps", True),
        True: ("params, mus, etas, and state_steps", False),
    }

    _SCALAR_STATE = ("step", "eta", "mu")  # (see Optimizer._SCALAR_STATE)

    def __init__(
        self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None, maximize=False,
        differentiable=False, capturable=False,
    ) -> None:  # fmt: skip
        _check_lr(lr)
        _nonneg("weight_decay", weight_decay)
        defaults = {
            "lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay, "foreach": foreach,
            "maximize": maximize, "differentiable": differentiable, "capturable": capturable,
        }  # fmt: skip
        super().__init__(params, defaults)

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, lambd, alpha, t0 = _value(group["lr"]), group["lambd"], group["alpha"], group["t0"]
            weight_decay = group["weight_decay"]
            initial = (("eta", lr), ("mu", 1.0))
            for p, grad, state in _grads_and_state(self, group, "ax", extra=initial):
                mu, ax, eta, step_t = state["mu"], state["ax"], state["eta"], state["step"]
                step_t += 1
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                eta_value = eta.item()
                p.mul_(1 - lambd * eta_value)
                p.add_(grad, alpha=-eta_value)
                if mu.item() != 1:
                    ax.add_(p.sub(ax).mul_(mu))
                else:
                    ax.copy_(p)
                step = step_t.item()
                # PyTorch rounds these through a default-dtype tensor before copying them into the
                # state, which matters once load_state_dict has cast eta and mu to float64.
                eta.copy_(_cr.as_tensor(lr / ((1 + lambd * lr * step) ** alpha)))
                mu.copy_(_cr.as_tensor(1 / max(1, step - t0)))
        return loss
