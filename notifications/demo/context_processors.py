from django.conf import settings


def local_outbox(request):
    """Whether "Postausgang (lokal)" and the demo's "Webhook-Empfang (lokal)" exist (local settings only)."""
    return {
        "local_outbox_enabled": bool(getattr(settings, "LOCAL_OUTBOX_DIR", None)),
        "local_webhooks_enabled": bool(getattr(settings, "LOCAL_WEBHOOK_DIR", None)),
    }
