"""``/favicon.ico`` on every host: browsers ask for it where no page names an icon (JSON, the API root)."""

from django.templatetags.static import static


def test_the_company_and_the_operators_host_send_the_icon_the_pages_name(alpha, client):
    for host in ("alpha.localhost", "localhost"):
        response = client.get("/favicon.ico", HTTP_HOST=host)
        assert (response.status_code, response["Location"]) == (301, static("img/favicon.svg")), host
    assert client.post("/favicon.ico", HTTP_HOST="alpha.localhost").status_code == 405
