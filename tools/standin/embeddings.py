"""``POST /v1/embeddings`` of the stand-in: OpenAI's embeddings API with deterministic vectors.

Each input is embedded as a hashed bag of its lower-cased words (every word adds 1 to the
dimension its sha256 picks, with a sign from the same hash), normalised to unit length: the same
text always gives the same vector, texts sharing words are close, and no model is needed. It
answers the request shape OpenAI, Azure, vLLM, Ollama, llama.cpp and TEI accept (``model``,
``input`` as a string or a list of strings, optional ``dimensions``, ``encoding_format``
``float`` or ``base64``) with ``{object: "list", data: [{object, index, embedding}], model,
usage}``. A request without ``input`` gets OpenAI's 400 error body.
"""

from __future__ import annotations

import base64
import hashlib
import math
import re
import struct
from typing import Any

__all__ = ["DEFAULT_DIMENSIONS", "PATH", "embed_text", "reply"]

PATH = "/v1/embeddings"
DEFAULT_DIMENSIONS = 384
_WORD = re.compile(r"\w+")


def embed_text(text: str, dimensions: int = DEFAULT_DIMENSIONS) -> list[float]:
    """The stand-in's vector of ``text`` (see the module docstring)."""
    vector = [0.0] * dimensions
    for word in _WORD.findall(text.lower()):
        digest = hashlib.sha256(word.encode()).digest()
        index = int.from_bytes(digest[:4], "little") % dimensions
        vector[index] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


def reply(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Status and JSON body for one request."""
    raw = body.get("input")
    if isinstance(raw, str):
        inputs = [raw]
    elif isinstance(raw, list) and raw and all(isinstance(item, str) for item in raw):
        inputs = list(raw)
    else:
        error = {
            "message": "'input' must be a string or a list of strings",
            "type": "invalid_request_error",
            "param": "input",
            "code": None,
        }
        return 400, {"error": error}
    dimensions = int(body.get("dimensions") or DEFAULT_DIMENSIONS)
    as_base64 = body.get("encoding_format") == "base64"
    data = []
    for index, text in enumerate(inputs):
        vector = embed_text(text, dimensions)
        embedding: Any = vector
        if as_base64:
            embedding = base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()
        data.append({"object": "embedding", "index": index, "embedding": embedding})
    tokens = sum(len(_WORD.findall(text)) for text in inputs)
    usage = {"prompt_tokens": tokens, "total_tokens": tokens}
    return 200, {"object": "list", "data": data, "model": body.get("model", ""), "usage": usage}
