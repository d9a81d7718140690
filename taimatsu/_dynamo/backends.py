"""The ``backend=`` names PyTorch registers, and ``list_backends``.

taimatsu accepts every name PyTorch accepts and runs eagerly whichever is named. Tags approximate
PyTorch's: its default listing (no ``debug``/``experimental`` tags) is the four names without tags.
"""

from __future__ import annotations

from collections.abc import Sequence

_DEFAULT_LISTED = ("cudagraphs", "inductor", "openxla", "tvm")
_DEBUG = (
    "aot_eager",
    "aot_eager_decomp_partition",
    "aot_eager_decomp_partition_crossref",
    "aot_eager_decomp_partition_with_mode",
    "aot_eager_default_partitioner",
    "aot_ts",
    "dynamo_accuracy_minifier_backend",
    "dynamo_minifier_backend",
    "eager",
    "eager_debug",
    "eager_noexcept",
    "invoke_subgraph",
    "openxla_eval",
    "pre_dispatch_eager",
    "ts",
)
BACKEND_TAGS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(_DEFAULT_LISTED, ()),
    **dict.fromkeys(_DEBUG, ("debug",)),
}


def list_backends(exclude_tags: Sequence[str] | None = ("debug", "experimental")) -> list[str]:
    """The registered backend names whose tags avoid ``exclude_tags``, sorted, as PyTorch lists them."""
    excluded = set(exclude_tags or ())
    return sorted(n for n, tags in BACKEND_TAGS.items() if not excluded.intersection(tags))
