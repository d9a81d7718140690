"""Run a script with real PyTorch standing in for taimatsu: the oracle for the seed examples.

    python examples/seeds/with_torch.py examples/seeds/seed3_detach_clone.py
    python examples/seeds/with_torch.py examples/seeds/run_all.py

Every `torch.*` module already imported is registered as the matching `taimatsu.*` module, so
`import taimatsu as torch`, `import taimatsu.nn.functional as F` and `from taimatsu.autograd
import Variable` all resolve to PyTorch. taimatsu itself is never imported.
PyTorch is not a dependency of taimatsu; the test install (`pip install -e '.[test]'`) brings it.
"""

import runpy
import sys

try:
    import torch  # noqa: F401 -- imported for the modules it puts in sys.modules
except ModuleNotFoundError as e:
    if e.name != "torch":
        raise  # torch is there but broken: its own traceback says more
    sys.exit(
        "with_torch.py runs a script on PyTorch, which is not installed here: "
        "pip install torch==2.13.0 (or pip install -e '.[test]')"
    )


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
