"""``torch._dynamo.config``: the settings training scripts assign (``suppress_errors``,
``cache_size_limit``, ...), with PyTorch's defaults.

taimatsu compiles nothing (``torch.compile`` runs eagerly), so these values are stored and read back
and change nothing. Deviation: PyTorch refuses to set a name it does not define
(``AttributeError: torch._dynamo.config.x does not exist``); a plain module cannot refuse.
"""

suppress_errors = False
verbose = False
cache_size_limit = 8
recompile_limit = 8
accumulated_cache_size_limit = 256
accumulated_recompile_limit = 256
automatic_dynamic_shapes = True
assume_static_by_default = True
capture_scalar_outputs = False
capture_dynamic_output_shape_ops = False
optimize_ddp = True
inline_inbuilt_nn_modules = True
