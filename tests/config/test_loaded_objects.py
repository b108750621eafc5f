"""The WSGI application freezes what a worker loads (config.loaded_objects): objects loaded at the start and
by the first requests are left alone by the cycle collector, garbage is never frozen, later objects are not."""

from __future__ import annotations

import gc
import weakref

import pytest

from config.loaded_objects import LoadedObjectsFrozen


class Loaded:
    """Something a request loads for the worker's life (a vocabulary, a template)."""


class Cycle:
    def __init__(self):
        self.me = self


@pytest.fixture
def unfrozen():
    yield
    gc.unfreeze()  # this test process goes on as before


def _collected_generations(obj) -> bool:
    """Whether the cycle collector still walks ``obj`` (frozen objects are in none of its generations)."""
    return any(other is obj for other in gc.get_objects())


def _app(kept: list):
    def application(environ, start_response):
        kept.append(Loaded())
        garbage = Cycle()  # a reference cycle only the collector frees
        environ["garbage"] = weakref.ref(garbage)
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]

    return application


def test_objects_loaded_at_the_start_and_by_the_first_requests_are_frozen(unfrozen):
    kept: list = []
    loaded_before = Loaded()
    app = LoadedObjectsFrozen(_app(kept), requests=2)
    assert not _collected_generations(loaded_before) and gc.get_freeze_count() > 0
    responses, garbage = [], []
    for _ in range(3):
        environ = {}
        responses.append(b"".join(app(environ, lambda status, headers: None)))
        garbage.append(environ["garbage"])
    assert responses == [b"ok"] * 3
    # Collected before each freeze: no garbage is kept for ever (the third request's waits for the collector).
    assert [ref() is None for ref in garbage] == [True, True, False]
    first, second, third = kept
    assert not _collected_generations(first) and not _collected_generations(second)
    assert _collected_generations(third)  # after the first requests the collector works as before
    assert app.left == 0


def test_garbage_made_after_the_first_requests_is_still_collected(unfrozen):
    kept: list = []
    app = LoadedObjectsFrozen(_app(kept), requests=0)
    environ = {}
    app(environ, lambda status, headers: None)
    assert environ["garbage"]() is not None  # nothing collected on the request's way out any more
    gc.collect()
    assert environ["garbage"]() is None


@pytest.mark.django_db
def test_the_ingest_command_freezes_what_the_process_has_loaded(unfrozen):
    from pathlib import Path

    from django.core.management import call_command

    exports = Path(__file__).resolve().parents[1] / "data" / "doe" / "exports"
    loaded_before = Loaded()
    call_command(
        "ingest", "doe", "--file", str(exports / "2026-09-14_ocds.zip"), str(exports / "2026-09-14_eforms.zip")
    )
    assert not _collected_generations(loaded_before)


def test_each_celery_worker_process_freezes_what_it_has_loaded(unfrozen):
    from celery.signals import worker_process_init

    import config.celery  # noqa: F401  (connects the app's handlers)

    loaded_before = Loaded()
    worker_process_init.send(sender=None)  # as a prefork child sends it once it has started
    assert not _collected_generations(loaded_before)
