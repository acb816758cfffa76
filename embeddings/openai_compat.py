"""An OpenAI-compatible ``/v1/embeddings`` client: OpenAI, Azure OpenAI, vLLM, Ollama,
llama.cpp's server and Hugging Face TEI all accept this request.

``POST {base_url}/embeddings`` with ``{"model", "input": [texts], "encoding_format": "float"}``
(plus ``dimensions`` when configured), bearer token when one is set; the reply's ``data`` rows
are put back in ``index`` order and normalised. Batches of :data:`BATCH` texts. Errors become
:class:`errors.EmbedderUnavailable` (``raise ... from``), so a search can fall back to lexical
retrieval and an ingest stops with a clear message.

The call is synchronous (see :mod:`embeddings.port` for why) over one ``httpx.Client`` with a
short timeout; the dimension is learnt from the first reply unless configured.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np

from embeddings.port import Vectors, normalise
from errors import AdapterClosed, EmbedderUnavailable

__all__ = ["BATCH", "OpenAICompatibleEmbedder"]

BATCH = 64


class OpenAICompatibleEmbedder:
    """The :class:`embeddings.Embedder` port over HTTP (see the module docstring)."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        dimension: int | None = None,
        timeout_s: float = 5.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            base_url=base_url.rstrip("/") + "/",
            headers=headers,
            timeout=timeout_s,
            transport=transport,
        )
        self._model = model
        self._requested = dimension
        self._dimension = dimension
        self._closed = False

    @property
    def model(self) -> str:
        return self._model

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = int(self.embed(["dimension probe"]).shape[1])
        return self._dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        if self._closed:
            raise AdapterClosed("the embeddings client was closed")
        rows: list[Vectors] = []
        for start in range(0, len(texts), BATCH):
            rows.append(self._batch(list(texts[start : start + BATCH])))
        if not rows:
            return np.zeros((0, self._dimension or 0), dtype=np.float32)
        matrix = np.concatenate(rows)
        if self._dimension is None:
            self._dimension = int(matrix.shape[1])
        return matrix

    def _batch(self, texts: list[str]) -> Vectors:
        body: dict[str, Any] = {"model": self._model, "input": texts, "encoding_format": "float"}
        if self._requested:
            body["dimensions"] = self._requested
        try:
            response = self._client.post("embeddings", json=body)
            response.raise_for_status()
            data = response.json()["data"]
            ordered = sorted(data, key=lambda row: int(row["index"]))
            matrix = np.array([row["embedding"] for row in ordered], dtype=np.float32)
        except httpx.HTTPStatusError as exc:
            raise EmbedderUnavailable(
                f"/v1/embeddings answered {exc.response.status_code}: {exc.response.text[:200]}"
            ) from exc
        except httpx.HTTPError as exc:
            raise EmbedderUnavailable(f"/v1/embeddings unreachable: {exc}") from exc
        except (KeyError, TypeError, ValueError) as exc:
            raise EmbedderUnavailable(f"/v1/embeddings sent an unexpected body: {exc}") from exc
        if matrix.ndim != 2 or len(matrix) != len(texts):
            raise EmbedderUnavailable(
                f"/v1/embeddings sent {len(matrix)} vectors for {len(texts)} texts"
            )
        if self._dimension is not None and matrix.shape[1] != self._dimension:
            raise EmbedderUnavailable(
                f"/v1/embeddings sent {matrix.shape[1]}-d vectors, {self._dimension}-d expected"
            )
        return normalise(matrix)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._client.close()
