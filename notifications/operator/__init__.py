"""The operator's read-only view of every tenant's outboxes (wired into the public host by ``config``)."""
