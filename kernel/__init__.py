"""The ground floor every app stands on: records, identifiers, links, normalisation, the shared
vocabulary, the outbound network layer and the one application error.

Nothing here imports an app (``accounts``, ``tenders``, ``sources``, ``notifications``) or
``config``; every app may import from here. ``.importlinter`` holds it to that.
"""
