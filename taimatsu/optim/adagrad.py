"""``torch.optim.Adagrad``."""

from __future__ import annotations

from ..ops.creation import factories as _cr
from .optimizer import (
    Optimizer,
    _as_real,
    _check_lr,
    _closure_loss,
    _nonneg,
    _step_tensor,
    _use_grad,
    _value,
)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad: ``sum += g^2``, ``p -= clr * g / (sqrt(sum) + eps)`` with
    ``clr = lr / (1 + (t - 1) * lr_decay)``. Unlike the other optimizers, the state (``step``,
    ``sum``) is created for every parameter at construction, as PyTorch does."""

    def __init__(
        self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
        foreach=None, *, maximize=False, differentiable=False, fused=None,
    ) -> None:  # fmt: skip
        _check_lr(lr)
        _nonneg("lr_decay", lr_decay)
        _nonneg("weight_decay", weight_decay)
        _nonneg("initial_accumulator_value", initial_accumulator_value)
        _nonneg("epsilon", eps)
        defaults = {
            "lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value, "foreach": foreach, "maximize": maximize,
            "differentiable": differentiable, "fused": fused,
        }  # fmt: skip
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p)

    def _init_state(self, p) -> None:
        state = self.state[p]
        state["step"] = _step_tensor()
        init = self.defaults["initial_accumulator_value"]
        state["sum"] = _cr.full_like(p, complex(init, init) if p.is_complex() else init)

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, lr_decay, eps, weight_decay = (
                _value(group["lr"]),
                group["lr_decay"],
                group["eps"],
                group["weight_decay"],
            )
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:  # a group added after construction
                    self._init_state(p)
                step_t, state_sum = state["step"], state["sum"]
                step_t += 1
                step = step_t.item()
                if group["maximize"]:
                    grad = -grad
                clr = lr / (1 + (step - 1) * lr_decay)
                if grad.is_sparse:
                    _sparse_update(p, grad, state_sum, clr, eps, weight_decay)
                    continue
                if p.is_complex():
                    p, grad, views = _as_real(p, grad, {"sum": state_sum})
                    state_sum = views["sum"]
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                state_sum.addcmul_(grad, grad, value=1)
                std = state_sum.sqrt().add_(eps)
                p.addcdiv_(grad, std, value=-clr)
        return loss


def _sparse_update(p, grad, state_sum, clr: float, eps: float, weight_decay: float) -> None:
    """PyTorch's sparse Adagrad: only the rows present in the (coalesced) gradient change, both
    in ``sum`` and in ``p``; the step divides by ``sqrt(sum) + eps`` read at those entries."""
    from ..sparse.construction import sparse_coo_tensor

    if weight_decay != 0:
        raise RuntimeError("weight_decay option is not compatible with sparse gradients")
    grad = grad.coalesce()
    indices, values = grad._indices(), grad._values()
    size = grad.size()
    state_sum.add_(sparse_coo_tensor(indices, values.pow(2), size))
    std_values = state_sum.sparse_mask(grad)._values().sqrt_().add_(eps)
    p.add_(sparse_coo_tensor(indices, values / std_values, size), alpha=-clr)
