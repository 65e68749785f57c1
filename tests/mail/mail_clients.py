"""A corpus of replies to a turn email as real mail programs write them (Gmail, Outlook
desktop and mobile, Apple Mail and iOS, Thunderbird, Yahoo, Samsung), in the charsets and
transfer encodings they use, plus what else reaches a seat's address: auto-replies,
bounces, receipts, forwards, duplicates. Each builder takes the context of the test
(``to``: the seat's address; ``turn``: the Message-ID of the open prompt's turn email;
``old``: the one of a prompt closed since; ``thread``: the game's thread id) and returns
the raw bytes (or a list of messages, sent in turn). ``test_real_mail_clients`` sends
each through the SMTP gateway and says what must happen."""

from __future__ import annotations

import base64
import quopri
from email.utils import make_msgid


def hdr(ctx, *, subject="Re: [League 7] The game has started; your order: round 1, play",
        frm=None, extra="", irt=True):
    frm = frm or "Ann Player <ann@example.com>"
    h = (f"From: {frm}\r\nTo: {ctx['to']}\r\nSubject: {subject}\r\n"
         f"Date: Tue, 1 Dec 2026 06:20:00 +0000\r\nMessage-ID: {make_msgid(domain='mail.example.com')}\r\n"
         "MIME-Version: 1.0\r\n")
    if irt:
        h += f"In-Reply-To: {ctx['turn']}\r\nReferences: {ctx['thread']} {ctx['turn']}\r\n"
    return h + extra

QUOTE = ["League 7 — The game has started. Seating: bob, cy, ann",
         "Your order is needed by Tue 1 Dec 2026, 06:10 UTC (the legal orders are below).",
         "", "Legal orders now:", "  PLAY EXPLOIT", "  PLAY EXTERMINATE", "  PLAY EXPAND",
         "  PLAY EXPLORE", "  PLAY EXCAVATE", "",
         "Reply to this email with your order at the top (lines starting with # are ignored),",
         "-- ", "Seed commitment (SHA-256): a3c891"]


def gt(lines):
    """``lines`` quoted with "> " as most mail programs quote."""
    return "\r\n".join("> " + line if line else ">" for line in lines)


def gmail(ctx):
    plain = ("Play Explore\r\n\r\nOn Tue, Dec 1, 2026 at 6:10 AM FiveX <fivex@localhost> wrote:\r\n\r\n"
             + gt(QUOTE) + "\r\n")
    html = ('<div dir="ltr">Play Explore</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">'
            'On Tue, Dec 1, 2026 at 6:10 AM FiveX &lt;fivex@localhost&gt; wrote:<br></div>'
            '<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex">'
            + "<br>".join(QUOTE) + "</blockquote></div>\r\n")
    return (hdr(ctx) + 'Content-Type: multipart/alternative; boundary="000000000000abc"\r\n\r\n'
            "--000000000000abc\r\nContent-Type: text/plain; charset=\"UTF-8\"\r\n\r\n" + plain +
            "\r\n--000000000000abc\r\nContent-Type: text/html; charset=\"UTF-8\"\r\n"
            "Content-Transfer-Encoding: quoted-printable\r\n\r\n"
            + quopri.encodestring(html.encode()).decode() + "\r\n--000000000000abc--\r\n").encode()

def outlook_html(ctx):
    html = ('<html xmlns:o="urn:schemas-microsoft-com:office:office"><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'
            '<style><!-- p.MsoNormal {margin:0cm;} --></style></head><body lang="EN-GB">'
            '<div class="WordSection1"><p class="MsoNormal">PLAY EXPLORE<o:p></o:p></p>'
            '<p class="MsoNormal"><o:p>&nbsp;</o:p></p>'
            '<div style="border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm">'
            '<p class="MsoNormal"><b>From:</b> FiveX &lt;fivex@localhost&gt; <br><b>Sent:</b> 01 December 2026 06:10<br>'
            '<b>To:</b> ann@example.com<br><b>Subject:</b> [League 7] The game has started; your order: round 1, play<o:p></o:p></p></div>'
            + "".join(f'<p class="MsoNormal">{line}<o:p></o:p></p>' for line in QUOTE) + '</div></body></html>')
    return (hdr(ctx, extra="Thread-Topic: [League 7]\r\nThread-Index: AQHZ\r\nX-MS-Has-Attach: \r\n") +
            'Content-Type: text/html; charset="windows-1252"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n'
            + quopri.encodestring(html.encode("cp1252")).decode() + "\r\n").encode()

def outlook_plain_fromsent(ctx):
    body = ("PLAY EXPLORE\r\n\r\nRegards\r\nAnn\r\n\r\n________________________________\r\n"
            "From: FiveX <fivex@localhost>\r\nSent: Tuesday, December 1, 2026 6:10 AM\r\nTo: ann@example.com\r\n"
            "Subject: [League 7] The game has started; your order: round 1, play\r\n\r\n" + "\r\n".join(QUOTE) + "\r\n")
    return (hdr(ctx) + 'Content-Type: text/plain; charset="us-ascii"\r\nContent-Transfer-Encoding: 7bit\r\n\r\n' + body).encode()

