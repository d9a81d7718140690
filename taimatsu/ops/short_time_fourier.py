"""``torch.stft`` and ``torch.istft``: the short-time Fourier transform and its inverse.

Both are compositions of taimatsu's own ops, so autograd (gradients for the input and for a
window that requires grad) and the CPU/CUDA split come from those ops:

- ``stft``: the signal padded by ``n_fft // 2`` on both sides (``center``, through
  ``F.pad`` with ``pad_mode``), cut into frames of ``n_fft`` samples ``hop_length`` apart
  (``Tensor.unfold``), each multiplied by the window (zero-padded to ``n_fft``, centred), then
  ``fft.rfft`` (one-sided) or ``fft.fft`` over the frame; ``(batch?, freq, frames)``.
- ``istft``: ``fft.irfft`` (or ``fft.ifft`` for ``return_complex``) of each frame, times the
  window, overlap-added (``F.fold``) and divided by the overlap-added squared window; the centre
  padding cut off and the result trimmed or zero-padded to ``length``.

Arguments are checked in PyTorch's order with its messages, including the argument summary its
C++ kernels put in front ("stft(torch.FloatTensor[116], n_fft=16, ...) : expected ..."). The FFTs
are NumPy's/CuPy's, so values agree with PyTorch's (MKL's on the CPU) to float rounding.
"""

from __future__ import annotations

from .. import _dtype as D
from .._flags import user_stacklevel, warn_once
from .._tensor.core import Tensor
from ._dispatch import scalar_name

_NO_RETURN_COMPLEX = (
    "stft requires the return_complex parameter be given for real inputs, and will further require that "
    "return_complex=True in a future PyTorch release."
)
_STFT_NO_WINDOW = (
    "A window was not provided. A rectangular window will be applied,which is known to cause spectral "
    "leakage. Other windows such as torch.hann_window or torch.hamming_window are recommended to reduce "
    "spectral leakage.To suppress this warning and use a rectangular window, explicitly set "
    "`window=torch.ones(n_fft, device=<device>)`."
)
_ISTFT_NO_WINDOW = (
    "A window was not provided. A rectangular window will be applied.Please provide the same window used "
    "by stft to make the inversion lossless.To suppress this warning and use a rectangular window, "
    "explicitly set `window=torch.ones(n_fft, device=<device>)`."
)
_REAL_DEPRECATED = (
    "stft with return_complex=False is deprecated. In a future pytorch release, stft will return complex "
    "tensors for all inputs, and return_complex=False will raise an error.\nNote: you can still call "
    "torch.view_as_real on the complex output to recover the old return format."
)
_ONESIDED_COMPLEX = "Cannot have onesided output if window or input is complex"
_ISTFT_NOT_COMPLEX = "istft requires a complex-valued input tensor matching the output from stft with return_complex=True."


def _type_name(t: Tensor) -> str:
    """How PyTorch's kernels name a tensor's type in these messages: ``torch.FloatTensor`` for
    real dtypes, ``CPUComplexFloatType`` for complex ones."""
    if t._dtype.category == D.COMPLEX:
        kind = "ComplexDouble" if t._dtype is D.complex128 else "ComplexFloat"
        return f"{'CUDA' if t._device.type == 'cuda' else 'CPU'}{kind}Type"
    return t.type()


def _shape(t: Tensor) -> str:
    return ", ".join(str(s) for s in t.shape)


def _flag(v) -> str:
    return "None" if v is None else str(int(bool(v)))


def _window_desc(window) -> str:
    return "None" if window is None else f"{_type_name(window)}{{[{_shape(window)}]}}"


def _check_int(name: str, fn: str, value) -> None:
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        raise TypeError(f"{fn}(): argument '{name}' must be int, not {type(value).__name__}")


def _padded_window(window, n_fft: int, win_length: int, like: Tensor):
    """The window centred in ``n_fft`` samples (zeros around it); ones when there is none."""
    from ..nn import functional as F
    from .creation.factories import ones

    if window is None:
        window = ones(
            win_length, dtype=like.dtype if not like.is_complex() else D.float32, device=like.device
        )
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = F.pad(window, [left, n_fft - win_length - left])
    return window


