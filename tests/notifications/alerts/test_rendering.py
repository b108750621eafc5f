"""Alert mails: hostile titles stay harmless, both languages render, unsubscribe headers are right."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from types import SimpleNamespace

from kernel.vocabulary.time_zone import BERLIN
from notifications.alerts.rendering import (
    MailboxLine,
    Section,
    change_line,
    days_left_text,
    digest_subject,
    format_value,
    header_safe,
    instant_subject,
    mailbox_lines,
    render_mail,
    tender_line,
)

HOSTILE = "Dach\r\nBcc: victim@example.org\x00\x1b[31m <script>alert(1)</script> & Söhne\u2028X"


def _tender(**overrides):
    values = {
        "pk": 7,
        "title": "Dachsanierung Grundschule",
        "buyer_name": "Stadt Musterhausen",
        "postal_code": "80331",
        "town": "München",
        "bundesland": "Bayern",
        "submission_deadline": datetime(2026, 11, 3, 10, 0, tzinfo=BERLIN),
        "estimated_value": Decimal("250000"),
        "currency": "EUR",
        "status": "active",
    }
    return SimpleNamespace(**{**values, **overrides})


def _mail(language="de", tender=None, **kwargs):
    line = tender_line(tender or _tender(), base_url="https://alpha.example", language=language)
    section = Section(name="Dach <Bayern>", unsubscribe_url="https://alpha.example/abmelden-alert/t/", tenders=(line,))
    return render_mail(
        kind=kwargs.pop("kind", "instant"),
        language=language,
        subject=instant_subject(language=language, search_name="Dach <Bayern>", tenders=[line]),
        sections=[section],
        unsubscribe_url="https://alpha.example/abmelden-alert/t/",
        portal_url="https://alpha.example/",
        **kwargs,
    )


def test_header_values_never_carry_line_breaks_or_control_characters():
    safe = header_safe(HOSTILE)
    assert not any(ch in safe for ch in "\r\n\x00\x1b\u2028")
    assert safe.startswith("Dach Bcc: victim@example.org")
    assert len(header_safe("x" * 1000)) == 200


def test_a_hostile_title_is_escaped_in_html_and_inert_in_text_and_subject():
    mail = _mail(tender=_tender(title=HOSTILE))
    assert "<script>" not in mail.html_body
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; Söhne" in mail.html_body
    assert "\r" not in mail.subject and "\n" not in mail.subject
    assert "\x1b" not in mail.text_body and "\x00" not in mail.text_body
    assert "<script>alert(1)</script> & Söhne" in mail.text_body  # plain text: shown, never interpreted
    assert "Dach &lt;Bayern&gt;" in mail.html_body


def test_german_mail_has_portal_links_dates_values_and_one_click_unsubscribe():
    mail = _mail()
    assert mail.subject == "[Dach <Bayern>] Neue Ausschreibung: Dachsanierung Grundschule"
    assert "https://alpha.example/ausschreibung/7/" in mail.text_body
    assert 'href="https://alpha.example/ausschreibung/7/"' in mail.html_body
    assert "03.11.2026, 10:00 Uhr" in mail.text_body and "250.000 EUR" in mail.text_body
    assert "80331, München (Bayern)" in mail.text_body
    assert mail.headers["List-Unsubscribe"] == "<https://alpha.example/abmelden-alert/t/>"
    assert mail.headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


def test_english_mail_and_the_mailbox_line():
    mail = _mail(
        "en",
        kind="digest",
        mailbox=[MailboxLine("Your mailbox for portal e-mails could not be read last time.", problem=True)],
        period_start=datetime(2026, 11, 2, 7, tzinfo=BERLIN),
    )
    assert "New tender: Dachsanierung Grundschule" in mail.subject
    assert "Deadline: 2026-11-03 10:00 (Berlin)" in mail.text_body
    assert "250,000 EUR" in mail.text_body
    assert "Your mailbox for portal e-mails could not be read last time." in mail.text_body
    assert "Sources" not in mail.text_body and "Sources" not in mail.html_body
    assert "Unsubscribe from digests" in mail.html_body


def test_mailbox_lines_name_only_the_tenants_own_mailbox_in_customer_words():
    def row(status, new_since=0):
        return SimpleNamespace(
            new_since=new_since,
            last_run_status=status,
            last_run_at=datetime(2026, 11, 2, 7, tzinfo=BERLIN),
            failing=status in ("failed", "blocked"),
        )

    assert mailbox_lines([row(None)], language="de") == []  # never checked: nothing to tell
    assert mailbox_lines([row("succeeded")], language="de") == []  # nothing new: nothing to tell
    assert mailbox_lines([row("succeeded", 1234)], language="de") == [
        MailboxLine("Aus Ihrem Postfach für Portal-E-Mails: 1.234 neue Bekanntmachungen")
    ]
    (failed,) = mailbox_lines([row("failed")], language="de")
    assert failed.problem and failed.text.startswith(
        "Ihr Postfach für Portal-E-Mails konnte zuletzt nicht gelesen werden (02.11.2026, 07:00 Uhr)."
    )
    assert "Einstellungen → Postfach" in failed.text


def test_a_quiet_digest_subject_speaks_of_the_mailbox_never_of_sources():
    assert digest_subject(language="de", new=0, changed=0) == (
        "Keine neuen Treffer – bitte Ihr Postfach für Portal-E-Mails prüfen"
    )
    assert "source" not in digest_subject(language="en", new=0, changed=0).lower()
    assert digest_subject(language="de", new=2, changed=1) == "Ihre Ausschreibungen: 2 neu, 1 geändert"


def test_change_lines_name_the_direction_and_both_deadlines():
    line = tender_line(_tender(), base_url="https://a.example", language="de")
    change = change_line(
        line=line,
        kind="deadline",
        old_value="2026-10-01T12:00+02:00",
        new_value="2026-11-03T10:00+01:00",
        language="de",
    )
    assert (change.label, change.old, change.new) == (
        "Frist verlängert",
        "01.10.2026, 12:00 Uhr",
        "03.11.2026, 10:00 Uhr",
    )
    cancelled = change_line(line=line, kind="cancelled", old_value="active", new_value="cancelled", language="en")
    assert (cancelled.label, cancelled.new) == ("Cancelled", "cancelled")


def test_values_format_per_language():
    assert format_value(Decimal("1234567.89"), "EUR", "de") == "1.234.568 EUR"
    assert format_value(None, "EUR", "de") == ""


def test_a_row_says_how_many_days_are_left_its_status_and_offers_triage_in_both_languages():
    now = datetime(2026, 10, 29, 23, 30, tzinfo=BERLIN)
    assert days_left_text(datetime(2026, 11, 3, 10, 0, tzinfo=BERLIN), now=now, language="de") == "noch 5 Tage"
    assert days_left_text(datetime(2026, 10, 30, 0, 30, tzinfo=BERLIN), now=now, language="de") == "morgen"
    assert days_left_text(datetime(2026, 10, 29, 23, 45, tzinfo=BERLIN), now=now, language="en") == "today"
    assert days_left_text(datetime(2026, 10, 29, 12, 0, tzinfo=BERLIN), now=now, language="de") == "abgelaufen"
    assert days_left_text(None, now=now, language="de") == ""
    triage = ("https://alpha.example/angebote/mail/a/", "https://alpha.example/angebote/mail/b/")
    for language, review, dismiss, status in (
        ("de", "prüfen", "nicht relevant", "Status: laufend"),
        ("en", "review", "not relevant", "status: open"),
    ):
        line = tender_line(_tender(), base_url="https://alpha.example", language=language, triage=triage, now=now)
        section = Section(name="Dach", unsubscribe_url="https://alpha.example/x/", tenders=(line,))
        mail = render_mail(
            kind="digest",
            language=language,
            subject="s",
            sections=[section],
            unsubscribe_url="https://alpha.example/x/",
            portal_url="https://alpha.example/",
        )
        assert f"{review}: {triage[0]}" in mail.text_body and f"{dismiss}: {triage[1]}" in mail.text_body
        assert f'href="{triage[0]}"' in mail.html_body and f'href="{triage[1]}"' in mail.html_body
        assert status in mail.text_body and status in mail.html_body
        assert ("(noch 5 Tage)" if language == "de" else "(5 days left)") in mail.text_body
    plain = _mail()  # a row without links (a change's tender) offers none
    assert "/angebote/mail/" not in plain.text_body and "/angebote/mail/" not in plain.html_body
