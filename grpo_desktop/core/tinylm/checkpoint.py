"""Checkpoints: the weights in a compressed ``.npz``, read as data and never executed.

A checkpoint is a zip of ``.npy`` arrays: ``param/<name>`` for each weight and ``meta``, one JSON
string (format, version, sizes, vocabulary, what it was trained on). Reading checks everything
before a model is built — a regular file of bounded size, a zip of bounded unpacked size, no
pickled arrays (``allow_pickle=False``), the format and vocabulary, every weight present with its
shape, float32 or float64, finite — and fails with one line naming the file
(:class:`CheckpointError`, a ValueError), so the CLI can exit 2 and the window can say why.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from typing import Any

import numpy as np

from grpo_desktop.core.common.atomic import write_bytes_atomically
from grpo_desktop.core.common.jsonfile import NotARegularFileError, read_regular_file
from grpo_desktop.core.tinylm.network import NetworkConfig, param_shapes
from grpo_desktop.core.tinylm.vocab import CHARACTERS, VOCAB_SIZE

__all__ = [
    "FORMAT",
    "MAX_CHECKPOINT_BYTES",
    "VERSION",
    "CheckpointError",
    "read_checkpoint",
    "write_checkpoint",
]

FORMAT = "grpo-desktop-tinylm"
VERSION = 1
MAX_CHECKPOINT_BYTES = 32 * 2**20  # the shipped one is well under 1 MB
_MAX_UNPACKED_BYTES = 128 * 2**20  # a zip that would unpack past this is refused unread
_LIMITS = {"n_ctx": 512, "d_model": 1024, "n_heads": 64, "n_layers": 12, "d_mlp": 4096}
_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


class CheckpointError(ValueError):
    """A file that is not a usable tiny-model checkpoint; the message names the file."""


def write_checkpoint(
    path: str | os.PathLike[str],
    config: NetworkConfig,
    params: dict[str, np.ndarray],
    info: dict[str, Any] | None = None,
) -> None:
    """Save ``params`` (compressed) with the sizes and ``info`` (JSON-able), atomically."""
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "config": config.as_dict(),
        "vocabulary": CHARACTERS,
        "info": info or {},
    }
    arrays = {f"param/{name}": np.ascontiguousarray(params[name]) for name in param_shapes(config)}
    arrays["meta"] = np.array(json.dumps(meta, sort_keys=True))
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    write_bytes_atomically(path, buffer.getvalue())


def read_checkpoint(
    path: str | os.PathLike[str],
) -> tuple[NetworkConfig, dict[str, np.ndarray], dict[str, Any]]:
    """(sizes, weights, info) of the checkpoint at ``path``; CheckpointError if it is not one."""
    name = str(path)
    try:
        data = read_regular_file(path, MAX_CHECKPOINT_BYTES)
    except NotARegularFileError as error:
        raise CheckpointError(f"{name}: cannot open a model: {error}") from None
    except OSError as error:
        raise CheckpointError(f"{name}: cannot read: {error.strerror or error}") from None
    if len(data) > MAX_CHECKPOINT_BYTES:
        raise CheckpointError(
            f"{name}: too large for a tiny-model checkpoint "
            f"(over {MAX_CHECKPOINT_BYTES // 2**20} MB)"
        )
    try:
        return _parse(data)
    except CheckpointError as error:
        raise CheckpointError(f"{name}: not a tiny-model checkpoint: {error}") from None


def _parse(data: bytes) -> tuple[NetworkConfig, dict[str, np.ndarray], dict[str, Any]]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        entries = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError):
        raise CheckpointError("not a readable .npz (zip) file") from None
    if sum(entry.file_size for entry in entries) > _MAX_UNPACKED_BYTES:
        raise CheckpointError("its arrays would unpack to more than 128 MB")
    names = {entry.filename.removesuffix(".npy") for entry in entries}
    if "meta" not in names:
        raise CheckpointError("it has no 'meta' entry")
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            meta = _meta(npz["meta"])
            config = _config(meta)
            params = _params(npz, names, config)
    except CheckpointError:
        raise
    except (ValueError, OSError, EOFError, KeyError, zipfile.BadZipFile) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        if "pickle" in reason:
            reason = "it holds pickled objects, which are never loaded"
        raise CheckpointError(f"an array cannot be read ({reason})") from None
    info = meta.get("info", {})
    return config, params, info if isinstance(info, dict) else {}


def _meta(array: object) -> dict[str, Any]:
    # A member that is not a .npy array comes back from np.load as raw bytes.
    if not isinstance(array, np.ndarray) or array.dtype.kind != "U" or array.shape != ():
        raise CheckpointError("its 'meta' entry is not one text")
    try:
        meta = json.loads(str(array[()]))
    except ValueError:
        raise CheckpointError("its 'meta' entry is not JSON") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CheckpointError(f"its format is not {FORMAT!r}")
    if meta.get("version") != VERSION:
        raise CheckpointError(f"version {meta.get('version')!r}; this app reads version {VERSION}")
    if meta.get("vocabulary") != CHARACTERS:
        raise CheckpointError("its vocabulary differs from this app's characters")
    return meta


def _config(meta: dict[str, Any]) -> NetworkConfig:
    sizes = meta.get("config")
    if not isinstance(sizes, dict) or set(sizes) != set(NetworkConfig.__dataclass_fields__):
        raise CheckpointError("its 'config' does not list the network's sizes")
    for key, value in sizes.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise CheckpointError(f"config {key} must be a whole number from 1, got {value!r}")
        if key in _LIMITS and value > _LIMITS[key]:
            raise CheckpointError(f"config {key} is {value}, above the limit {_LIMITS[key]}")
    config = NetworkConfig(**sizes)
    if config.vocab_size != VOCAB_SIZE:
        raise CheckpointError(f"vocab_size {config.vocab_size}, not {VOCAB_SIZE}")
    if config.d_model % config.n_heads:
        raise CheckpointError(f"d_model {config.d_model} is not a multiple of n_heads")
    return config


def _params(npz, names: set[str], config: NetworkConfig) -> dict[str, np.ndarray]:
    shapes = param_shapes(config)
    expected = {f"param/{name}" for name in shapes}
    missing = sorted(expected - names)
    if missing:
        raise CheckpointError(f"weight {missing[0].removeprefix('param/')!r} is missing")
    extra = sorted(names - expected - {"meta"})
    if extra:
        raise CheckpointError(f"unexpected entry {extra[0]!r}")
    params = {}
    dtypes = set()
    for name, shape in shapes.items():
        array = npz[f"param/{name}"]
        if not isinstance(array, np.ndarray):  # raw bytes: the member is not a .npy array
            raise CheckpointError(f"weight {name!r} is not an array")
        if array.dtype not in _DTYPES:
            raise CheckpointError(f"weight {name!r} is {array.dtype}, not float32 or float64")
        if array.shape != shape:
            raise CheckpointError(f"weight {name!r} has shape {array.shape}, expected {shape}")
        if not np.isfinite(array).all():
            raise CheckpointError(f"weight {name!r} holds NaN or infinite values")
        dtypes.add(array.dtype)
        params[name] = array
    if len(dtypes) > 1:
        raise CheckpointError("its weights mix float32 and float64")
    return params
