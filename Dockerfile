FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DJANGO_SETTINGS_MODULE=config.settings.production
WORKDIR /app
# Dependencies at the locked versions and hashes first (a layer that changes only with the lock).
COPY requirements.lock ./
RUN pip install --no-cache-dir --require-hashes -r requirements.lock
COPY pyproject.toml README.md ./
COPY config ./config
COPY accounts ./accounts
COPY sources ./sources
COPY tenders ./tenders
COPY notifications ./notifications
RUN pip install --no-cache-dir --no-deps .
COPY . .
# Compiled once here: with PYTHONDONTWRITEBYTECODE every process (each gunicorn worker, each ingest and its parse
# workers) would compile the project's modules from source at its start, and the image's user could not keep them.
RUN python -m compileall -q -j 0 kernel config accounts sources tenders notifications manage.py
RUN DJANGO_SECRET_KEY=build DJANGO_ALLOWED_HOSTS=build DATABASE_URL=postgres://build@localhost/build \
    REDIS_URL=redis://localhost SECRETS_ENCRYPTION_KEYS=MDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDA= \
    python manage.py collectstatic --noinput
RUN useradd --create-home radar
USER radar
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3"]
