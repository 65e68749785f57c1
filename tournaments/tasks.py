"""Celery tasks of the tournaments room (thin: they call one service)."""

from __future__ import annotations

from celery import shared_task

from tournaments.services.results import results_collect


@shared_task(name="tournaments.tasks.collect_results")
def collect_results() -> int:
    """Beat: record results of finished tournament games, finish rounds, rate."""
    return results_collect()
