"""``python -m tests.support.web_bench_server --port P``: the real API in its own process, served
like ``regintel serve`` (``api.server``) with the offline extractive provider, plus one route for
``bench/web_bench.py``: ``POST /bench/nodes`` (``{"nodes": [{id, label, properties}]}``) writes
the nodes through the served app's own ``GraphWriteService`` (ingress guard, timestamps, change
listeners: the graph stream sees them as it sees any write). Everything else comes from
``REGINTEL_*`` variables, as in production. A benchmark's server only: the route has no
authentication, and the product's app never has it.
"""

from __future__ import annotations

import argparse

from starlette.requests import Request
from starlette.responses import JSONResponse

from api.app import create_app
from api.bootstrap import Container
from api.server import serve
from api.settings import Settings
from engine.lexicon import ConceptLexicon
from engine.providers.extractive import ExtractiveProvider
from graph.models import NodeWrite

__all__ = ["main", "write_nodes"]


async def write_nodes(request: Request) -> JSONResponse:
    """Write the posted nodes through the app's write service; answers once they committed."""
    container: Container = request.app.state.container
    body = await request.json()
    nodes = [NodeWrite.model_validate(node) for node in body["nodes"]]
    results = await container.writer.upsert_nodes(nodes)
    return JSONResponse({"written": len(results)})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    settings = Settings()
    lexicon = ConceptLexicon.from_eurovoc()
    provider = ExtractiveProvider(lexicon)
    app = create_app(settings, lexicon=lexicon, providers={"extractive": provider})
    app.add_route("/bench/nodes", write_nodes, methods=["POST"])
    serve(app, settings, host=args.host, port=args.port)


if __name__ == "__main__":
    main()
