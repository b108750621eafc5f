"""E-mail alerts of a tenant: matching ingest deltas against saved searches, instant and update mails,
digests, the outbox with its sender, and the one-click unsubscribe.

Flow: ``tenders.dispatch_deltas`` (platform, by name) → ``handoff.deltas_match_pending`` per tenant
→ ``services.delta_process`` over the coalesced pending deltas (matching,
change notices, instant/update mails, webhook events) → ``deliveries`` (outbox) → ``sending``.
Digests: ``tasks.alerts.digest_fanout`` → ``digest.digests_create_due`` per tenant.
"""
