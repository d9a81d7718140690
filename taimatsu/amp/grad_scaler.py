"""``torch.amp.GradScaler``: dynamic loss scaling for mixed-precision training.

Matches PyTorch 2.x: ``scale`` multiplies outputs by the current scale (a float32 0-d tensor made
lazily on the first call, on the outputs' device); ``unscale_`` multiplies an optimizer's gradients
in place by the float32-rounded reciprocal of the scale and records whether any was inf/NaN;
``step`` unscales if needed and skips ``optimizer.step()`` when one was; ``update`` backs the scale
off after an inf/NaN step and grows it after ``growth_interval`` clean steps in a row. The stage
errors, ``state_dict`` and pickling follow PyTorch. Deviation: optimizers that declare
``_step_supports_amp_scaling`` (PyTorch's fused optimizers) take the ordinary path here.
"""

from __future__ import annotations

import warnings
from collections import abc, defaultdict
from enum import Enum

__all__ = ["GradScaler", "OptState"]


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_optimizer_state() -> dict:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """Scale the loss, unscale the gradients, skip steps with inf/NaN gradients, adapt the scale."""

    def __init__(
        self,
        device: str = "cuda",
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            from .. import cuda

            if not cuda.is_available():
                warnings.warn(
                    "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                    stacklevel=_caller_level(self),
                )
                self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None  # made on the first scale(), on the outputs' device
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    # ---- scale ---------------------------------------------------------------------------------------
    def _lazy_init(self, device) -> None:
        from .. import float32, full, int32

        self._scale = full((), self._init_scale, dtype=float32, device=device)
        self._growth_tracker = full((), self._init_growth_tracker, dtype=int32, device=device)

    def _check_initialized(self, funcname: str):
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def scale(self, outputs):
        """``outputs`` (a tensor or nested lists/tuples/iterables of tensors) times the scale."""
        from .._tensor.core import Tensor

        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init(outputs.device)
            return outputs * self._scale.to(device=outputs.device)

        def apply(val):
            if isinstance(val, Tensor):
                if self._scale is None:
                    self._lazy_init(val.device)
                return val * self._scale.to(device=val.device)
            if isinstance(val, abc.Iterable):
                scaled = map(apply, val)
                return type(val)(scaled) if isinstance(val, (list, tuple)) else scaled
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply(outputs)

    # ---- unscale -------------------------------------------------------------------------------------
    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16: bool) -> dict:
        """Multiply every gradient in place by ``inv_scale``; per device, a float32 0-d tensor
        that is 1.0 when some gradient held an inf or NaN."""
        from .. import _dtype as D
        from .. import no_grad
        from .._tensor.core import Tensor

        found = {}
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if not isinstance(param, Tensor):
                        raise AssertionError(  # noqa: TRY004 (PyTorch's type)
                            f"expected param to be torch.Tensor, got {type(param).__name__}"
                        )
                    grad = param.grad
                    if grad is None:
                        continue
                    if not allow_fp16 and grad.dtype is D.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    if grad.is_sparse:
                        # duplicate float16 entries could overflow once summed: check the coalesced ones
                        if grad.dtype is D.float16:
                            param.grad = grad = grad.coalesce()
                        grad = grad._values()
                    dev = grad.device
                    if dev not in found:
                        found[dev] = (
                            found_inf.to(dev).clone() if dev != found_inf.device else found_inf
                        )
                    if not bool(grad.isfinite().all()):
                        found[dev].fill_(1.0)
                    grad.mul_(inv_scale.to(dev))
        return found

    def unscale_(self, optimizer) -> None:
        """Divide ``optimizer``'s gradients by the scale (once per ``update()``)."""
        from .. import float32, full

        if not self._enabled:
            return
        self._check_initialized("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # The reciprocal is taken in float64 and rounded once to float32, as PyTorch does.
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = full((), 0.0, dtype=float32, device=self._scale.device)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        state["stage"] = OptState.UNSCALED

    # ---- step / update -------------------------------------------------------------------------------
    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step(*args, **kwargs)`` unless the unscaled gradients held an inf or NaN
        (then the step is skipped and None returned)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_initialized("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None) -> None:
        """Back off after an inf/NaN step, grow after ``growth_interval`` clean steps, or set
        ``new_scale`` (a float or a 1-element float32 tensor without grad)."""
        from .._tensor.core import Tensor

        if not self._enabled:
            return
        scale, tracker = self._check_initialized("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                reason = (
                    "new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                    "torch.FloatTensor with requires_grad=False."
                )
                if not isinstance(new_scale, Tensor) or new_scale.device.type != self._device:
                    raise AssertionError(reason)
                if new_scale.numel() != 1 or new_scale.requires_grad is True:
                    raise AssertionError(reason)
                scale.copy_(new_scale)
        else:
            found = [
                f.to(scale.device)
                for state in self._per_optimizer_states.values()
                for f in state["found_inf_per_device"].values()
            ]
            if len(found) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            self._update_scale(scale, tracker, sum(float(f.item()) for f in found))
        self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    def _update_scale(self, scale, tracker, found_inf: float) -> None:
        """PyTorch's ``_amp_update_scale_``; the grown scale is kept only when finite."""
        if found_inf:
            scale.mul_(self._backoff_factor)
            tracker.fill_(0)
            return
        successful = int(tracker.item()) + 1
        if successful == self._growth_interval:
            grown = scale * self._growth_factor
            if bool(grown.isfinite()):
                scale.copy_(grown)
            tracker.fill_(0)
        else:
            tracker.fill_(successful)

    # ---- queries and state -----------------------------------------------------------------------------
    def get_scale(self) -> float:
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        return (
            self._init_growth_tracker
            if self._growth_tracker is None
            else int(self._growth_tracker.item())
        )

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict:
        """scale, growth_factor, backoff_factor, growth_interval, _growth_tracker ({} if disabled)."""
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._get_growth_tracker(),
        }

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved "
                "from a disabled instance of GradScaler."
            )
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError(
                    "A GradScaler instance may only be pickled at the beginning "
                    "of an iteration, or at the end after scaler.update()."
                )
            # The tensors are re-made lazily after unpickling, from these two numbers.
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)


def _caller_level(scaler) -> int:
    # PyTorch's warning points at the user's line: one level further up through a subclass
    # (torch.cuda.amp.GradScaler) constructor.
    return 3 if type(scaler) is not GradScaler else 2
