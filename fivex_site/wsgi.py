"""
WSGI config for fivex_site project.

It exposes the WSGI callable as a module-level variable named ``application``.

For more information on this file, see
https://docs.djangoproject.com/en/6.1/howto/deployment/wsgi/
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fivex_site.settings")

application = get_wsgi_application()

from fivex_site.deployment import refuse_on_a_production_web_server  # noqa: E402 (after setup)

# Without the site's environment: refused, not a development site (fivex_site/deployment.py).
refuse_on_a_production_web_server()

from fivex_site.startup import freeze_start_up_objects, warm_up  # noqa: E402 (after setup)

warm_up()
freeze_start_up_objects()
