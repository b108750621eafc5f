"""A developer's or newcomer's machine: debug on, embedded servers by default."""

from config.env import env_bool
from config.settings.base import *  # noqa: F403
from config.settings.base import database_settings

DEBUG = env_bool("DJANGO_DEBUG", True)
DATABASES = database_settings(allow_embedded=True)
