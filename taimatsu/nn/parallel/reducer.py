"""DDP's gradient reducer: parameters in buckets, all-reduces started as buckets fill.

Parameters are grouped in reverse registration order (roughly the order backward produces
their gradients) into flat buffers of at most ``bucket_cap`` bytes, the first one capped at
1 MiB so communication starts early, as PyTorch does. A hook on each parameter's
AccumulateGrad node copies the fresh gradient into its bucket; when a bucket is complete its
all-reduce starts at once (non-blocking), while backward goes on. Buckets start strictly in
index order, so every rank issues the same collectives in the same order even when their
gradients arrive in a different order. The last hook of the iteration waits for all buckets
and writes the averaged gradients back.
"""

from __future__ import annotations

import numpy as np

from ... import distributed as dist
from ...autograd.engine import grad_accumulator
from ...backend import writeable
from ...distributed.collectives import start_all_reduce
from ...distributed.grad_bucket import GradBucket
from ...distributed.reduce_op import RedOpType

FIRST_BUCKET_BYTES = 1024 * 1024

UNFINISHED_REDUCTION = (
    "Expected to have finished reduction in the prior iteration before starting a new one. "
    "This error indicates that your module has parameters that were not used in producing "
    "loss. You can enable unused parameter detection by passing the keyword argument "
    "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by \n"
    "making sure all `forward` function outputs participate in calculating loss. \n"
    "If you already have done the above, then the distributed data parallel module wasn't able "
    "to locate the output tensors in the return value of your module's `forward` function. "
    "Please include the loss function and the structure of the return value of `forward` of "
    "your module when reporting this issue (e.g. list, dict, iterable).\n"
    "Parameter indices which did not receive grad for rank {rank}: {missing}\n"
    " In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or "
    "DETAIL to print out information about which particular parameters did not receive gradient "
    "on this rank as part of this error"
)


def assign_buckets(params: list, bucket_cap: int) -> list[list[int]]:
    """Indices of ``params`` per bucket: reverse order, one dtype/device per bucket."""
    buckets: list[list[int]] = []
    open_: dict = {}  # (dtype, device) -> (indices, bytes)
    for i in reversed(range(len(params))):
        p = params[i]
        key = (p.dtype, p.device)
        indices, size = open_.get(key, ([], 0))
        indices.append(i)
        size += p.numel() * p.element_size()
        cap = FIRST_BUCKET_BYTES if not buckets else bucket_cap
        if size >= cap:
            buckets.append(indices)
            open_.pop(key, None)
        else:
            open_[key] = (indices, size)
    buckets.extend(indices for indices, _ in open_.values())
    return buckets


class _Bucket:
    def __init__(self, index: int, params: list, is_last: bool) -> None:
        from ... import zeros

        self.params = params
        self.offsets = list(np.cumsum([0] + [p.numel() for p in params[:-1]]))
        self.buffer = zeros(sum(p.numel() for p in params), dtype=params[0].dtype, device=params[0].device)  # fmt: skip
        self.views = [self.buffer[o : o + p.numel()].view(p.shape) for p, o in zip(params, self.offsets)]  # fmt: skip
        self.grad_bucket = GradBucket(index, self.buffer, params, self.offsets, is_last)
        self.pending = len(params)
        self.future = None
        self.work = None


