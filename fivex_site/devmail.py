"""Development email (nothing configured): every message printed readably in the terminal.

Django's console backend prints the raw MIME text: quoted-printable bodies with lines cut
mid-word (a sign-up confirmation link split in two by ``=``) and encoded words in the
headers. This backend prints each message as one block: its decoded headers, its text body
as the reader sees it, and the names of any attachments. One ``write`` per message, so the
Celery worker, which sends stdout to its log, logs each email as one record.
"""

from __future__ import annotations

from email.message import EmailMessage as MimeMessage

from django.core.mail.backends import console

RULE = "-" * 79
# Message-ID and In-Reply-To too: a reply by hand to a turn email (to try orders by email
# with ``runsmtpd``) names the message it answers, as a mail program does.
HEADERS = ("From", "To", "Cc", "Reply-To", "Subject", "Message-ID", "In-Reply-To")


def readable(mime: MimeMessage) -> str:
    """The headers a reader looks at, decoded, then the plain-text body, decoded."""
    lines = ["", f"{RULE}", "Email (development: printed, not sent)"]
    for name in HEADERS:
        value = mime.get(name)
        if value:
            lines.append(f"{name}: {value}")
    body = mime.get_body(preferencelist=("plain",)) if mime.is_multipart() else mime
    lines.append("")
    if body is None:
        lines.append("(no plain-text part)")
    else:
        lines.append(body.get_content().rstrip("\n"))
    names = [part.get_filename() or part.get_content_type() for part in mime.iter_attachments()]
    if names:
        lines.append("")
        lines.append("Attachments: " + ", ".join(names))
    lines.append(RULE)
    return "\n".join(lines) + "\n"


class EmailBackend(console.EmailBackend):
    """Django's console backend, printing :func:`readable` text instead of raw MIME."""

    def write_message(self, message) -> None:  # noqa: ANN001 - a Django EmailMessage
        self.stream.write(readable(message.message()))
