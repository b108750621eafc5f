"""The platform's periodic jobs, as data: name -> task, interval in minutes, queue and what it does.

``manage.py setup_schedules`` (``sources.schedules``) writes them to django-celery-beat; nothing else
schedules a platform job. Tenant-wide jobs fan out from here into one task per tenant.
"""

PLATFORM_PERIODIC_TASKS: dict[str, dict] = {
    "tenders: mark expired": {
        "task": "tenders.expire_tenders",
        "minutes": 60,
        "queue": "ingest",
        "description": "Marks tenders whose deadline passed as expired",
    },
    "notifications: check mailboxes": {
        "task": "notifications.check_all_mailboxes",
        "minutes": 15,
        "queue": "notify",
        "description": "Reads portal alert e-mails from every tenant's mailbox (one jittered task per tenant)",
    },
    # Webhook events due for (re)delivery, every tenant; sending starts at once after matching, this catches
    # retries (WEBHOOKS_BACKOFF).
    "notifications: send due webhooks": {
        "task": "notifications.webhooks_fanout",
        "minutes": 1,
        "queue": "notify",
        "description": "Queues notifications.send_due_webhooks for every active tenant",
    },
    # The hand-off (tenders.handoff): deltas no tenant task has completed yet are dispatched again.
    "tenders: dispatch pending deltas": {
        "task": "tenders.dispatch_deltas",
        "minutes": 1,
        "queue": "match",
        "description": "Queues notifications.match_pending_deltas for every tenant with an unmatched ingest delta",
    },
    # Runs that died with their process (SOURCES_RUN_STUCK_SECONDS) are recorded as failed.
    "sources: fail stuck runs": {
        "task": "sources.fail_stuck_runs",
        "minutes": 5,
        "queue": "match",
        "description": "Marks fetch runs stuck in 'running' beyond SOURCES_RUN_STUCK_SECONDS as failed",
    },
    # Alert e-mails (notifications.alerts): digests are due per user; the outbox sends and retries every minute.
    "notifications: digests": {
        "task": "notifications.digest_fanout",
        "minutes": 15,
        "queue": "notify",
        "description": (
            "Queues notifications.digest_tenant (jittered) for every active tenant; due users get their digest"
        ),
    },
    # The readiness view's snapshot (config.health_checks): light, on the match queue beside the other sweeps.
    "config: health snapshot": {
        "task": "config.health_snapshot",
        "minutes": 1,
        "queue": "match",
        "description": "Computes the health checks and stores them for /health/ready/ (the view never computes them)",
    },
    "notifications: send due e-mails": {
        "task": "notifications.send_due_fanout",
        "minutes": 1,
        "queue": "notify",
        "description": "Queues notifications.send_due_deliveries for every active tenant (retries, lost kicks)",
    },
    # Deadline reminders of the team board (notifications.bids.reminders): due ones queued once, moved deadlines
    # told.
    "notifications: deadline reminders": {
        "task": "notifications.reminders_fanout",
        "minutes": 15,
        "queue": "notify",
        "description": "Queues notifications.send_due_reminders for every active tenant (board deadlines, once each)",
    },
    # "Meinten Sie …" (tenders.suggestions) suggests words of the newest titles: read again once a day.
    "tenders: search vocabulary": {
        "task": "tenders.refresh_search_vocabulary",
        "minutes": 24 * 60,
        "queue": "ingest",
        "description": "Reads the words of the newest 200,000 tender titles for the search's 'Meinten Sie' suggestions",
    },
}
