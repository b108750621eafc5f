"""The portal (tenant host): dashboard, search, detail, saved searches, triage, pipeline, exports."""

from django.urls import path

from notifications.demo.views import local_outbox, local_outbox_mail_html, local_webhooks
from notifications.portal.views import board_export, cpv, market, overview, places, profiles, search, tender

app_name = "portal"

urlpatterns = [
    path("", overview.dashboard, name="dashboard"),
    path("suche/", search.search, name="search"),
    path("suche/export.csv", search.search_export, name="search-export"),
    path("cpv/", cpv.cpv_picker, name="cpv-picker"),
    path("kreise/", places.kreis_picker, name="kreis-picker"),
    path("ausschreibung/<int:tender_id>/", tender.tender_page, name="tender"),
    path("ausschreibung/<int:tender_id>/bewertung/", tender.tender_triage, name="triage"),
    path("markt/vergabestelle/", market.buyer_page, name="buyer"),
    path("markt/bieter/", market.supplier_page, name="supplier"),
    path("markt/vergabestelle/export.csv", market.buyer_csv, name="buyer-export"),
    path("markt/bieter/export.csv", market.supplier_csv, name="supplier-export"),
    path("suchprofile/", profiles.profile_list, name="profiles"),
    path("suchprofile/neu/", profiles.profile_create, name="profile-create"),
    path("suchprofile/vorschau/", profiles.profile_preview, name="profile-preview"),
    path("suchprofile/<int:pk>/", profiles.profile_detail, name="profile"),
    path("suchprofile/<int:pk>/bearbeiten/", profiles.profile_edit, name="profile-edit"),
    path("suchprofile/<int:pk>/loeschen/", profiles.profile_delete, name="profile-delete"),
    path("pipeline/", overview.pipeline, name="pipeline"),
    # Under the board's path; bids.urls has no "export.csv", so this pattern answers it.
    path("angebote/export.csv", board_export.board_export, name="board-export"),
    path("kalender/neuer-link/", overview.calendar_rotate, name="calendar-rotate"),
    path("kalender/<str:token>.ics", overview.calendar_feed, name="calendar"),
    path("sprache/", overview.language_switch, name="language"),
    # Answers 404 unless local settings name a mail catcher's Maildir (never in production).
    path("postausgang/", local_outbox, name="local-outbox"),
    path("postausgang/<str:key>/inhalt/", local_outbox_mail_html, name="local-outbox-mail"),
    # Answers 404 unless local settings name the demo's webhook receiver folder (never in production).
    path("webhook-empfang/", local_webhooks, name="local-webhooks"),
]
