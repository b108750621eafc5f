"""Tenant isolation, route by route: whatever the tenant host serves, alpha never reaches beta's objects.

Both tenants hold an object of EVERY tenant model with the same primary key
(``COLLIDING_ID``), and beta additionally holds one with ``FOREIGN_ID`` that
alpha does not have. The URL patterns of ``config.urls_tenant`` are walked, so
routes added later are covered without touching this file:

* a route with an object kwarg, filled with beta's ``FOREIGN_ID`` (or a valid
  token of beta for string kwargs, see ``TOKENS``), must answer 404 or 403 on alpha's host —
  for GET, and for POST where GET is not allowed; the same URL answers on
  beta's host, so the 404 is isolation, not missing test data;
* filled with ``COLLIDING_ID`` it may show alpha's own object, never beta's;
* kwargs that name a public tender (``PUBLIC_OBJECT_KWARGS``) show the tender
  to everyone, but never beta's triage, matches or saved searches on it;
* routes without object kwargs are fetched after beta's pages warmed every
  cache, and must not show any of beta's data (see ``NO_OBJECT_ROUTES``);
* beta's session cookie and beta's API key are strangers on alpha's host.

Beta's rows carry the marker ``betageheim`` in every text field a page could
show; finding it in an alpha response is a leak.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import timedelta

import pytest
from axes.utils import reset as axes_reset
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.api.services import api_key_create
from notifications.models import (
    ApiKey,
    BidCard,
    BidStage,
    CardComment,
    CardEvent,
    CompanyIdentity,
    CompetitorWin,
    DecisionReason,
    Delivery,
    MailboxSettings,
    MatchChange,
    SavedSearch,
    SmtpSettings,
    TenderMatch,
    Triage,
    UserPreference,
    WatchedCompetitor,
    Webhook,
    WebhookEvent,
    calendar_token_hash,
)
from sources.models import InboundMail
from tenders.models import Tender, TenderSource
from tests.url_routes import Route, tenant_routes

FOREIGN_ID = 900_001  # exists in beta only (and as a public tender)
COLLIDING_ID = 900_002  # exists in alpha and in beta (and as a public tender)
BETA_MARK = "betageheim"
ALPHA_MARK = "alphaeigen"
DENIED = {403, 404}

# Kwargs that name a public object: every tenant may see it, none may see another tenant's data about it.
PUBLIC_OBJECT_KWARGS = {"tender_id"}
PUBLIC_OBJECT_ROUTES = {"api-tender-detail"}  # the API names its tender kwarg "pk"
# Routes whose kwargs are not object ids, with their own check below.
SPECIAL_ROUTES = {"accounts:invite-accept", "accounts:password-reset-confirm"}  # tokens: tests/security

# Routes without object kwargs and what they must not show of another tenant. Every such route is
# checked for beta's marker whether listed here or not; the list says what each one is about.
NO_OBJECT_ROUTES = {
    "portal:dashboard": "beta's new matches, deadlines of beta's saved searches",
    "portal:search": "beta's triage status beside a tender",
    "portal:search-export": "beta's triage in the CSV",
    "portal:profiles": "beta's shared saved searches",
    "portal:pipeline": "beta's triage notes, beta's calendar link",
    "settings:preferences": "beta's users' digest settings",
    "settings:instant-alerts": "beta's saved searches",
    "settings:smtp": "beta's SMTP host, user, sender",
    "settings:mailbox": "beta's IMAP account, beta's inbound (quarantined) mails",
    "settings:deliveries": "beta's outgoing mails",
    "settings:webhooks": "beta's webhook URLs",
    "portal:local-webhooks": "requests the demo's local receiver got for beta's webhooks",
    "api_keys:list": "beta's API keys",
    "accounts:users": "beta's users",
    "api-saved-search-list": "beta's saved searches",
    "api-match-list": "beta's matches",
    "api-tender-list": "nothing tenant-specific at all",
}


# --- the world: colliding ids in both schemas -----------------------------------------------------------


def _public_tender(pk: int, now) -> Tender:
    tender = Tender.objects.create(
        id=pk,
        title=f"Öffentliche Ausschreibung {pk}",
        buyer_name="Stadt Musterstadt",
        bundesland="Bayern",
        content_hash=f"{pk}",
        submission_deadline=now + timedelta(days=20),
        published_at=now - timedelta(days=1),
        first_seen_at=now - timedelta(hours=2),
        changed_at=now,
    )
    TenderSource.objects.create(
        tender=tender, source="doe", source_notice_id=f"notice-{pk}", first_seen_at=now, last_seen_at=now
    )
    return tender


def _seed_tenant_objects(*, pk: int, mark: str, owner, tender_id: int, now) -> None:
    """One row of every tenant model with primary key ``pk``; ``mark`` in every shown text."""
    # A team member with this id too: the team actions take a user id.
    get_user_model().objects.create(id=pk, username=f"{mark}{pk}@example.org", email=f"{mark}{pk}@example.org")
    search = SavedSearch.objects.create(
        id=pk, owner=owner, name=f"{mark} Suchprofil {pk}", filters={"bundesland": ["Bayern"]}, is_shared=True,
        instant_alert=True, active_since=now - timedelta(days=3),
    )  # fmt: skip
    match = TenderMatch.objects.create(id=pk, saved_search=search, tender_id=tender_id, matched_at=now)
    MatchChange.objects.create(
        id=pk, match=match, kind="deadline", change_key=f"{mark}-{pk}", old_value=mark, new_value=mark, detected_at=now
    )
    Triage.objects.create(id=pk, user=owner, tender_id=tender_id, status="interessant", note=f"{mark} Notiz")
    ApiKey.objects.create(
        id=pk, name=f"{mark} Schlüssel", prefix=f"tr_{mark[:2]}{pk}", created_by=owner,
        key_hash=hashlib.sha256(f"{mark}{pk}".encode()).hexdigest(),
    )  # fmt: skip
    if pk == COLLIDING_ID:  # one settings row per tenant (database constraint): the one whose id collides
        SmtpSettings.objects.create(
            id=pk,
            host=f"smtp.{mark}.example",
            username=f"{mark}-user",
            password=mark,
            from_email=f"radar@{mark}.example",
        )
        MailboxSettings.objects.create(id=pk, host=f"imap.{mark}.example", username=f"{mark}-postfach", password=mark)
    Delivery.objects.create(
        id=pk, kind="instant", user=owner, saved_search=search, dedupe_key=f"{mark}-{pk}",
        recipient=f"{mark}@example.org", subject=f"{mark} Betreff", text_body=mark, next_attempt_at=now,
        status="sent", sent_at=now, match_ids=[pk],
    )  # fmt: skip
    webhook = Webhook.objects.create(id=pk, saved_search=search, url=f"https://{mark}.example/hook", secret=mark)
    WebhookEvent.objects.create(
        id=pk, webhook=webhook, event="tender.matched", event_key=f"{mark}-{pk}", payload={"mark": mark},
        next_attempt_at=now, last_error=mark,
    )  # fmt: skip
    _seed_outcomes(pk=pk, mark=mark, owner=owner, tender_id=tender_id, now=now)
    _seed_board(pk=pk, mark=mark, owner=owner, tender_id=tender_id, now=now)


def _seed_board(*, pk: int, mark: str, owner, tender_id: int, now) -> None:
    """The team board's rows with the same ids: a stage, a reason, a card with a comment and a history entry."""
    stage = BidStage.objects.create(id=pk, name=f"{mark} Stufe {pk}", position=50)
    reason = DecisionReason.objects.create(id=pk, label=f"{mark} Grund {pk}", position=50)
    card = BidCard.objects.create(
        id=pk, tender_id=tender_id, stage=stage, owner=owner, decision_reason=reason, created_at=now, updated_at=now
    )
    CardComment.objects.create(id=pk, card=card, author=owner, text=f"{mark} Kommentar", created_at=now)
    CardEvent.objects.create(id=pk, card=card, actor=owner, kind="comment", data={"mark": mark}, created_at=now)


