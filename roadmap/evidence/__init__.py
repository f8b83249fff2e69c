"""Evidence: benchmark result dirs/files under the evidence root (default docs/bench-evidence).

load_evidence(tree, config) -> EvidenceStore     (entries sorted by date; by_series, by_row, get(name))
validate_result(obj) -> list[str]                 (schema "evident.bench/1": docs/evidence-schema.json)
"""

from roadmap.evidence.schema import SCHEMA, validate_result
from roadmap.evidence.store import EvidenceEntry, EvidenceStore, load_evidence, parse_name

__all__ = ["SCHEMA", "EvidenceEntry", "EvidenceStore", "load_evidence", "parse_name", "validate_result"]
