"""The legacy ``torch.nn.utils.spectral_norm``: ``<name>_orig`` (the trained Parameter), ``<name>_u`` and
``<name>_v`` (power-iteration buffers) and a forward pre-hook that sets ``<name>`` to
``<name>_orig / sigma`` before each call, sigma the largest singular value estimated by power
iteration (one step per call in training mode, none in eval mode). The state_dict carries a
``spectral_norm`` version in its metadata, and loading a version-less checkpoint that stored
``<name>`` instead of ``<name>_v`` recovers ``v`` as PyTorch does. The new API is
``nn.utils.parametrizations.spectral_norm``.
"""

from __future__ import annotations

from ...autograd.grad_mode import no_grad
from ...linalg import multi_dot
from .. import functional as F
from ..parameter import Parameter

__all__ = ["SpectralNorm", "remove_spectral_norm", "spectral_norm"]


class SpectralNorm:
    _version = 1

    def __init__(
        self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError(
                f"Expected n_power_iterations to be positive, but got n_power_iterations={n_power_iterations}"
            )
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """``dim`` first, the rest flattened: (weight.size(dim), -1)."""
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.dim()) if d != self.dim])
        return weight.reshape(weight.size(0), -1)

    def compute_weight(self, module, do_power_iteration: bool):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    # the buffers are updated in place (they are the state carried between calls)
                    v.copy_(F.normalize(weight_mat.t().mv(u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(weight_mat.mv(v), dim=0, eps=self.eps))
            # copies, so that backward sees the u and v this call used even after the next update
            u, v = u.clone(), v.clone()
        sigma = u.dot(weight_mat.mv(v))
        return weight / sigma

    def remove(self, module) -> None:
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat, u, target_sigma):
        """The ``v`` with ``u = W v / |W v|`` (least squares), scaled so that ``u . W v == target_sigma``."""
        v = multi_dot(
            [weight_mat.t().mm(weight_mat).pinverse(), weight_mat.t(), u.unsqueeze(1)]
        ).squeeze(1)
        return v.mul_(target_sigma / u.dot(weight_mat.mv(v)))

    @staticmethod
    def apply(module, name: str, n_power_iterations: int, dim: int, eps: float) -> SpectralNorm:
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two spectral_norm hooks on the same parameter {name}"
                )
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).shape
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # a plain tensor until the first forward computes the normalized weight
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Upgrades a version-less checkpoint holding ``<name>`` (the normalized weight) but no ``<name>_v``."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs) -> None:  # fmt: skip
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        weight_key = prefix + fn.name
        if (
            version is None
            and all(weight_key + s in state_dict for s in ("_orig", "_u", "_v"))
            and weight_key not in state_dict
        ):
            return  # already the current layout
        has_missing_keys = False
        for suffix in ("_orig", "", "_u"):
            if weight_key + suffix not in state_dict:
                has_missing_keys = True
                if strict:
                    missing_keys.append(weight_key + suffix)
        if has_missing_keys:
            return
        with no_grad():
            weight_orig = state_dict[weight_key + "_orig"]
            weight = state_dict.pop(weight_key)
            sigma = (weight_orig / weight).mean()
            weight_mat = fn.reshape_weight_to_matrix(weight_orig)
            u = state_dict[weight_key + "_u"]
            state_dict[weight_key + "_v"] = fn._solve_v_and_rescale(weight_mat, u, sigma)


class SpectralNormStateDictHook:
    """Records ``spectral_norm``'s version in the module's state_dict metadata."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata) -> None:
        versions = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        versions[key] = self.fn._version


def spectral_norm(
    module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12, dim=None
):
    """Apply spectral normalization to ``module.<name>``; ``dim`` defaults to 1 for ConvTranspose, else 0."""
    if dim is None:
        from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d

        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name: str = "weight"):
    """Undo ``spectral_norm``: ``<name>`` becomes a Parameter holding the current normalized weight.

    As in PyTorch 2.13 the load_state_dict pre-hook stays (PyTorch's removal does not recognise its
    wrapped hook), so a later strict ``load_state_dict`` of a checkpoint without ``<name>_orig`` and
    ``<name>_u`` reports them missing, exactly as PyTorch does.
    """
    for registry, kind in (
        (module._forward_pre_hooks, SpectralNorm),
        (module._state_dict_hooks, SpectralNormStateDictHook),
    ):
        for k, hook in registry.items():
            if isinstance(hook, kind) and (hook if kind is SpectralNorm else hook.fn).name == name:
                if kind is SpectralNorm:
                    hook.remove(module)
                del registry[k]
                break
        else:
            if kind is SpectralNorm:
                raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    return module
