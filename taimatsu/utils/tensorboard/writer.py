"""``SummaryWriter`` and ``FileWriter``: PyTorch's logging API over tensorboard's ``EventFileWriter``.

What matches PyTorch: the default ``log_dir`` (``runs/<Mon01_12-00-00>_<hostname><comment>``),
event files named by tensorboard, ``purge_step``, ``add_scalar`` (old and new style),
``add_scalars`` (one sub-directory per tag: ``<log_dir>/<main_tag>_<tag>``), ``add_histogram``
(TensorBoard's default buckets or any NumPy ``bins``, ``max_bins``), ``add_histogram_raw``,
``add_text``, ``add_hparams``, ``add_image`` / ``add_images`` / ``add_figure`` (PNG through
Pillow), ``flush``, ``close`` (a later ``add_*`` opens a new event file), and the context manager.
``add_graph`` (the taimatsu trace, see ``graph.py``). Not implemented: audio, video, meshes,
embeddings, PR curves, custom scalar layouts.
"""

from __future__ import annotations

import os
import socket
import time
from datetime import datetime

from tensorboard.compat.proto.event_pb2 import Event, SessionLog, TaggedRunMetadata
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import summary as S


class FileWriter:
    """One event file in ``log_dir``; summaries are wrapped in events with a step and a wall time."""

    def __init__(
        self, log_dir, max_queue: int = 10, flush_secs: int = 120, filename_suffix: str = ""
    ):
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self) -> str:
        return self.event_writer.get_logdir()

    def add_event(self, event: Event, step=None, walltime=None) -> None:
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)  # a NumPy or tensor step would not fit the proto field
        self.event_writer.add_event(event)

    def add_summary(self, summary: Summary, global_step=None, walltime=None) -> None:
        self.add_event(Event(summary=summary), global_step, walltime)

    def add_graph(self, graph_profile, walltime=None) -> None:
        """A ``(GraphDef, RunMetadata)`` pair: the graph event, then its run metadata tagged step1."""
        graph_def, stats = graph_profile
        self.add_event(Event(graph_def=graph_def.SerializeToString()), None, walltime)
        tagged = TaggedRunMetadata(tag="step1", run_metadata=stats.SerializeToString())
        self.add_event(Event(tagged_run_metadata=tagged), None, walltime)

    def flush(self) -> None:
        self.event_writer.flush()

    def close(self) -> None:
        self.event_writer.close()


