"""The OpenAI-compatible ``/v1/embeddings`` adapter over real HTTP against the stand-in."""

from __future__ import annotations

import numpy as np
import pytest

from embeddings.openai_compat import OpenAICompatibleEmbedder
from errors import AdapterClosed, EmbedderUnavailable
from tests.support.standin import running_standin
from tools.standin.embeddings import embed_text

pytestmark = pytest.mark.integration


def test_embeddings_over_http_in_order_normalised_with_a_bearer_token() -> None:
    with running_standin() as standin:
        embedder = OpenAICompatibleEmbedder(
            standin.openai_url, "text-embedding-3-small", api_key="sk-test", dimension=64
        )
        texts = [f"text number {i} about data breaches" for i in range(70)]  # two batches
        vectors = embedder.embed(texts)
        embedder.close()
        bodies = standin.server.requests
        assert vectors.shape == (70, 64) and embedder.dimension == 64
        assert np.allclose(vectors[3], np.array(embed_text(texts[3], 64)), atol=1e-6)
        assert [len(b["input"]) for b in bodies] == [64, 6]
        assert bodies[0]["model"] == "text-embedding-3-small" and bodies[0]["dimensions"] == 64
        assert standin.server.headers[0]["authorization"] == "Bearer sk-test"
        with pytest.raises(AdapterClosed):
            embedder.embed(["after close"])


def test_the_dimension_is_learnt_from_the_first_reply() -> None:
    with running_standin() as standin:
        embedder = OpenAICompatibleEmbedder(standin.openai_url, "nomic-embed-text")
        assert embedder.dimension == 384
        embedder.close()


def test_an_unreachable_or_failing_service_is_embedder_unavailable() -> None:
    with running_standin() as standin:
        url = standin.openai_url
        failing = OpenAICompatibleEmbedder(url.replace("/v1", "/v2"), "m", timeout_s=2)
        with pytest.raises(EmbedderUnavailable, match="404"):
            failing.embed(["x"])
        failing.close()
    gone = OpenAICompatibleEmbedder(url, "m", timeout_s=1)
    with pytest.raises(EmbedderUnavailable, match="unreachable"):
        gone.embed(["x"])
    gone.close()
