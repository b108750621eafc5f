from celery import shared_task


@shared_task(name="tenders.expire_tenders", acks_late=True)
def tenders_expire_task() -> int:
    from tenders.services import tenders_expire

    return tenders_expire()


@shared_task(name="tenders.dispatch_deltas", acks_late=True)
def deltas_dispatch_task() -> int:
    """After each ingest batch and every minute: one matching task per tenant with pending deltas."""
    from tenders.handoff import deltas_dispatch

    return len(deltas_dispatch().sent)
