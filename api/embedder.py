"""The embedder the settings name (``REGINTEL_EMBEDDER`` ...): settings in, adapter out, for the
composition root and the CLI (``embeddings.factory`` holds the construction)."""

from __future__ import annotations

from api.settings import Settings
from embeddings import Embedder
from embeddings.factory import build_embedder

__all__ = ["build_settings_embedder"]


def build_settings_embedder(settings: Settings) -> Embedder:
    """The configured :class:`embeddings.Embedder` (raises ``EmbedderUnavailable`` when its
    model folder or checksum is wrong: a clear start-up error, not a silent lexical fallback)."""
    return build_embedder(
        settings.embedder,
        model_dir=settings.embedding_model_dir,
        model_sha256=settings.embedding_model_sha256,
        url=settings.embedding_url,
        model=settings.embedding_model,
        api_key=settings.embedding_api_key.get_secret_value() or None,
        dimensions=settings.embedding_dimensions,
        timeout_s=settings.embedding_timeout_seconds,
    )
