"""Batches on Celery workers (`goalbot batch --broker`, `goalbot worker`): jobs go out through the
broker, each job's session comes back into the coordinator's store as it happens."""
