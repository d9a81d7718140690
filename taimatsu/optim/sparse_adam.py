"""``torch.optim.SparseAdam``: Adam that updates only the entries a sparse gradient touches.

taimatsu has no sparse tensors, so no gradient it produces can be sparse: this class checks
its arguments and builds its param groups exactly as PyTorch's does, and ``step`` raises
PyTorch's error for the dense gradients every parameter here has. The sparse update itself is
not implemented (there is nothing it could run on).
"""

from __future__ import annotations

from .optimizer import Optimizer, _check_betas, _closure_loss, _use_grad

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """Masked Adam for sparse gradients (see the module docstring: dense gradients raise)."""

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
        complex_params = [
            [i, j]
            for i, group in enumerate(self.param_groups)
            for j, p in enumerate(group["params"])
            if p.is_complex()
        ]
        if complex_params:
            raise ValueError(
                f"Complex params at indices {complex_params}: SparseAdam does not support complex parameters"
            )

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    raise RuntimeError(
                        "SparseAdam does not support dense gradients, please consider Adam instead"
                    )
        return loss
