"""``torch.profiler``: record which ops ran, for how long, on which shapes (CPU activity)."""

from __future__ import annotations

from . import profiler
from .events import EventList, FunctionEvent, FunctionEventAvg
from .profiler import (
    ProfilerAction,
    ProfilerActivity,
    profile,
    record_function,
    schedule,
    supported_activities,
    tensorboard_trace_handler,
)

__all__ = [
    "EventList",
    "FunctionEvent",
    "FunctionEventAvg",
    "ProfilerAction",
    "ProfilerActivity",
    "profile",
    "profiler",
    "record_function",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]
