"""``torch.optim.swa_utils``: Stochastic Weight Averaging and exponential moving averages.

``AveragedModel`` keeps a deep copy of a model whose parameters (and, with ``use_buffers``,
buffers) are a running average of the model's; ``SWALR`` anneals each group's lr to a fixed
``swa_lr``; ``update_bn`` recomputes BatchNorm statistics with one pass over a loader.

The arithmetic is PyTorch 2.13's, path for path: on CPU the default average is
``avg + (p - avg) / (n + 1)`` per tensor; on CUDA (where PyTorch takes its foreach kernels)
it is ``avg.lerp_(p, 1 / (n + 1))``. taimatsu has no ``_foreach`` kernels: the "multi"
averaging functions loop over the tensor lists, which computes the same values.
"""

from __future__ import annotations

import itertools
import math
from copy import deepcopy

from .. import _dtype as D
from .._tensor.core import Tensor
from ..autograd import grad_mode
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from ..ops.creation import factories as _cr
from .lr_scheduler import LRScheduler, _per_group, _warn_get_lr

__all__ = [  # noqa: RUF022 - PyTorch's order
    "AveragedModel",
    "update_bn",
    "SWALR",
    "get_ema_multi_avg_fn",
    "get_swa_multi_avg_fn",
    "get_ema_avg_fn",
    "get_swa_avg_fn",
]  # fmt: skip


def _check_decay(decay) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(
            f"Invalid decay value {decay} provided. Please provide a value in [0,1] range."
        )


def _is_float_or_complex(t: Tensor) -> bool:
    return t.is_floating_point() or t.is_complex()


def get_ema_multi_avg_fn(decay=0.999):
    """``multi_avg_fn`` for an EMA: ``ema = decay * ema + (1 - decay) * p``, in place."""
    _check_decay(decay)

    @grad_mode.no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        if _is_float_or_complex(ema_param_list[0]):
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                p_ema.lerp_(p_model, 1 - decay)
        else:
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """``multi_avg_fn`` for SWA: the equally weighted average of all models seen, in place."""

    @grad_mode.no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        if _is_float_or_complex(averaged_param_list[0]):
            weight = 1 / (num_averaged + 1)
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                p_avg.lerp_(p_model, weight)
        else:
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                diff = p_model.sub(p_avg)
                if isinstance(num_averaged, Tensor):
                    p_avg.addcdiv_(diff, num_averaged + 1)
                else:
                    p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """``avg_fn`` for an EMA: returns ``decay * ema + (1 - decay) * p``."""
    _check_decay(decay)

    @grad_mode.no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """``avg_fn`` for SWA: returns ``avg + (p - avg) / (n + 1)``."""

    @grad_mode.no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A running average (SWA by default, or ``avg_fn``/``multi_avg_fn``) of ``model``'s weights.

    The copy lives in ``self.module``; ``n_averaged`` (an int64 buffer, first in the
    state_dict) counts the models averaged. The first ``update_parameters`` copies the model;
    later ones average. Without ``use_buffers`` the buffers are copied from the model each time.
    """

    def __init__(
        self, model: Module, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False
    ) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", _cr.tensor(0, dtype=D.long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current weights into the average."""
        if self.use_buffers:
            pairs = zip(
                itertools.chain(self.module.parameters(), self.module.buffers()),
                itertools.chain(model.parameters(), model.buffers()),
            )
        else:
            pairs = zip(self.parameters(), model.parameters())
        averaged, current = [], []
        first = bool(self.n_averaged == 0)
        for p_avg, p_model in pairs:
            p_model_ = p_model.detach().to(p_avg.device)
            averaged.append(p_avg.detach())
            current.append(p_model_)
            if first:
                p_avg.detach().copy_(p_model_)
        if self.n_averaged > 0:
            self._average(averaged, current)
        if not self.use_buffers:
            for b_avg, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                b_avg.detach().copy_(b_model.detach().to(b_avg.device))
        self.n_averaged += 1

    def _average(self, averaged: list, current: list) -> None:
        if self.avg_fn is not None and self.multi_avg_fn is None:
            for p_avg, p_model in zip(averaged, current, strict=True):
                n = self.n_averaged.to(p_avg.device)
                p_avg.copy_(self.avg_fn(p_avg, p_model, n))
            return
        for device, avg_list, model_list in _group_by_device_and_dtype(averaged, current):
            n = self.n_averaged.to(device)
            if self.multi_avg_fn:
                self.multi_avg_fn(avg_list, model_list, n)
            elif device.type == "cuda":  # PyTorch's foreach path
                get_swa_multi_avg_fn()(avg_list, model_list, n)
            else:
                avg_fn = get_swa_avg_fn()
                for p_avg, p_model in zip(avg_list, model_list, strict=True):
                    p_avg.copy_(avg_fn(p_avg, p_model, n))


def _group_by_device_and_dtype(averaged: list, current: list):
    """``(device, averaged list, model list)`` per (device, dtype) of the averaged tensors."""
    groups: dict = {}
    for a, c in zip(averaged, current):
        entry = groups.setdefault((str(a.device), a.dtype), (a.device, [], []))
        entry[1].append(a)
        entry[2].append(c)
    return groups.values()


@grad_mode.no_grad()
def update_bn(loader, model: Module, device=None) -> None:
    """Recompute every BatchNorm's running statistics with one pass over ``loader``.

    Each batch is a tensor or a list/tuple whose first element is the input. The statistics
    are reset, accumulated as a cumulative average (``momentum=None``) and the modules'
    momenta and the model's training mode are restored afterwards.
    """
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for input in loader:
        if isinstance(input, (list, tuple)):
            input = input[0]
        if device is not None:
            input = input.to(device)
        model(input)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's lr from its current value to ``swa_lr`` over ``anneal_epochs``
    steps (``"cos"`` or ``"linear"``), then hold it there."""

    def __init__(
        self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1
    ) -> None:
        swa_lrs = _per_group("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list:
        # The lr is chainable: recover the lr the anneal started from out of the current one
        # (with the previous step's alpha), then move it to this step's alpha.
        _warn_get_lr(self)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        groups = self.optimizer.param_groups
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha) for g in groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [
            g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in zip(groups, prev_lrs, strict=True)
        ]

    def _set_anneal_func(self, anneal_strategy) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self) -> dict:
        """The scheduler's ``__dict__`` without the optimizer and the anneal function."""
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
