"""The three summaries of ``add_hparams`` (experiment, session start, session end) for
TensorBoard's HParams plugin, built with the plugin's own proto classes."""

from __future__ import annotations

from google.protobuf import struct_pb2
from tensorboard.compat.proto.summary_pb2 import Summary, SummaryMetadata
from tensorboard.plugins.hparams import metadata
from tensorboard.plugins.hparams.api_pb2 import (
    DataType,
    Experiment,
    HParamInfo,
    MetricInfo,
    MetricName,
    Status,
)
from tensorboard.plugins.hparams.plugin_data_pb2 import (
    HParamsPluginData,
    SessionEndInfo,
    SessionStartInfo,
)

from ..._tensor.core import Tensor
from .summary import make_np


def hparams(hparam_dict: dict, metric_dict: dict, hparam_domain_discrete: dict | None = None):
    """``(experiment, session_start, session_end)`` summaries; PyTorch's checks and types.

    As in PyTorch, a bool value is recorded as a number (it is an int to ``isinstance``), ``None``
    values are skipped, and anything else but int, float, str and tensors is refused.
    """
    _check(hparam_dict, metric_dict, hparam_domain_discrete or {})
    domains = hparam_domain_discrete or {}
    infos = []
    start = SessionStartInfo()
    for name, value in hparam_dict.items():
        if value is None:
            continue
        if isinstance(value, Tensor):
            value = make_np(value).reshape(-1)[0]
            start.hparams[name].number_value = value
            infos.append(HParamInfo(name=name, type=DataType.Value("DATA_TYPE_FLOAT64")))
            continue
        if isinstance(value, (int, float)):
            field, kind = "number_value", "DATA_TYPE_FLOAT64"
        elif isinstance(value, str):
            field, kind = "string_value", "DATA_TYPE_STRING"
        else:
            raise ValueError(  # noqa: TRY004  (PyTorch raises ValueError)
                "value should be one of int, float, str, bool, or torch.Tensor"
            )
        setattr(start.hparams[name], field, value)
        discrete = None
        if name in domains:
            discrete = struct_pb2.ListValue(
                values=[struct_pb2.Value(**{field: d}) for d in domains[name]]
            )
        infos.append(HParamInfo(name=name, type=DataType.Value(kind), domain_discrete=discrete))
    experiment = Experiment(
        hparam_infos=infos, metric_infos=[MetricInfo(name=MetricName(tag=k)) for k in metric_dict]
    )
    end = SessionEndInfo(status=Status.Value("STATUS_SUCCESS"))
    return (
        _summary(metadata.EXPERIMENT_TAG, HParamsPluginData(experiment=experiment)),
        _summary(metadata.SESSION_START_INFO_TAG, HParamsPluginData(session_start_info=start)),
        _summary(metadata.SESSION_END_INFO_TAG, HParamsPluginData(session_end_info=end)),
    )


def _check(hparam_dict, metric_dict, domains) -> None:
    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in domains.items():
        if (
            k not in hparam_dict
            or not isinstance(v, list)
            or not all(isinstance(d, type(hparam_dict[k])) for d in v)
        ):
            raise TypeError(
                f"parameter: hparam_domain_discrete[{k}] should be a list of same type as hparam_dict[{k}]."
            )


def _summary(tag: str, content: HParamsPluginData) -> Summary:
    content.version = metadata.PLUGIN_DATA_VERSION
    plugin = SummaryMetadata.PluginData(
        plugin_name=metadata.PLUGIN_NAME, content=content.SerializeToString()
    )
    return Summary(value=[Summary.Value(tag=tag, metadata=SummaryMetadata(plugin_data=plugin))])
