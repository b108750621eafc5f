from django.conf import settings


def local_outbox(request):
    """Whether the navigation offers "Postausgang (lokal)" (local settings only)."""
    return {"local_outbox_enabled": bool(getattr(settings, "LOCAL_OUTBOX_DIR", None))}
