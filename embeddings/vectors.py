"""Provision vectors kept beside the graph, keyed by the hash of the text they embed.

A :class:`VectorStore` maps ``content_key(text)`` (the first 16 bytes of the text's sha256) to
the text's vector, so a provision is embedded again only when its text changed, whatever its
id, and the same store serves every graph backend. On disk it is one ``.npz`` file per model
(``vectors/<model>.npz`` in the data folder; the project ships
``seeds/legal/vectors/all-MiniLM-L6-v2.npz`` for the acts it ships): ``keys`` (``S16``),
``vectors`` quantised to signed integers of ``bits`` bits with one float32 scale per row (the
row's largest magnitude maps to the largest code) and ``meta``, a JSON object with the ``model``,
``dimension`` and ``bits`` that made them. Two widths:

- **8 bits** (int8, the default, and what the data folder's store is written in): a unit
  vector's cosines move by under 0.005; 16,600 vectors of 384 take 6 MB compressed.
- **4 bits** (two codes a byte, ``-7..7``): cosines move by ~0.007 (one standard deviation),
  half the size. The shipped file is written so (3.5 MB instead of 6.0 MB, under the
  repository's 5 MB limit for a tracked file); the dev and held-out recall with either width
  are in ADR 0045's addendum.

A store saves in the width it was loaded in (``bits`` on :meth:`VectorStore.save` overrides),
and quantising a row that was read from a file gives back its codes, so loading and saving
again never drifts. Loading a file made by another model or dimension than the embedder raises
:class:`errors.EmbeddingMismatch`, whose message names the command that re-embeds.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from embeddings.port import Vectors
from errors import EmbeddingMismatch, InvalidInput

__all__ = ["REEMBED_COMMAND", "WIDTHS", "VectorStore", "content_key", "model_file_name"]

REEMBED_COMMAND = "regintel embed --rebuild"
WIDTHS = (4, 8)  # bits a code may take in a file


def _quantise(matrix: Vectors, bits: int) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float32]]:
    """Codes in ``-(2**(bits-1) - 1) .. 2**(bits-1) - 1`` and one scale per row."""
    top = 2 ** (bits - 1) - 1
    peaks = np.abs(matrix).max(axis=1) if len(matrix) else np.zeros(0, dtype=np.float32)
    scales = np.maximum(peaks, 1e-12).astype(np.float32) / np.float32(top)
    codes = np.clip(np.rint(matrix / scales[:, None]), -top, top).astype(np.int8)
    return codes, scales


def _pack(codes: npt.NDArray[np.int8], bits: int) -> npt.NDArray[np.int8] | npt.NDArray[np.uint8]:
    if bits == 8:
        return codes
    # 4 bits: offset to 0..14, two codes a byte (the first in the low nibble); an odd width is
    # padded with one code 0 per row.
    shifted = (codes.astype(np.int16) + 7).astype(np.uint8)
    if shifted.shape[1] % 2:
        shifted = np.pad(shifted, ((0, 0), (0, 1)), constant_values=7)
    return (shifted[:, 0::2] | (shifted[:, 1::2] << 4)).astype(np.uint8)


def _unpack(stored: npt.NDArray[np.generic], bits: int, dimension: int) -> Vectors:
    if bits == 8:
        return stored.astype(np.float32)
    packed = stored.astype(np.uint8)
    low = (packed & 0x0F).astype(np.int8) - 7
    high = (packed >> 4).astype(np.int8) - 7
    codes = np.empty((len(packed), 2 * packed.shape[1]), dtype=np.float32)
    codes[:, 0::2], codes[:, 1::2] = low, high
    return codes[:, :dimension]


def content_key(text: str) -> bytes:
    """The store's key of ``text``."""
    return hashlib.sha256(text.encode("utf-8")).digest()[:16]


def model_file_name(model: str) -> str:
    """``sentence-transformers/all-MiniLM-L6-v2`` -> ``all-MiniLM-L6-v2.npz``."""
    tail = model.rstrip("/").rsplit("/", 1)[-1]
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in tail) + ".npz"


