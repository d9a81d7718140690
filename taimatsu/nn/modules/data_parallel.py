"""``DataParallel``. Without an accelerator (PyTorch's CPU case) it only wraps ``module`` and
forwards to it; with one CUDA device it moves ``module`` there and runs it on inputs moved to that
device. Splitting a batch over several GPUs is not implemented (NotImplementedError)."""

from __future__ import annotations

from .module import Module


class DataParallel(Module):
    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0) -> None:
        super().__init__()
        from ... import cuda
        from ..._device import device

        if not cuda.is_available():
            self.module = module
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = list(range(cuda.device_count()))
        self.dim = dim
        self.module = module
        self.device_ids = [d.index if hasattr(d, "index") else int(d) for d in device_ids]
        out = self.device_ids[0] if output_device is None else output_device
        self.output_device = out.index if hasattr(out, "index") else int(out)
        self.src_device_obj = device("cuda", self.device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        if len(self.device_ids) > 1:
            raise NotImplementedError(
                "taimatsu: DataParallel over several devices is not implemented"
            )
        to = self.src_device_obj
        inputs = tuple(x.to(to) if hasattr(x, "to") else x for x in inputs)
        kwargs = {k: (v.to(to) if hasattr(v, "to") else v) for k, v in kwargs.items()}
        return self.module(*inputs, **kwargs)
