"""Attack: a feed, portal page or mail carries a ``javascript:`` link for a notice or its documents.

Each parser gets a hostile copy of its own fixture (the real or constructed file with one link
replaced), imported through the real run path (``source_ingest_files``, as ``manage.py ingest
--file`` does). Nothing unsafe may reach the tender tables, and every dropped link is a problem
on the run. The rendered portal, mail and admin pages never carry a ``javascript:`` href.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.db.models import Q
from django.template.loader import render_to_string
from django.urls import reverse

from kernel.links import safe_link
from sources.models import FetchRun
from sources.services import source_ingest_files
from tenders.models import Tender, TenderSource
from tenders.services import notices_ingest
from tests.factories.records import eforms_record
from tests.fixtures.tenants import operator_sign_in

DATA = Path(__file__).resolve().parents[1] / "data"
EFORMS = DATA / "doe" / "eforms-de-2.1_cn-standard_16_24d29507-f9dd-4712-aef0-9d864df3af8e-01.xml"
OCDS = DATA / "doe" / "ocds_release-package_tender_3lots_value_subreport-docs_000ada85-c11f-44cf-b1e6-b4bb5232ed7b.json"
TED_PAGE = DATA / "ted" / "api" / "page1.json"
NETSERVER_RESULTS = DATA / "portals" / "netserver" / "results_start0_cp1252.html"
NETSERVER_DETAIL = DATA / "portals" / "netserver" / "detail_54321-Tender-1a09ee5f4b7-72f9ab694e623ec2.html"
COSINEX_LIST = DATA / "portals" / "cosinex" / "list_page1_cp1252.html"
RSS_FEED = DATA / "portals" / "rss" / "service_bund_ausschreibungen_constructed.xml"
ALERT_MAIL = DATA / "portals" / "mail" / "tender24_daily_alert_iso-8859-1_qp.eml"

SCRIPT = "javascript:alert(document.domain)"
_HREF = re.compile(r"""href\s*=\s*["']?\s*(?:javascript|data|vbscript):""", re.IGNORECASE)


def _hostile(tmp_path: Path, source: Path, old: bytes, new: bytes, *, name: str | None = None) -> Path:
    data = source.read_bytes()
    assert old in data, f"{source.name} no longer holds the link this test replaces"
    path = tmp_path / (name or source.name)
    path.write_bytes(data.replace(old, new))
    return path


def _ted_page(tmp_path: Path) -> Path:
    page = json.loads(TED_PAGE.read_text())
    notice = page["notices"][0]
    notice["links"]["html"] = {"DEU": SCRIPT, "ENG": SCRIPT}
    notice["document-url-lot"] = [" JaVaScRiPt:alert(1)"]
    path = tmp_path / "ted_page.json"
    path.write_text(json.dumps(page))
    return path


def _unsafe_stored() -> list[str]:
    rows = TenderSource.objects.filter(~Q(url="")).values_list("url", flat=True)
    documents = Tender.objects.filter(~Q(documents_url="")).values_list("documents_url", flat=True)
    return [url for url in (*rows, *documents) if not safe_link(url)]


def _dropped(run: FetchRun) -> list[str]:
    return [problem for problem in run.problems if "is no http(s) link with a host; dropped" in problem]