class VectorStore:
    """Vectors of one model, by content key (see the module docstring)."""

    def __init__(self, model: str, dimension: int) -> None:
        self.model = model
        self.dimension = dimension
        self._rows: dict[bytes, int] = {}
        self._vectors = np.zeros((0, dimension), dtype=np.float32)
        self._pending: list[Vectors] = []
        self._pending_count = 0
        self.bits = 8  # the width :meth:`save` writes (that of the file loaded, if any)
        self.changed = False

    def __len__(self) -> int:
        return len(self._rows)

    def __contains__(self, key: object) -> bool:
        return key in self._rows

    def missing(self, keys: Iterable[bytes]) -> list[bytes]:
        """The keys the store has no vector for, first occurrence order, without repeats."""
        return [k for k in dict.fromkeys(keys) if k not in self._rows]

    def add(self, keys: Sequence[bytes], vectors: Vectors) -> None:
        """Store ``vectors`` (one row per key); a key already stored keeps its vector."""
        if len(keys) != len(vectors):
            raise ValueError("one vector per key")
        if len(keys) and vectors.shape[1] != self.dimension:
            raise EmbeddingMismatch(
                f"{self.model}: a {vectors.shape[1]}-d vector for a {self.dimension}-d store; "
                f"run `{REEMBED_COMMAND}`"
            )
        fresh = [i for i, key in enumerate(keys) if key not in self._rows]
        if not fresh:
            return
        base = len(self._vectors) + self._pending_count  # rows held: a file may hold more
        for offset, index in enumerate(fresh):  # rows than distinct keys (see ``load``)
            self._rows[keys[index]] = base + offset
        self._pending.append(np.asarray(vectors[fresh], dtype=np.float32))
        self._pending_count += len(fresh)
        self.changed = True

    def matrix(self) -> Vectors:
        """Every stored vector, in row order (``row_of`` gives a key's row)."""
        if self._pending:
            self._vectors = np.concatenate([self._vectors, *self._pending])
            self._pending, self._pending_count = [], 0
        return self._vectors

    def fingerprint(self) -> bytes:
        """A digest of the model, the dimension, the texts held (their keys) and their vectors:
        two stores with the same fingerprint give every text the same vector (the same texts
        read from a file of another width do not)."""
        digest = hashlib.sha256(f"{self.model}\0{self.dimension}\0".encode())
        ordered = sorted(self._rows)
        for key in ordered:
            digest.update(key)
        rows = np.fromiter((self._rows[k] for k in ordered), dtype=np.int64, count=len(ordered))
        digest.update(np.ascontiguousarray(self.matrix()[rows]).tobytes())
        return digest.digest()

    def row_of(self, key: bytes) -> int | None:
        return self._rows.get(key)

    def merge(self, other: VectorStore) -> None:
        """Add every vector of ``other`` (of the same model) this store lacks."""
        self._check(other.model, other.dimension, "another store")
        keys = list(other._rows)
        if keys:
            rows = np.fromiter((other._rows[k] for k in keys), dtype=np.int64, count=len(keys))
            self.add(keys, other.matrix()[rows])

    # -- files -----------------------------------------------------------------------------

    @classmethod
    def load(cls, path: Path, model: str, dimension: int) -> VectorStore:
        """The store at ``path``, for ``model``; an empty store when the file does not exist."""
        store = cls(model, dimension)
        if not path.exists():
            return store
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                keys = data["keys"]
                packed = data["vectors"]
                scales = data["scales"]
        except (OSError, ValueError, KeyError) as exc:
            raise InvalidInput(f"{path}: not a vector store ({exc})") from exc
        store._check(str(meta.get("model")), int(meta.get("dimension", -1)), str(path))
        bits = int(meta.get("bits", 8))  # files before the 4-bit width say "quantised": "int8"
        if bits not in WIDTHS:
            raise InvalidInput(f"{path}: vectors of {bits} bits (this version reads {WIDTHS})")
        store.bits = bits
        vectors = _unpack(packed, bits, dimension) * scales[:, None]
        # numpy's "S16" drops trailing NUL bytes on read: a key ending in 0x00 (one in 256)
        # comes back short and would never match its text again. Keys are 16 bytes: pad back.
        store._rows = {bytes(key).ljust(16, b"\0"): row for row, key in enumerate(keys.tolist())}
        store._vectors = vectors.astype(np.float32)
        store.changed = False
        return store

    def save(self, path: Path, bits: int | None = None) -> None:
        """Write the store to ``path`` atomically (a reader never sees half a file), in
        ``bits`` bits a code (default: :attr:`bits`, the width of the file it was loaded from,
        else 8); the store then saves in that width."""
        bits = self.bits if bits is None else bits
        if bits not in WIDTHS:
            raise ValueError(f"a vector file holds codes of {WIDTHS} bits, not {bits}")
        ordered = sorted(self._rows, key=self._rows.__getitem__)
        rows = np.fromiter((self._rows[k] for k in ordered), dtype=np.int64, count=len(ordered))
        matrix = self.matrix()[rows]  # one row per key, in the keys' order (no orphan row)
        keys = np.array(ordered, dtype="S16")
        codes, scales = _quantise(matrix, bits)
        quantised = _pack(codes, bits)
        meta = json.dumps({"model": self.model, "dimension": self.dimension, "bits": bits,
                           "quantised": f"int{bits}"})  # fmt: skip
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".npz.tmp")
        os.close(handle)
        try:
            with open(temporary, "wb") as file:
                np.savez_compressed(
                    file, keys=keys, vectors=quantised, scales=scales, meta=np.array(meta)
                )
            os.chmod(temporary, 0o644)  # mkstemp makes it private; the store is not secret
            os.replace(temporary, path)
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)
        self.bits = bits
        self.changed = False

    def _check(self, model: str, dimension: int, where: str) -> None:
        if model != self.model or dimension != self.dimension:
            raise EmbeddingMismatch(
                f"{where} holds vectors of {model} ({dimension}-d), but the embedder is "
                f"{self.model} ({self.dimension}-d): run `{REEMBED_COMMAND}` to re-embed the "
                "graph's provisions with the configured model"
            )