def _seed_outcomes(*, pk: int, mark: str, owner, tender_id: int, now) -> None:
    """The company's identities, a watched competitor and its win, with the same ids."""
    CompanyIdentity.objects.create(
        id=pk, kind="name", value=f"{mark} Firma", key=f"{mark} firma {pk}", created_by=owner, created_at=now
    )
    competitor = WatchedCompetitor.objects.create(
        id=pk, label=f"{mark} Wettbewerber", name_key=f"{mark} wettbewerber {pk}", created_by=owner, created_at=now
    )
    CompetitorWin.objects.create(
        id=pk, competitor=competitor, tender_id=tender_id, lot_id=f"{mark}-LOT", supplier_name=mark, created_at=now
    )


def _preference(*, pk: int, user, mark: str) -> str:
    """A preference row with a calendar link; returns the link's token (only its hash is stored)."""
    UserPreference.objects.filter(user=user).delete()
    # No marker in tokens: pages echo their own URL (language switch), which is not a leak.
    token = f"kalender{pk}{mark[:1]}{'0' * 30}"
    UserPreference.objects.create(id=pk, user=user, calendar_token_hash=calendar_token_hash(token))
    return token


SEEDED_MODELS = {
    SavedSearch, TenderMatch, MatchChange, Triage, ApiKey, SmtpSettings, MailboxSettings, Delivery, Webhook,
    WebhookEvent, UserPreference, BidStage, DecisionReason, BidCard, CardComment, CardEvent,
    CompanyIdentity, WatchedCompetitor, CompetitorWin,
}  # fmt: skip


