"""Run a script with real PyTorch standing in for taimatsu: the oracle for the seed examples.

    python examples/seeds/with_torch.py examples/seeds/seed3_detach_clone.py
    python examples/seeds/with_torch.py examples/seeds/run_all.py

Every `torch.*` module already imported is registered as the matching `taimatsu.*` module, so
`import taimatsu as torch`, `import taimatsu.nn.functional as F` and `from taimatsu.autograd
import Variable` all resolve to PyTorch. taimatsu itself is never imported.
"""

import runpy
import sys

import torch  # noqa: F401 -- imported for the modules it puts in sys.modules


def alias_torch_as_taimatsu() -> None:
    # `import torch` already imports nn, nn.functional, nn.init, autograd, optim, utils.data, ...
    for name, module in list(sys.modules.items()):
        if name == "torch" or name.startswith("torch."):
            sys.modules["taimatsu" + name[len("torch") :]] = module


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: with_torch.py SCRIPT [ARGS...]")
    alias_torch_as_taimatsu()
    sys.argv = sys.argv[1:]
    runpy.run_path(sys.argv[0], run_name="__main__")