def outlook_tnef(ctx):
    tnef = base64.encodebytes(b"\x78\x9f\x3e\x22" + bytes(range(256)) * 4).decode().replace("\n", "\r\n")
    return (hdr(ctx) + 'Content-Type: multipart/mixed; boundary="_002_"\r\n\r\n'
            '--_002_\r\nContent-Type: text/plain; charset="us-ascii"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n'
            "PLAY EXPLORE\r\n\r\n-----Original Message-----\r\nFrom: FiveX\r\n" + "\r\n".join(QUOTE) + "\r\n"
            '--_002_\r\nContent-Type: application/ms-tnef; name="winmail.dat"\r\nContent-Disposition: attachment; filename="winmail.dat"\r\n'
            "Content-Transfer-Encoding: base64\r\n\r\n" + tnef + "\r\n--_002_--\r\n").encode()

def outlook_tnef_only(ctx):
    tnef = base64.encodebytes(b"\x78\x9f\x3e\x22" + b"PLAY EXPLORE" * 20).decode().replace("\n", "\r\n")
    return (hdr(ctx) + 'Content-Type: application/ms-tnef; name="winmail.dat"\r\nContent-Disposition: attachment; filename="winmail.dat"\r\n'
            "Content-Transfer-Encoding: base64\r\n\r\n" + tnef + "\r\n").encode()

def iphone(ctx):
    body = ("Play explore \r\n\r\nSent from my iPhone\r\n\r\n> On 1 Dec 2026, at 06:10, FiveX <fivex@localhost> wrote:\r\n> \r\n"
            + gt(QUOTE) + "\r\n")
    return (hdr(ctx, extra="X-Mailer: iPhone Mail (20B101)\r\n") +
            'Content-Type: text/plain; charset=utf-8; format=flowed; delsp=yes\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n'
            + quopri.encodestring(body.encode()).decode()).encode()

def iphone_flowed_wrap(ctx):
    # the order wrapped by delsp flowing mid-word (very long line)
    body = ("PLAY EXP \r\nLORE\r\n\r\nSent from my iPhone\r\n")
    return (hdr(ctx) + 'Content-Type: text/plain; charset=us-ascii; format=flowed; delsp=yes\r\n\r\n' + body).encode()

def thunderbird(ctx):
    body = ("On 01/12/2026 06:10, FiveX wrote:\r\n" + gt(QUOTE) + "\r\n\r\nPLAY EXPLORE \r\n\r\n-- \r\nAnn Player\r\nBerlin\r\n")
    return (hdr(ctx, extra="User-Agent: Mozilla Thunderbird\r\n") +
            'Content-Type: text/plain; charset=UTF-8; format=flowed\r\nContent-Transfer-Encoding: 7bit\r\n\r\n' + body).encode()

def mobile_toppost(ctx):
    body = "play explore\r\nsorry for the late one, on the train\r\n\r\n" + "\r\n".join(QUOTE) + "\r\n"
    return (hdr(ctx) + 'Content-Type: text/plain; charset=utf-8\r\n\r\n' + body).encode()

def subject_only(ctx):
    return (hdr(ctx, subject="PLAY EXPLORE") + 'Content-Type: text/plain; charset=utf-8\r\n\r\n\r\n').encode()

def subject_only_re(ctx):
    return (hdr(ctx, subject="Re: PLAY EXPLORE") + 'Content-Type: text/plain; charset=utf-8\r\n\r\n' + "\r\n" + gt(QUOTE) + "\r\n").encode()

def qp(ctx):
    return (hdr(ctx) + 'Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n'
            "PLAY=20EXPLORE=\r\n\r\n\r\nSaludos, Jos=C3=A9\r\n").encode()

def b64(ctx):
    return (hdr(ctx) + 'Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n'
            + base64.encodebytes("PLAY EXPLORE\r\n\r\nGracias — Expedición\r\n".encode()).decode().replace("\n", "\r\n")).encode()

def latin1(ctx):
    body = "Mi orden:\r\nPLAY EXPLORE\r\n\r\nSaludos,\r\nJosé (Expedición)\r\n"
    return (hdr(ctx, subject="Re: [League 7] Expedición") + 'Content-Type: text/plain; charset=ISO-8859-1\r\nContent-Transfer-Encoding: 8bit\r\n\r\n').encode() + body.encode("latin-1")

def cp1252_smart(ctx):
    body = "\u201cPLAY EXPLORE\u201d\r\n\r\nThanks \u2013 Ann\r\n"
    return (hdr(ctx) + 'Content-Type: text/plain; charset=windows-1252\r\nContent-Transfer-Encoding: 8bit\r\n\r\n').encode() + body.encode("cp1252")

def cp1252_mislabelled(ctx):  # smart quotes labelled iso-8859-1 (very common)
    body = "\u201cPLAY EXPLORE\u201d\r\n"
    return (hdr(ctx) + 'Content-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: 8bit\r\n\r\n').encode() + body.encode("cp1252")

def nbsp(ctx):
    body = "\u00a0PLAY\u00a0EXPLORE\u00a0\r\n"
    return (hdr(ctx) + 'Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n').encode() + body.encode()

def utf8_accents_in_order(ctx):
    body = "PLAY EXPLORÉ\r\n"
    return (hdr(ctx) + 'Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n').encode() + body.encode()

def signature(ctx):
    return (hdr(ctx) + 'Content-Type: text/plain; charset=utf-8\r\n\r\nPLAY EXPLORE\r\n-- \r\nAnn Player\r\nPLAY EXPAND is my favourite\r\n').encode()

