"""Settings pages (tenant host): alert preferences, SMTP, mailbox, delivery log, webhooks."""

from django.urls import path

from notifications.preferences import outbox_views, views
from notifications.webhooks import views as webhook_views

app_name = "settings"

urlpatterns = [
    path("", views.SettingsIndexView.as_view(), name="index"),
    path("benachrichtigungen/", views.PreferencesView.as_view(), name="preferences"),
    path("benachrichtigungen/sofortmeldungen/", views.InstantAlertsView.as_view(), name="instant-alerts"),
    path("benachrichtigungen/erinnerungen/", views.ReminderDaysView.as_view(), name="reminders"),
    path("smtp/", views.SmtpSettingsView.as_view(), name="smtp"),
    path("smtp/testmail/", views.SmtpTestView.as_view(), name="smtp-test"),
    path("smtp/testmail/status/", views.SmtpTestStatusView.as_view(), name="smtp-test-status"),
    path("postfach/", views.MailboxSettingsView.as_view(), name="mailbox"),
    path("postfach/pruefen/", views.MailboxTestView.as_view(), name="mailbox-test"),
    path("postfach/meldungen/<int:pk>/freigeben/", views.MailboxReleaseView.as_view(), name="mailbox-release"),
    path("zustellungen/", views.DeliveryLogView.as_view(), name="deliveries"),
    path("zustellungen/<int:pk>/erneut-senden/", outbox_views.DeliveryResendView.as_view(), name="delivery-resend"),
    path(
        "zustellungen/<int:pk>/zugestellt/",
        outbox_views.DeliveryMarkDeliveredView.as_view(),
        name="delivery-mark-delivered",
    ),
    path(
        "zustellungen/webhook/<int:pk>/erneut-senden/",
        outbox_views.WebhookEventResendView.as_view(),
        name="webhook-event-resend",
    ),
    path(
        "zustellungen/webhook/<int:pk>/zugestellt/",
        outbox_views.WebhookEventMarkDeliveredView.as_view(),
        name="webhook-event-mark-delivered",
    ),
    path("webhooks/", webhook_views.WebhookListView.as_view(), name="webhooks"),
    path("webhooks/<int:pk>/", webhook_views.WebhookDetailView.as_view(), name="webhook-detail"),
    path("webhooks/<int:pk>/aktiv/", webhook_views.WebhookActiveView.as_view(), name="webhook-active"),
    path("webhooks/<int:pk>/loeschen/", webhook_views.WebhookDeleteView.as_view(), name="webhook-delete"),
]
