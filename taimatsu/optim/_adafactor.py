"""``torch.optim.Adafactor`` (Shazeer & Stern), as PyTorch 2.13 implements it."""

from __future__ import annotations

from .. import _dtype as D
from .._tensor.core import Tensor
from ..ops.creation import factories as _cr
from .optimizer import (
    Optimizer,
    _closure_loss,
    _grads_and_state,
    _step_tensor,
    _use_grad,
    _value,
    refuse_sparse,
)

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """Adafactor with PyTorch's choices: the second moment of a matrix (or of each matrix in a
    batch: the last two dims) is kept factored as ``row_var`` (last dim reduced to 1) and
    ``col_var`` (second-to-last reduced to 1); a vector or 0-d parameter keeps a full
    ``variance``. ``beta2_t = 1 - step ** beta2_decay``; the step is relative,
    ``max(eps2, RMS(p)) * min(lr, 1 / sqrt(step))``, and the update is clipped to RMS ``d``.
    ``eps=(None, ...)`` uses the machine epsilon of the first parameter's dtype (PyTorch fixes
    it at the first parameter and keeps it for the rest of the group). Weight decay is
    decoupled: ``p *= 1 - lr * weight_decay``. ``foreach`` is accepted and the result is the
    same either way.
    """

    __module__ = "taimatsu.optim"  # PyTorch reports torch.optim.Adafactor, not its private module

    def __init__(
        self, params, lr=1e-2, beta2_decay: float = -0.8, eps=(None, 1e-3), d: float = 1.0,
        weight_decay: float = 0.0, *, foreach=None, maximize: bool = False,
    ) -> None:  # fmt: skip
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {
            "lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d, "weight_decay": weight_decay,
            "foreach": foreach, "maximize": maximize,
        }  # fmt: skip
        super().__init__(params, defaults)

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            # State for the whole group first, as PyTorch does (a complex parameter stops the
            # step with the state of the parameters before it already created).
            for p in group["params"]:
                if p.grad is None:
                    continue
                refuse_sparse(self, p.grad)
                if p.is_complex():
                    raise RuntimeError("Adafactor does not support complex parameters")
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    _init_moments(state, p.grad)
            # A tensor lr stays a 0-d tensor, as in PyTorch: the step size is then rounded to
            # the lr's dtype (float32 for torch.tensor(0.05)).
            lr, beta2_decay, d = _scalar_lr(group["lr"]), group["beta2_decay"], group["d"]
            eps1, eps2 = group["eps"]
            weight_decay = group["weight_decay"]
            for p, grad, state in _grads_and_state(self, group):
                if eps1 is None:
                    eps1 = D.finfo(p.dtype).eps
                _adafactor_step(p, grad, state, lr, beta2_decay, eps1, eps2, d, weight_decay)
        return loss


def _scalar_lr(lr):
    return lr.squeeze() if isinstance(lr, Tensor) and lr.dim() != 0 else lr


def _init_moments(state: dict, grad) -> None:
    """``row_var``/``col_var`` for a (batch of) matrices, else a full ``variance``."""
    if grad.dim() > 1:
        shape = list(grad.shape)
        state["row_var"] = grad.new_zeros(shape[:-1] + [1])
        state["col_var"] = grad.new_zeros(shape[:-2] + [1, shape[-1]])
    else:
        state["variance"] = _cr.zeros_like(grad)


def _adafactor_step(p, grad, state, lr, beta2_decay, eps1, eps2, d, weight_decay) -> None:
    step_t = state["step"]
    step_t += 1
    step = step_t.item()
    one_minus_beta2 = step**beta2_decay
    rho = min(lr, 1 / (step**0.5))
    alpha = max(eps2, p.norm(2).item() / (p.numel() ** 0.5)) * rho
    if weight_decay != 0:
        p.mul_(1 - lr * weight_decay)
    if grad.dim() > 1:
        row_var, col_var = state["row_var"], state["col_var"]
        row_var.lerp_(
            grad.norm(dim=-1, keepdim=True).square_().div_(grad.size(-1)), one_minus_beta2
        )
        col_var.lerp_(
            grad.norm(dim=-2, keepdim=True).square_().div_(grad.size(-2)), one_minus_beta2
        )
        var_estimate = row_var @ col_var
        var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
    else:
        variance = state["variance"]
        variance.lerp_(grad * grad, one_minus_beta2)
        var_estimate = variance.clone()
    update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_().mul_(grad)
    denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * d))
    p.add_(update, alpha=_value(-alpha / denom))
