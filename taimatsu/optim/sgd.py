"""``torch.optim.SGD``: stochastic gradient descent with momentum, dampening, Nesterov."""

from __future__ import annotations

from .optimizer import Optimizer, _check_lr, _closure_loss, _nonneg, _use_grad, _value

__all__ = ["SGD"]


class SGD(Optimizer):
    """SGD as in PyTorch: ``buf = momentum * buf + (1 - dampening) * g`` (the first step sets
    ``buf = g``), Nesterov uses ``g + momentum * buf``, and ``p -= lr * update``."""

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
        for group in self.param_groups:
            lr, momentum, dampening = _value(group["lr"]), group["momentum"], group["dampening"]
            weight_decay, nesterov = group["weight_decay"], group["nesterov"]
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if group["maximize"]:
                    grad = -grad
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                if momentum != 0:
                    state = self.state[p]
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = state["momentum_buffer"] = grad.detach().clone()
                    else:
                        buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                    grad = grad.add(buf, alpha=momentum) if nesterov else buf
                p.add_(grad, alpha=-lr)
        return loss
