"""``torch.nn``: modules, parameters, ``functional`` and ``init``."""

from . import functional, init
from .modules import (
    Conv2d,
    CrossEntropyLoss,
    Dropout,
    Flatten,
    Identity,
    Linear,
    LogSoftmax,
    MaxPool2d,
    Module,
    ModuleDict,
    ModuleList,
    MSELoss,
    NLLLoss,
    ReLU,
    Sequential,
    Sigmoid,
    Softmax,
    Tanh,
)  # fmt: skip
from .parameter import Buffer, Parameter

__all__ = [
    "Buffer", "Conv2d", "CrossEntropyLoss", "Dropout", "Flatten", "Identity", "Linear", "LogSoftmax",
    "MSELoss", "MaxPool2d", "Module", "ModuleDict", "ModuleList", "NLLLoss", "Parameter", "ReLU",
    "Sequential", "Sigmoid", "Softmax", "Tanh", "functional", "init",
]  # fmt: skip
