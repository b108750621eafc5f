"""What a process loads for its life, left alone by the cycle collector: web workers (``config.wsgi``), Celery's
worker processes (``config.celery``) and ``manage.py ingest``.

Why: a worker keeps its modules, settings, URL patterns, templates and vocabularies for its whole life,
several hundred thousand objects, and every full collection walked all of them again: 0.9 ms of the portal
search's 9–10 ms of Python per request (bench/README.md, "Issue 33, eighth round"). ``gc.freeze`` moves
every object that exists to a generation that is never collected. It runs once the application is loaded
and again after each of the first requests, which load what is read lazily (templates, vocabularies, the
URL resolver's caches); each time after a full collection, so no garbage is kept for ever. What requests
make later is collected as before. An ingest process is the same: a re-read day's run spent a fifth of its time
(80 of 360 ms) in collections walking Django, the apps and the adapters, a first run 0.2 s.
"""

from __future__ import annotations

import gc
import threading

# After this many requests a worker has loaded what it keeps: the portal's pages, the API and the console.
FREEZE_AFTER_REQUESTS = 20


class LoadedObjectsFrozen:
    """``application``, with the objects that exist frozen at the start and after each of its first requests."""

    def __init__(self, application, *, requests: int = FREEZE_AFTER_REQUESTS):
        self.application = application
        self.left = requests
        self._lock = threading.Lock()
        loaded_objects_freeze()

    def __call__(self, environ, start_response):
        response = self.application(environ, start_response)
        if self.left > 0:
            with self._lock:
                if self.left > 0:
                    self.left -= 1
                    loaded_objects_freeze()
        return response


def loaded_objects_freeze() -> None:
    """Every object that exists now, garbage collected first, moved out of the collector's generations."""
    gc.collect()
    gc.freeze()
