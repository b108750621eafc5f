from accounts.roles import user_shows_as_tenant_admin


def tenant(request):
    current = getattr(request, "tenant", None)
    return {
        "current_tenant": current,
        # Lazy: only pages that show admin-only links ask; the role usually came with the user (no lookup).
        "is_tenant_admin": lambda: hasattr(request, "user") and user_shows_as_tenant_admin(request.user),
    }
