"""``torch.nn.parallel.DistributedDataParallel``: one model replica per rank, gradients averaged.

At construction the replicas are made identical (parameters and buffers broadcast from rank
0, after checking every rank has the same parameter shapes). Each forward re-broadcasts the
buffers (``broadcast_buffers``) and arms the Reducer (see reducer.py), whose hooks average
the gradients over the process group in buckets that overlap the backward pass. After
``backward()`` every rank holds the same averaged ``.grad``, so the optimizers stay in step.
``state_dict()`` keys carry the ``module.`` prefix, as in PyTorch.

Deviations: no ``join()``, ``static_graph`` is accepted and ignored, and a module on a GPU
is reduced through host memory (MPI), not NCCL.
"""

from __future__ import annotations

import contextlib

from ... import distributed as dist
from ...autograd import grad_mode
from ...distributed.collectives import check_same_on_all_ranks
from ..modules.module import Module
from .reducer import Reducer


class DistributedDataParallel(Module):
    def __init__(
        self,
        module: Module,
        device_ids=None,
        output_device=None,
        dim: int = 0,
        broadcast_buffers: bool = True,
        init_sync: bool = True,
        process_group=None,
        bucket_cap_mb: float | None = None,
        find_unused_parameters: bool = False,
        check_reduction: bool = False,
        gradient_as_bucket_view: bool = False,
        static_graph: bool = False,
        delay_all_reduce_named_params=None,
        param_to_hook_all_reduce=None,
        mixed_precision=None,
        device_mesh=None,
    ) -> None:
        super().__init__()
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError(
                "DistributedDataParallel is not needed when a module doesn't have any "
                "parameter that requires a gradient."
            )
        self.module = module
        self.device_ids = device_ids
        self.output_device = output_device
        self.dim = dim
        self.process_group = dist.process_group.resolve(process_group)
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        check_same_on_all_ranks(
            self.process_group, "DistributedDataParallel",
            [(tuple(p.shape), str(p.dtype)) for p in module.parameters()],
        )  # fmt: skip
        if init_sync:
            self._broadcast_from_rank0([*module.parameters(), *module.buffers()])
        self.reducer = Reducer(
            params, self.process_group, self.bucket_bytes_cap, find_unused_parameters,
            gradient_as_bucket_view,
        )  # fmt: skip
        self._hook_registered = False

    def _broadcast_from_rank0(self, tensors: list) -> None:
        """Overwrite ``tensors`` with rank 0's values: one flat broadcast per dtype."""
        from ... import cat

        by_dtype: dict = {}
        for t in tensors:
            by_dtype.setdefault((t.dtype, t.device), []).append(t)
        src = self.process_group._ranks[0]
        with grad_mode.no_grad():
            for group in by_dtype.values():
                flat = cat([t.detach().reshape(-1) for t in group])
                dist.broadcast(flat, src=src, group=self.process_group)
                offset = 0
                for t in group:
                    t.copy_(flat[offset : offset + t.numel()].view(t.shape))
                    offset += t.numel()

    def forward(self, *inputs, **kwargs):
        if self.broadcast_buffers and self.process_group.size() > 1:
            buffers = list(self.module.buffers())
            if buffers:
                self._broadcast_from_rank0(buffers)
        output = self.module(*inputs, **kwargs)
        if grad_mode.is_grad_enabled() and self.require_backward_grad_sync:
            self.reducer.prepare_for_backward(output if self.find_unused_parameters else None)
        return output

    @contextlib.contextmanager
    def no_sync(self):
        """Inside, backward only accumulates local gradients; the next synced one averages all."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    def register_comm_hook(self, state, hook) -> None:
        """Reduce each bucket with ``hook(state, bucket) -> Future[Tensor]`` instead of averaging."""
        if self._hook_registered:
            raise RuntimeError(
                "register_comm_hook or register_builtin_comm_hook can only be called once."
            )
        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        self._hook_registered = True
        self.reducer.comm_hook = hook
        self.reducer.comm_state = state