class SummaryWriter:
    """``torch.utils.tensorboard.SummaryWriter``; see the module docstring for what it covers."""

    def __init__(
        self,
        log_dir=None,
        comment: str = "",
        purge_step: int | None = None,
        max_queue: int = 10,
        flush_secs: int = 120,
        filename_suffix: str = "",
    ) -> None:
        if not log_dir:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", stamp + "_" + socket.gethostname() + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue, self.flush_secs, self.filename_suffix = (
            max_queue,
            flush_secs,
            filename_suffix,
        )
        self.file_writer = self.all_writers = None
        self._get_file_writer()
        self.default_bins = S.tensorflow_bins()

    def _get_file_writer(self) -> FileWriter:
        """The main event file, opened again after ``close``; writes the purge marker once."""
        if self.file_writer is None or self.all_writers is None:
            self.file_writer = self._new_writer(self.log_dir)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                # TensorBoard hides earlier events whose step is >= this one
                self.file_writer.add_event(
                    Event(step=self.purge_step, file_version="brain.Event:2")
                )
                self.file_writer.add_event(
                    Event(step=self.purge_step, session_log=SessionLog(status=SessionLog.START))
                )
                self.purge_step = None
        return self.file_writer

    def _new_writer(self, log_dir) -> FileWriter:
        return FileWriter(log_dir, self.max_queue, self.flush_secs, self.filename_suffix)

    def get_logdir(self):
        return self.log_dir

    # ---- scalars -------------------------------------------------------------------------------
    def add_scalar(
        self,
        tag: str,
        scalar_value,
        global_step=None,
        walltime=None,
        new_style: bool = False,
        double_precision: bool = False,
    ) -> None:
        summary = S.scalar(tag, scalar_value, new_style, double_precision)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_scalars(
        self, main_tag: str, tag_scalar_dict: dict, global_step=None, walltime=None
    ) -> None:
        """Each tag's values go to their own run, ``<log_dir>/<main_tag>_<tag>``, under ``main_tag``."""
        walltime = time.time() if walltime is None else walltime
        root = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            sub = root + "/" + main_tag.replace("/", "_") + "_" + tag
            writer = self.all_writers.get(sub)
            if writer is None:
                writer = self.all_writers[sub] = self._new_writer(sub)
            writer.add_summary(S.scalar(main_tag, value), global_step, walltime)

    # ---- histograms ----------------------------------------------------------------------------
    def add_histogram(
        self, tag: str, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None
    ) -> None:
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._get_file_writer().add_summary(
            S.histogram(tag, values, bins, max_bins=max_bins), global_step, walltime
        )

    def add_histogram_raw(
        self,
        tag: str,
        min,
        max,
        num,
        sum,
        sum_squares,
        bucket_limits,
        bucket_counts,
        global_step=None,
        walltime=None,
    ) -> None:
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        proto = HistogramProto(
            min=min,
            max=max,
            num=num,
            sum=sum,
            sum_squares=sum_squares,
            bucket_limit=bucket_limits,
            bucket=bucket_counts,
        )
        summary = Summary(value=[Summary.Value(tag=tag, histo=proto)])
        self._get_file_writer().add_summary(summary, global_step, walltime)

    # ---- images ----------------------------------------------------------------------------------
    def add_image(
        self, tag: str, img_tensor, global_step=None, walltime=None, dataformats="CHW"
    ) -> None:
        """One image (``CHW`` by default; ``HWC``, ``HW`` with ``dataformats``); floats in [0, 1]."""
        from .images import image

        self._get_file_writer().add_summary(
            image(tag, img_tensor, dataformats=dataformats), global_step, walltime
        )

    def add_images(
        self, tag: str, img_tensor, global_step=None, walltime=None, dataformats="NCHW"
    ) -> None:
        """A batch of images, shown as one grid of up to 8 per row."""
        from .images import image

        self._get_file_writer().add_summary(
            image(tag, img_tensor, dataformats=dataformats), global_step, walltime
        )

    def add_figure(
        self, tag: str, figure, global_step=None, close: bool = True, walltime=None
    ) -> None:
        """A Matplotlib figure (or a list of them, as a grid), rendered to an image."""
        import numpy as np

        from .images import figure_to_chw

        if isinstance(figure, list):
            batch = np.stack([figure_to_chw(f, close) for f in figure])
            self.add_image(tag, batch, global_step, walltime, dataformats="NCHW")
        else:
            self.add_image(
                tag, figure_to_chw(figure, close), global_step, walltime, dataformats="CHW"
            )

    # ---- text and hyperparameters ---------------------------------------------------------------
    def add_text(self, tag: str, text_string: str, global_step=None, walltime=None) -> None:
        self._get_file_writer().add_summary(S.text(tag, text_string), global_step, walltime)

    def add_hparams(
        self,
        hparam_dict: dict,
        metric_dict: dict,
        hparam_domain_discrete: dict | None = None,
        run_name: str | None = None,
        global_step=None,
    ) -> None:
        """One run per call (``<log_dir>/<run_name>``, default the current time) holding the
        hyperparameters and each metric as a scalar, as PyTorch writes them."""
        from .hparams import hparams

        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        exp, start, end = hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        run_dir = os.path.join(self._get_file_writer().get_logdir(), run_name or str(time.time()))
        with SummaryWriter(log_dir=run_dir) as run:
            for proto in (exp, start, end):
                run.file_writer.add_summary(proto, global_step)
            for name, value in metric_dict.items():
                run.add_scalar(name, value, global_step)

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True) -> None:
        """The model's traced forward pass on ``input_to_model`` as a TensorBoard graph (see
        ``graph.py`` for how it differs from PyTorch's TorchScript-traced graph)."""
        from .graph import graph

        self._get_file_writer().add_graph(graph(model, input_to_model))

    # ---- lifetime --------------------------------------------------------------------------------
    def flush(self) -> None:
        for writer in (self.all_writers or {}).values():
            writer.flush()

    def close(self) -> None:
        for writer in (self.all_writers or {}).values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        self.close()
