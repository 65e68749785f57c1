"""Players' "your turn" webhooks (games.services.webhooks)."""

from .base import DEBUG, IS_PRODUCTION, env

# Plain http:// (and a loopback address) only for localhost / 127.0.0.1 / [::1]: a bot
# tried on the developer's own machine. Never in production.
WEBHOOKS_ALLOW_HTTP_LOCALHOST = env.bool("WEBHOOKS_ALLOW_HTTP_LOCALHOST", default=DEBUG) and not IS_PRODUCTION
# Seconds to connect, and for each read of the answer.
WEBHOOKS_TIMEOUT = env.float("WEBHOOKS_TIMEOUT", default=5.0)
# Failed deliveries in a row (each after its retries) that switch a webhook off.
WEBHOOKS_DISABLE_AFTER = env.int("WEBHOOKS_DISABLE_AFTER", default=20)
