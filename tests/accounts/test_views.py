import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django_tenants.utils import schema_context

from tests.fixtures.tenants import TENANT_PASSWORD


def test_sign_in_page_renders_on_tenant_host(alpha):
    response = Client(HTTP_HOST=alpha.host).get("/konto/anmelden/")
    assert response.status_code == 200
    assert "Alpha Bau GmbH" in response.content.decode()


def test_portal_requires_sign_in(alpha):
    response = Client(HTTP_HOST=alpha.host).get("/")
    assert response.status_code == 302
    assert response["Location"].startswith("/konto/anmelden/")


def test_member_signs_in_and_out_on_own_tenant(alpha):
    client = Client(HTTP_HOST=alpha.host)
    response = client.post("/konto/anmelden/", {"username": alpha.member_email, "password": TENANT_PASSWORD})
    assert response.status_code == 302
    assert client.get("/").status_code == 200
    client.post("/konto/abmelden/")
    assert client.get("/").status_code == 302


def test_user_of_one_tenant_cannot_sign_in_on_another(alpha, beta):
    client = Client(HTTP_HOST=beta.host)
    response = client.post("/konto/anmelden/", {"username": alpha.member_email, "password": TENANT_PASSWORD})
    assert response.status_code == 200  # form shown again with an error
    assert client.get("/").status_code == 302


def test_unknown_host_is_not_served(db):
    assert Client(HTTP_HOST="nobody.localhost").get("/konto/anmelden/").status_code == 404


def test_members_cannot_manage_the_team(alpha_client):
    assert alpha_client.get("/konto/team/").status_code == 403


def test_tenant_admin_invites_a_user_who_sets_a_password(alpha, alpha_admin_client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = alpha_admin_client.post("/konto/team/", {"email": "neu@alpha.example", "role": "member"})
    assert response.status_code == 302
    assert len(mail.outbox) == 1
    invite = mail.outbox[0]
    assert invite.to == ["neu@alpha.example"]
    link = re.search(r"http://alpha\.localhost(/konto/einladung/\S+/)", invite.body).group(1)

    visitor = Client(HTTP_HOST=alpha.host)
    form_page = visitor.get(link, follow=True)
    assert form_page.status_code == 200
    set_url = form_page.redirect_chain[-1][0] if form_page.redirect_chain else link
    done = visitor.post(set_url, {"new_password1": "Sehr-Geheim-2026", "new_password2": "Sehr-Geheim-2026"})
    assert done.status_code == 302
    assert (
        visitor.post("/konto/anmelden/", {"username": "neu@alpha.example", "password": "Sehr-Geheim-2026"}).status_code
        == 302
    )

    with schema_context(alpha.schema_name):
        assert get_user_model().objects.get(username="neu@alpha.example").has_usable_password()
    # The link is single-use: after the password is set, the token is void.
    assert "ungültig" in Client(HTTP_HOST=alpha.host).get(set_url).content.decode()


def test_invite_of_existing_user_is_refused(alpha, alpha_admin_client):
    response = alpha_admin_client.post("/konto/team/", {"email": alpha.member_email, "role": "member"})
    assert response.status_code == 400
    assert len(mail.outbox) == 0


@pytest.mark.parametrize("path", ["/", "/admin/login/"])
def test_public_host_serves_landing_and_operator_admin(public_client, path):
    assert public_client.get(path).status_code == 200


def test_operator_signs_in_to_admin_on_public_host_only(public_client, alpha):
    response = public_client.post(
        "/admin/login/?next=/admin/", {"username": "operator@example.org", "password": TENANT_PASSWORD}
    )
    assert response.status_code == 302
    assert public_client.get("/admin/accounts/tenant/").status_code == 200
    # The admin console does not exist on tenant hosts.
    assert Client(HTTP_HOST=alpha.host).get("/admin/").status_code == 404


def test_a_failed_sign_in_speaks_of_the_e_mail_address_not_a_user_name(alpha):
    from django.test import Client

    page = Client(HTTP_HOST="alpha.localhost").post(
        "/konto/anmelden/", {"username": "member@alpha.example", "password": "falsch"}
    )
    text = page.content.decode()
    assert "E-Mail-Adresse oder Passwort ist falsch" in text
    assert "Benutzername" not in text
