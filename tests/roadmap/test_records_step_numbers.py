"""A work item that opens with its step number ("W2.1 Generate ...", "2.3 Add ...", "Step 3: Wire ...", "P1: Port
...") asks for its work as the same item without the number does; a numbered statement of fact stays a fact."""

from __future__ import annotations

import pytest

from roadmap.config import Config
from roadmap.records.classify import Classifier

SECTIONS = ("Docs migration", "W2 — Redirects")


@pytest.mark.parametrize(
    "text",
    [
        "W2.1 Generate a redirect map from every old URL to its new page.",
        "2.3 Add the sitemap to the build.",
        "Step 3: Wire the plugin into the build.",
        "P1: Port the search index.",
    ],
)
def test_a_numbered_work_item_is_a_directive(text):
    assert Classifier(Config()).classify(text, "item", None, SECTIONS, all_struck=False).directive


@pytest.mark.parametrize(
    "text", ["W3.1 Versioned docs are opt-in for now.", "2.4 The search index is rebuilt nightly by the CI job."]
)
def test_a_numbered_fact_is_not(text):
    assert not Classifier(Config()).classify(text, "item", None, SECTIONS, all_struck=False).directive