def signature_no_space(ctx):
    return (hdr(ctx) + 'Content-Type: text/plain; charset=utf-8\r\n\r\nPLAY EXPLORE\r\n--\r\nAnn Player | ACME Corp\r\nTel +49 30 1234\r\n').encode()

def lowercase(ctx):
    return (hdr(ctx) + 'Content-Type: text/plain; charset=utf-8\r\n\r\nplay explore\r\n').encode()

def trailing_punct(ctx):
    return (hdr(ctx) + 'Content-Type: text/plain; charset=utf-8\r\n\r\nPLAY EXPLORE!!\r\n').encode()

def trailing_punct2(ctx):
    return (hdr(ctx) + 'Content-Type: text/plain; charset=utf-8\r\n\r\nPLAY EXPLORE;\r\n').encode()

def trailing_punct3(ctx):
    return (hdr(ctx) + 'Content-Type: text/plain; charset=utf-8\r\n\r\nPLAY EXPLORE...\r\n').encode()

def trailing_punct4(ctx):
    return (hdr(ctx) + 'Content-Type: text/plain; charset=utf-8\r\n\r\nPLAY EXPLORE, thanks\r\n').encode()

def two_orders(ctx):
    return (hdr(ctx) + 'Content-Type: text/plain; charset=utf-8\r\n\r\nPLAY EXPLORE\r\nPLAY EXPAND\r\n').encode()

def old_turn(ctx):
    return (hdr(ctx, irt=False, extra=f"In-Reply-To: {ctx['old']}\r\nReferences: {ctx['thread']} {ctx['old']}\r\n")
            + 'Content-Type: text/plain; charset=utf-8\r\n\r\nPLAY EXPLORE\r\n').encode()

def other_from(ctx):
    return (hdr(ctx, frm="Ann at work <ann.player@work.example>") + 'Content-Type: text/plain; charset=utf-8\r\n\r\nPLAY EXPLORE\r\n').encode()

def forwarded(ctx):
    body = ("PLAY EXPLORE\r\n\r\n---------- Forwarded message ---------\r\nFrom: FiveX <fivex@localhost>\r\n"
            "Date: Tue, Dec 1, 2026 at 6:10 AM\r\nSubject: [League 7] The game has started\r\nTo: <ann@example.com>\r\n\r\n" + "\r\n".join(QUOTE) + "\r\n")
    return (hdr(ctx, subject="Fwd: [League 7] The game has started; your order: round 1, play", irt=False) + 'Content-Type: text/plain; charset=utf-8\r\n\r\n' + body).encode()

def forwarded_empty_top(ctx):
    body = ("\r\n\r\n---------- Forwarded message ---------\r\nFrom: Bob <bob@example.com>\r\n"
            "Date: Tue, Dec 1, 2026 at 6:10 AM\r\nSubject: my order\r\nTo: <ann@example.com>\r\n\r\nPLAY EXPAND\r\n")
    return (hdr(ctx, subject="Fwd: my order", irt=False) + 'Content-Type: text/plain; charset=utf-8\r\n\r\n' + body).encode()

def ooo_autosubmitted(ctx):
    return (hdr(ctx, subject="Out of Office: [League 7]", extra="Auto-Submitted: auto-replied\r\n") + 'Content-Type: text/plain; charset=utf-8\r\n\r\nI am away. PLAY EXPLORE\r\n').encode()

def ooo_xautoreply(ctx):
    return (hdr(ctx, subject="Re: [League 7]", extra="X-Autoreply: yes\r\n") + 'Content-Type: text/plain; charset=utf-8\r\n\r\nHELP\r\n').encode()

def ooo_precedence(ctx):
    return (hdr(ctx, subject="Re: [League 7]", extra="Precedence: bulk\r\n") + 'Content-Type: text/plain; charset=utf-8\r\n\r\nSTATUS\r\n').encode()

def ooo_gmail_vacation(ctx):  # Gmail vacation responder: Auto-Submitted: auto-replied ... plus typical subject
    return (hdr(ctx, subject="Vacation reply", irt=True, extra="Auto-Submitted: auto-replied (vacation)\r\n") + 'Content-Type: text/plain; charset=utf-8\r\n\r\nAWAY 2026-12-20\r\n').encode()

def ooo_exchange_no_header(ctx):  # Exchange OOF: X-MS-Exchange-Inbox-Rules-Loop absent; only subject & auto-submitted
    return (hdr(ctx, subject="Automatic reply: [League 7] The game has started", extra="X-MS-Exchange-Generated-Message-Source: Mailbox Rules Agent\r\n") + 'Content-Type: text/plain; charset=utf-8\r\n\r\nBACK\r\n').encode()

def ooo_plain_subject_only(ctx):  # a poorly written autoresponder: only subject "Away from office"
    return (hdr(ctx, subject="I am on vacation until 12 December", extra="") + 'Content-Type: text/plain; charset=utf-8\r\n\r\nI am on vacation until 12 December and will reply when back.\r\n').encode()

def dsn(ctx):
    return (hdr(ctx, frm="Mail Delivery System <MAILER-DAEMON@mx.example.com>", subject="Undelivered Mail Returned to Sender", irt=False)
            + 'Content-Type: multipart/report; report-type=delivery-status; boundary="B"\r\n\r\n'
            "--B\r\nContent-Type: text/plain\r\n\r\nThis is the mail system. PLAY EXPLORE\r\n"
            "--B\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.com\r\n\r\nFinal-Recipient: rfc822; x@y\r\nAction: failed\r\nStatus: 5.1.1\r\n"
            "--B--\r\n").encode()

