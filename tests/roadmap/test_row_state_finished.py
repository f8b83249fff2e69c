"""A status table row whose remaining work landed in a commit that says the work is finished, while the row still
shows an open state, is stale twice: the work (RL101) and the state (an RL401 reason on the same finding). Found
missing by a blind scenario of 2026-12-05 (an ops team's weekly status, "Soaking" after the cut-over). Controls: a
commit that lands the step without saying the whole is finished, one that says it is not finished yet, and a
state word outside the vocabulary that is not written as ongoing."""

from __future__ import annotations

import pytest

from roadmap.checks.state_contradiction import says_finished
from linted import codes_on

STATUS = "ops/status.md"


def _reasons(repo, needle: str) -> set[str]:
    return codes_on(repo, STATUS, needle, reasons=True)


def _repo(git_repo, state: str, message: str):
    repo = git_repo()
    table = (
        "# Infra status\n\n| Stream | Lead | Status | Next step |\n|---|---|---|---|\n"
        f"| Kafka 2.8 → 3.6 | Ana | {state} | Move the `orders` consumers to the 3.6 brokers and "
        "decommission the 2.8 cluster `kafka-old` |\n"
    )
    repo.commit({STATUS: table, "deploy/kafka.tf": 'brokers = "kafka-old"\n'}, "status", "2026-06-01")
    repo.commit({"deploy/kafka.tf": 'brokers = "kafka-36"\n'}, message, "2026-06-08")
    return repo


FINISHED = (
    "kafka: orders consumers on the 3.6 brokers, kafka-old decommissioned\n\nConsumer lag back to normal within "
    "a minute. The Kafka upgrade is complete."
)
STEP_ONLY = (
    "kafka: orders consumers on the 3.6 brokers, kafka-old decommissioned\n\nConsumer lag back to normal within "
    "a minute; the payments consumers follow next week."
)


@pytest.mark.parametrize("state", ["Canarying", "In progress"])
def test_an_open_row_whose_work_landed_as_finished_has_a_stale_state(git_repo, state):
    assert {"RL101", "RL401"} <= _reasons(_repo(git_repo, state, FINISHED), "Move the `orders` consumers")


def test_a_landed_step_that_does_not_finish_the_work_leaves_the_state_alone(git_repo):
    got = _reasons(_repo(git_repo, "Canarying", STEP_ONLY), "Move the `orders` consumers")
    assert "RL101" in got and "RL401" not in got


def test_a_state_outside_the_vocabulary_not_written_as_ongoing_is_not_read_as_open(git_repo):
    got = _reasons(_repo(git_repo, "Amber", FINISHED), "Move the `orders` consumers")
    assert "RL401" not in got


@pytest.mark.parametrize(
    "message,finished",
    [
        ("The PG13 -> PG15 upgrade is finished.", True),
        ("Migration complete; old tables dropped.", True),
        ("This completes the cut-over to the new region.", True),
        ("The upgrade is not finished: replicas still lag.", False),
        ("Once the soak is over we retire the old primary.", False),
        ("Almost done with the rollout.", False),
        ("done: add retries to the uploader", False),
    ],
)
def test_says_finished(message, finished):
    assert says_finished(message) is finished
