"""Checkpoints round-trip exactly, and anything else is refused in one line, never unpickled."""

import io
import json
import os
import pickle
import zipfile

import numpy as np
import pytest

from grpo_desktop.core.tinylm import CheckpointError, TinyLM, load_model
from grpo_desktop.core.tinylm.checkpoint import FORMAT, VERSION
from grpo_desktop.core.tinylm.network import NetworkConfig
from grpo_desktop.core.tinylm.vocab import CHARACTERS, VOCAB_SIZE

SMALL = NetworkConfig(vocab_size=VOCAB_SIZE, n_ctx=24, d_model=16, n_heads=2, n_layers=1, d_mlp=32)


def small_model() -> TinyLM:
    model = TinyLM.initialised(SMALL, seed=5)
    model.info = {"trained_on": "nothing"}
    return model


def arrays_of(model: TinyLM, **meta_changes) -> dict[str, np.ndarray]:
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "config": model.config.as_dict(),
        "vocabulary": CHARACTERS,
        "info": {},
    }
    meta.update(meta_changes)
    arrays = {f"param/{k}": v for k, v in model.parameters().items()}
    arrays["meta"] = np.array(json.dumps(meta))
    return arrays


def write_npz(path, arrays) -> None:
    with open(path, "wb") as handle:
        np.savez(handle, **arrays)


def refused(path) -> str:
    with pytest.raises(CheckpointError) as caught:
        load_model(path)
    message = str(caught.value)
    assert "\n" not in message and str(path) in message
    assert isinstance(caught.value, ValueError)
    return message


def test_round_trip_is_exact(tmp_path):
    model = small_model()
    path = tmp_path / "m.npz"
    model.save(path)
    loaded = load_model(path)
    assert loaded.config == model.config and loaded.info == model.info
    for name, value in model.parameters().items():
        assert loaded.parameters()[name].dtype == value.dtype
        assert np.array_equal(loaded.parameters()[name], value)
    assert loaded.sample("1+2=", 4, seed=9) == model.sample("1+2=", 4, seed=9)


def test_float64_round_trip(tmp_path):
    model = small_model().astype(np.float64)
    model.save(tmp_path / "m.npz")
    assert load_model(tmp_path / "m.npz").dtype == np.float64


def test_shipped_checkpoint_is_small_and_has_no_pickles():
    from importlib import resources

    shipped = resources.files("grpo_desktop.resources").joinpath("tinylm/add.npz")
    data = shipped.read_bytes()
    assert len(data) <= 2 * 2**20
    with np.load(io.BytesIO(data), allow_pickle=False) as npz:
        assert all(npz[name].dtype != object for name in npz.files)
    model = load_model()
    assert 50_000 <= model.n_params <= 300_000
    assert model.config.n_layers in (1, 2)


def test_corrupt_bytes(tmp_path):
    path = tmp_path / "junk.npz"
    path.write_bytes(os.urandom(5000))
    assert "not a tiny-model checkpoint" in refused(path)


