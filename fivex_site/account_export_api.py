"""``GET /api/account/export/``: a player's data over the API, the file the page
*Account -> Your data* downloads (``fivex_site.account_export``). The serializers only
document it in the schema: the answer is the selector's dict as it is."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from fivex_site.account_export import EXPORT_FORMAT, EXPORT_VERSION, account_export
from games.api import serializers as s
from games.api.base import BaseAPIView, UserThrottle
from games.models import Game, SealedOrder, Seat, SeatOffer
from tournaments.models import Bye, Registration

When = s.WhenField


class AccountExportThrottle(UserThrottle):
    """``API_ACCOUNT_EXPORT_RATE``: downloads of a player's data, the API's GETs and the
    page's POSTs counted together (a heavy read: the whole history at once)."""

    scope = "account_export"
    methods = ("GET", "HEAD", "POST")


class EmailAddressSerializer(serializers.Serializer):
    email = serializers.EmailField()
    verified = serializers.BooleanField()
    primary = serializers.BooleanField()


class ExistsSerializer(serializers.Serializer):
    exists = serializers.BooleanField()


class ApiTokenExistsSerializer(ExistsSerializer):
    created = When(allow_null=True)


class WebhookStateSerializer(ApiTokenExistsSerializer):
    url = serializers.CharField(allow_null=True)
    active = serializers.BooleanField(allow_null=True)


class AuthenticatorAppSerializer(ApiTokenExistsSerializer):
    last_used = When(allow_null=True)


class RecoveryCodesSerializer(ExistsSerializer):
    unused = serializers.IntegerField(allow_null=True, help_text="How many are left unused.")
    last_used = When(allow_null=True)


class PasskeySerializer(serializers.Serializer):
    name = serializers.CharField()
    kind = serializers.ChoiceField(
        choices=["passkey", "security_key", "unknown"],
        help_text="passkey: logs in alone; security_key: after the password; unknown: the "
        "key did not say.",
    )
    created = When()
    last_used = When(allow_null=True)


class TrustedBrowsersSerializer(serializers.Serializer):
    kept_by_the_site = serializers.BooleanField(
        help_text="Always false: a trusted browser keeps a signed note in its own cookie."
    )
    days = serializers.IntegerField(help_text="How long a browser stays trusted.")


class TwoFactorSerializer(serializers.Serializer):
    enabled = serializers.BooleanField(
        help_text="Whether the log-in asks for a second step (an app's code or a key)."
    )
    kinds = serializers.ListField(
        child=serializers.ChoiceField(choices=["totp", "webauthn", "recovery_codes"]),
        help_text="Which kinds are on: totp (an authenticator app), webauthn (passkeys and "
        "security keys), recovery_codes.",
    )
    authenticator_app = AuthenticatorAppSerializer()
    passkeys = PasskeySerializer(many=True, help_text="Never a key's credential.")
    recovery_codes = RecoveryCodesSerializer()
    trusted_browsers = TrustedBrowsersSerializer()


class SessionSerializer(serializers.Serializer):
    logged_in = When()
    ip = serializers.CharField()
    user_agent = serializers.CharField(allow_blank=True)


class AccountSerializer(serializers.Serializer):
    player_name = serializers.CharField()
    first_name = serializers.CharField(allow_blank=True)
    last_name = serializers.CharField(allow_blank=True)
    date_joined = When()
    last_login = When(allow_null=True)
    site_administrator = serializers.BooleanField()
    email_addresses = EmailAddressSerializer(many=True)
    time_zone = serializers.CharField(allow_null=True, help_text="null: none chosen (UTC).")
    email_every_prompt = serializers.BooleanField()
    away_until = When(
        allow_null=True, help_text="The end of the last day you said you are away (null: not said)."
    )
    invitations = serializers.ChoiceField(
        choices=["anyone", "played_with", "nobody"],
        help_text="Who may invite you to a game by name.",
    )
    turn_emails = serializers.ChoiceField(
        choices=["each", "daily"], help_text="Turn emails: one per prompt, or a daily summary."
    )
    summary_hour = serializers.IntegerField(help_text="The daily summary's hour (your time zone).")
    api_token = ApiTokenExistsSerializer(help_text="Whether one exists; never its key.")
    calendar_feed = ExistsSerializer(help_text="Whether one exists; never its address.")
    webhook = WebhookStateSerializer(
        help_text="Whether one is set, its URL and whether it is on; never its signing secret."
    )
    two_factor = TwoFactorSerializer(
        help_text="Whether two-factor authentication is on; never its key or recovery codes."
    )
    sessions = SessionSerializer(
        many=True, help_text="Where the account is logged in (the Sessions page)."
    )


class ExportedGameSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()
    ruleset = s.RulesetIdField()
    status = serializers.ChoiceField(choices=Game.Status.choices)
    created_at = When()
    started_at = When(allow_null=True)
    finished_at = When(allow_null=True)


class ExportedSeatSerializer(serializers.Serializer):
    game = ExportedGameSerializer()
    seat = serializers.CharField()
    position = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(choices=Seat.Status.choices)
    joined_at = When()
    left_at = When(allow_null=True)
    email_every_prompt = serializers.BooleanField()
    result = serializers.CharField(
        allow_null=True, help_text="Where the seat finished (``2nd of 3``) once the game is over."
    )


class ExportedOrderSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    prompt = serializers.IntegerField()
    round = serializers.IntegerField()
    phase = serializers.CharField()
    seat = serializers.CharField()
    text = serializers.CharField()
    source = serializers.ChoiceField(choices=SealedOrder.Source.choices)
    submitted_at = When()
    commitment = serializers.CharField()
    salt = serializers.CharField()
    current = serializers.BooleanField(help_text="false: replaced by a later order of the seat.")


class ExportedOfferSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    game_title = serializers.CharField()
    seat = serializers.CharField()
    offered_as = serializers.ChoiceField(choices=(("organizer", "organizer"), ("staff", "staff")))
    offered_by = serializers.CharField(allow_null=True)
    status = serializers.ChoiceField(choices=SeatOffer.Status.choices)
    created_at = When()
    decided_at = When(allow_null=True)


class ExportedTournamentSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    ruleset = s.RulesetIdField()
    status = serializers.CharField()


class ExportedTableSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    table = serializers.IntegerField()
    game = serializers.IntegerField(allow_null=True)
    place = serializers.CharField(allow_null=True, help_text="null until the result is recorded.")
    result_source = serializers.CharField(allow_null=True)


class ExportedByeSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=Bye.Kind.choices)
    points = serializers.FloatField()


class ExportedRegistrationSerializer(serializers.Serializer):
    tournament = ExportedTournamentSerializer()
    status = serializers.ChoiceField(choices=Registration.Status.choices)
    registered_at = When()
    first_round = serializers.IntegerField()
    withdrawn_after_round = serializers.IntegerField(allow_null=True)
    requested_byes = serializers.ListField(child=serializers.IntegerField())
    tables = ExportedTableSerializer(many=True)
    byes = ExportedByeSerializer(many=True)


class ExportedRatingSerializer(serializers.Serializer):
    pool = serializers.CharField()
    seq = serializers.IntegerField()
    game = serializers.IntegerField(allow_null=True)
    rating_before = serializers.FloatField()
    expected = serializers.FloatField()
    actual = serializers.FloatField()
    k = serializers.FloatField()
    rating_after = serializers.FloatField()
    created_at = When()


class ExportedEmailSerializer(serializers.Serializer):
    to = serializers.EmailField()
    subject = serializers.CharField()
    kind = serializers.CharField()
    status = serializers.CharField()
    game = serializers.IntegerField(allow_null=True)
    created_at = When()
    sent_at = When(allow_null=True)


class ExportedInboundSerializer(serializers.Serializer):
    message_id = serializers.CharField(allow_blank=True)
    sender = serializers.CharField(allow_blank=True, help_text="The address in From:.")
    subject = serializers.CharField(allow_blank=True)
    game = serializers.IntegerField(allow_null=True)
    status = serializers.CharField()
    outcome = serializers.CharField(allow_blank=True)
    received_at = When()
    processed_at = When(allow_null=True)


class ExportedActionSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    seq = serializers.IntegerField()
    kind = serializers.CharField()
    at = When()


class ExportedTournamentActionSerializer(serializers.Serializer):
    tournament = serializers.CharField()
    seq = serializers.IntegerField()
    kind = serializers.CharField()
    at = When()


class ExportedOrganizedTournamentSerializer(ExportedTournamentSerializer):
    created_at = When()


class OrganizedSerializer(serializers.Serializer):
    games = ExportedGameSerializer(many=True)
    tournaments = ExportedOrganizedTournamentSerializer(many=True)
    game_actions = ExportedActionSerializer(many=True)
    tournament_actions = ExportedTournamentActionSerializer(many=True)


class ExportedTalkSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    seat = serializers.CharField(allow_blank=True, help_text="Your seat when you wrote it (\"\" as organizer).")
    text = serializers.CharField()
    created_at = When()
    removed_at = When(allow_null=True)


class AccountExportSerializer(serializers.Serializer):
    """Everything the site holds about the caller (never a password hash, a token's or
    feed's secret, a reply address, another seat's order or hand, an email's body)."""

    format = serializers.ChoiceField(choices=((EXPORT_FORMAT, EXPORT_FORMAT),))
    version = serializers.IntegerField(help_text=f"{EXPORT_VERSION}: a new one when fields change meaning.")
    exported_at = When()
    account = AccountSerializer()
    seats = ExportedSeatSerializer(many=True)
    orders = ExportedOrderSerializer(many=True, help_text="Your seats' sealed orders, with their salts.")
    seat_offers = ExportedOfferSerializer(many=True)
    tournaments = ExportedRegistrationSerializer(many=True)
    ratings = ExportedRatingSerializer(many=True)
    emails_to_you = ExportedEmailSerializer(many=True, help_text="Kept emails' headers, not their bodies.")
    emails_from_you = ExportedInboundSerializer(many=True)
    organized = OrganizedSerializer()
    table_talk = ExportedTalkSerializer(many=True, help_text="What you wrote at games' tables, removed messages too.")


class AccountExportView(BaseAPIView):
    """Everything the site holds about you, in one JSON document (the file *Account ->
    Your data* downloads): your account, seats, your own sealed orders, seat offers,
    tournament entries and results, rating history, the mail kept to and from you, what
    you organize and what you wrote at games' tables. At most ``API_ACCOUNT_EXPORT_RATE`` a user (10 an hour)."""

    throttle_classes = [AccountExportThrottle]
    # Stamped with the moment it was made: never the same answer twice, no ETag.
    conditional = False

    @extend_schema(
        operation_id="account_export",
        responses={
            200: AccountExportSerializer,
            400: OpenApiResponse(s.ErrorSerializer, description="A query parameter (it takes none)"),
            401: OpenApiResponse(s.ErrorSerializer, description="Not authenticated"),
            429: OpenApiResponse(s.ErrorSerializer, description="Too many downloads of your data"),
        },
    )
    def get(self, request: Request) -> Response:
        return Response(account_export(user=request.user))
