"""Image summaries (``add_image``, ``add_images``, ``add_figure``): arrays laid out as PyTorch lays
them out (a batch tiled 8 to a row, grey turned to RGB, floats scaled by 255) and PNG-encoded with
Pillow, as PyTorch does (Pillow is needed for images only)."""

from __future__ import annotations

import io

import numpy as np
from tensorboard.compat.proto.summary_pb2 import Summary

from .summary import make_np

_GRID_COLUMNS = 8


def image(tag: str, tensor, rescale: float = 1, dataformats: str = "NCHW") -> Summary:
    hwc = to_hwc(make_np(tensor), dataformats)
    # uint8 images are taken as they are; anything else as values in [0, 1]
    scale = 1 if hwc.dtype == np.uint8 else 255
    pixels = (hwc.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
    return Summary(value=[Summary.Value(tag=tag, image=encode_png(pixels, rescale))])


def encode_png(pixels: np.ndarray, rescale: float = 1) -> Summary.Image:
    from PIL import Image

    height, width, channels = pixels.shape
    picture = Image.fromarray(pixels)
    size = (int(width * rescale), int(height * rescale))
    picture = picture.resize(size, Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    return Summary.Image(
        height=height, width=width, colorspace=channels, encoded_image_string=buffer.getvalue()
    )


def to_hwc(array: np.ndarray, dataformats: str) -> np.ndarray:
    """Height x width x 3 (or 4) from NCHW (a grid), CHW/HWC-like (grey becomes RGB) or HW."""
    if len(set(dataformats)) != len(dataformats):
        raise AssertionError(
            f"You can not use the same dimension shorthand twice.             input_format: {dataformats}"
        )
    if array.ndim != len(dataformats):
        raise AssertionError(
            "size of input tensor and input format are different.         "
            f"tensor shape: {array.shape}, input_format: {dataformats}"
        )
    fmt = dataformats.upper()
    if len(fmt) == 4:
        return grid(array.transpose([fmt.find(c) for c in "NCHW"])).transpose(1, 2, 0)
    if len(fmt) == 3:
        hwc = array.transpose([fmt.find(c) for c in "HWC"])
        return np.concatenate([hwc] * 3, 2) if hwc.shape[2] == 1 else hwc
    hw = array.transpose([fmt.find(c) for c in "HW"])
    return np.stack([hw] * 3, 2)


def grid(nchw: np.ndarray) -> np.ndarray:
    """A batch of images tiled row by row, at most 8 per row, on a black 3-channel canvas."""
    if nchw.shape[1] == 1:
        nchw = np.concatenate([nchw] * 3, 1)
    if nchw.ndim != 4 or nchw.shape[1] != 3:
        raise AssertionError("Input should be a 4D numpy array with 3 channels")
    n, _, h, w = nchw.shape
    cols = min(n, _GRID_COLUMNS)
    rows = -(-n // cols)
    canvas = np.zeros((3, h * rows, w * cols), dtype=nchw.dtype)
    for i in range(n):
        r, c = divmod(i, cols)
        canvas[:, r * h : (r + 1) * h, c * w : (c + 1) * w] = nchw[i]
    return canvas


def figure_to_chw(figure, close: bool = True) -> np.ndarray:
    """A Matplotlib figure rendered by the Agg backend, as a 3 x H x W uint8 array."""
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    w, h = figure.canvas.get_width_height()
    rgba = np.frombuffer(canvas.buffer_rgba(), dtype=np.uint8).reshape(h, w, 4)
    if close:
        plt.close(figure)
    return np.moveaxis(rgba[:, :, :3], 2, 0)