def stft(input: Tensor, n_fft: int, hop_length=None, win_length=None, window=None, center: bool = True,
         pad_mode: str = "reflect", normalized: bool = False, onesided=None, return_complex=None,
         align_to_window=None) -> Tensor:  # fmt: skip
    """The short-time Fourier transform of a 1-D signal or a (batch, time) batch of them:
    ``(batch?, n_fft // 2 + 1 or n_fft, frames)`` complex (real pairs with
    ``return_complex=False``)."""
    from .. import fft
    from ..nn import functional as F
    from .pointwise.complex import view_as_real

    for name, v in (("n_fft", n_fft), ("hop_length", hop_length), ("win_length", win_length)):
        _check_int(name, "stft", v)
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:
        signal_dim = input.dim()
        pad = n_fft // 2
        input = F.pad(input.view([1] * (3 - signal_dim) + list(input.shape)), [pad, pad], pad_mode)
        input = input.view(input.shape[input.dim() - signal_dim :])
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length

    def fail(what: str):
        return RuntimeError(
            f"stft({_type_name(input)}[{_shape(input)}], n_fft={n_fft}, hop_length={hop}, win_length={win}, "
            f"window={_window_desc(window)}, normalized={_flag(normalized)}, onesided={_flag(onesided)}, "
            f"return_complex={_flag(return_complex)}, align_to_window={_flag(align_to_window)}) : {what}"
        )

    complex_in = input.is_complex() or (window is not None and window.is_complex())
    if return_complex is None and not complex_in:
        raise RuntimeError(_NO_RETURN_COMPLEX)
    if input._dtype.category not in (D.FLOAT, D.COMPLEX):
        raise fail("expected a tensor of floating point or complex values")
    if input.dim() not in (1, 2):
        raise fail("expected a 1D or 2D tensor")
    length = input.shape[-1]
    if n_fft <= 0 or n_fft > length:
        raise fail(f"expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise fail(f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise fail(f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise fail(
            f"expected a 1D window tensor of size equal to win_length={win}, but got window with size "
            f"{list(window.shape)}"
        )
    if window is None:
        warn_once("stft_no_window", _STFT_NO_WINDOW, user_stacklevel() + 1)  # (warn_once's frame)
    if input._dtype in (D.float16, D.bfloat16):
        raise RuntimeError(f"MKL FFT doesn't support tensors of type: {scalar_name(input._dtype)}")
    sided = not complex_in if onesided is None else onesided
    if sided and complex_in:
        raise RuntimeError(_ONESIDED_COMPLEX)

    x = input if input.dim() == 2 else input.unsqueeze(0)
    if align_to_window and win < n_fft:  # frames start where the window starts, not n_fft before
        left = (n_fft - win) // 2
        x = F.pad(x, [left, n_fft - win - left])
    frames = x.unfold(-1, n_fft, hop) * _padded_window(window, n_fft, win, input)
    norm = "ortho" if normalized else "backward"
    spec = fft.rfft(frames, dim=-1, norm=norm) if sided else fft.fft(frames, dim=-1, norm=norm)
    out = spec.transpose(-1, -2)
    if input.dim() == 1:
        out = out.squeeze(0)
    if return_complex is not None and not return_complex:
        warn_once("stft_real", _REAL_DEPRECATED, user_stacklevel() + 1)  # (warn_once's frame)
        return view_as_real(out)
    return out


