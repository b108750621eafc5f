"""The request's tenant, chosen by host name, in one statement (django-tenants' middleware spends three)."""

from __future__ import annotations

from django.core.exceptions import DisallowedHost
from django.db import connection
from django.http import HttpResponseNotFound
from django_tenants.middleware.main import TenantMainMiddleware

from accounts.selectors import tenant_of_host_entered


class TenantMiddleware(TenantMainMiddleware):
    """``TenantMainMiddleware`` whose lookup also sets the search path (``tenant_of_host_entered``).

    django-tenants sets the path lazily before a connection's next statement when it does not know it
    as set (``search_path_set_schemas``, with ``TENANT_LIMIT_SET_CALLS``); after the lookup it is told
    the path its own ``SET`` would have written, so no second statement follows.
    """

    def process_request(self, request):
        try:
            hostname = self.hostname_from_request(request)
        except DisallowedHost:
            return HttpResponseNotFound()
        # The lookup names its tables with their schema: no path needs setting before it, whatever the
        # connection's is (a new connection's included).
        connection.search_path_set_schemas = connection.search_path_set_schemas or ["(lookup)"]
        tenant = tenant_of_host_entered(hostname=hostname)
        if tenant is None:
            connection.set_schema_to_public()  # the path is whatever the last request left: set it again
            return self.no_tenant_found(request, hostname)
        tenant.domain_url = hostname
        request.tenant = tenant
        connection.set_tenant(tenant)
        connection.search_path_set_schemas = connection._get_cursor_search_paths()
        self.setup_url_routing(request)
        return None