@dataclass(frozen=True)
class World:
    alpha_admin: Client
    alpha_member: Client
    alpha_anonymous: Client
    alpha_api: Client
    beta_admin: Client
    beta_api: Client
    calendar_tokens: dict[str, str]  # schema -> a user's secret calendar token
    beta_api_key: str
    beta_session: str
    outbox_keys: dict[str, str]  # schema -> key of a mail to one of its users in the local outbox


def _api_client(host: str, schema: str, email: str) -> tuple[Client, str]:
    with schema_context(schema):
        created = api_key_create(name="Isolation", created_by=get_user_model().objects.get(username=email))
    return Client(HTTP_HOST=host, headers={"Authorization": f"Bearer {created.plaintext}"}), created.plaintext


def _quarantined_mail(*, pk: int, schema: str, mark: str, now) -> InboundMail:
    return InboundMail.objects.create(
        id=pk, tenant_schema=schema, message_id=f"<{mark}-{pk}@example.org>", subject=f"{mark} Meldung",
        sender=f"{mark}@example.org", processed_at=now, status="quarantined", quarantine_reason="sender",
        held_notices=[{"source": "mail", "source_notice_id": f"dtad:{pk}", "title": f"{mark} Ausschreibung"}],
    )  # fmt: skip


def _local_outbox(folder, recipients: dict[str, str]) -> dict[str, str]:
    """A local outbox (the demo's Maildir) with one HTML mail per tenant; returns each tenant's mail key."""
    import mailbox
    from email.message import EmailMessage

    box = mailbox.Maildir(str(folder), create=True)
    keys = {}
    for schema, address in recipients.items():
        message = EmailMessage()
        message["Subject"], message["From"], message["To"] = f"{schema} Meldung", "radar@example.org", address
        message.set_content(f"{schema} text")
        message.add_alternative(f"<p>{schema} html</p>", subtype="html")
        keys[schema] = box.add(message)
    return keys


def _local_webhook_request(folder, *, url: str, mark: str) -> None:
    """One request as the demo's webhook receiver files it, sent to ``url`` (a webhook seeded above)."""
    import base64
    import json

    folder.mkdir(parents=True, exist_ok=True)
    record = {"received_at": 1.7e9, "url": url, "headers": [["X-TenderRadar-Event", f"{mark}.event"]],
              "body": base64.b64encode(f'{{"mark": "{mark}"}}'.encode()).decode()}  # fmt: skip
    (folder / f"1700000000-{mark}.json").write_text(json.dumps(record))


