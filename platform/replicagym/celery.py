"""The Celery application, for Redis or RabbitMQ: workers start with `celery -A replicagym worker`.

(The embedded default queues episodes in the database; its workers are `manage.py worker`.)
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "replicagym.settings")

app = Celery("replicagym")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.on_configure.connect
def _make_broker_folders(sender, **kwargs):
    # the embedded file broker needs its folders before the first message
    for key in ("data_folder_in", "processed_folder", "control_folder"):
        folder = sender.conf.broker_transport_options.get(key)
        if folder:
            os.makedirs(folder, exist_ok=True)
