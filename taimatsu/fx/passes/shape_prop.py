"""``torch.fx.passes.shape_prop``: run a GraphModule on sample inputs and record each node's
result as ``node.meta['tensor_meta']`` (a :class:`TensorMetadata`) and ``node.meta['type']``."""

from __future__ import annotations

import traceback
from typing import Any, NamedTuple

from ..interpreter import Interpreter
from ..node import Node, map_aggregate

__all__ = ["ShapeProp", "TensorMetadata"]


class TensorMetadata(NamedTuple):
    shape: Any
    dtype: Any
    requires_grad: bool
    stride: tuple
    memory_format: Any
    is_quantized: bool
    qparams: dict


def _extract_tensor_metadata(result, include_contiguity: bool = True) -> TensorMetadata:
    import taimatsu

    sparse = result.layout is not taimatsu.strided
    memory_format = None
    if include_contiguity and not sparse:
        for fmt in (taimatsu.contiguous_format, taimatsu.channels_last, taimatsu.channels_last_3d):
            try:
                if result.is_contiguous(memory_format=fmt):
                    memory_format = fmt
                    break
            except RuntimeError:  # channels_last asked of a tensor of another rank
                continue
    stride = () if sparse else result.stride()
    return TensorMetadata(
        result.shape, result.dtype, result.requires_grad, stride, memory_format, False, {}
    )


class ShapeProp(Interpreter):
    """``ShapeProp(gm).propagate(*sample_inputs)``: runs ``gm`` and fills ``node.meta``."""

    def __init__(self, gm, fake_mode=None):
        if fake_mode is not None:
            raise NotImplementedError(
                "taimatsu has no FakeTensorMode: ShapeProp runs on real tensors"
            )
        super().__init__(gm)
        self.fake_module = None
        self.fake_mode = None
        self.real_module = self.module

    def run_node(self, n: Node):
        import taimatsu

        try:
            result = super().run_node(n)
        except Exception as e:
            traceback.print_exc()
            raise RuntimeError(
                f"ShapeProp error for: node={n.format_node()} with meta={n.meta}"
            ) from e
        found_tensor = False

        def extract(obj):
            nonlocal found_tensor
            if isinstance(obj, taimatsu.Tensor):
                found_tensor = True
                return _extract_tensor_metadata(obj)
            return obj

        meta = map_aggregate(result, extract)
        if found_tensor:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args):
        return super().run(*args)
