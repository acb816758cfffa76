# The Regintel API image: python:3.11-slim, dependencies from uv.lock only (no dev group).
# Build context is the repository root (see .dockerignore).
FROM ghcr.io/astral-sh/uv:0.13 AS uv

FROM python:3.11-slim AS runtime

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    UV_PYTHON_DOWNLOADS=never \
    UV_PROJECT_ENVIRONMENT=/app/.venv \
    PATH="/app/.venv/bin:${PATH}" \
    REGINTEL_ENVIRONMENT=prod
# prod by default: Supabase tokens only, no development keys (they are published and work
# from loopback only even in dev); the image does not start without a Supabase signing key.

COPY --from=uv /uv /usr/local/bin/uv
WORKDIR /app

# Dependencies first, in their own layer: it is rebuilt only when the lock changes.
COPY pyproject.toml uv.lock README.md ./
RUN uv sync --frozen --no-dev --no-install-project

# Then the code and the data it reads at run time (schema, seeds); .dockerignore keeps tests,
# docs, benchmarks and local state out.
COPY . ./
RUN uv sync --frozen --no-dev \
    && useradd --system --uid 10001 --home-dir /app regintel \
    && mkdir -p /app/var \
    && chown -R regintel /app/var

USER regintel
EXPOSE 8000
VOLUME ["/app/var"]

HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=5 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=4)"]

# uvloop and the httptools parser, with a deadline for request heads (api/server.py,
# REGINTEL_HEADER_READ_TIMEOUT_SECONDS; ADR 0019, ADR 0029)
CMD ["uvicorn", "api.app:create_app", "--factory", "--host", "0.0.0.0", "--port", "8000", \
     "--loop", "uvloop", "--http", "api.server:TimedHttpToolsProtocol", "--timeout-keep-alive", "5"]
