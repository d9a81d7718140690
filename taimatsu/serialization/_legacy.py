"""Files that are not zip checkpoints: PyTorch's pre-1.6 formats, plain pickles and garbage.

PyTorch sends every such file through its legacy readers: a real file at offset 0 is first tried
as the (pre-0.4) tar format, then the stream is unpickled (by the weights-only unpickler when
``weights_only``) expecting the legacy format's magic number. Whatever the file holds, the error a
user sees comes from that path: ``Invalid magic number; corrupt file?`` for a plain pickle, the
unpickler's own error for bytes that are not a pickle, ``EOFError`` for an empty file. taimatsu
runs the same steps so the errors are PyTorch's, and refuses a genuine legacy checkpoint (magic
number and protocol version right) with a message saying how to convert it.
"""

from __future__ import annotations

import io
import tarfile

LEGACY_MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
LEGACY_PROTOCOL_VERSION = 1001

_CONVERT = (
    "taimatsu.load reads only the zip checkpoint format (torch.save since PyTorch 1.6); load this file with "
    "PyTorch and save it again with torch.save to convert it"
)


def load_legacy(f, unsafe_message: str, unpickle_one) -> None:
    """Raise PyTorch's error for a non-zip file ``f``; ``unpickle_one(f)`` reads one pickle from it.

    ``unpickle_one`` is the weights-only unpickler or the user's pickle module, as PyTorch uses it.
    ``weights_only`` shows as ``unsafe_message`` being set (PyTorch's text for the tar refusal).
    """
    if _is_real_file(f) and f.tell() == 0 and _is_tar(f):
        if unsafe_message:
            raise RuntimeError(
                "Cannot use ``weights_only=True`` with files saved in the legacy .tar format. "
                + unsafe_message
            )
        raise RuntimeError(f"this is a legacy .tar checkpoint (PyTorch < 0.4). {_CONVERT}")
    if unpickle_one(f) != LEGACY_MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    version = unpickle_one(f)
    if version != LEGACY_PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {version}")
    raise RuntimeError(
        f"this is a legacy checkpoint (PyTorch < 1.6, or _use_new_zipfile_serialization=False). {_CONVERT}"
    )


def _is_real_file(f) -> bool:
    # PyTorch tries the tar reader only on files backed by a descriptor (not BytesIO)
    try:
        return f.fileno() >= 0
    except (io.UnsupportedOperation, AttributeError):
        return False


def _is_tar(f) -> bool:
    try:
        tarfile.open(fileobj=f, mode="r:", format=tarfile.PAX_FORMAT).close()
    except tarfile.TarError:
        return False
    finally:
        f.seek(0)
    return True
