"""The embedder port's adapters and the vector store (issue 22)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np
import pytest

from embeddings import NoEmbedder, VectorStore, content_key, model_file_name
from embeddings.factory import SHIPPED_VECTORS_DIR, build_embedder, open_vectors
from embeddings.minilm import DEFAULT_MODEL_SHA256, LocalModelEmbedder, default_model_dir
from errors import AdapterClosed, EmbedderUnavailable, EmbeddingMismatch

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def minilm() -> LocalModelEmbedder:
    return LocalModelEmbedder(max_tokens=128)


def test_the_wheel_holds_the_upstream_weights() -> None:
    folder = default_model_dir()
    assert folder is not None
    digest = hashlib.sha256((folder / "model.safetensors").read_bytes()).hexdigest()
    assert digest == DEFAULT_MODEL_SHA256


def test_local_model_ranks_by_meaning(minilm: LocalModelEmbedder) -> None:
    vectors = minilm.embed(
        [
            "Can I make a company delete everything they hold about me?",
            "Right to erasure: the data subject shall have the right to obtain the erasure of "
            "personal data concerning him or her without undue delay",
            "Own funds requirements for issuers of asset-referenced tokens",
        ]
    )
    assert vectors.shape == (3, 384) and minilm.dimension == 384
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2
    # Deterministic, and one text gets the same vector alone or in a batch.
    assert np.allclose(minilm.embed(["Own funds requirements for issuers of asset-referenced "
                                     "tokens"])[0], vectors[2], atol=1e-5)  # fmt: skip


def test_a_changed_weights_file_is_refused(tmp_path: Path) -> None:
    folder = default_model_dir()
    assert folder is not None
    copy = tmp_path / "model"
    shutil.copytree(folder, copy)
    with (copy / "model.safetensors").open("r+b") as file:
        file.seek(-8, 2)
        file.write(b"\x00" * 8)
    with pytest.raises(EmbedderUnavailable, match="sha256"):
        LocalModelEmbedder(copy)
    with pytest.raises(EmbedderUnavailable, match=r"config\.json"):
        (copy / "config.json").unlink()
        LocalModelEmbedder(copy, sha256=None)


def test_none_embedder_has_no_dimension_and_no_store(tmp_path: Path) -> None:
    embedder = build_embedder("none")
    assert isinstance(embedder, NoEmbedder) and embedder.dimension == 0
    assert embedder.embed(["a", "b"]).shape == (2, 0)
    assert open_vectors(tmp_path, embedder) is None


def test_vector_store_round_trip_keyed_by_text(tmp_path: Path) -> None:
    store = VectorStore("m/model-a", 4)
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(3, 4)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    keys = [content_key(t) for t in ("one", "two", "three")]
    store.add(keys, vectors)
    store.add([content_key("one")], vectors[2:3])  # a stored text keeps its vector
    path = tmp_path / model_file_name("m/model-a")
    store.save(path)
    loaded = VectorStore.load(path, "m/model-a", 4)
    assert len(loaded) == 3 and loaded.missing([content_key("two"), content_key("four")]) == [
        content_key("four")
    ]
    row = loaded.row_of(content_key("one"))
    assert row is not None
    assert float(loaded.matrix()[row] @ vectors[0]) > 0.995  # int8 quantisation


def test_vectors_of_another_model_name_the_reembed_command(tmp_path: Path) -> None:
    path = tmp_path / "v.npz"
    store = VectorStore("model-a", 4)
    store.add([content_key("x")], np.full((1, 4), 0.5, dtype=np.float32))
    store.save(path)
    with pytest.raises(EmbeddingMismatch, match="regintel embed --rebuild"):
        VectorStore.load(path, "model-b", 4)
    with pytest.raises(EmbeddingMismatch, match="384-d"):
        VectorStore.load(path, "model-a", 384)


def test_shipped_vectors_are_those_of_the_default_model(minilm: LocalModelEmbedder) -> None:
    store = open_vectors(Path("/nonexistent-data-dir"), minilm)
    assert store is not None and len(store) > 2000
    text = "Right to erasure (‘right to be forgotten’)"
    assert store.model == minilm.model and store.dimension == 384
    del text


def test_a_key_ending_in_a_nul_byte_survives_a_round_trip(tmp_path: Path) -> None:
    # numpy's fixed-width bytes drop trailing NULs on read: one key in 256 ends in one.
    store = VectorStore("m/model-a", 4)
    keys = [b"\x01" * 15 + b"\x00", b"\x00" * 16, b"\x02" * 16]
    store.add(keys, np.eye(3, 4, dtype=np.float32))
    store.save(tmp_path / "v.npz")
    loaded = VectorStore.load(tmp_path / "v.npz", "m/model-a", 4)
    assert [loaded.row_of(k) for k in keys] == [0, 1, 2]


def test_a_file_with_more_rows_than_keys_stays_aligned_through_add_and_save(
    tmp_path: Path,
) -> None:
    """A file written before the NUL fix can hold one key twice (``b"k"`` read back short,
    then the same text embedded again as ``b"k\\0"``): its rows outnumber its distinct keys.
    A vector added after loading it, and the file saved again, keep every key on its own row
    (they used to shift by the repeats, pairing texts with other texts' vectors)."""
    twice = b"\x03" * 15 + b"\x00"
    np.savez_compressed(
        tmp_path / "old.npz",
        keys=np.array([twice, b"\x04" * 16, twice], dtype="S16"),
        vectors=np.array([[127, 0, 0, 0], [0, 127, 0, 0], [127, 0, 0, 0]], dtype=np.int8),
        scales=np.ones(3, dtype=np.float32) / 127.0,
        meta=np.array('{"model": "m/model-a", "dimension": 4, "quantised": "int8"}'),
    )
    store = VectorStore.load(tmp_path / "old.npz", "m/model-a", 4)
    store.add([b"\x05" * 16], np.array([[0, 0, 1, 0]], dtype=np.float32))
    store.save(tmp_path / "new.npz")
    again = VectorStore.load(tmp_path / "new.npz", "m/model-a", 4)
    expected = {twice: [1, 0, 0, 0], b"\x04" * 16: [0, 1, 0, 0], b"\x05" * 16: [0, 0, 1, 0]}
    for store_ in (store, again):
        matrix = store_.matrix()
        for key, vector in expected.items():
            row = store_.row_of(key)
            assert row is not None
            assert np.allclose(matrix[row], vector, atol=0.01), key
    assert len(again) == 3 and len(again.matrix()) == 3


def test_four_bit_file_round_trips_without_drift(tmp_path: Path) -> None:
    """The 4-bit width (the shipped file's): cosines kept, a load and save gives back the same
    bytes (no drift), and a store saves in the width it was loaded in."""
    rng = np.random.default_rng(11)
    vectors = rng.normal(size=(50, 33)).astype(np.float32)  # an odd width pads one code a row
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    keys = [content_key(str(i)) for i in range(50)]
    store = VectorStore("m/model-a", 33)
    store.add(keys, vectors)
    store.save(tmp_path / "eight.npz")
    store.save(tmp_path / "four.npz", bits=4)
    assert (tmp_path / "four.npz").stat().st_size < (tmp_path / "eight.npz").stat().st_size
    four = VectorStore.load(tmp_path / "four.npz", "m/model-a", 33)
    assert four.bits == 4
    matrix = four.matrix()
    rows = [four.row_of(k) for k in keys]
    cosines = [float(matrix[row] @ vectors[i]) for i, row in enumerate(rows) if row is not None]
    assert len(cosines) == 50 and min(cosines) > 0.95 and float(np.median(cosines)) > 0.98
    four.save(tmp_path / "again.npz")  # the width it was loaded in
    assert (tmp_path / "again.npz").read_bytes() == (tmp_path / "four.npz").read_bytes()
    assert np.array_equal(
        VectorStore.load(tmp_path / "again.npz", "m/model-a", 33).matrix(), matrix
    )
    with pytest.raises(ValueError, match="bits"):
        store.save(tmp_path / "three.npz", bits=3)


def test_the_same_texts_in_another_width_change_the_fingerprint(tmp_path: Path) -> None:
    # the index cache is keyed by it: an index built over int8 vectors is not reused for 4-bit
    store = VectorStore("m/model-a", 8)
    store.add([content_key("a")], np.linspace(-1, 1, 8, dtype=np.float32)[None, :])
    store.save(tmp_path / "four.npz", bits=4)
    store.save(tmp_path / "eight.npz", bits=8)
    four = VectorStore.load(tmp_path / "four.npz", "m/model-a", 8)
    eight = VectorStore.load(tmp_path / "eight.npz", "m/model-a", 8)
    assert four.fingerprint() != eight.fingerprint()
    assert (
        eight.fingerprint()
        == VectorStore.load(tmp_path / "eight.npz", "m/model-a", 8).fingerprint()
    )


def test_the_shipped_vector_file_fits_the_repository_limit() -> None:
    """A tracked file stays under 5 MB: the shipped vectors are written in 4 bits."""
    path = SHIPPED_VECTORS_DIR / model_file_name("sentence-transformers/all-MiniLM-L6-v2")
    assert path.stat().st_size < 5_000_000


def test_a_closed_local_model_embeds_nothing_more() -> None:
    embedder = LocalModelEmbedder(max_tokens=16)
    assert embedder.embed(["before"]).shape == (1, embedder.dimension)
    embedder.close()
    with pytest.raises(AdapterClosed, match="closed"):
        embedder.embed(["after"])
    embedder.close()  # a second close is quiet


def _forward_passes(embedder: LocalModelEmbedder, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The batch size of each forward pass the embedder makes from now on."""
    passes: list[int] = []
    forward = embedder._forward

    def counted(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        passes.append(ids.shape[0])
        return forward(ids, mask)

    monkeypatch.setattr(embedder, "_forward", counted)
    return passes


def test_a_text_read_as_the_same_tokens_is_computed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = LocalModelEmbedder(max_tokens=128)
    fresh = LocalModelEmbedder(max_tokens=128)
    passes = _forward_passes(embedder, monkeypatch)
    first = embedder.embed(["What is the standard rate of VAT in Ireland?"])
    again = embedder.embed(["what is the  standard rate of vat in IRELAND?"])  # the same ids
    assert passes == [1]
    assert np.array_equal(first, again) and first.shape == (1, 384)
    assert np.array_equal(fresh.embed(["what is the  standard rate of vat in IRELAND?"]), again)
    again[0, :] = 0.0  # the caller's own array: the kept vector is unchanged
    assert np.array_equal(embedder.embed(["What is the standard rate of VAT in Ireland?"]), first)
    other = embedder.embed(["What is the reduced rate of VAT in Ireland?"])
    assert passes == [1, 1] and not np.array_equal(other, first)
    # A batch computes its texts (padded together) and neither reads nor fills the kept ones.
    embedder.embed(["What is the standard rate of VAT in Ireland?", "Class S PRSI"])
    assert passes == [1, 1, 2]


def test_the_oldest_kept_text_is_computed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    import embeddings.minilm as minilm

    monkeypatch.setattr(minilm, "RECENT_TEXTS", 2)
    embedder = LocalModelEmbedder(max_tokens=128)
    passes = _forward_passes(embedder, monkeypatch)
    for text in ("one question", "two questions", "one question", "three questions"):
        embedder.embed([text])
    assert len(passes) == 3  # "one question" read again from the kept vectors
    embedder.embed(["one question"])  # still kept: read again recently
    assert len(passes) == 3
    embedder.embed(["two questions"])  # the least recently used, dropped for "three"
    assert len(passes) == 4
