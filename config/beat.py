"""Beat's scheduler with a heartbeat, so /health/ can say when beat stopped ticking.

django-celery-beat writes ``last_run_at`` of a schedule only every few minutes and only when a
task was due, which cannot tell a quiet beat from a dead one. This scheduler records the
moment of its latest tick (at most every ``BEAT_HEARTBEAT_SECONDS``) in ``sources.Heartbeat``.
"""

from __future__ import annotations

import logging
import time

from django_celery_beat.schedulers import DatabaseScheduler

logger = logging.getLogger(__name__)

BEAT_HEARTBEAT_SECONDS = 15


class HeartbeatScheduler(DatabaseScheduler):
    _last_heartbeat = 0.0

    def tick(self, *args, **kwargs):
        interval = super().tick(*args, **kwargs)
        if time.monotonic() - self._last_heartbeat >= BEAT_HEARTBEAT_SECONDS:
            from sources.services import heartbeat_record

            try:
                heartbeat_record(name="beat")
                self._last_heartbeat = time.monotonic()
            except Exception:  # a database hiccup must not stop beat; /health/ will show the gap
                logger.warning("could not record beat's heartbeat", exc_info=True)
        return min(interval, BEAT_HEARTBEAT_SECONDS)
