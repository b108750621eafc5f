"""``/api/v1/`` itself points to the docs and the schema instead of answering 404."""


def test_api_root_links_to_docs_schema_and_endpoints(alpha, client):
    response = client.get("/api/v1/", HTTP_HOST="alpha.localhost")
    assert response.status_code == 200
    data = response.json()
    assert data["docs"] == "http://alpha.localhost/api/v1/docs/"
    assert data["schema"] == "http://alpha.localhost/api/v1/schema/"
    assert data["endpoints"]["tenders"] == "http://alpha.localhost/api/v1/tenders/"
    assert data["endpoints"]["board"] == "http://alpha.localhost/api/v1/board/"
    assert data["endpoints"]["decision_reasons"] == "http://alpha.localhost/api/v1/decision-reasons/"
    assert (
        client.get(data["docs"].removeprefix("http://alpha.localhost"), HTTP_HOST="alpha.localhost").status_code == 200
    )
