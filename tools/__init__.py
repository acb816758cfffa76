"""Development tooling that ships beside Regintel but is no part of a running one.

``tools.standin`` is the stand-in model server (``regintel standin``, ADR 0014) that the tests,
demos and benchmarks talk to; ``build_eurovoc_lexicon.py`` derives the committed EuroVoc subset.
Nothing under ``engine/``, ``graph/``, ``egress/`` or ``conversations/`` imports from here.
"""
