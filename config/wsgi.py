import os

from django.core.wsgi import get_wsgi_application

from config.loaded_objects import LoadedObjectsFrozen

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

# The cycle collector leaves what the worker loads for its life alone (config.loaded_objects).
application = LoadedObjectsFrozen(get_wsgi_application())
