"""Orders by email: one private reply address per seat, SMTP/pipe/webhook in, outbox out.

Every entry point (``runsmtpd``, ``ingest_email``, the anymail inbound webhook) hands the raw
bytes to :func:`games.mail.processing.process_message`, which stores them before anything else.
"""
