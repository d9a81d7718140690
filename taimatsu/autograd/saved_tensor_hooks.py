"""Hooks for saved tensors: ``torch.autograd.graph.saved_tensors_hooks`` and its relatives.

Inside ``with saved_tensors_hooks(pack_hook, unpack_hook):`` every tensor an op saves for its
backward is handed to ``pack_hook`` (with grad mode off) when it is saved, and only what that
returns is kept; the backward (or anything else reading the saved tensor) gets
``unpack_hook(packed)``, which must return a tensor. As in PyTorch:

- the innermost open context's pair is used; ``disable_saved_tensors_hooks(message)`` makes
  opening one raise ``RuntimeError(message)``; the hooks are per thread;
- an unpacked tensor takes the saved tensor's place in the graph: a saved output is again the
  node's output, a saved input routes its gradients where the original's went (its grad_fn, or
  a leaf's accumulator), so double backward through unpacked tensors works;
- with hooks, the in-place modification check of saved tensors is skipped (the hooks own the
  data); a saved tensor is unpacked once per use, packed once;
- ``save_on_cpu(pin_memory=False, device_type="cuda")`` keeps saved tensors in host memory and
  moves them back to their device when unpacked.

What differs: taimatsu's fused backward nodes (layer norm, attention, the RNN layers...) keep
some intermediate arrays of their own besides the tensors they save, which no hook sees, and
the tensors a node saves are those its backward needs here, which are not always PyTorch's
(``a * b`` saves both factors in both; a fused op may save one tensor more or less).
"""

from __future__ import annotations

import threading

__all__ = ["disable_saved_tensors_hooks", "save_on_cpu", "saved_tensors_hooks"]


class _Hooks(threading.local):
    stack: list  # (pack, unpack) pairs, innermost last
    disabled: list  # error messages of open disable_saved_tensors_hooks blocks

    def __init__(self) -> None:
        self.stack, self.disabled = [], []


_tls = _Hooks()
# Contexts open on any thread: the recording path reads this one number and looks no further
# while it is 0 (the common case: no hooks anywhere).
in_use = [0]


def current():
    """This thread's innermost (pack, unpack) pair, or None."""
    stack = _tls.stack
    return stack[-1] if stack else None


class saved_tensors_hooks:
    """Context manager: pack/unpack hooks for the tensors saved for backward inside it."""

    def __init__(self, pack_hook, unpack_hook) -> None:
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        if _tls.disabled:
            raise RuntimeError(_tls.disabled[-1])
        _tls.stack.append((self.pack_hook, self.unpack_hook))
        in_use[0] += 1

    def __exit__(self, *exc) -> None:
        _tls.stack.pop()
        in_use[0] -= 1


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors kept in host memory (pinned with ``pin_memory``), moved back on unpack."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack(tensor):
            if not pin_memory:
                return tensor.device, tensor.cpu()
            from ..ops.creation.factories import empty

            host = empty(tensor.size(), dtype=tensor.dtype, layout=tensor.layout, pin_memory=True)
            host.copy_(tensor)
            return tensor.device, host

        def unpack(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """Context manager (and decorator) in which opening ``saved_tensors_hooks`` raises
    ``RuntimeError(error_message)``."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        _tls.disabled.append(self.error_message)

    def __exit__(self, *exc) -> None:
        _tls.disabled.pop()

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def run(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return run


class HookedSavedTensor:
    """A saved tensor held as ``pack_hook``'s result, with where the original sat in the graph."""

    __slots__ = ("acc", "fn", "is_output", "output_nr", "packed", "rg", "unpack_hook")

    def __init__(self, tensor, is_output: bool, hooks) -> None:
        from .grad_mode import no_grad

        pack, self.unpack_hook = hooks
        self.is_output, self.output_nr, self.rg = is_output, tensor._output_nr, tensor._rg
        self.fn = self.acc = None
        if not is_output and tensor._rg:
            fn = tensor.grad_fn
            if fn is None:
                from .engine import grad_accumulator

                self.acc = grad_accumulator(tensor)  # kept: the leaf's gradients go there
            else:
                self.fn = fn
        with no_grad():
            self.packed = pack(tensor)

    def unpack(self, node):
        from .._tensor.core import Tensor, _wrap

        t = self.unpack_hook(self.packed)
        if not isinstance(t, Tensor):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                f"type {type(t).__name__}"
            )
        out = _wrap(t._data, t._dtype, t._device)
        if self.is_output:
            out._grad_fn, out._rg, out._output_nr = node, True, self.output_nr
        elif self.fn is not None:
            out._grad_fn, out._rg, out._output_nr = self.fn, True, self.output_nr
        elif self.acc is not None:
            import weakref

            out._rg, out._accum = True, weakref.ref(self.acc)
        return out


def hooked(saved, is_output, hooks, node=None) -> tuple:
    """The saved tensors of one node, packed (``is_output(t)``: whether ``t`` is its output),
    in PyTorch's order: the binary ops' two inputs other first (``node.pack_reversed``), then
    the rest (their result)."""
    order = list(range(len(saved)))
    if node is not None and node.pack_reversed and len(order) > 1:
        order[0], order[1] = 1, 0
    packed = [None] * len(saved)
    for i in order:
        t = saved[i]
        if t is not None:
            packed[i] = HookedSavedTensor(t, is_output(t), hooks)
    return tuple(packed)
