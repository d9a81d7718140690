"""The permutations that `randperm` builds from its draws, without a Python loop.

Split from `random.py`: PyTorch shuffles with a loop of swaps; these compute the loop's result
with NumPy (grouping and pointer doubling).
"""

from __future__ import annotations

import numpy as np


def _fisher_yates(picks: np.ndarray, n: int) -> np.ndarray:
    """The result of `for i in range(n - 1): swap(perm[i], perm[i + picks[i]])` on arange(n),
    without a Python loop.

    Position i is final once step i has run, and step i brings in the value that position
    t = i + picks[i] held just before it. That value reached t at the last earlier step k that
    also targeted t, and was then the value position k held before step k; and so on, a chain
    through earlier steps that ends at a position no earlier step targeted, which still holds its
    own index. Grouping the steps by target finds each link, and pointer doubling walks all the
    chains at once."""
    if n <= 1:
        return np.arange(n, dtype=np.int64)
    step = np.arange(n, dtype=np.int64)
    target = step.copy()  # a no-op last step lets position n - 1 follow the same rule
    target[:-1] += picks
    order, earlier = _group_by(target, step)
    # reached[k]: the last step before k that targeted position k, or k itself if none did
    count = np.bincount(target, minlength=n)
    last = order[np.cumsum(count) - 1]
    reached = np.where(last == step, earlier[last], last)
    reached = np.where((count > 0) & (reached >= 0), reached, step)
    holds = _chain_roots(reached)  # the value position k holds just before step k
    return np.where(earlier >= 0, holds[np.maximum(earlier, 0)], target)


def _inside_out(picks: np.ndarray) -> np.ndarray:
    """The result of the inside-out shuffle `for i in range(n): perm[i] = perm[z]; perm[z] = i`
    with z = picks[i] <= i, without a Python loop: value i lands on picks[i], and every later
    step that picks the position it sits on moves it to that step's own index."""
    n = picks.size
    step = np.arange(n, dtype=np.int64)
    order, earlier = _group_by(picks, step)
    later = np.full(n, -1, np.int64)  # the next step after i that picks the same position
    later[earlier[earlier >= 0]] = step[earlier >= 0]
    # moved_on[k]: the first step after k that picks position k (the value there moves on)
    count = np.bincount(picks, minlength=n)
    first = order[np.minimum(np.cumsum(count) - count, n - 1)]
    moved_on = np.where(first == step, later[first], first)
    moved_on = np.where((count > 0) & (moved_on > step), moved_on, step)
    final = _chain_roots(moved_on)
    perm = np.empty(n, np.int64)
    perm[np.where(later >= 0, final[np.maximum(later, 0)], picks)] = step
    return perm


def _group_by(keys: np.ndarray, step: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The steps sorted by key, then by step; and for each step the previous one with its key."""
    order = np.argsort(keys * len(keys) + step)  # unique composite keys: no stable sort needed
    sorted_keys = keys[order]
    same = sorted_keys[1:] == sorted_keys[:-1]
    earlier = np.full(len(keys), -1, np.int64)
    earlier[order[1:][same]] = order[:-1][same]
    return order, earlier


def _chain_roots(parent: np.ndarray) -> np.ndarray:
    """Follow parent pointers to their fixed points (parent[r] == r) by pointer doubling."""
    root = parent
    while True:
        nxt = root[root]
        if np.array_equal(nxt, root):
            return root
        root = nxt
