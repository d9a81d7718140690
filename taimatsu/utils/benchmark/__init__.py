"""``torch.utils.benchmark``: ``Timer`` and its ``Measurement`` results, ``Compare`` tables.

The fuzzers (``Fuzzer``, ``FuzzedTensor``) and Callgrind instruction counts are not provided.
"""

from .compare import Colorize, Compare  # noqa: F401
from .measurement import (  # noqa: F401
    Measurement,
    TaskSpec,
    ordered_unique,
    select_unit,
    set_torch_threads,
    trim_sigfig,
    unit_to_english,
)
from .timer import Language, Timer, timer  # noqa: F401