class Reducer:
    """Owns the buckets, the AccumulateGrad hooks and one iteration's bookkeeping."""

    def __init__(self, params: list, pg, bucket_cap: int, find_unused: bool, as_view: bool) -> None:  # fmt: skip
        self.params = params
        self.pg = pg
        self.find_unused = find_unused
        self.as_view = as_view
        order = assign_buckets(params, bucket_cap)
        self.buckets = [
            _Bucket(b, [params[i] for i in idx], b == len(order) - 1) for b, idx in enumerate(order)
        ]  # fmt: skip
        self.where = {}  # param index -> (bucket, slot)
        for b, idx in enumerate(order):
            for slot, i in enumerate(idx):
                self.where[i] = (self.buckets[b], slot)
        self.comm_hook = None
        self.comm_state = None
        self.expecting = False  # a synced backward is due for the last forward
        self.ready: list[bool] = []
        self.locally_used = np.zeros(len(params), dtype=np.uint8)
        self.next_bucket = 0
        # Strong references: a leaf keeps only a weak one to its AccumulateGrad node.
        self.accumulators = [grad_accumulator(p) for p in params]
        for i, acc in enumerate(self.accumulators):
            acc.register_hook(self._hook_for(i))

    # ---- one iteration --------------------------------------------------------------------

    def prepare_for_backward(self, outputs) -> None:
        """Arm the hooks for the backward of this forward; mark unused parameters ready."""
        if self.expecting:
            missing = " ".join(str(i) for i, r in enumerate(self.ready) if not r)
            raise RuntimeError(UNFINISHED_REDUCTION.format(rank=self.pg.rank(), missing=missing))
        self.expecting = True
        self.next_bucket = 0
        self.ready = [False] * len(self.params)
        self.locally_used[:] = 0
        for bucket in self.buckets:
            bucket.pending, bucket.future, bucket.work = len(bucket.params), None, None
        if self.find_unused:
            reached = _reachable_accumulators(outputs)
            for i, acc in enumerate(self.accumulators):
                if acc not in reached:
                    bucket, slot = self.where[i]
                    bucket.views[slot].zero_()
                    self._mark_ready(i)

    def _hook_for(self, i: int):
        def hook(grad_inputs, grad_outputs):
            if self.expecting and not self.ready[i]:
                self.locally_used[i] = 1
                self._copy_in(i)
                self._mark_ready(i)
            self._progress()

        return hook

    def _copy_in(self, i: int) -> None:
        p = self.params[i]
        bucket, slot = self.where[i]
        view = bucket.views[slot]
        if p.grad is view:
            return
        view.copy_(p.grad)
        if self.as_view:
            p.grad = view

    def _mark_ready(self, i: int) -> None:
        self.ready[i] = True
        bucket, _ = self.where[i]
        bucket.pending -= 1
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].pending == 0:
            self._launch(self.buckets[self.next_bucket])
            self.next_bucket += 1
        if self.next_bucket == len(self.buckets) and self.expecting:
            self._finalize()

    def _launch(self, bucket: _Bucket) -> None:
        if self.comm_hook is not None:
            bucket.future = self.comm_hook(self.comm_state, bucket.grad_bucket)
            return
        bucket.buffer.div_(self.pg.size())
        bucket.work = start_all_reduce(self.pg, bucket.buffer, RedOpType.SUM)

    def _progress(self) -> None:
        """Let MPI move the started buckets forward while backward computes."""
        for bucket in self.buckets[: self.next_bucket]:
            if bucket.work is not None:
                bucket.work.is_completed()

    def _finalize(self) -> None:
        self.expecting = False
        used = self.locally_used
        if self.find_unused:
            used = used.copy()
            dist.all_reduce(_as_tensor(used), op=dist.ReduceOp.MAX, group=self.pg)
        for bucket in self.buckets:
            if bucket.work is not None:
                bucket.work.wait()
            else:
                result = bucket.future.wait()
                if result is not bucket.buffer:
                    bucket.buffer.copy_(result)
        for i, p in enumerate(self.params):
            self._copy_out(i, bool(used[i]))

    def _copy_out(self, i: int, used: bool) -> None:
        p = self.params[i]
        bucket, slot = self.where[i]
        view = bucket.views[slot]
        if p.grad is view:
            return
        if p.grad is None:
            if used:  # unused here, used on another rank: the average reaches this rank too
                p.grad = view if self.as_view else view.clone()
            return
        if writeable(p.grad._data):
            p.grad.copy_(view)
        else:
            p.grad = view.clone()


def _as_tensor(arr: np.ndarray):
    from ...ops.creation.factories import from_numpy_array

    return from_numpy_array(arr)  # bfloat16 buckets too (from_numpy refuses ml_dtypes' arrays)


def _reachable_accumulators(outputs) -> set:
    """The AccumulateGrad nodes reachable from the tensors in ``outputs``."""
    from ..._tensor.core import Tensor
    from ...autograd.graph import AccumulateGrad

    roots, stack = [], [outputs]
    while stack:
        x = stack.pop()
        if isinstance(x, Tensor):
            if x.grad_fn is not None:
                roots.append(x.grad_fn)
            elif x.requires_grad:
                roots.append(grad_accumulator(x))
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
    found, seen = set(), set()
    while roots:
        node = roots.pop()
        if node in seen:
            continue
        seen.add(node)
        if isinstance(node, AccumulateGrad):
            found.add(node)
        roots.extend(n for n, _ in node.next_functions if n is not None)
    return found
