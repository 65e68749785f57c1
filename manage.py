#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""
import os
import sys


def main():
    """Run administrative tasks."""
    os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'fivex_site.settings')
    try:
        from django.core.management import execute_from_command_line
    except ImportError as exc:
        raise ImportError(
            "Couldn't import Django. Are you sure it's installed and "
            "available on your PYTHONPATH environment variable? Did you "
            "forget to activate a virtual environment?"
        ) from exc
    # A command that writes the site's state (migrate, collectstatic, createsuperuser, ...)
    # run without the site's environment refuses the development defaults.
    from fivex_site.deployment import refuse_an_operators_command

    refuse_an_operators_command(sys.argv)
    execute_from_command_line(sys.argv)


if __name__ == '__main__':
    main()
