"""REST API: Django REST framework with session + token auth, OpenAPI by drf-spectacular."""

from .base import env


def _rate(name: str, default: str) -> str | None:
    """A throttle rate from the environment (``120/min``); ``off`` turns it off."""
    value = env.str(name, default=default).strip()
    return None if value.lower() in ("off", "none", "") else value


REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "games.api.authentication.FastTokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # DRF's defaults, with JSON nested too deeply a 400 instead of a RecursionError, and a
    # key twice or a body not in UTF-8 a 400 in JSON and forms alike.
    "DEFAULT_PARSER_CLASSES": [
        "games.api.parsers.JSONParser",
        "games.api.parsers.FormParser",
    ],
    # JSON only: no endpoint takes files (a multipart body is a 415 before it is read),
    # and errors are JSON whatever the Accept header asks (no browsable HTML pages).
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "games.api.parsers.JSONOnlyNegotiation",
    # Per user, in the default cache (CACHE_URL shares it between machines).
    "DEFAULT_THROTTLE_RATES": {
        "orders": _rate("API_ORDERS_RATE", "120/min"),
        "games_create": _rate("API_GAMES_CREATE_RATE", "60/hour"),
        # The organizer's tools (extend, remind, pause, resume, end, privacy, a seat's
        # offer, handover and withdrawal), each capped by its service too: this bounds a
        # script's calls, a tournament's many tables included.
        "organizer": _rate("API_ORGANIZER_RATE", "120/min"),
        # A player's download of their data (the API's and the page's, counted together):
        # the whole history in one answer, a heavy read.
        "account_export": _rate("API_ACCOUNT_EXPORT_RATE", "10/hour"),
        # Changes to a player's webhook and its test pings, the API's and the page's counted
        # together (each save resolves the host, each ping makes the site call it).
        "webhook": _rate("API_WEBHOOK_RATE", "30/hour"),
        # New calendar feed addresses (a new secret each), the API's and the page's.
        "calendar": _rate("API_CALENDAR_RATE", "10/hour"),
        # Reads of one calendar feed address (no account: counted per address; calendar
        # apps refresh every 5 minutes to a few hours, a player may subscribe on several).
        "calendar_feed": _rate("API_CALENDAR_FEED_RATE", "60/hour"),
        # Unknown calendar feed addresses asked for, per client address (guesses, and the
        # refreshes of subscriptions to an address renewed or turned off since); over it
        # the client gets no calendar at all until the count falls under it.
        "calendar_feed_miss": _rate("API_CALENDAR_FEED_MISS_RATE", "60/hour"),
        # Reads of the tournaments' and games' Atom feeds, per client address.
        "feed": _rate("API_FEED_RATE", "60/min"),
    },
    "EXCEPTION_HANDLER": "games.api.exceptions.handler",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "FiveX API",
    "DESCRIPTION": "Play sealed-order board games: games, seats, orders and logs; "
    "tournaments' standings and pairings, a player's entry, and the organizer's operations "
    "(create, open, enter players, pair, start, enter results, close).",
    "VERSION": "1.0.0",
    # OpenAPI 3.1: a field that may be null (a seat view's prompt, my_order) is "oneOf: [its
    # schema, null]", which validators and generators read right (3.0's "allOf + nullable"
    # made strict validators refuse every null).
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The docs page works offline: Swagger UI's files come from drf-spectacular-sidecar.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No deep links: Swagger UI puts each operation's link inside the button that folds it
    # (a link in a button, which screen readers and keyboards cannot use apart: axe's
    # nested-interactive, serious, 42 times on the page).
    # Examples in the "idea" colours: the default "agate" writes numbers at 3.45:1 (and
    # "monokai" its keywords at 3.92:1).
    "SWAGGER_UI_SETTINGS": {"deepLinking": False, "syntaxHighlight": {"theme": "idea"}},
    # <id:...> (fivex_site.converters): an integer row id.
    # Routes also served without their trailing slash are listed once (games.api.urls).
    "PREPROCESSING_HOOKS": ["games.api.schema.slashed_only"],
    # Request bodies are documented as JSON only (a form post still works, for the
    # browser's session): client generators choked on the form variant.
    "PARSER_WHITELIST": ["rest_framework.parsers.JSONParser"],
    # Request bodies refuse unknown fields (StrictInputSerializer): the schema says so.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "games.api.schema.closed_inputs",
        "games.api.schema.conditional_gets",
        "games.api.schema.query_refusals",
        "games.api.schema.json_only",
    ],
    # Every closed set of codes an answer holds is an enum of its own, named here (a name
    # that stays when another field of the same name appears; drf-spectacular warns of a
    # set it has to name itself). Each must be the field's choices, labels included.
    "ENUM_NAME_OVERRIDES": {
        "ErrorCodeEnum": "games.api.error_codes.ERROR_CODE_CHOICES",
        "GameStatusEnum": "games.models.Game.Status",
        "GameOverStatusEnum": "games.api.serializers.GAME_OVER_STATUS_CHOICES",
        "SeatStatusEnum": "games.models.Seat.Status",
        "SeatOfferStatusEnum": "games.models.SeatOffer.Status",
        "OfferedAsEnum": "games.api.handover_serializers.OFFERED_AS",
        "OrderSourceEnum": "games.models.SealedOrder.Source",
        "RulesetEnum": "engine.ids",
        "ExportFormatEnum": "games.api.serializers.EXPORT_FORMATS",
        "TournamentStatusEnum": ["draft", "open", "running", "closed"],
        "RoundStatusEnum": "tournaments.models.Round.Status",
        "ByeKindEnum": "tournaments.models.Bye.Kind",
        "ResultSourceEnum": "tournaments.api.RESULT_SOURCES",
        "RegistrationStatusEnum": "tournaments.models.Registration.Status",
        "InvitationStateEnum": "games.api.invitation_views.INVITATION_STATES",
    },
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "maximum": 999_999_999_999_999_999}},
}
