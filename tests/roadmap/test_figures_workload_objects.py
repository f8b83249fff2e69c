"""A size that is the object of a sentence's opening activity ("Uploading 64 MiB to the bucket takes 3.4 s") is the
workload that was measured, not a result: RL202 does not look for it in the cited evidence, and still checks the
result said of the activity. The same in a Spanish (infinitive as subject) and a German (verbal noun) record. Found
missing by a blind scenario of 2026-12-05 (a CSV library's "Writing 10 MB back out ... takes 0.8 s"). Controls: a
finite verb's object is a result ("Uses 48 MiB"), and so are a lone figure after a word in -ing ("Timing 3.9 s")
and a rate or a ratio after a gerund ("Uploading 2.4x faster")."""

from __future__ import annotations

import json

from linted import codes_on

DOC = "docs/perf.md"
CITE = "(benchmarks/results/2026-05-02.json)"


def _repo(git_repo, lines: list[str]):
    repo = git_repo()
    repo.commit(
        {
            "roadmap.yaml": 'records:\n  - "docs/*.md"\n',
            "benchmarks/results/2026-05-02.json": json.dumps(
                {"date": "2026-05-02", "benchmarks": {"upload_64mib": {"unit": "s", "median": 3.4}}}
            ),
        },
        "bench: object store upload numbers",
        "2026-05-02",
    )
    repo.commit({DOC: "# Object store performance\n\n" + "\n\n".join(lines) + "\n"}, "docs: perf page", "2026-05-03")
    return repo


def test_the_object_of_an_opening_gerund_is_the_workload(git_repo):
    repo = _repo(git_repo, [f"Uploading 64 MiB to the bucket with `put_object()` takes 3.4 s {CITE}."])
    assert "RL202" not in codes_on(repo, DOC, "Uploading 64 MiB")


def test_the_result_said_of_the_activity_is_still_checked(git_repo):
    repo = _repo(git_repo, [f"Uploading 64 MiB to the bucket takes 2.9 s {CITE}."])
    assert "RL202" in codes_on(repo, DOC, "Uploading 64 MiB")


def test_an_infinitive_or_a_verbal_noun_as_the_subject_names_the_workload_too(git_repo):
    repo = _repo(
        git_repo,
        [
            f"Subir 64 MiB al bucket de pruebas tarda 3,4 s {CITE}.",
            f"Hochladen von 64 MiB in den Bucket dauert 3,4 s {CITE}.",
        ],
    )
    assert "RL202" not in codes_on(repo, DOC, "Subir 64 MiB")
    assert "RL202" not in codes_on(repo, DOC, "Hochladen von 64 MiB")


def test_a_finite_verbs_object_is_a_result(git_repo):
    repo = _repo(git_repo, [f"Uses 48 MiB of memory while uploading {CITE}."])
    assert "RL202" in codes_on(repo, DOC, "Uses 48 MiB")


def test_a_lone_figure_after_a_word_in_ing_is_a_result(git_repo):
    repo = _repo(git_repo, [f"Timing 3.9 s {CITE}."])
    assert "RL202" in codes_on(repo, DOC, "Timing 3.9 s")


def test_a_rate_or_a_ratio_after_a_gerund_is_what_the_activity_achieves(git_repo):
    repo = _repo(
        git_repo, [f"Uploading 2.4x faster than v1: 3.4 s {CITE}.", f"Uploading 19 MB/s, 3.4 s in all {CITE}."]
    )
    assert "RL202" in codes_on(repo, DOC, "Uploading 2.4x faster")
    assert "RL202" in codes_on(repo, DOC, "Uploading 19 MB/s")
