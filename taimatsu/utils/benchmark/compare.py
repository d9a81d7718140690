"""``torch.utils.benchmark.Compare``: Measurements laid out as PyTorch's text tables.

One table per label; a row per (threads, env, sub_label or stmt), a column per description,
each cell the median in the unit of the table's fastest result. Replicates of one TaskSpec are
merged first. Options as PyTorch's: ``trim_significant_figures``, ``highlight_warnings`` (the
IQR as ``(! XX%)``), ``colorize`` (ANSI colours against the best in the row or column).
"""

from __future__ import annotations

import enum
import math

import numpy as np

from .measurement import Measurement, ordered_unique, select_unit, trim_sigfig, unit_to_english

__all__ = ["Colorize", "Compare"]

BEST = "\033[92m"
GOOD = "\033[34m"
BAD = "\033[2m\033[91m"
VERY_BAD = "\033[31m"
BOLD = "\033[1m"
TERMINATE = "\033[0m"


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _leading_digits(x: float) -> int:
    # PyTorch takes the log in float32 (a tensor of the scaled median)
    return math.ceil(float(np.log10(np.float32(x))))


class _Column:
    """One description's cells: a fixed-width number format shared by the whole column."""

    def __init__(self, grouped: list[tuple], scale: float, trim: bool, highlight: bool) -> None:
        self.grouped = grouped  # the column's results, one tuple per thread-count group
        flat = [m for group in grouped for m in group if m is not None]
        self.trim = trim
        self.highlight = highlight and any(m.has_warnings for m in flat)
        digits = [(_leading_digits(m.median / scale), m) for m in flat]
        unit_digits = max(d for d, _ in digits)
        decimals = min(max(m.significant_figures - d, 0) for d, m in digits) if trim else 1
        width = unit_digits + decimals + (1 if decimals else 0)
        self.template = f"{{:>{width}.{decimals}f}}{{:>{7 if self.highlight else 0}}}"

    def num_to_str(self, value: float | None, sigfigs: int, spread: float | None) -> str:
        if value is None:  # an empty cell as wide as a number
            return " " * len(self.num_to_str(1, sigfigs, None))
        if self.trim:
            value = trim_sigfig(value, sigfigs)
        note = f" (! {spread * 100:.0f}%)" if self.highlight and spread is not None else ""
        return self.template.format(value, note)


def _color(segment: str, value: float, best: float) -> str:
    if value <= best * 1.01 or value <= best + 100e-9:
        return BEST + BOLD + segment + TERMINATE * 2
    if value <= best * 1.1:
        return GOOD + BOLD + segment + TERMINATE * 2
    if value >= best * 5:
        return VERY_BAD + BOLD + segment + TERMINATE * 2
    if value >= best * 2:
        return BAD + segment + TERMINATE * 2
    return segment


class _Row:
    def __init__(self, results, group, show_env, env_width, scale, colorize, threads) -> None:
        self.results, self.group, self.show_env = results, group, show_env
        self.env_width, self.scale, self.colorize = env_width, scale, colorize
        self.threads = threads  # set on the first row of a thread-count group
        self.columns: tuple[_Column, ...] = ()

    def cells(self) -> list[str]:
        first = next(m for m in self.results if m is not None)
        env = f"({first.env})" if self.show_env else ""
        out = ["  " + env.ljust(self.env_width + 4) + first.as_row_name]
        for m, col in zip(self.results, self.columns):
            if m is None:
                out.append(col.num_to_str(None, 1, None))
            else:
                spread = m.iqr / m.median if m.has_warnings else None
                out.append(col.num_to_str(m.median / self.scale, m.significant_figures, spread))
        return out

    def separator(self, width: int) -> list[str]:
        return [] if self.threads is None else [f"{self.threads} threads: ".ljust(width, "-")]

    def finalize(self, cells: list[str], widths: list[int]) -> list[str]:
        if self.colorize == Colorize.ROWWISE:
            row_best = min(m.median for m in self.results if m is not None)
            best = [row_best] * len(cells)
        elif self.colorize == Colorize.COLUMNWISE:
            best = []
            for col in self.columns:
                medians = [m.median for m in col.grouped[self.group] if m is not None]
                best.append(min(medians) if medians else None)
        else:
            best = [None] * len(cells)
        out = [cells[0].ljust(widths[0])]
        for cell, width, m, b in zip(cells[1:], widths[1:], self.results, best):
            cell = cell.center(width)
            if self.colorize != Colorize.NONE and m is not None and b is not None:
                cell = _color(cell, m.median, b)
            out.append(cell)
        return out


