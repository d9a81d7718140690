"""Run every seed example in order, with a header before each.

python examples/seeds/run_all.py                   # with taimatsu
python examples/seeds/with_torch.py examples/seeds/run_all.py   # with PyTorch, for comparison
"""

import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def seed_scripts() -> list[Path]:
    return sorted(HERE.glob("seed*.py"))


def main() -> None:
    for path in seed_scripts():
        print(f"===== {path.name} =====", flush=True)
        # Each script runs as its own __main__, as if started on the command line.
        runpy.run_path(str(path), run_name="__main__")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