def istft(input: Tensor, n_fft: int, hop_length=None, win_length=None, window=None, center: bool = True,
          normalized: bool = False, onesided=None, length=None, return_complex: bool = False) -> Tensor:  # fmt: skip
    """The inverse of ``stft``: ``input`` (batch?, freq, frames) complex, as ``stft`` returns it
    with ``return_complex=True``; a real signal (complex with ``return_complex``)."""
    from .. import fft
    from ..nn import functional as F

    for name, v in (
        ("n_fft", n_fft),
        ("hop_length", hop_length),
        ("win_length", win_length),
        ("length", length),
    ):
        _check_int(name, "istft", v)
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length

    def fail(what: str, sep: str = " : "):
        return RuntimeError(
            f"istft({_type_name(input)}[{_shape(input)}], n_fft={n_fft}, hop_length={hop}, win_length={win}, "
            f"window={_window_desc(window)}, center={_flag(center)}, normalized={_flag(normalized)}, "
            f"onesided={_flag(onesided)}, length={'None' if length is None else length}, "
            f"return_complex={_flag(return_complex)}){sep}{what}"
        )

    if not input.is_complex():
        raise RuntimeError(_ISTFT_NOT_COMPLEX)
    if window is None:
        warn_once("istft_no_window", _ISTFT_NO_WINDOW, user_stacklevel() + 1)  # (warn_once's frame)
    if input.dim() < 2:  # the frequency axis of the real view: dimension -3 of a 2-D view
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-(input.dim() + 1)}, {input.dim()}], but got -3)"
        )
    dims = input.dim() + 1  # counted as PyTorch counts them, on the (..., 2) real view
    if dims not in (3, 4):
        raise fail(f"expected a tensor with 3 or 4 dimensions, but got {dims}")
    if input.numel() == 0:
        raise fail("input tensor cannot be empty.")
    n_freq, n_frames = input.shape[-2], input.shape[-1]
    sided = n_freq != n_fft if onesided is None else onesided
    if sided and n_freq != n_fft // 2 + 1:
        raise fail(
            "expected the frequency dimension (3rd to the last) of the input tensor to match n_fft / 2 + 1 "
            f"when onesided=True, but got {n_freq}"
        )
    if not sided and n_freq != n_fft:
        raise fail(
            "expected the frequency dimension (3rd to the last) of the input tensor to match n_fft when "
            f"onesided=False, but got {n_freq}"
        )
    if not 0 < hop <= win:
        raise fail("expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise fail("expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise fail("Invalid window shape. window has to be 1D and length of `win_length`")
    if return_complex and sided:
        raise RuntimeError(_ONESIDED_COMPLEX)
    if not return_complex and window is not None and window.is_complex():
        raise RuntimeError("Complex windows are incompatible with return_complex=False")

    x = input if input.dim() == 3 else input.unsqueeze(0)
    frames = x.transpose(1, 2)  # (batch, frames, freq)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        y = fft.ifft(frames, n=n_fft, dim=-1, norm=norm)
    else:
        if not sided:
            frames = frames.narrow(-1, 0, n_fft // 2 + 1)
        y = fft.irfft(frames, n=n_fft, dim=-1, norm=norm)
    w = _padded_window(window, n_fft, win, y)
    y = y * w  # (batch, frames, n_fft)
    total = n_fft + hop * (n_frames - 1)

    def overlap_add(blocks):  # (batch, frames, n_fft) -> (batch, total)
        cols = blocks.transpose(1, 2)
        return F.fold(cols, (1, total), (1, n_fft), stride=(1, hop)).reshape(blocks.shape[0], total)

    signal = overlap_add(y)
    envelope = overlap_add((w * w).expand(1, n_frames, n_fft))[0]
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    elif center:  # PyTorch slices to -(n_fft // 2): nothing at all for n_fft = 1
        end = total - n_fft // 2 if n_fft // 2 else 0
    else:
        end = total
    end = min(max(end, start), total)
    signal, envelope = signal[:, start:end], envelope[start:end]
    if envelope.numel() and bool((envelope.abs().min() < 1e-11).item()):
        raise fail("window overlap add min: 1\n[ CPUBoolType{} ]", sep=" ")
    signal = signal / envelope
    if length is not None and signal.shape[-1] < length:
        signal = F.pad(signal, [0, length - signal.shape[-1]])
    if input.dim() == 2:
        signal = signal.squeeze(0)
    return signal
