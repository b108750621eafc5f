from django.db import connection
from django.http import JsonResponse


def health(request):
    """Liveness for load balancers: the database answers. No tenant data, no auth."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})
