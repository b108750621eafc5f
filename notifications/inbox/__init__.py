"""Portal alert e-mails from each tenant's own mailbox (IMAP).

``imap`` connects and reads (read-only), ``selectors`` holds the reads, ``services`` the
check and the fan-out; parsing the mails is shared code (``sources.adapters.mail``).
"""
