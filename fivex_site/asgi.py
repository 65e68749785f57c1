"""
ASGI config for fivex_site project.

It exposes the ASGI callable as a module-level variable named ``application``.

For more information on this file, see
https://docs.djangoproject.com/en/6.1/howto/deployment/asgi/
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fivex_site.settings")

application = get_asgi_application()

from fivex_site.deployment import refuse_on_a_production_web_server  # noqa: E402 (after setup)

# Without the site's environment: refused, not a development site (fivex_site/deployment.py).
refuse_on_a_production_web_server()