@pytest.fixture
def world(alpha, beta, alpha_admin_client, alpha_client, beta_admin_client, settings, tmp_path) -> World:
    cache.clear()
    settings.LOCAL_OUTBOX_DIR = tmp_path / "outbox"
    outbox_keys = _local_outbox(settings.LOCAL_OUTBOX_DIR, {"beta": beta.admin_email, "alpha": alpha.admin_email})
    settings.LOCAL_WEBHOOK_DIR = tmp_path / "webhooks"
    _local_webhook_request(settings.LOCAL_WEBHOOK_DIR, url=f"https://{BETA_MARK}.example/hook", mark=BETA_MARK)
    now = timezone.now()
    _public_tender(FOREIGN_ID, now)
    _public_tender(COLLIDING_ID, now)
    # Inbound mails live in the public schema, one id space for all: beta's is the foreign id, alpha's the other.
    _quarantined_mail(pk=FOREIGN_ID, schema=beta.schema_name, mark=BETA_MARK, now=now)
    _quarantined_mail(pk=COLLIDING_ID, schema=alpha.schema_name, mark=ALPHA_MARK, now=now)
    users = get_user_model().objects
    with schema_context(beta.schema_name):
        beta_admin, beta_member = users.get(username=beta.admin_email), users.get(username=beta.member_email)
        for pk in (FOREIGN_ID, COLLIDING_ID):
            _seed_tenant_objects(pk=pk, mark=BETA_MARK, owner=beta_admin, tender_id=pk, now=now)
        beta_token = _preference(pk=FOREIGN_ID, user=beta_admin, mark=BETA_MARK)
        _preference(pk=COLLIDING_ID, user=beta_member, mark=BETA_MARK)
    with schema_context(alpha.schema_name):
        alpha_admin = users.get(username=alpha.admin_email)
        _seed_tenant_objects(pk=COLLIDING_ID, mark=ALPHA_MARK, owner=alpha_admin, tender_id=COLLIDING_ID, now=now)
        alpha_token = _preference(pk=COLLIDING_ID, user=alpha_admin, mark=ALPHA_MARK)
    connection.set_schema_to_public()
    alpha_api, _ = _api_client(alpha.host, alpha.schema_name, alpha.admin_email)
    beta_api, beta_key = _api_client(beta.host, beta.schema_name, beta.admin_email)
    beta_admin_client.get("/")
    return World(
        alpha_admin=alpha_admin_client,
        alpha_member=alpha_client,
        alpha_anonymous=Client(HTTP_HOST=alpha.host),
        alpha_api=alpha_api,
        beta_admin=beta_admin_client,
        beta_api=beta_api,
        calendar_tokens={"beta": beta_token, "alpha": alpha_token},
        beta_api_key=beta_key,
        beta_session=beta_admin_client.cookies["sessionid"].value,
        outbox_keys=outbox_keys,
    )


# --- the routes ---------------------------------------------------------------------------------------


def _is_public_object_route(route: Route) -> bool:
    return route.name in PUBLIC_OBJECT_ROUTES or bool(set(route.kwargs) & PUBLIC_OBJECT_KWARGS)


def _unsubscribe_token(world: World, schema: str) -> str:
    from notifications.alerts.unsubscribe import unsubscribe_token

    # The colliding id: alpha has a saved search 900002 too, so a token that ignored its schema would work.
    return unsubscribe_token(scope="search", object_id=COLLIDING_ID, schema_name=schema)


def _triage_token(world: World, schema: str) -> str:
    from django.contrib.auth import get_user_model
    from django_tenants.utils import schema_context

    from notifications.bid_links import REVIEW, triage_token

    # The tenant's admin (alpha's requests are the admin's) and the colliding id: a token that ignored its schema
    # would find alpha's person and a tender of that id.
    with schema_context(schema):
        person = get_user_model().objects.get(username=f"admin@{schema}.example")
    return triage_token(user_id=person.pk, tender_id=COLLIDING_ID, action=REVIEW, schema_name=schema)


# A valid token of the given tenant for each route with a string kwarg. A new route with a token needs an
# entry here; until then the owner-host test fails, so the route is never silently unchecked.
TOKENS = {
    "portal:calendar": lambda world, schema: world.calendar_tokens[schema],
    "alerts:unsubscribe": _unsubscribe_token,
    "portal:local-outbox-mail": lambda world, schema: world.outbox_keys[schema],
    "bids:mail-triage": _triage_token,
}


def _values(route: Route, world: World, *, object_id: int, schema: str) -> dict[str, object]:
    token_for = TOKENS.get(route.name, TOKENS["portal:calendar"])
    return {
        name: object_id if converter == "int" else token_for(world, schema) for name, converter in route.kwargs.items()
    }


def _body(response) -> str:
    content = b"".join(response.streaming_content) if response.streaming else response.content
    return content.decode("utf-8", errors="replace").lower()


def _request(client: Client, method: str, url: str):
    try:
        return getattr(client, method)(url), None
    except Exception as exc:  # a crash is reported with the route, not as the first of many errors
        return None, f"{method.upper()} {url} raised {type(exc).__name__}: {exc}"


