"""``torch.autograd.graph.register_multi_grad_hook``: one hook for the gradients of several
tensors.

``mode="all"``: in each backward pass, once the gradients of all the tensors that pass computes
have been computed, ``fn`` gets the list of them, None for the tensors the pass does not reach
(not in its graph, or cut off by ``inputs=``). ``mode="any"``: ``fn`` gets the first of them,
once per pass. Built from tensor hooks (which run in registration order with the tensor's other
hooks), so ``fn`` runs right after the last (or first) of those gradients is computed; the
engine says which tensors a pass reaches (``engine.current_task``).
"""

from __future__ import annotations

_MODES = ("all", "any")


class _MultiHandle:
    """Removes the hook from every tensor at once."""

    def __init__(self, handles) -> None:
        self.handles = tuple(handles)

    def remove(self) -> None:
        for h in self.handles:
            h.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode: str = "all") -> _MultiHandle:
    from . import engine  # (imported here: engine imports graph, which exports this function)

    if mode not in _MODES:
        raise ValueError(f"Expects mode to be one of {_MODES} but got {mode}")
    tensors = tuple(tensors)
    for t in tensors:
        if not t.requires_grad:
            raise AssertionError("Expected gradient function to be set")
    if mode == "any":
        fired = [None]  # the pass that already called fn

        def first(grad):
            task = engine.current_task()
            if fired[0] is not task:
                fired[0] = task
                fn(grad)

        return _MultiHandle(t.register_hook(first) for t in tensors)
    edges = [engine.edge_of(t)[0] for t in tensors]  # where each tensor's gradient arrives
    state = {"task": None, "grads": None, "left": 0}

    def collect(i):
        def hook(grad):
            task = engine.current_task()
            if state["task"] is not task:
                reached = sum(1 for node in edges if task is not None and task.reaches(node))
                state.update(task=task, grads=[None] * len(tensors), left=reached)
            state["grads"][i] = grad
            state["left"] -= 1
            if state["left"] == 0:
                grads, state["grads"] = state["grads"], None
                fn(grads)

        return hook

    return _MultiHandle(t.register_hook(collect(i)) for i, t in enumerate(tensors))
