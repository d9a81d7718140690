"""The order in which PyTorch's CPU ``topk`` returns tied keys: libstdc++'s partial_sort /
nth_element + sort, restated on a Python list. Used by ``random.py`` (``multinomial`` without
replacement ranks keys with topk) and by ``ops/sorting/sort.py``.
"""

from __future__ import annotations

# ------------------------------------------------------------------------------ topk with ties


def _cpu_topk(keys: list[float], k: int) -> list[int]:
    """The indices torch.topk(keys, k) returns on the CPU, ties included: topk_impl_loop runs
    libstdc++'s std::partial_sort when k * 64 <= n, else std::nth_element and then std::sort of
    the first k - 1. Neither is stable, so equal keys come out in the order these algorithms
    (GCC 13's, restated below on a list, greater key first) leave them."""
    items = [(key, i) for i, key in enumerate(keys)]
    if k * 64 <= len(items):
        _heap_select(items, 0, k, len(items))
        _sort_heap(items, 0, k)
    else:
        _introselect(items, 0, k - 1, len(items), 2 * (len(items).bit_length() - 1))
        _sort(items, 0, k - 1)
    return [i for _, i in items[:k]]


def _before(a: tuple, b: tuple) -> bool:
    return a[0] > b[0]


def _sort(v: list, first: int, last: int) -> None:
    if last - first > 1:
        _introsort_loop(v, first, last, 2 * ((last - first).bit_length() - 1))
        _insertion_sort(v, first, min(last, first + 16))
        for i in range(first + 16, last):
            _linear_insert(v, i)


def _introsort_loop(v: list, first: int, last: int, depth: int) -> None:
    while last - first > 16:
        if depth == 0:
            _heap_select(v, first, last, last)
            _sort_heap(v, first, last)
            return
        depth -= 1
        cut = _partition_pivot(v, first, last)
        _introsort_loop(v, cut, last, depth)
        last = cut


def _introselect(v: list, first: int, nth: int, last: int, depth: int) -> None:
    while last - first > 3:
        if depth == 0:
            _heap_select(v, first, nth + 1, last)
            v[first], v[nth] = v[nth], v[first]
            return
        depth -= 1
        cut = _partition_pivot(v, first, last)
        first, last = (cut, last) if cut <= nth else (first, cut)
    _insertion_sort(v, first, last)


def _partition_pivot(v: list, first: int, last: int) -> int:
    """Median of three moved to `first`, then the unguarded Hoare partition around it."""
    a, b, c = first + 1, first + (last - first) // 2, last - 1
    if _before(v[a], v[b]):
        median = b if _before(v[b], v[c]) else (c if _before(v[a], v[c]) else a)
    else:
        median = a if _before(v[a], v[c]) else (c if _before(v[b], v[c]) else b)
    v[first], v[median] = v[median], v[first]
    pivot, lo, hi = v[first], first + 1, last
    while True:
        while _before(v[lo], pivot):
            lo += 1
        hi -= 1
        while _before(pivot, v[hi]):
            hi -= 1
        if lo >= hi:
            return lo
        v[lo], v[hi] = v[hi], v[lo]
        lo += 1


def _insertion_sort(v: list, first: int, last: int) -> None:
    for i in range(first + 1, last):
        if _before(v[i], v[first]):
            v[first : i + 1] = [v[i], *v[first:i]]
        else:
            _linear_insert(v, i)


def _linear_insert(v: list, last: int) -> None:
    value = v[last]
    while _before(value, v[last - 1]):
        v[last] = v[last - 1]
        last -= 1
    v[last] = value


def _heap_select(v: list, first: int, middle: int, last: int) -> None:
    length = middle - first
    for parent in range((length - 2) // 2, -1, -1) if length >= 2 else ():
        _adjust_heap(v, first, parent, length, v[first + parent])
    for i in range(middle, last):
        if _before(v[i], v[first]):
            value, v[i] = v[i], v[first]
            _adjust_heap(v, first, 0, length, value)


def _sort_heap(v: list, first: int, last: int) -> None:
    while last - first > 1:
        last -= 1
        value, v[last] = v[last], v[first]
        _adjust_heap(v, first, 0, last - first, value)


def _adjust_heap(v: list, first: int, hole: int, length: int, value: tuple) -> None:
    """Sift the hole down to a leaf along the larger children, then push `value` back up."""
    top, child = hole, hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if _before(v[first + child], v[first + child - 1]):
            child -= 1
        v[first + hole] = v[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        v[first + hole] = v[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and _before(v[first + parent], value):
        v[first + hole] = v[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    v[first + hole] = value
