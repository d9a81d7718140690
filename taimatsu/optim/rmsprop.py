"""``torch.optim.RMSprop`` (optionally centered, with momentum)."""

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

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop as in PyTorch: ``v = alpha * v + (1 - alpha) * g^2``; centered subtracts the
    squared running mean of g; eps is added *after* the square root."""

    _capturable_message = {
        False: ("params and state_steps", True),
        True: ("params and state_steps", True),
    }  # noqa: RUF012

    def __init__(
        self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
        capturable=False, foreach=None, maximize=False, differentiable=False,
    ) -> None:  # fmt: skip
        _check_lr(lr)
        _nonneg("epsilon", eps)
        _nonneg("momentum", momentum)
        _nonneg("weight_decay", weight_decay)
        _nonneg("alpha", alpha)
        defaults = {
            "lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered, "weight_decay": weight_decay,
            "capturable": capturable, "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
        }  # fmt: skip
        super().__init__(params, defaults)

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, alpha, eps = _value(group["lr"]), group["alpha"], group["eps"]
            weight_decay, momentum, centered = (
                group["weight_decay"],
                group["momentum"],
                group["centered"],
            )
            moments = ["square_avg"]  # new state's keys, in PyTorch's order
            if momentum > 0:
                moments.append("momentum_buffer")
            if centered:
                moments.append("grad_avg")
            for p, grad, state in _grads_and_state(self, group, *moments):
                square_avg = state["square_avg"]
                state["step"] += 1
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
                if centered:
                    grad_avg = state["grad_avg"]
                    grad_avg.lerp_(grad, 1 - alpha)
                    avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
                else:
                    avg = square_avg.sqrt()
                avg = avg.add_(eps)
                if momentum > 0:
                    buf = state["momentum_buffer"]
                    buf.mul_(momentum).addcdiv_(grad, avg)
                    p.add_(buf, alpha=-lr)
                else:
                    p.addcdiv_(grad, avg, value=-lr)
        return loss
