"""A developer's or newcomer's machine: debug on, embedded servers by default."""

from config.env import env_bool, env_list, env_str
from config.local_keys import local_encryption_keys
from config.settings.base import *  # noqa: F403
from config.settings.base import LOCAL_DATA_DIR, database_settings

DEBUG = env_bool("DJANGO_DEBUG", True)
DATABASES = database_settings(allow_embedded=True)

# Stored passwords must be encryptable from the first run: without a configured key the
# machine makes one and keeps it in the data directory (.local/secrets.key).
SECRETS_ENCRYPTION_KEYS = env_list("SECRETS_ENCRYPTION_KEYS") or local_encryption_keys(LOCAL_DATA_DIR)

# The demo's mail catcher listens on 127.0.0.1: allowed here, and only here (production and the
# base settings refuse loopback mail servers).
MAIL_ALLOW_LOOPBACK = True
# Links in the demo's mails lead to the local runserver (plain http, the demo's port).
PORTAL_URL_FORMAT = env_str("PORTAL_URL_FORMAT", "http://{domain}:8000")

# The demo and its local mail catcher: the catcher files mails here, "Postausgang (lokal)" reads them.
DEMO_ENABLED = True
LOCAL_OUTBOX_DIR = LOCAL_DATA_DIR / "outbox"
# The demo's webhook receiver: its requests are filed here, "Webhook-Empfang (lokal)" reads them. Plain
# http to 127.0.0.1 is a webhook target here, and only here (production refuses loopback and http).
LOCAL_WEBHOOK_DIR = LOCAL_DATA_DIR / "webhooks"
WEBHOOKS_ALLOW_LOOPBACK = True