def _client_for(world: World, route: Route, *, admin: bool = True) -> Client:
    if route.is_api:
        return world.alpha_api
    return world.alpha_admin if admin else world.alpha_member


# --- the checks (functions returning problems, so the self-test can prove they bite) ----------------------


def foreign_object_problems(world: World, routes: list[Route]) -> list[str]:
    problems = []
    for route in routes:
        if not route.kwargs or route.name in SPECIAL_ROUTES or _is_public_object_route(route):
            continue
        url = route.url(_values(route, world, object_id=FOREIGN_ID, schema="beta"))
        clients = [("admin", _client_for(world, route)), ("anonymous", world.alpha_anonymous)]
        if not route.is_api:
            clients.insert(1, ("member", world.alpha_member))
        for who, client in clients:
            allowed = DENIED | ({302, 401} if who == "anonymous" else set())
            answered = []
            # Every method: a view may guard its page and forget its form handler (405 = method not served).
            for method in ("get", "post", "put", "patch", "delete") if route.is_api else ("get", "post"):
                response, crash = _request(client, method, url)
                if crash:
                    problems.append(f"{route.name} as {who}: {crash}")
                    continue
                answered.append(response.status_code)
                if response.status_code not in allowed | {405}:
                    problems.append(f"{route.name}: {method.upper()} {url} as {who} answered {response.status_code}")
                if BETA_MARK in _body(response):
                    problems.append(f"{route.name}: {method.upper()} {url} as {who} showed beta's data")
            if answered and set(answered) == {405}:
                problems.append(f"{route.name}: neither GET nor POST is served, nothing was checked")
    return problems


def colliding_id_problems(world: World, routes: list[Route]) -> list[str]:
    problems = []
    for route in routes:
        if not route.kwargs or route.name in SPECIAL_ROUTES:
            continue
        ids = (FOREIGN_ID, COLLIDING_ID) if _is_public_object_route(route) else (COLLIDING_ID,)
        for object_id in ids:
            url = route.url(_values(route, world, object_id=object_id, schema="alpha"))
            response, crash = _request(_client_for(world, route), "get", url)
            if crash:
                problems.append(f"{route.name}: {crash}")
            elif response.status_code >= 500 or BETA_MARK in _body(response):
                problems.append(f"{route.name}: GET {url} answered {response.status_code} with beta's data or error")
    return problems


def no_object_route_problems(world: World, routes: list[Route]) -> list[str]:
    problems = []
    for route in routes:
        if route.kwargs or not route.buildable:
            continue
        url = route.url({})
        for client in {_client_for(world, route), _client_for(world, route, admin=False)}:
            response, crash = _request(client, "get", url)
            if crash:
                problems.append(f"{route.name}: {crash}")
            elif BETA_MARK in _body(response):
                problems.append(f"{route.name}: GET {url} showed beta's data ({NO_OBJECT_ROUTES.get(route.name, '')})")
    return problems


def _warm_beta(world: World, routes: list[Route]) -> set[str]:
    """Beta looks at all its pages first (filling any cache); returns the routes where beta saw its own marker."""
    showing_marker = set()
    for route in routes:
        if not route.buildable or route.name in SPECIAL_ROUTES:
            continue
        url = route.url(_values(route, world, object_id=FOREIGN_ID, schema="beta"))
        response, _ = _request(world.beta_api if route.is_api else world.beta_admin, "get", url)
        if response is not None and BETA_MARK in _body(response):
            showing_marker.add(route.name)
    return showing_marker


# --- the tests ----------------------------------------------------------------------------------------------


def test_every_tenant_model_is_seeded_with_colliding_ids():
    from django.apps import apps

    tenant_models = {m for m in apps.get_app_config("notifications").get_models() if not m._meta.proxy}
    assert tenant_models == SEEDED_MODELS, "seed the new tenant model in _seed_tenant_objects"


def test_the_walk_finds_routes_with_and_without_object_ids():
    routes = {route.name: route for route in tenant_routes()}
    assert routes["api-saved-search-detail"].kwargs == {"pk": "int"}
    assert routes["api_keys:revoke"].kwargs == {"pk": "int"}
    assert not routes["api-saved-search-list"].kwargs
    assert routes["api-not-found"].buildable
    assert routes["api-saved-search-detail"].url({"pk": 7}) == "/api/v1/saved-searches/7/"


