"""Full backward hooks on modules, as PyTorch's ``torch.utils.hooks.BackwardHook`` does them.

The module's tensor arguments and its tensor outputs each pass through an identity autograd
Function (grad_fn ``BackwardHookFunctionBackward``, PyTorch's name). The outputs' backward sees
``grad_output`` first (backward pre-hooks may replace it); the inputs' backward then sees
``grad_input`` and calls the full backward hooks with both. When no input requires grad, the
hooks are called from the outputs' backward with ``grad_input`` all None, as in PyTorch.
"""

from __future__ import annotations

import warnings

from ..._flags import user_stacklevel
from ..._tensor.core import Tensor
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ...autograd.hook_results import checked_tensor
from ...ops.creation.factories import zeros as torch_zeros

# PyTorch's wrapper of the user's hooks is a function called 'hook': the engine's checks of what
# they return name it
_WRAPPER = "hook"
_NO_INPUT_GRADIENT = (
    "Full backward hook is firing when gradients are computed with respect to module outputs since "
    "no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
    "#torch.nn.Module.register_full_backward_hook for more details."
)


class BackwardHookFunction(Function):
    @staticmethod
    def forward(ctx, state, is_output, *args):
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        ctx.state, ctx.is_output = state, is_output
        # PyTorch's hooks see the outputs' gradients as they arrive (None where none did) and
        # the inputs' as the engine hands them to the node (zeros where none did)
        ctx.set_materialize_grads(False)
        ctx.zeros = None if is_output else [(a.shape, a.dtype, a.device) for a in args]
        return args

    @staticmethod
    def backward(ctx, *grads):
        if not ctx.is_output:
            grads = tuple(
                g if g is not None else torch_zeros(shape, dtype=dtype, device=device)
                for g, (shape, dtype, device) in zip(grads, ctx.zeros)
            )
        if ctx.is_output:
            return (None, None, *ctx.state.on_grad_output(grads))
        return (None, None, *ctx.state.on_grad_input(grads))


def _pack(index, values, n):
    out = [None] * n
    for i, v in zip(index, values):
        out[i] = v
    return tuple(out)


class BackwardHook:
    """One call's worth of hook state: wraps inputs and outputs, runs the user's hooks."""

    def __init__(self, module, user_hooks, user_pre_hooks) -> None:
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_index = None
        self.n_inputs = -1
        self.input_index = None

    def _wrap(self, args, is_output):
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in index]
        if not (is_grad_enabled() and any(t.requires_grad for t in tensors)):
            return args, None
        wrapped = BackwardHookFunction.apply(self, is_output, *tensors)
        new = list(args)
        for i, w in zip(index, wrapped):
            new[i] = w
        return tuple(new), index

    def setup_input_hook(self, args):
        self.n_inputs = len(args)
        args, self.input_index = self._wrap(args, False)
        return args

    def setup_output_hook(self, result):
        single = not isinstance(result, tuple)
        outs = (result,) if single else result
        self.n_outputs = len(outs)
        outs, self.output_index = self._wrap(outs, True)
        return outs[0] if single else outs

    def on_grad_output(self, grads):
        self.grad_outputs = _pack(self.output_index, grads, self.n_outputs)
        for hook in self.user_pre_hooks:
            res = hook(self.module, self.grad_outputs)
            if res is None:
                continue
            if len(res) != len(self.grad_outputs):
                raise RuntimeError(
                    f"Backward pre hook returned an invalid number of grad_output, got {len(res)}, but "
                    f"expected {len(self.grad_outputs)}"
                )
            self.grad_outputs = res
        local = self.grad_outputs
        if self.input_index is None:
            warnings.warn(_NO_INPUT_GRADIENT, stacklevel=user_stacklevel())
            grad_inputs = (None,) * self.n_inputs
            for hook in self.user_hooks:
                res = hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple) and all(r is None for r in res)):
                    raise RuntimeError(
                        "Backward hook for Modules where no input requires gradient should always return None "
                        "or None for all gradients."
                    )
            self.grad_outputs = None
        return tuple(
            checked_tensor(_WRAPPER, g, local[i]) for g, i in zip(grads, self.output_index)
        )

    def on_grad_input(self, grads):
        if self.grad_outputs is None:  # the gradient reached the inputs without passing the outputs
            return grads
        res = _pack(self.input_index, grads, self.n_inputs)
        for hook in self.user_hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(res):
                raise RuntimeError(
                    f"Backward hook returned an invalid number of grad_input, got {len(out)}, but expected "
                    f"{len(res)}"
                )
            res = out
        self.grad_outputs = None
        return tuple(checked_tensor(_WRAPPER, g, res[i]) for g, i in zip(grads, self.input_index))
