"""``torch.optim.SparseAdam``: Adam that updates only the entries a sparse gradient touches.

The gradients are sparse COO tensors (``Embedding(sparse=True)``, ``torch.sparse.mm``...). As in
PyTorch, each step coalesces the gradient and updates ``exp_avg``, ``exp_avg_sq`` and the
parameter at those entries only (the moments of untouched rows are not decayed: the "lazy" Adam);
``step`` is a Python int in the state. A dense gradient raises PyTorch's error.
"""

from __future__ import annotations

import math

from .optimizer import Optimizer, _check_betas, _closure_loss, _use_grad

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """Masked (lazy) Adam for sparse gradients, with PyTorch's arithmetic order."""

    _SCALAR_STATE = ()  # (see Optimizer._SCALAR_STATE)

    def __init__(
        self, params, lr=1e-3, betas=(0.9, 0.999), eps: float = 1e-8, maximize: bool = False
    ) -> None:
        from .._tensor.core import Tensor

        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize})
        indices = [
            (i, j, p) for i, g in enumerate(self.param_groups) for j, p in enumerate(g["params"])
        ]
        sparse_params = [[i, j] for i, j, p in indices if p.is_sparse]
        if sparse_params:
            raise ValueError(
                f"Sparse params at indices {sparse_params}: SparseAdam requires dense parameter tensors"
            )
        complex_params = [[i, j] for i, j, p in indices if p.is_complex()]
        if complex_params:
            raise ValueError(
                f"Complex params at indices {complex_params}: SparseAdam does not support complex parameters"
            )

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if not p.grad.is_sparse:
                    raise RuntimeError(
                        "SparseAdam does not support dense gradients, please consider Adam instead"
                    )
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = p.detach().new_zeros(p.shape)
                    state["exp_avg_sq"] = p.detach().new_zeros(p.shape)
                state["step"] += 1
                _sparse_adam(p, p.grad, state, group)
        return loss


def _sparse_adam(p, grad, state, group) -> None:
    """One lazy Adam update of ``p`` at the entries of the sparse ``grad``."""
    from .._tensor.core import _wrap

    beta1, beta2 = group["betas"]
    if group["maximize"]:
        grad = -grad
    grad = grad.coalesce()
    values = grad._values()
    if values.numel() == 0:
        return
    at = tuple(grad._indices()._data)  # distinct entries: plain fancy-index updates are exact
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    old_avg = _wrap(exp_avg._data[at], exp_avg._dtype, exp_avg._device)
    old_sq = _wrap(exp_avg_sq._data[at], exp_avg._dtype, exp_avg._device)
    avg_update = (values - old_avg) * (1 - beta1)
    sq_update = (values.pow(2) - old_sq) * (1 - beta2)
    exp_avg._data[at] += avg_update._data
    exp_avg_sq._data[at] += sq_update._data
    numer = avg_update + old_avg
    denom = (sq_update + old_sq).sqrt() + group["eps"]
    step = state["step"]
    step_size = _value(group["lr"]) * math.sqrt(1 - beta2**step) / (1 - beta1**step)
    p._data[at] += (-step_size * (numer / denom))._data
    for t in (p, exp_avg, exp_avg_sq):
        t._vc[0] += 1


def _value(lr):
    return lr.item() if hasattr(lr, "item") else lr