# Portal pages resolve every href through ``sources.adapters.html.absolute_url``, which keeps only http(s)
# links: a scripted documents link is passed over (the record keeps the one it builds), a row whose only project link
# is scripted is no row - a problem on the run ("no project link").
CASES = {
    "doe-eforms": (
        "doe",
        lambda tmp: [
            _hostile(
                tmp,
                EFORMS,
                b"<cbc:URI>https://www.tender24.de/NetServer/TenderingProcedureDetails?function=_Details&amp;"
                b"TenderOID=54321-Tender-1a09ee5f4b7-72f9ab694e623ec2</cbc:URI>",
                f"<cbc:URI>{SCRIPT}</cbc:URI>".encode(),
            )
        ],
        ("documents_url",),
    ),
    "doe-ocds": (
        "doe",
        lambda tmp: [
            _hostile(tmp, OCDS, b'"url": "https://www.subreport.de/E39662358"', f'"url": "{SCRIPT}"'.encode())
        ],
        ("documents_url",),
    ),
    "ted-json": ("ted", lambda tmp: [_ted_page(tmp)], ("url", "documents_url")),
    "netserver": (
        "tender24",
        lambda tmp: [
            NETSERVER_RESULTS,
            _hostile(
                tmp,
                NETSERVER_DETAIL,
                b'href="TenderingProcedureDetails?function=_DownloadTenderDocuments',
                b'href="javascript:alert(1)//TenderingProcedureDetails?function=_DownloadTenderDocuments',
            ),
        ],
        (),
    ),
    "cosinex": (
        "dtvp",
        lambda tmp: [
            _hostile(
                tmp,
                COSINEX_LIST,
                b'href="/Satellite/public/company/projectForwarding.do?pid=51020"',
                b'href="javascript:alert(1)//projectForwarding.do?pid=51020"',
            )
        ],
        (),
    ),
    "rss": (
        "service-bund",
        lambda tmp: [
            _hostile(
                tmp,
                RSS_FEED,
                b"<link>https://www.service.bund.de/IMPORTE/Ausschreibungen/bi/2026/09/4712346.html</link>",
                f"<link>{SCRIPT}</link>".encode(),
            )
        ],
        ("url",),
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_javascript_links_from_every_parser_are_dropped_and_recorded(db, tmp_path, case):
    source_key, build, fields = CASES[case]
    run = source_ingest_files(source_key=source_key, paths=build(tmp_path)).run

    assert run.fetched >= 1, (run.status, run.error, run.problems)
    assert _unsafe_stored() == []
    dropped = _dropped(run)
    assert {field for field in fields if any(f": {field} " in problem for problem in dropped)} == set(fields), dropped
    assert all("alert(" in problem.lower() for problem in dropped)
    if case == "cosinex":
        assert any("no project link" in problem for problem in run.problems), run.problems
    if case == "netserver":  # dropped before it becomes a record field: the detail page reports it
        assert any(
            "documents link dropped" in problem and "javascript:alert(1)" in problem for problem in run.problems
        ), run.problems


def test_a_javascript_link_in_an_alert_mail_is_never_a_notice_link(db, tmp_path):
    link = b"https://www.tender24.de/NetServer/TenderingProcedureDetails?function=3D_=\r\nDetails&TenderOID=3D54321-Tender-19a3c5d7e11-0c4f2a9b8e7d6c51"
    scripted = b"javascript:alert(1)//www.tender24.de/NetServer/TenderingProcedureDetails?TenderOID=3D54321-=\r\nTender-19a3c5d7e11-0c4f2a9b8e7d6c51"
    run = source_ingest_files(source_key="mail", paths=[_hostile(tmp_path, ALERT_MAIL, link, scripted)]).run
    assert run.fetched == 2  # the two notices with real links; the scripted one is no notice link at all
    assert _unsafe_stored() == []
    assert not TenderSource.objects.filter(source_notice_id__contains="19a3c5d7e11").exists()


def test_records_written_by_any_other_path_lose_unsafe_links_too(db):
    """The tender tables' own boundary (record_storable) holds for writers that are not adapter runs."""
    record = eforms_record().replace(url="vbscript:msgbox(1)", documents_url="data:text/html,<script>x</script>")
    (tender_id,) = notices_ingest(records=[record], use_fingerprint=False).created
    assert Tender.objects.get(pk=tender_id).documents_url == ""
    assert TenderSource.objects.get(tender_id=tender_id).url == ""


# --- rendering --------------------------------------------------------------------------------------


def _stored_with_unsafe_links() -> Tender:
    """A tender whose stored links are unsafe, as rows written before this check (or by SQL) could be."""
    (tender_id,) = notices_ingest(records=[eforms_record()], use_fingerprint=False).created
    Tender.objects.filter(pk=tender_id).update(documents_url=SCRIPT)
    TenderSource.objects.filter(tender_id=tender_id).update(url="  javascript:alert(2)")
    return Tender.objects.get(pk=tender_id)


def test_the_portal_tender_page_never_renders_a_javascript_href(alpha_client):
    tender = _stored_with_unsafe_links()
    response = alpha_client.get(reverse("portal:tender", args=[tender.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert tender.title in html and not _HREF.search(html)


def test_the_operator_admin_never_renders_a_javascript_href(public_client):
    admin_client = operator_sign_in(public_client)
    tender = _stored_with_unsafe_links()
    source = TenderSource.objects.get(tender=tender)
    pages = [
        f"/admin/tenders/tender/{tender.pk}/change/",
        f"/admin/tenders/tendersource/{source.pk}/change/",
        "/admin/tenders/tendersource/",
    ]
    for page in pages:
        response = admin_client.get(page)
        assert response.status_code == 200, page
        assert not _HREF.search(response.content.decode()), page
    detail = admin_client.get(pages[0]).content.decode()
    assert "javascript:alert(document.domain)" in detail  # shown as text, so the operator sees what was stored


def test_alert_mail_templates_never_render_a_javascript_href():
    tender = {"title": "T", "url": SCRIPT, "buyer": "", "place": "", "deadline": "", "active": True}
    for language in ("de", "en"):
        html = render_to_string(
            f"mail/{language}/alert.html",
            {
                "kind": "instant",
                "sections": [{"name": "P", "tenders": [tender], "changes": [{"label": "L", "tender": tender}]}],
            },
        )
        assert "T</a>" in html and not _HREF.search(html)


_TEMPLATE_HREF = re.compile(r"""href="(\{\{[^}]*\}\})""")
# Links the project builds itself (its own host, reverse()d paths, the calendar's webcal: address).
_OWN_LINKS = {"portal_url", "unsubscribe_url", "section.unsubscribe_url", "section.more_url", "webcal_url", "back_url"}
# Django's stock admin index and app list (templates/admin/, copied for the CSP): URLs the admin reverse()s.
_OWN_LINKS |= {"app.app_url", "model.admin_url", "model.add_url", "entry.get_admin_url"}
# The API docs page (templates/api/swagger_ui.html): drf-spectacular's sidecar static files.
_OWN_LINKS |= {"favicon_href", "swagger_ui_css"}


def test_templates_render_every_variable_href_through_the_safe_link_helper():
    templates = Path(__file__).resolve().parents[2] / "templates"
    offenders = []
    for path in templates.rglob("*.html"):
        for expression in _TEMPLATE_HREF.findall(path.read_text()):
            inner = expression.strip("{} ")
            if "|safe_href" not in inner and inner not in _OWN_LINKS:
                offenders.append(f"{path.relative_to(templates)}: {expression}")
    assert offenders == []
