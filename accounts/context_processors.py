from accounts.roles import user_is_tenant_admin


def tenant(request):
    current = getattr(request, "tenant", None)
    return {
        "current_tenant": current,
        # Lazy: only pages that show admin-only links pay for the group lookup.
        "is_tenant_admin": lambda: hasattr(request, "user") and user_is_tenant_admin(request.user),
    }
