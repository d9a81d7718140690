"""``torch.func``: composable function transforms (grad, vjp, jvp, jacrev, jacfwd, hessian,
linearize, vmap) and the module helpers ``functional_call``, ``stack_module_state`` and
``replace_all_batch_norm_modules_``.

The autodiff transforms are built on the reverse-mode engine (see ``_autodiff``); ``vmap`` runs
the function once per sample and stacks the results (see ``_vmap``): PyTorch's values, errors
and gradients, without its vectorisation speed-up.
"""

from __future__ import annotations

from ._autodiff import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp
from ._functional_call import functional_call, replace_all_batch_norm_modules_, stack_module_state
from ._vmap import vmap

__all__ = [
    "functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "linearize",
    "replace_all_batch_norm_modules_",
    "stack_module_state", "vjp", "vmap",
]  # fmt: skip
