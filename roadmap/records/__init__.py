"""Records: markdown -> typed statements. The only view of the records that checks read.

parse_record(path, data, config) -> RecordFile
load_records(tree, config) -> list[RecordFile]   (sorted by path)
defined_ids(records) -> dict[str, Statement]     (where each row/claim id is defined)
"""

from roadmap.records.loader import defined_ids, load_records, record_paths
from roadmap.records.model import AsOf, Figure, Mentions, PathRef, Problem, RecordFile, Statement, Suppression, Table
from roadmap.records.parser import parse_record

__all__ = [
    "AsOf",
    "Figure",
    "Mentions",
    "PathRef",
    "Problem",
    "RecordFile",
    "Statement",
    "Suppression",
    "Table",
    "defined_ids",
    "load_records",
    "parse_record",
    "record_paths",
]
