"""The Django project the real-application tests drive: `python manage.py migrate`, `seed`,
`runserver`. Its database lives in the folder $GOALBOT_DJANGO_DATA names (the test's own)."""

import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "site_config.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