def test_truncated(tmp_path):
    small_model().save(tmp_path / "m.npz")
    data = (tmp_path / "m.npz").read_bytes()
    path = tmp_path / "cut.npz"
    path.write_bytes(data[: len(data) // 2])
    refused(path)


def test_empty_file(tmp_path):
    path = tmp_path / "empty.npz"
    path.write_bytes(b"")
    refused(path)


def test_foreign_npz(tmp_path):
    path = tmp_path / "other.npz"
    write_npz(path, {"x": np.arange(3), "y": np.ones((2, 2))})
    assert "meta" in refused(path)


def test_wrong_shape(tmp_path):
    arrays = arrays_of(small_model())
    arrays["param/w_out"] = np.zeros((16, 7), dtype=np.float32)
    path = tmp_path / "shape.npz"
    write_npz(path, arrays)
    assert "'w_out'" in refused(path) and "shape" in refused(path)


def test_missing_and_extra_weights(tmp_path):
    arrays = arrays_of(small_model())
    del arrays["param/b_out"]
    write_npz(tmp_path / "missing.npz", arrays)
    assert "'b_out' is missing" in refused(tmp_path / "missing.npz")
    arrays = arrays_of(small_model())
    arrays["param/extra"] = np.zeros(3, dtype=np.float32)
    write_npz(tmp_path / "extra.npz", arrays)
    assert "unexpected" in refused(tmp_path / "extra.npz")


def test_bad_values_and_types(tmp_path):
    arrays = arrays_of(small_model())
    arrays["param/ln_f.g"] = np.full(16, np.nan, dtype=np.float32)
    write_npz(tmp_path / "nan.npz", arrays)
    assert "NaN" in refused(tmp_path / "nan.npz")
    arrays = arrays_of(small_model())
    arrays["param/ln_f.g"] = np.ones(16, dtype=np.int64)
    write_npz(tmp_path / "int.npz", arrays)
    assert "int64" in refused(tmp_path / "int.npz")


@pytest.mark.parametrize(
    "changes",
    [
        {"format": "something-else"},
        {"version": 99},
        {"vocabulary": "abc"},
        {"config": {"vocab_size": VOCAB_SIZE}},
        {"config": {**SMALL.as_dict(), "d_model": 10**6}},
        {"config": {**SMALL.as_dict(), "n_heads": 3}},
        {"config": {**SMALL.as_dict(), "n_layers": "2"}},
    ],
)
def test_bad_meta(tmp_path, changes):
    path = tmp_path / "meta.npz"
    write_npz(path, arrays_of(small_model(), **changes))
    refused(path)


def test_meta_not_json(tmp_path):
    arrays = arrays_of(small_model())
    arrays["meta"] = np.array("{not json")
    write_npz(tmp_path / "m.npz", arrays)
    assert "JSON" in refused(tmp_path / "m.npz")


class _Trap:
    """Unpickling this would create a file: the tests prove it never happens."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_object_array_is_never_unpickled(tmp_path):
    marker = tmp_path / "unpickled"
    arrays = arrays_of(small_model())
    trap = np.empty(1, dtype=object)
    trap[0] = _Trap(str(marker))
    arrays["meta"] = trap
    write_npz(tmp_path / "pickled.npz", arrays)
    assert "pickled" in refused(tmp_path / "pickled.npz")
    assert not marker.exists()


def test_object_weight_is_never_unpickled(tmp_path):
    marker = tmp_path / "unpickled"
    arrays = arrays_of(small_model())
    trap = np.empty(1, dtype=object)
    trap[0] = _Trap(str(marker))
    arrays["param/b_out"] = trap
    write_npz(tmp_path / "pickled.npz", arrays)
    refused(tmp_path / "pickled.npz")
    assert not marker.exists()


def test_plain_pickle_file_is_never_unpickled(tmp_path):
    marker = tmp_path / "unpickled"
    path = tmp_path / "model.npz"
    path.write_bytes(pickle.dumps(_Trap(str(marker))))
    refused(path)
    assert not marker.exists()


def test_zip_bomb_is_refused_unread(tmp_path):
    path = tmp_path / "bomb.npz"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("meta.npy", b"\0" * (130 * 2**20))
    assert "128 MB" in refused(path)


def test_not_a_file(tmp_path):
    refused(tmp_path)  # a folder
    refused(tmp_path / "absent.npz")
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.npz"
        os.mkfifo(fifo)
        refused(fifo)  # must not block


def _replace_member(path, member: str, data: bytes) -> None:
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    members[member] = data
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)


def test_members_that_are_not_npy_arrays_are_refused_in_one_line(tmp_path):
    """np.load hands back raw bytes for a member without the .npy magic: never a traceback."""
    text_meta = tmp_path / "text_meta.npz"
    with zipfile.ZipFile(text_meta, "w") as archive:
        archive.writestr("meta.npy", "not an array")
    assert "'meta' entry is not one text" in refused(text_meta)
    text_weight = tmp_path / "text_weight.npz"
    write_npz(text_weight, arrays_of(small_model()))
    _replace_member(text_weight, "param/wte.npy", b"not an array")
    assert "'wte' is not an array" in refused(text_weight)