class _Table:
    """The results sharing one label."""

    def __init__(self, results: list[Measurement], colorize, trim: bool, highlight: bool) -> None:
        if len({r.label for r in results}) != 1:
            raise AssertionError("All results must share the same label")
        self.results, self.label, self.highlight = results, results[0].label, highlight
        self.unit, self.scale = select_unit(min(r.median for r in results))
        row_keys = ordered_unique((r.num_threads, r.env, r.as_row_name) for r in results)
        row_keys.sort(key=lambda k: k[:2])  # stable: statements keep their order
        self.column_keys = ordered_unique(r.description for r in results)
        grid = {k: [None] * len(self.column_keys) for k in row_keys}
        col_of = {k: j for j, k in enumerate(self.column_keys)}
        for r in results:
            grid[(r.num_threads, r.env, r.as_row_name)][col_of[r.description]] = r
        envs = {r.env for r in results}
        show_env = len(envs) > 1
        env_width = max(len(e) for e in envs) if show_env else 0

        self.rows: list[_Row] = []
        groups: list[list[list]] = []
        prior_threads, prior_env = -1, ""
        for key in row_keys:
            threads, env, _ = key
            new_group = threads != prior_threads
            if new_group:
                prior_threads, prior_env = threads, ""
                groups.append([])
            self.rows.append(_Row(grid[key], len(groups) - 1, show_env and env != prior_env,
                                  env_width, self.scale, colorize,
                                  threads if new_group else None))  # fmt: skip
            groups[-1].append(grid[key])
            prior_env = env
        columns = tuple(
            _Column([tuple(row[j] for row in g) for g in groups], self.scale, trim, highlight)
            for j in range(len(self.column_keys))
        )
        for row in self.rows:
            row.columns = columns

    def render(self) -> str:
        string_rows = [["", *self.column_keys]] + [row.cells() for row in self.rows]
        n_cols = max(len(r) for r in string_rows)
        for r in string_rows:
            r.extend([""] * (n_cols - len(r)))
        widths = [max(len(c) for c in col) for col in zip(*string_rows)]
        header = "  |  ".join(c.center(w) for c, w in zip(string_rows[0], widths))
        lines = [header]
        for cells, row in zip(string_rows[1:], self.rows):
            lines.extend(row.separator(len(header)))
            lines.append("  |  ".join(row.finalize(cells, widths)))
        title = f" {self.label or ''} ".center(len(header) - 2, "-")
        note = ""
        if self.highlight and any(r.has_warnings for r in self.results):
            note = "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n"
        body = "\n".join(lines)
        return f"[{title}]\n{body}\n\nTimes are in {unit_to_english(self.unit)}s ({self.unit}).\n{note}"


class Compare:
    """Collects Measurements and prints them as tables (``print(compare)`` or ``compare.print()``)."""

    def __init__(self, results: list[Measurement]) -> None:
        self._results: list[Measurement] = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self) -> str:
        return "\n".join(self._render())

    def extend_results(self, results) -> None:
        for r in results:
            if not isinstance(r, Measurement):
                raise ValueError(  # noqa: TRY004  (PyTorch raises ValueError)
                    f"Expected an instance of `Measurement`, got {type(r)} instead."
                )
        self._results.extend(results)

    def trim_significant_figures(self) -> None:
        self._trim_significant_figures = True

    def colorize(self, rowwise: bool = False) -> None:
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self) -> None:
        self._highlight_warnings = True

    def print(self) -> None:
        print(str(self))

    def _render(self) -> list[str]:
        by_label: dict = {}
        for r in Measurement.merge(self._results):
            by_label.setdefault(r.label, []).append(r)
        return [
            _Table(
                group, self._colorize, self._trim_significant_figures, self._highlight_warnings
            ).render()
            for group in by_label.values()
        ]
