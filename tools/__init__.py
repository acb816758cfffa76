"""Development tooling that ships beside Regintel but is no part of a running one.

``tools.standin`` is the stand-in model server (``regintel standin``, ADR 0014) that the tests,
demos and benchmarks talk to; ``retrieval_eval`` holds the question sets' loaders and the ranking
metrics of ``regintel eval retrieval`` and ``bench/retrieval_bench.py``;
``build_eurovoc_lexicon.py`` derives the committed EuroVoc subset and ``embed_shipped_acts.py``
the shipped acts' vectors.
Nothing under ``engine/``, ``graph/``, ``egress/`` or ``conversations/`` imports from here.
"""
