"""Settings pages (tenant host): alert preferences, SMTP, mailbox, delivery log, webhooks."""

app_name = "settings"

urlpatterns: list = []
