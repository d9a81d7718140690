"""The layers of ``torch.nn``."""

from .activation import LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .container import ModuleDict, ModuleList, Sequential
from .conv import Conv2d
from .dropout import Dropout
from .flatten import Flatten
from .linear import Identity, Linear
from .loss import CrossEntropyLoss, MSELoss, NLLLoss
from .module import Module
from .pooling import MaxPool2d

__all__ = [
    "Conv2d", "CrossEntropyLoss", "Dropout", "Flatten", "Identity", "Linear", "LogSoftmax", "MSELoss",
    "MaxPool2d", "Module", "ModuleDict", "ModuleList", "NLLLoss", "ReLU", "Sequential", "Sigmoid",
    "Softmax", "Tanh",
]  # fmt: skip
