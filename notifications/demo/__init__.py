"""The local demo's tenant side: its saved searches, its one initial matching, its local mail.

Nothing here runs for a real tenant: every write checks that the current schema is the demo
tenant's (``DEMO_SCHEMA``) and that the settings allow the demo (``DEMO_ENABLED``, on only in
``config.settings.local``).
"""
