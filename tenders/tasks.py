"""Celery edges for tenders; platform tasks (the public schema)."""

from config.task_policy import public_task


@public_task(name="tenders.expire_tenders", refused=0)
def tenders_expire_task() -> int:
    from tenders.services import tenders_expire

    return tenders_expire()


@public_task(name="tenders.dispatch_deltas", refused=0)
def deltas_dispatch_task() -> int:
    """After each ingest batch and every minute: one matching task per tenant with pending deltas."""
    from tenders.handoff import deltas_dispatch

    return len(deltas_dispatch().sent)


@public_task(name="tenders.refresh_search_vocabulary")
def search_vocabulary_refresh_task() -> None:
    """Daily: the title words 'Meinten Sie …' suggests from (tenders.suggestions)."""
    from tenders.suggestions import search_vocabulary_refresh

    search_vocabulary_refresh()
