"""The per-batch cyclical schedules of ``torch.optim.lr_scheduler``: ``CyclicLR`` and
``OneCycleLR``, which move momentum (or Adam's beta1) opposite to the learning rate.

Import them from ``taimatsu.optim.lr_scheduler``; this module only keeps that file short.
"""

from __future__ import annotations

import math
import types
from functools import partial

from .lr_scheduler import LRScheduler, _per_group, _set_group_value, _warn_get_lr
from .optimizer import Optimizer

__all__ = ["CyclicLR", "OneCycleLR"]


def _init_momentum(scheduler, optimizer, base_momentum, max_momentum, last_epoch, store: bool):
    """CyclicLR/OneCycleLR: cycle ``momentum`` (or Adam's beta1) between two values."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError(
            "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
        )
    scheduler.use_beta1 = "betas" in optimizer.defaults
    max_ms = _per_group("max_momentum", optimizer, max_momentum)
    base_ms = _per_group("base_momentum", optimizer, base_momentum)
    if store:
        scheduler.base_momentums, scheduler.max_momentums = base_ms, max_ms
    if last_epoch == -1:
        for m, b, group in zip(max_ms, base_ms, optimizer.param_groups):
            _set_momentum(scheduler, group, m)
            group["max_momentum"] = m
            group["base_momentum"] = b


def _set_momentum(scheduler, group: dict, value) -> None:
    if scheduler.use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


class CyclicLR(LRScheduler):
    """Cyclical learning rates (Smith): the lr ramps between ``base_lr`` and ``max_lr``
    (triangular, triangular2, exp_range, or a custom ``scale_fn``); momentum cycles inversely."""

    def __init__(
        self, optimizer: Optimizer, base_lr, max_lr, step_size_up: int = 2000, step_size_down=None,
        mode: str = "triangular", gamma: float = 1.0, scale_fn=None, scale_mode: str = "cycle",
        cycle_momentum: bool = True, base_momentum=0.8, max_momentum=0.9, last_epoch: int = -1,
    ) -> None:  # fmt: skip
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                _set_group_value(group, "lr", lr)
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ["triangular", "triangular2", "exp_range"] and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            _init_momentum(self, optimizer, base_momentum, max_momentum, last_epoch, store=True)
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self) -> None:
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self._scale_fn_ref = self._triangular_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "triangular2":
            self._scale_fn_ref = self._triangular2_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "exp_range":
            self._scale_fn_ref = partial(self._exp_range_scale_fn, self.gamma)
            self.scale_mode = "iterations"

    def scale_fn(self, x) -> float:
        return (
            self._scale_fn_custom(x) if self._scale_fn_custom is not None else self._scale_fn_ref(x)
        )

    @staticmethod
    def _triangular_scale_fn(x: float) -> float:
        return 1.0

    @staticmethod
    def _triangular2_scale_fn(x: float) -> float:
        return 1 / (2.0 ** (x - 1))

    @staticmethod
    def _exp_range_scale_fn(gamma: float, x: float) -> float:
        return gamma**x

    def get_lr(self) -> list:
        _warn_get_lr(self)
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        scale_factor = (
            x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        )
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [
            base_lr + (max_lr - base_lr) * scale_factor * scale
            for base_lr, max_lr in zip(self.base_lrs, self.max_lrs)
        ]
        if self.cycle_momentum:
            for group, base_m, max_m in zip(
                self.optimizer.param_groups, self.base_momentums, self.max_momentums
            ):
                _set_momentum(self, group, max_m - (max_m - base_m) * scale_factor * scale)
        return lrs

    def state_dict(self) -> dict:
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith & Topin): warm up to ``max_lr`` then anneal far below the
    initial lr, with momentum moving inversely. Steps once per batch, ``total_steps`` in all."""

    def __init__(
        self, optimizer: Optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
        pct_start: float = 0.3, anneal_strategy: str = "cos", cycle_momentum: bool = True, base_momentum=0.85,
        max_momentum=0.95, div_factor: float = 25.0, final_div_factor: float = 1e4, three_phase: bool = False,
        last_epoch: int = -1,
    ) -> None:  # fmt: skip
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(
                    f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}"
                )
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        self._schedule_phases = _one_cycle_phases(pct_start, self.total_steps, three_phase)
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._anneal_func_type = anneal_strategy
        max_lrs = _per_group("max_lr", self.optimizer, max_lr)
        if last_epoch == -1:
            for idx, group in enumerate(self.optimizer.param_groups):
                group["initial_lr"] = max_lrs[idx] / div_factor
                group["max_lr"] = max_lrs[idx]
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            _init_momentum(self, optimizer, base_momentum, max_momentum, last_epoch, store=False)
        super().__init__(optimizer, last_epoch)

    def _anneal_func(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return self._annealing_cos(start, end, pct)
        return self._annealing_linear(start, end, pct)

    @staticmethod
    def _annealing_cos(start, end, pct):
        cos_out = math.cos(math.pi * pct) + 1
        return end + (start - end) / 2.0 * cos_out

    @staticmethod
    def _annealing_linear(start, end, pct):
        return (end - start) * pct + start

    def get_lr(self) -> list:
        _warn_get_lr(self)
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(
                f"Tried to step {step_num} times. The specified number of total steps is {self.total_steps}"
            )
        lrs = []
        last = len(self._schedule_phases) - 1
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == last:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lrs.append(
                        self._anneal_func(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    )
                    if self.cycle_momentum:
                        m = self._anneal_func(
                            group[phase["start_momentum"]], group[phase["end_momentum"]], pct
                        )
                        _set_momentum(self, group, m)
                    break
                start_step = phase["end_step"]
        return lrs


def _one_cycle_phases(pct_start: float, total_steps: int, three_phase: bool) -> list:
    def phase(end_step, start_lr, end_lr, start_m, end_m):
        return {
            "end_step": end_step,
            "start_lr": start_lr,
            "end_lr": end_lr,
            "start_momentum": start_m,
            "end_momentum": end_m,
        }

    warmup_end = float(pct_start * total_steps) - 1
    if three_phase:
        return [
            phase(warmup_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
            phase(
                float(2 * pct_start * total_steps) - 2,
                "max_lr",
                "initial_lr",
                "base_momentum",
                "max_momentum",
            ),
            phase(total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"),
        ]
    return [
        phase(warmup_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
        phase(total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"),
    ]
