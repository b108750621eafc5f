"""Releasing a quarantined alert mail: the tenant admin vouches for it, for their own tenant only.

Tenders are shared by every tenant, so a tenant's word cannot put a notice into them: one
tenant would then decide what all others see and are alerted about. A released mail is
treated as a verified one, and a verified mail is only a pointer: its notices stay where the
quarantine kept them - on the tenant's own ``InboundMail`` row (``held_notices``), shown on
that tenant's mailbox page with working links - and the portal pages they name are requested
from the portals themselves (``sources.mail_runs.mail_leads_follow``; only pages of configured
portal Sources). What a portal's page says reaches every tenant as a crawl would; what only the
mail says never leaves this tenant.
"""

from __future__ import annotations

from datetime import datetime

from django.db import connection, transaction
from django.utils import timezone

from sources.mail_runs import mail_leads_follow
from sources.models import InboundMail, InboundMailStatus

__all__ = ["inbound_mail_release"]


def inbound_mail_release(*, mail_id: int, released_by: str, now: datetime | None = None) -> InboundMail:
    """Mark the current tenant's quarantined mail as released; ``InboundMail.DoesNotExist`` for any other mail.

    Runs in the tenant's schema: ``InboundMail`` lives in the public schema, so the tenant is
    the row's ``tenant_schema`` - a mail of another tenant is "not found", never released.
    Releasing twice is harmless (the second call finds the mail released and keeps it so, requesting nothing).
    """
    with transaction.atomic():
        mail = (
            InboundMail.objects.select_for_update()
            .defer("raw")
            .get(
                pk=mail_id,
                tenant_schema=connection.schema_name,
                status__in=(InboundMailStatus.QUARANTINED, InboundMailStatus.RELEASED),
            )
        )
        if mail.status == InboundMailStatus.QUARANTINED:
            mail.status = InboundMailStatus.RELEASED
            mail.released_at = now or timezone.now()
            mail.released_by = released_by[:254]
            mail.save(update_fields=["status", "released_at", "released_by"])
            mail_leads_follow(mail_id=mail.pk, now=mail.released_at)
    return mail