def bounce_from_postmaster(ctx):  # an old-style bounce without multipart/report nor mailer-daemon (some Exchange)
    return (hdr(ctx, frm="postmaster@mx.example.com", subject="Undeliverable: [League 7]", irt=False)
            + 'Content-Type: text/plain\r\n\r\nDelivery has failed to these recipients.\r\n\r\n' + gt(QUOTE) + "\r\n").encode()

def huge(ctx):
    pad = ("A" * 76 + "\r\n") * (2 * 1024 * 1024 // 78)
    return (hdr(ctx) + 'Content-Type: multipart/mixed; boundary="H"\r\n\r\n--H\r\nContent-Type: text/plain\r\n\r\nPLAY EXPLORE\r\n'
            '--H\r\nContent-Type: image/jpeg\r\nContent-Disposition: attachment; filename="x.jpg"\r\nContent-Transfer-Encoding: base64\r\n\r\n'
            + pad + "--H--\r\n").encode()

def many_attachments(ctx):
    parts = "".join(f'--M\r\nContent-Type: image/png\r\nContent-Disposition: attachment; filename="p{i}.png"\r\nContent-Transfer-Encoding: base64\r\n\r\niVBORw0KGgo=\r\n' for i in range(30))
    return (hdr(ctx) + 'Content-Type: multipart/mixed; boundary="M"\r\n\r\n--M\r\nContent-Type: text/plain\r\n\r\nPLAY EXPLORE\r\n' + parts + "--M--\r\n").encode()

def no_text(ctx):
    return (hdr(ctx) + 'Content-Type: multipart/mixed; boundary="N"\r\n\r\n--N\r\nContent-Type: image/png\r\nContent-Disposition: attachment; filename="order.png"\r\nContent-Transfer-Encoding: base64\r\n\r\niVBORw0KGgo=\r\n--N--\r\n').encode()

def spoofed(ctx):
    return (hdr(ctx, frm="ann@example.com", extra="Authentication-Results: mx.fivex.example; dmarc=fail header.from=example.com; spf=fail smtp.mailfrom=evil.example\r\n") + 'Content-Type: text/plain\r\n\r\nPLAY EXPLORE\r\n').encode()

def away(ctx):
    return (hdr(ctx) + f'Content-Type: text/plain\r\n\r\nAWAY {ctx["day"]}\r\n').encode()

def away_lower_until(ctx):
    return (hdr(ctx) + f'Content-Type: text/plain\r\n\r\naway until {ctx["day"]}.\r\n').encode()

def away_human_date(ctx):
    return (hdr(ctx) + 'Content-Type: text/plain\r\n\r\nAWAY 5 December\r\n').encode()

def away_slash_date(ctx):
    return (hdr(ctx) + 'Content-Type: text/plain\r\n\r\nAWAY 05/12/2026\r\n').encode()

def away_colon(ctx):
    return (hdr(ctx) + f'Content-Type: text/plain\r\n\r\nAWAY: {ctx["day"]}\r\n').encode()

def away_no_day(ctx):
    return (hdr(ctx) + 'Content-Type: text/plain\r\n\r\nAWAY\r\n').encode()

def away_past(ctx):
    return (hdr(ctx) + 'Content-Type: text/plain\r\n\r\nAWAY 2020-01-01\r\n').encode()

def away_far(ctx):
    return (hdr(ctx) + 'Content-Type: text/plain\r\n\r\nAWAY 2099-01-01\r\n').encode()

def away_and_order(ctx):
    return (hdr(ctx) + f'Content-Type: text/plain\r\n\r\nPLAY EXPLORE\r\nAWAY {ctx["day"]}\r\n\r\nThanks,\r\nAnn\r\n').encode()

def back(ctx):
    return (hdr(ctx) + 'Content-Type: text/plain\r\n\r\nBack\r\n').encode()

def back_phrase(ctx):
    return (hdr(ctx) + 'Content-Type: text/plain\r\n\r\nI am back\r\n').encode()

def away_foreign(ctx):
    return (hdr(ctx, frm="mallory@evil.example") + f'Content-Type: text/plain\r\n\r\nAWAY {ctx["day"]}\r\n').encode()

def html_only_gmail_mobile(ctx):
    html = '<div dir="auto">Play explore</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Tue, 1 Dec 2026, 06:10 FiveX, &lt;fivex@localhost&gt; wrote:<br></div><blockquote class="gmail_quote">' + "<br>".join(QUOTE) + "</blockquote></div>"
    return (hdr(ctx) + 'Content-Type: text/html; charset="UTF-8"\r\n\r\n' + html + "\r\n").encode()

def outlook_mobile(ctx):
    body = ("PLAY EXPLORE\r\n\r\nGet Outlook for Android<https://aka.ms/AAb9ysg>\r\n________________________________\r\n"
            "From: FiveX <fivex@localhost>\r\nSent: Tuesday, December 1, 2026 6:10:00 AM\r\nTo: ann@example.com <ann@example.com>\r\nSubject: [League 7]\r\n\r\n" + "\r\n".join(QUOTE) + "\r\n")
    return (hdr(ctx) + 'Content-Type: text/plain; charset="us-ascii"\r\n\r\n' + body).encode()

def outlook_german(ctx):
    body = ("PLAY EXPLORE\r\n\r\nMit freundlichen Grüßen\r\nAnn\r\n\r\nVon: FiveX <fivex@localhost>\r\nGesendet: Dienstag, 1. Dezember 2026 06:10\r\nAn: ann@example.com\r\nBetreff: [League 7]\r\n\r\n" + "\r\n".join(QUOTE) + "\r\n")
    return (hdr(ctx) + 'Content-Type: text/plain; charset="utf-8"\r\nContent-Transfer-Encoding: 8bit\r\n\r\n').encode() + body.encode()

def spanish_gmail(ctx):
    body = ("Juego EXPLORE\r\n\r\nEl mar, 1 dic 2026 a las 6:10, FiveX (<fivex@localhost>) escribió:\r\n\r\n" + gt(QUOTE) + "\r\n")
    return (hdr(ctx) + 'Content-Type: text/plain; charset="UTF-8"\r\nContent-Transfer-Encoding: 8bit\r\n\r\n').encode() + body.encode()

def spanish_gmail_ok(ctx):
    body = ("PLAY EXPLORE\r\n\r\nEl mar, 1 dic 2026 a las 6:10, FiveX (<fivex@localhost>) escribió:\r\n\r\n" + gt(QUOTE) + "\r\n")
    return (hdr(ctx) + 'Content-Type: text/plain; charset="UTF-8"\r\nContent-Transfer-Encoding: 8bit\r\n\r\n').encode() + body.encode()

def order_with_card_only(ctx):
    return (hdr(ctx) + 'Content-Type: text/plain\r\n\r\nEXPLORE\r\n').encode()

def crlf_bare_cr(ctx):
    return (hdr(ctx) + 'Content-Type: text/plain\r\n\r\nPLAY EXPLORE\rThanks\r\n').encode()

def encoded_word_subject(ctx):
    return (hdr(ctx, subject="=?UTF-8?Q?Re:_Expedici=C3=B3n?=") + 'Content-Type: text/plain\r\n\r\nPLAY EXPLORE\r\n').encode()

def yahoo_quote(ctx):
    body = ("PLAY EXPLORE\r\n\r\n\r\n    On Tuesday, December 1, 2026 at 06:10:00 AM GMT, FiveX <fivex@localhost> wrote:  \r\n \r\n " + "\r\n ".join(QUOTE) + "\r\n")
    return (hdr(ctx) + 'Content-Type: text/plain; charset=UTF-8\r\n\r\n' + body).encode()

def apple_mail_html_alt(ctx):
    html = ('<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head><body dir="auto">PLAY EXPLORE<br><br><div dir="ltr">Sent from my iPhone</div><div dir="ltr"><br><blockquote type="cite">On 1 Dec 2026, at 06:10, FiveX &lt;fivex@localhost&gt; wrote:<br><br></blockquote></div><blockquote type="cite"><div dir="ltr">' + "<br>".join(QUOTE) + "</div></blockquote></body></html>")
    plain = "PLAY EXPLORE\r\n\r\nSent from my iPhone\r\n\r\n> On 1 Dec 2026, at 06:10, FiveX <fivex@localhost> wrote:\r\n> \r\n" + gt(QUOTE) + "\r\n"
    return (hdr(ctx) + 'Content-Type: multipart/alternative; boundary="Apple-Mail-1"\r\n\r\n--Apple-Mail-1\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n' + quopri.encodestring(plain.encode()).decode() +
            '\r\n--Apple-Mail-1\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n' + quopri.encodestring(html.encode()).decode() + "\r\n--Apple-Mail-1--\r\n").encode()

def signed_smime(ctx):
    return (hdr(ctx) + 'Content-Type: multipart/signed; protocol="application/pkcs7-signature"; micalg=sha-256; boundary="S"\r\n\r\n'
            '--S\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nPLAY EXPLORE\r\n--S\r\nContent-Type: application/pkcs7-signature; name="smime.p7s"\r\nContent-Disposition: attachment; filename="smime.p7s"\r\nContent-Transfer-Encoding: base64\r\n\r\nMIAGCSqGSIb3DQEHAqCAMIACAQExDzANBglghkgBZQMEAgEFADCABgkqhkiG9w0BBwEAAKCAMIIF\r\n--S--\r\n').encode()

def read_receipt(ctx):  # MDN: multipart/report report-type=disposition-notification
    return (hdr(ctx, subject="Read: [League 7]", irt=True) + 'Content-Type: multipart/report; report-type=disposition-notification; boundary="R"\r\n\r\n--R\r\nContent-Type: text/plain\r\n\r\nYour message was read.\r\n--R\r\nContent-Type: message/disposition-notification\r\n\r\nDisposition: manual-action/MDN-sent-manually; displayed\r\n--R--\r\n').encode()

def read_receipt_outlook(ctx):  # Outlook read receipt: subject "Read:" and text only, no multipart/report
    return (hdr(ctx, subject="Read: [League 7] The game has started; your order: round 1, play", irt=True) + 'Content-Type: text/plain\r\n\r\nYour message\r\n\r\n  To: ann@example.com\r\n  Subject: [League 7]\r\n\r\nwas read on 01/12/2026 06:30.\r\n').encode()

def calendar_invite(ctx):
    return (hdr(ctx) + 'Content-Type: text/calendar; method=REQUEST; charset=utf-8\r\n\r\nBEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n').encode()



def plain(ctx, body, **kw):
    return (hdr(ctx, **kw) + 'Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n').encode() + body.encode()

def dup_same_bytes(ctx):
    raw = plain(ctx, "PLAY EXPLORE\r\n")
    return [raw, raw]

def dup_redelivered_with_received(ctx):
    raw = plain(ctx, "PLAY EXPLORE\r\n")
    return [raw, b"Received: from mx2.example.com by mx.fivex.example; Tue, 1 Dec 2026 06:21:00 +0000\r\n" + raw]

def same_msgid_different_body(ctx):
    # a client/script that reuses its Message-ID: the second, different order
    mid = "<1@localhost>"
    a = plain(ctx, "PLAY EXPLORE\r\n").replace(b"Message-ID: <", b"X-Old-Id: <", 1)
    a = b"Message-ID: " + mid.encode() + b"\r\n" + a
    b = plain(ctx, "PLAY EXPAND\r\n", subject="changed my mind").replace(b"Message-ID: <", b"X-Old-Id: <", 1)
    b = b"Message-ID: " + mid.encode() + b"\r\n" + b
    return [a, b]

def two_replacing_orders(ctx):
    return [plain(ctx, "PLAY EXPLORE\r\n"), plain(ctx, "PLAY EXPAND\r\n")]

def away_bad_with_order(ctx):
    return plain(ctx, "PLAY EXPLORE\r\nAWAY 5 December\r\n")

def away_good_with_order_then_sig(ctx):
    return plain(ctx, f"PLAY EXPLORE\r\nAWAY until {ctx['day']}\r\n\r\nSent from my iPhone\r\n")

def away_in_subject(ctx):
    return plain(ctx, "\r\n", subject=f"AWAY {ctx['day']}")

def away_quoted_reply(ctx):
    return plain(ctx, f"AWAY {ctx['day']}\r\n\r\nOn Tue, Dec 1, 2026 at 6:10 AM FiveX <fivex@localhost> wrote:\r\n" + gt(QUOTE) + "\r\n")

def away_twice(ctx):
    return plain(ctx, f"AWAY {ctx['day']}\r\nAWAY {ctx['day2']}\r\n")

def away_and_back(ctx):
    return plain(ctx, f"AWAY {ctx['day']}\r\nBACK\r\n")

def strict_other_from(ctx):
    return plain(ctx, "PLAY EXPLORE\r\n", frm="ann.player@work.example")
strict_other_from.strict = True

def strict_spoofed_dmarc_fail(ctx):
    return plain(ctx, "PLAY EXPLORE\r\n", frm="ann@example.com", extra="Authentication-Results: mx.fivex.example; dmarc=fail header.from=example.com; spf=fail smtp.mailfrom=evil.example\r\n")
strict_spoofed_dmarc_fail.strict = True

def strict_ok(ctx):
    return plain(ctx, "PLAY EXPLORE\r\n", frm="Ann <ann@example.com>", extra="Authentication-Results: mx.fivex.example; dkim=pass header.d=example.com; dmarc=pass header.from=example.com\r\n")
strict_ok.strict = True

def strict_away_foreign(ctx):
    return plain(ctx, f"AWAY {ctx['day']}\r\n", frm="mallory@evil.example")
strict_away_foreign.strict = True

def html_nbsp_quotes(ctx):
    html = '<div>&nbsp;&ldquo;PLAY&nbsp;EXPLORE&rdquo;&nbsp;</div><div><br></div><div>-- <br>Ann</div>'
    return (hdr(ctx) + 'Content-Type: text/html; charset=utf-8\r\n\r\n' + html + "\r\n").encode()

def flowed_no_delsp(ctx):
    return (hdr(ctx) + 'Content-Type: text/plain; charset=utf-8; format=flowed\r\n\r\nPLAY \r\nEXPLORE\r\n\r\n-- \r\nAnn\r\n').encode()

def quoted_printable_soft_break(ctx):
    return (hdr(ctx) + 'Content-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nPLAY EXPL=\r\nORE\r\n\r\nSaludos, Jos=E9\r\n').encode()

def outlook_no_blank_before_from(ctx):
    body = ("PLAY EXPLORE\r\nFrom: FiveX <fivex@localhost>\r\nSent: Tuesday, December 1, 2026 6:10 AM\r\nTo: ann@example.com\r\nSubject: [League 7]\r\n" + "\r\n".join(QUOTE) + "\r\n")
    return plain(ctx, body)

def outlook_html_only_fromsent_no_border(ctx):
    html = ('<html><body><div>PLAY EXPLORE</div><div><br></div><hr tabindex="-1" style="display:inline-block; width:98%">'
            '<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif" style="font-size:11pt" color="#000000"><b>From:</b> FiveX &lt;fivex@localhost&gt;<br><b>Sent:</b> Tuesday, December 1, 2026 6:10 AM<br><b>To:</b> ann@example.com<br><b>Subject:</b> [League 7]</font><div>&nbsp;</div></div>'
            '<div>' + "<br>".join(QUOTE) + '</div></body></html>')
    return (hdr(ctx) + 'Content-Type: text/html; charset="iso-8859-1"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n' + html.replace("=", "=3D") + "\r\n").encode()

def read_receipt_outlook_text(ctx):
    return plain(ctx, "Your message\r\n\r\n  To: ann@example.com\r\n  Subject: [League 7]\r\n\r\nwas read on 01/12/2026 06:30.\r\n", subject="Read: [League 7] The game has started")

def not_read_receipt(ctx):
    return plain(ctx, "Your message\r\n\r\nwas deleted without being read on 01/12/2026 06:30.\r\n", subject="Not read: [League 7] The game has started")

def delivery_receipt_exchange(ctx):
    return plain(ctx, "Your message has been delivered to the following recipients:\r\n\r\nann@example.com\r\n", subject="Delivered: [League 7] The game has started")

def recall(ctx):
    return plain(ctx, "Ann Player would like to recall the message, \"[League 7]\".\r\n", subject="Recall: [League 7] The game has started")

def spanish_ooo_subject(ctx):
    return plain(ctx, "Estoy de vacaciones hasta el 12 de diciembre.\r\n", subject="Respuesta automática: [League 7]")

def ooo_away_subject_no_headers(ctx):
    return plain(ctx, "I'm away until 12 Dec with limited access to email.\r\n", subject="Away: Re: [League 7] The game has started")

def in_reply_to_confirmation(ctx):
    return plain(ctx, "PLAY EXPLORE\r\n", irt=False, extra="In-Reply-To: <179593274291.18201.3047926491341615653@orders.example>\r\n")

def reply_all_header_cc(ctx):
    raw = plain(ctx, "PLAY EXPLORE\r\n")
    return raw.replace(b"To: ", b"Cc: bob@example.com\r\nTo: ", 1)




def es_iphone(ctx):
    return plain(ctx, "Play explore\r\n\r\nEnviado desde mi iPhone\r\n\r\n> El 1 dic 2026, a las 6:10, FiveX <fivex@localhost> escribió:\r\n" + gt(QUOTE) + "\r\n")

def es_iphone_status(ctx):
    return plain(ctx, "Status\r\n\r\nEnviado desde mi iPhone\r\n")

def de_iphone_nobreak(ctx):
    return plain(ctx, "PLAY EXPLORE\r\nVon meinem iPhone gesendet\r\n")

def es_outlook_block(ctx):
    return plain(ctx, "PLAY EXPLORE\r\n\r\nDe: FiveX <fivex@localhost>\r\nEnviado: martes, 1 de diciembre de 2026 6:10\r\nPara: ann@example.com\r\nAsunto: [League 7]\r\n\r\n" + "\r\n".join(QUOTE) + "\r\n")

def fr_outlook_block(ctx):
    return plain(ctx, "PLAY EXPLORE\r\n\r\nDe : FiveX <fivex@localhost>\r\nEnvoyé : mardi 1 décembre 2026 06:10\r\nÀ : ann@example.com\r\nObjet : [League 7]\r\n\r\n" + "\r\n".join(QUOTE) + "\r\n")

def es_android_outlook(ctx):
    return plain(ctx, "PLAY EXPLORE\r\n\r\nObtener Outlook para Android<https://aka.ms/AAb9ysg>\r\n")

def samsung_es(ctx):
    return plain(ctx, "PLAY EXPLORE\r\n\r\n\r\n\r\nEnviado desde mi Galaxy\r\n\r\n\r\n-------- Mensaje original --------\r\nDe: FiveX <fivex@localhost>\r\nFecha: 1/12/26 6:10 (GMT+00:00)\r\nPara: ann@example.com\r\nAsunto: [League 7]\r\n\r\n" + "\r\n".join(QUOTE) + "\r\n")

def es_gracias_inline(ctx):
    return plain(ctx, "PLAY EXPLORE. Gracias!\r\n")

def es_saludos_dash(ctx):
    return plain(ctx, "PLAY EXPLORE\r\nSaludos\r\n")

def away_es(ctx):
    return plain(ctx, f"AWAY hasta {ctx['day']}\r\n")

def tnef_only_with_text_none(ctx):
    return (hdr(ctx) + 'Content-Type: multipart/mixed; boundary="T"\r\n\r\n--T\r\nContent-Type: application/ms-tnef; name="winmail.dat"\r\nContent-Disposition: attachment; filename="winmail.dat"\r\nContent-Transfer-Encoding: base64\r\n\r\neJ8+IgAA\r\n--T--\r\n').encode()



# Receipts and recalls that Outlook (Exchange) sends as ordinary text mail, in the
# languages it writes them in, and orders sent under Subjects that start like them.
SENT_EN = "Tuesday, December 1, 2026 6:10:00 AM (UTC+00:00) Dublin, Edinburgh, Lisbon, London"
READ_EN = "Tuesday, December 1, 2026 6:30:00 AM (UTC+00:00) Dublin, Edinburgh, Lisbon, London"
SENT_DE = "Dienstag, 1. Dezember 2026 07:10:00 (UTC+01:00) Amsterdam, Berlin, Bern, Rom, Stockholm, Wien"
READ_DE = "Dienstag, 1. Dezember 2026 07:30:00 (UTC+01:00) Amsterdam, Berlin, Bern, Rom, Stockholm, Wien"
SENT_FR = "mardi 1 décembre 2026 07:10:00 (UTC+01:00) Bruxelles, Copenhague, Madrid, Paris"
READ_FR = "mardi 1 décembre 2026 07:30:00 (UTC+01:00) Bruxelles, Copenhague, Madrid, Paris"
SENT_ES = "martes, 1 de diciembre de 2026 7:10:00 (UTC+01:00) Bruselas, Copenhague, Madrid, París"
READ_ES = "martes, 1 de diciembre de 2026 7:30:00 (UTC+01:00) Bruselas, Copenhague, Madrid, París"
TURN = "[League 7] The game has started; your order: round 1, play"


def receipt_text(lead, labels, sent, closing):
    to, subject, when = labels
    return (f"{lead}\r\n\r\n  {to} FiveX\r\n  {subject} {TURN}\r\n  {when} {sent}\r\n\r\n{closing}\r\n")

def read_receipt_exchange(ctx):
    return plain(ctx, receipt_text("Your message", ("To:", "Subject:", "Sent:"), SENT_EN, f"was read on {READ_EN}."),
                 subject=f"Read: {TURN}")

def not_read_receipt_exchange(ctx):
    return plain(ctx, receipt_text("Your message", ("To:", "Subject:", "Sent:"), SENT_EN,
                               f"was deleted without being read on {READ_EN}."), subject=f"Not read: {TURN}")

def de_read_receipt(ctx):
    return plain(ctx, receipt_text("Ihre Nachricht", ("An:", "Betreff:", "Gesendet:"), SENT_DE, f"wurde am {READ_DE} gelesen."),
                 subject=f"Gelesen: {TURN}")

def de_not_read_receipt(ctx):
    return plain(ctx, receipt_text("Ihre Nachricht", ("An:", "Betreff:", "Gesendet:"), SENT_DE,
                               f"wurde am {READ_DE} ungelesen gelöscht."), subject=f"Ungelesen: {TURN}")

def de_delivery_receipt(ctx):
    return plain(ctx, f"Ihre Nachricht wurde an folgende Empfänger übermittelt:\r\n\r\nFiveX (fivex@localhost)\r\n\r\nBetreff: {TURN}\r\n",
                 subject=f"Übermittelt: {TURN}")

def de_recall(ctx):
    return plain(ctx, f"Ann Player möchte die Nachricht \"Re: {TURN}\" zurückrufen.\r\n", subject=f"Rückruf: Re: {TURN}")

def fr_read_receipt(ctx):  # French puts a (no-break) space before the colon
    return plain(ctx, receipt_text("Votre message", ("\u00c0\u00a0:", "Objet\u00a0:", "Envoyé\u00a0:"), SENT_FR, f"a été lu le {READ_FR}."),
                 subject=f"Lu\u00a0: {TURN}")

def fr_not_read_receipt(ctx):
    return plain(ctx, receipt_text("Votre message", ("À :", "Objet :", "Envoyé :"), SENT_FR,
                               f"a été supprimé sans avoir été lu le {READ_FR}."), subject=f"Non lu : {TURN}")

def fr_delivery_receipt(ctx):
    return plain(ctx, f"Votre message a été remis aux destinataires suivants :\r\n\r\nFiveX (fivex@localhost)\r\n\r\nObjet : {TURN}\r\n",
                 subject=f"Remis : {TURN}")

def fr_recall(ctx):
    return plain(ctx, f"Ann Player souhaite rappeler le message « Re: {TURN} ».\r\n", subject=f"Rappel : Re: {TURN}")

def es_read_receipt(ctx):
    return plain(ctx, receipt_text("Su mensaje", ("Para:", "Asunto:", "Enviado:"), SENT_ES, f"se leyó el {READ_ES}."),
                 subject=f"Leído: {TURN}")

def es_not_read_receipt(ctx):
    return plain(ctx, receipt_text("Su mensaje", ("Para:", "Asunto:", "Enviado:"), SENT_ES,
                               f"se eliminó sin haberse leído el {READ_ES}."), subject=f"No leído: {TURN}")

def es_delivery_receipt(ctx):
    return plain(ctx, f"El mensaje se entregó a los siguientes destinatarios:\r\n\r\nFiveX (fivex@localhost)\r\n\r\nAsunto: {TURN}\r\n",
                 subject=f"Entregado: {TURN}")

def es_recall(ctx):
    return plain(ctx, f"Ann Player desea recuperar el mensaje \"Re: {TURN}\".\r\n", subject=f"Recuperar: Re: {TURN}")

def order_under_read_subject(ctx):
    return plain(ctx, "PLAY EXPLORE\r\n", subject="Read: my orders")

def order_under_lu_subject(ctx):
    return plain(ctx, "PLAY EXPLORE\r\n", subject="Lu : mes ordres")

def order_under_recall_subject(ctx):
    return plain(ctx, "PLAY EXPLORE\r\n\r\nThanks,\r\nAnn\r\n", subject="Recall: my last order was wrong")

def order_above_a_receipt(ctx):  # an order with a receipt's text pasted below it: the order counts
    return plain(ctx, "PLAY EXPLORE\r\n\r\n" + receipt_text("Your message", ("To:", "Subject:", "Sent:"), SENT_EN, f"was read on {READ_EN}."),
                 subject=f"Read: {TURN}")

def receipt_text_under_a_reply_subject(ctx):  # the text alone is not enough
    return plain(ctx, receipt_text("Your message", ("To:", "Subject:", "Sent:"), SENT_EN, f"was read on {READ_EN}."),
                 subject=f"Re: {TURN}")

# Commands tried in words the commands do not take, or misspelt: refused as orders, and
# the answer says how the command is written.
def away_in_words(ctx):
    return plain(ctx, "AWAY next week\r\n")

def back_in_words(ctx):
    return plain(ctx, "Back on Monday\r\n")

def status_misspelt(ctx):
    return plain(ctx, "Satus\r\n")
