"""The team board (tenant host, under /angebote/): board, cards, one-click triage (dashboard, mails), settings."""

from django.urls import path

from notifications.bids import outcome_views, triage_views, views

app_name = "bids"

urlpatterns = [
    path("", views.board, name="board"),
    path("karte/<int:card_id>/", views.card_page, name="card"),
    path("karte/<int:card_id>/phase/", views.card_move, name="card-move"),
    path("karte/<int:card_id>/zustaendig/", views.card_assign, name="card-assign"),
    path("karte/<int:card_id>/beobachter/", views.card_watchers, name="card-watchers"),
    path("karte/<int:card_id>/termin/", views.card_due, name="card-due"),
    path("karte/<int:card_id>/entscheidung/", views.card_decide, name="card-decide"),
    path("karte/<int:card_id>/kommentar/", views.card_comment, name="card-comment"),
    path("ausschreibung/<int:tender_id>/karte/", views.tender_card, name="tender-card"),
    path("ausschreibung/<int:tender_id>/schnell/", views.tender_quick, name="tender-quick"),
    path("mail/<str:token>/", triage_views.mail_triage, name="mail-triage"),
    path("einstellungen/", views.settings_page, name="settings"),
    path("einstellungen/aendern/", views.settings_change, name="settings-change"),
    path("firma/", outcome_views.company_page, name="company"),
    path("firma/aendern/", outcome_views.company_change, name="company-change"),
]