def test_other_tenants_objects_are_not_found(world):
    routes = tenant_routes()
    seen_on_beta = _warm_beta(world, routes)
    assert seen_on_beta, "beta's own pages show its data, so the marker means something"
    assert foreign_object_problems(world, routes) == []


def test_the_same_urls_answer_on_the_owners_host(world):
    """The 404s above are isolation, not missing data: beta reaches each of these objects on its own host."""
    problems = []
    for route in tenant_routes():
        if not route.kwargs or route.name in SPECIAL_ROUTES or _is_public_object_route(route):
            continue
        url = route.url(_values(route, world, object_id=FOREIGN_ID, schema="beta"))
        client = world.beta_api if route.is_api else world.beta_admin
        response, crash = _request(client, "get", url)
        if response is not None and response.status_code == 405:
            response, crash = _request(client, "post", url)  # POST-only: it may change beta's row, rolled back
        if crash or response.status_code in {403, 404} or response.status_code >= 500:
            problems.append(f"{route.name}: {url} on beta -> {crash or response.status_code}")
    assert problems == [], "extend _seed_tenant_objects (or TOKENS) so every object route reaches a beta object"


def test_colliding_ids_never_show_the_other_tenants_object(world):
    assert colliding_id_problems(world, tenant_routes()) == []


def test_pages_without_object_ids_never_show_the_other_tenants_data(world):
    routes = tenant_routes()
    _warm_beta(world, routes)
    assert no_object_route_problems(world, routes) == []


def test_invitation_links_of_another_tenant_are_invalid(world, beta):
    from django.contrib.auth.tokens import default_token_generator
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    with schema_context(beta.schema_name):
        user = get_user_model().objects.get(username=beta.member_email)
        uid, token = urlsafe_base64_encode(force_bytes(user.pk)), default_token_generator.make_token(user)
    response = world.alpha_anonymous.get(f"/konto/einladung/{uid}/{token}/", follow=True)
    assert response.status_code in {200, 404}
    assert 'name="new_password1"' not in response.content.decode()


def test_beta_session_is_a_stranger_on_alphas_host(world):
    intruder = Client(HTTP_HOST="alpha.localhost")
    intruder.cookies["sessionid"] = world.beta_session
    for route in tenant_routes():
        if route.kwargs or not route.buildable or route.is_api:
            continue
        response, crash = _request(intruder, "get", route.url({}))
        assert crash is None, crash
        assert not response.wsgi_request.user.is_authenticated, route.name
        assert BETA_MARK not in _body(response) and ALPHA_MARK not in _body(response), route.name


def test_beta_api_key_is_a_stranger_on_alphas_host(world):
    intruder = Client(HTTP_HOST="alpha.localhost", headers={"X-Api-Key": world.beta_api_key})
    for route in tenant_routes():
        public = {"api-root", "api-schema", "api-docs", "api-not-found"}  # no tenant data behind these
        if not route.is_api or not route.buildable or route.name in public:
            continue
        url = route.url(_values(route, world, object_id=COLLIDING_ID, schema="beta"))
        # Each route is a first attempt: the lockout of a key tried again and again (django-axes, kept in the
        # database) is tested on its own (tests/notifications/api/test_throttling.py) and would answer 429 here.
        axes_reset()
        assert intruder.get(url).status_code == 401, route.name


def test_cache_entries_are_per_tenant(alpha, beta):
    connection.set_tenant(beta.tenant)
    cache.set("isolation-matrix", BETA_MARK)
    connection.set_tenant(alpha.tenant)
    assert cache.get("isolation-matrix") is None


# --- the checks bite ----------------------------------------------------------------------------------------


def _leaky_view(request, pk: int):
    from django.http import HttpResponse

    with schema_context("beta"):
        return HttpResponse(SavedSearch.objects.get(pk=pk).name)


def test_a_leaking_route_is_reported(world, settings):
    from django.urls import path

    leaky = [Route(name="leaky", template="leck/<int:pk>/", buildable=True)]
    urlpatterns = [path("leck/<int:pk>/", _leaky_view, name="leaky")]
    module = type("LeakyUrls", (), {"urlpatterns": urlpatterns})
    settings.ROOT_URLCONF = module
    problems = foreign_object_problems(world, leaky)
    assert any("answered 200" in p for p in problems) and any("beta's data" in p for p in problems)
