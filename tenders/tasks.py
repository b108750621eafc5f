from celery import shared_task


@shared_task(name="tenders.expire_tenders", acks_late=True)
def tenders_expire_task() -> int:
    from tenders.services import tenders_expire

    return tenders_expire()
