"""Whether reference counts can tell that only the engine holds a gradient.

AccumulateGrad keeps an incoming gradient as ``.grad`` instead of copying it, the engine sums a
node's gradients into the first one, and GELU's backward writes into the gradient it was given,
all where nothing but the engine can see that array (PyTorch decides the same from its tensors'
use counts). The checks count the holders they know -- buffer lists, argument tuples, the local
names of the frames on the way, ``sys.getrefcount``'s own argument -- against
``sys.getrefcount``. A count lower than they assume would let them reuse an array a user still
holds and change it under the user: a silent wrong answer.

CPython 3.10 to 3.13 count every one of those holders (3.10 some more, so it reuses less;
``tests/autograd/test_ownership.py`` checks, on any Python, that gradients a user or a hook
holds are never reused). CPython 3.14
borrows references for local names and call arguments, which lowers the counts, and a
free-threaded build counts per thread; there, and on other interpreters, nothing is reused:
every gradient is copied, which costs memory and time, never bits.
"""

from __future__ import annotations

import sys
import sysconfig


def counts_every_holder(implementation: str, version: tuple, gil_disabled: bool) -> bool:
    """Whether an interpreter counts references as the ownership checks assume."""
    return implementation == "cpython" and (3, 10) <= version[:2] <= (3, 13) and not gil_disabled


COUNTED = counts_every_holder(
    sys.implementation.name,
    tuple(sys.version_info),
    bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
)
